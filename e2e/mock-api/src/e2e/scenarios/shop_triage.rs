//! The scripted model of the fix-loop scenarios' triage session on the `shop` fixture
//! (tests/fixtures/fix-loop): which root cause each finding has, the verdicts, one group per
//! cause, and tasks whose acceptance criteria the fix loop can verify.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::show_output::ShowOutput;

/// One root cause of the fixture's findings; each gets its own group and task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Cause {
    /// Ruff F541 in `shop/report.py`: Ruff's own safe fix, so code writes the task.
    FString,
    /// Ruff E711 in `shop/pricing.py`.
    NoneCompare,
    /// Ruff E712 in `shop/inventory.py`.
    TrueCompare,
    /// vulture: `legacy_summary` in `shop/report.py`, really dead.
    LegacyReport,
    /// vulture: `csv_report` in `shop/report.py`, reached by name through `render()`: a false
    /// positive, unless the scripted triage gets it wrong.
    CsvReport,
}

impl Cause {
    pub(super) const ALL: [Cause; 5] = [
        Cause::FString,
        Cause::NoneCompare,
        Cause::TrueCompare,
        Cause::LegacyReport,
        Cause::CsvReport,
    ];

    /// What a finding's line in a prompt holds for this cause (its rule, or its symbol).
    pub(super) fn marker(self) -> &'static str {
        match self {
            Cause::FString => "F541",
            Cause::NoneCompare => "E711",
            Cause::TrueCompare => "E712",
            Cause::LegacyReport => "legacy_summary",
            Cause::CsvReport => "csv_report",
        }
    }

    /// The triage root cause and the group label (one label per cause: one group each).
    fn label(self) -> &'static str {
        match self {
            Cause::FString => "f-strings without placeholders",
            Cause::NoneCompare => "None compared with ==",
            Cause::TrueCompare => "True compared with ==",
            Cause::LegacyReport => "dead legacy report",
            Cause::CsvReport => "csv report reached only by name",
        }
    }

    /// The task writer's title (F541's task is written by code: "Apply ruff's safe fixes for
    /// F541 ..."); each holds the cause's marker.
    fn title(self) -> &'static str {
        match self {
            Cause::FString => "Apply ruff's safe fixes for F541",
            Cause::NoneCompare => "Compare the discount to None with is (E711)",
            Cause::TrueCompare => "Check the active flag with is True (E712)",
            Cause::LegacyReport => "Delete the unused legacy_summary report",
            Cause::CsvReport => "Delete the unused csv_report",
        }
    }

    /// The task writer's acceptance criteria: the analyzer's and the tests', which the fix
    /// loop ticks when its check proves them.
    fn criteria(self) -> Value {
        let analyzer = match self {
            Cause::FString | Cause::NoneCompare | Cause::TrueCompare => format!(
                "Ruff reports no {} finding in the files of this task",
                self.marker()
            ),
            Cause::LegacyReport | Cause::CsvReport => {
                format!("vulture no longer reports {} as unused", self.marker())
            }
        };
        json!([analyzer, "The project's tests pass"])
    }

    /// The cause of the finding `id` in `prompt`: its line (`t-00001 path:line tool RULE ...` in
    /// a triage task, `t-00001 | tool rule | path:line | message | ...` elsewhere) and the
    /// indented lines under it (a triage task puts the message there).
    pub(super) fn of_finding(prompt: &str, id: &str) -> Option<Cause> {
        let lines: Vec<&str> = prompt.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.split_whitespace().next() == Some(id))?;
        let under = lines[at + 1..]
            .iter()
            .take_while(|l| l.starts_with(' '))
            .copied();
        let block: Vec<&str> = std::iter::once(lines[at]).chain(under).collect();
        let block = block.join("\n");
        Cause::ALL.into_iter().find(|c| block.contains(c.marker()))
    }
}

/// The item ids an array field of a schema enumerates (`/properties/verdicts/items/...`).
fn enumerated(schema: &Value, pointer: &str) -> Vec<String> {
    schema
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A triage verdict for a finding of `cause`: `real`, except `csv_report` when the triage gets
/// it right (a false positive: `render()` reaches it by name).
fn verdict(cause: Cause, csv_is_real: bool) -> Value {
    if cause == Cause::CsvReport && !csv_is_real {
        return json!({"confidence": 0.9, "verdict": "false_positive", "root_cause": cause.label(),
            "reason": "render() calls csv_report through globals() by name; vulture cannot see that use"});
    }
    json!({"confidence": 0.9, "verdict": "real", "root_cause": cause.label(),
        "reason": format!("scripted: read the code; {} is a real defect", cause.marker())})
}

/// The scripted model of the triage session: verdicts by cause, one group per cause, and tasks
/// whose criteria the fix loop can verify.
pub(super) fn triage_results(show: &ShowOutput, csv_is_real: bool) -> Option<Value> {
    let prompt = show.raw.get("prompt")?.as_str()?;
    match show.kind.as_str() {
        "triage" => Some(verdict(Cause::of_finding(prompt, &show.item)?, csv_is_real)),
        "triage_batch" => {
            let ids = enumerated(
                &show.output_schema,
                "/properties/verdicts/items/properties/item/enum",
            );
            let verdicts: Option<Vec<Value>> = ids
                .iter()
                .map(|id| {
                    let mut v = verdict(Cause::of_finding(prompt, id)?, csv_is_real);
                    v["item"] = json!(id);
                    Some(v)
                })
                .collect();
            Some(json!({ "verdicts": verdicts? }))
        }
        "aggregate" => {
            let ids = enumerated(
                &show.output_schema,
                "/properties/groups/items/properties/items/items/enum",
            );
            let mut groups: BTreeMap<Cause, Vec<String>> = BTreeMap::new();
            for id in ids {
                groups
                    .entry(Cause::of_finding(prompt, &id)?)
                    .or_default()
                    .push(id);
            }
            let groups: Vec<Value> = groups
                .into_iter()
                .map(|(cause, items)| {
                    json!({"label": cause.label(), "root_cause": cause.label(), "items": items})
                })
                .collect();
            Some(json!({ "groups": groups }))
        }
        "write_task" => {
            let cause = Cause::ALL.into_iter().find(|c| {
                prompt
                    .lines()
                    .any(|l| l.starts_with("t-") && l.contains(c.marker()))
            })?;
            Some(json!({
                "title": cause.title(),
                "description": format!("Fix the {} findings in the code itself, as the plan says.", cause.label()),
                "acceptance_criteria": cause.criteria(),
            }))
        }
        _ => None,
    }
}
