//! A run as `eval` scores it (reference/eval.md, "What the app fills"): each finding's end so
//! far, its route, the tier whose answer stood and the items that worked on it, from the run's
//! report as of now and its state; what each item cost, from its launches and the cost ledger;
//! the main session's model and the run's wall time.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use self_repair_engine::{FindingRecord, ItemKind, ItemStatus, RunState, WorkItem};
use self_repair_eval::{Checked, Ended, FindingResult, ModelSource, Protocol, RunOutcome, Spend};
use self_repair_report::{FindingOutcome, RunReport};
use self_repair_store::RunDir;

/// What `eval` reads of one run, beside the labels: its folder, its state folded, its report
/// as of now (`build_report`) and its findings (`findings.json`, same order as the report's).
pub struct OutcomeInputs<'a> {
    pub dir: &'a RunDir,
    pub state: &'a RunState,
    pub report: &'a RunReport<'a>,
    pub findings: &'a [FindingRecord],
}

/// The run as the scorer reads it, naming `corpus` and `model`.
pub fn run_outcome(inputs: &OutcomeInputs<'_>, corpus: String, model: ModelSource) -> RunOutcome {
    let OutcomeInputs {
        dir,
        state,
        report,
        findings,
    } = inputs;
    let batch_of = self_repair_engine::batch_of(state);
    let items = Items::of(state);
    let results = report
        .findings
        .iter()
        .zip(findings.iter())
        .map(|(outcome, record)| finding_result(&items, &batch_of, outcome, record))
        .collect();
    let (items, overhead) = item_spend(state, report);
    RunOutcome {
        run: report.run.clone(),
        corpus,
        model,
        findings: results,
        items,
        overhead,
        priced: report.spend.is_some(),
        wall_seconds: last_journal_time(dir).map(|last| last.saturating_sub(state.created_at)),
        protocol: protocol_of(dir, state),
    }
}

/// How the main session followed the dispatches, from the journal: each `dispatched` entry
/// opens its launches; the launches a later stop read from the transcripts close them
/// (verbatim, another model, no model, refused), a launch of an item with none open was a
/// second launch, and an entry still open when the item is dispatched again, or when the
/// journal ends, was never launched. A model is "asked" when the transcript's names it
/// (`opus` in `claude-opus-…`). `None` when the journal cannot be read.
fn protocol_of(dir: &RunDir, state: &RunState) -> Option<Protocol> {
    let text = std::fs::read_to_string(dir.journal().path()).ok()?;
    let foreground = state.config.launch_mode == self_repair_engine::LaunchMode::Foreground;
    let mut protocol = protocol_from_journal(&text, foreground);
    let records = self_repair_cost::read_records(dir.path());
    protocol.ran_other_model = ran_other_model(&text, &records);
    protocol.channels = state
        .channels
        .iter()
        .map(|c| format!("session {} {}", c.short_session(), c.describe()))
        .collect();
    Some(protocol)
}

/// The agents whose own transcript ran a model no dispatch of their item asked for (the
/// client ignored the launch's `model`): each agent of `cost.jsonl` once, by its item, against
/// the models the journal's `dispatched` lines asked for that item (`sonnet` asked matches
/// `claude-sonnet-…`).
fn ran_other_model(journal: &str, records: &[self_repair_cost::CostRecord]) -> u32 {
    let mut asked: HashMap<String, HashSet<String>> = HashMap::new();
    for line in journal.lines().filter(|l| l.contains("\"dispatched\"")) {
        let Ok(entry) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        for launch in entry["launch"].as_array().into_iter().flatten() {
            if let (Some(item), Some(model)) = (launch["item"].as_str(), launch["model"].as_str()) {
                asked
                    .entry(item.to_owned())
                    .or_default()
                    .insert(model.to_owned());
            }
        }
    }
    let mut judged: HashSet<&str> = HashSet::new();
    let mut other = 0;
    for record in records {
        let (Some(item), Some(agent)) = (record.item.as_deref(), record.agent.as_deref()) else {
            continue;
        };
        let Some(models) = asked.get(item) else {
            continue;
        };
        if !judged.insert(agent) {
            continue;
        }
        other += u32::from(!models.iter().any(|m| record.model.contains(m.as_str())));
    }
    other
}

/// The run's items by id, for a lookup a finding: a triage item by its number (as the state
/// finds it), any other (a batch, a survey, a second look) in a table made once instead of a
/// walk through the items each time.
struct Items<'a> {
    state: &'a RunState,
    others: HashMap<&'a str, &'a self_repair_engine::WorkItem>,
}

impl<'a> Items<'a> {
    fn of(state: &'a RunState) -> Items<'a> {
        let triage = (state.triage_items as usize).min(state.items.len());
        let mut others = HashMap::new();
        for item in &state.items[triage..] {
            // The first of an id, as the state's own lookup finds it.
            others.entry(item.id.as_str()).or_insert(item);
        }
        Items { state, others }
    }

    fn item(&self, id: &str) -> Option<&'a self_repair_engine::WorkItem> {
        if id.starts_with("t-") {
            return self.state.item(id);
        }
        self.others.get(id).copied()
    }
}

/// A journal line's event name, its other fields skipped unread.
#[derive(serde::Deserialize)]
struct EventName {
    #[serde(default)]
    event: Option<serde_json::Value>,
}

impl EventName {
    /// A line's event, and the line whole when it is a stop or a dispatch (`Null` for any
    /// other): the batch results of `submitted` lines are most of a large run's journal, and
    /// only their event counts here. `None` when the line does not read.
    fn read(line: &str) -> Option<(EventName, serde_json::Value)> {
        let head = serde_json::from_str::<EventName>(line).ok()?;
        let entry = match head.name() {
            Some("stop" | "dispatched") => serde_json::from_str(line).ok()?,
            _ => serde_json::Value::Null,
        };
        Some((head, entry))
    }

    fn name(&self) -> Option<&str> {
        self.event.as_ref().and_then(serde_json::Value::as_str)
    }
}

/// [`protocol_of`] on the journal's text; `foreground`: the run asked for foreground launches.
fn protocol_from_journal(text: &str, foreground: bool) -> Protocol {
    let mut protocol = Protocol::default();
    let mut open: HashMap<String, String> = HashMap::new();
    let mut moved = true;
    // The launches the stop before read, while no dispatch came after them: a stop that reads
    // the same turn again (after the finalize) shows them twice, which is no second launch.
    let mut last_read: Vec<(String, Option<String>, bool)> = Vec::new();
    for line in text.lines() {
        let Some((head, entry)) = EventName::read(line) else {
            continue;
        };
        let launches = |key: &str| -> Vec<(String, Option<String>, bool)> {
            entry
                .get(key)
                .and_then(serde_json::Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|l| {
                    let item = l.get("item")?.as_str()?.to_owned();
                    let model = l.get("model").and_then(|m| m.as_str()).map(str::to_owned);
                    Some((item, model, l.get("refused").is_some()))
                })
                .collect()
        };
        let flagged = |flag: &str| -> u32 {
            let calls = entry.get("launched").and_then(serde_json::Value::as_array);
            let count = calls
                .into_iter()
                .flatten()
                .filter(|l| l.get(flag).and_then(serde_json::Value::as_bool) == Some(true))
                .count();
            u32::try_from(count).unwrap_or(u32::MAX)
        };
        match head.name() {
            Some("submitted" | "shown") => moved = true,
            Some("stop") => {
                protocol.stops += 1;
                protocol.stops_without_progress += u32::from(!moved && protocol.stops > 1);
                moved = false;
                let read = launches("launched");
                let again = !read.is_empty() && read == last_read;
                if !again {
                    protocol.forks += flagged("fork");
                    if foreground {
                        protocol.background_in_foreground += flagged("background");
                    }
                }
                for (item, model, refused) in read.iter().filter(|_| !again).cloned() {
                    protocol.launches_read = true;
                    let Some(asked) = open.remove(&item) else {
                        protocol.launched_twice += u32::from(!refused);
                        continue;
                    };
                    match (refused, model) {
                        (true, _) => protocol.refused_by_user += 1,
                        (false, None) => protocol.model_dropped += 1,
                        (false, Some(m)) if m.contains(asked.as_str()) => protocol.verbatim += 1,
                        (false, Some(_)) => protocol.model_changed += 1,
                    }
                }
                if !read.is_empty() {
                    last_read = read;
                }
            }
            Some("dispatched") => {
                last_read.clear();
                protocol.dispatches += 1;
                for (item, model, _) in launches("launch") {
                    protocol.entries += 1;
                    let again = open.insert(item, model.unwrap_or_default());
                    protocol.not_launched += u32::from(again.is_some());
                }
            }
            _ => {}
        }
    }
    protocol.not_launched += open.len() as u32;
    protocol
}

/// One finding: how it ended, by which route and tier, and the items that worked on it.
fn finding_result(
    state: &Items<'_>,
    batch_of: &HashMap<&str, &str>,
    outcome: &FindingOutcome,
    record: &FindingRecord,
) -> FindingResult {
    let item = outcome.item.as_deref().and_then(|id| state.item(id));
    // The report says `refused` for a finding the model provider refused, `quarantined` for
    // one whose tiers ran out: abstentions counted apart.
    let mut ended = Ended::from_report(outcome.verdict.as_deref(), outcome.ended.as_deref())
        .unwrap_or(Ended::Pending);
    if ended != Ended::Refused && item.is_some_and(|i| i.status == ItemStatus::Quarantined) {
        ended = Ended::Quarantined;
    }
    let by_agent = !matches!(&*outcome.decided_by, "known" | "rule" | "test_paths");
    let verification = outcome.verification.as_ref();
    let tier = if ended == Ended::Pending || !by_agent {
        None
    } else if let Some(second) = verification.and_then(|v| v.second.as_ref()) {
        Some(second.model.clone())
    } else {
        outcome.ran_model.as_deref().map(str::to_owned).or_else(|| {
            // The agent that answered: its survey, its batch, else the item itself.
            let answered = outcome
                .survey
                .as_deref()
                .or(outcome.batch.as_deref())
                .and_then(|id| state.item(id))
                .or(item);
            answered.map(|i| tier_of(i).to_owned())
        })
    };
    // A second look checked in a batch of second looks: that batch's agent worked on it too.
    let second_batch = verification.and_then(|v| batch_of.get(v.item.as_str()));
    let items = [
        outcome.item.as_deref(),
        outcome.batch.as_deref(),
        outcome.survey.as_deref(),
        verification.map(|v| v.item.as_str()),
        second_batch.copied(),
    ]
    .into_iter()
    .flatten()
    .map(str::to_owned)
    .collect();
    FindingResult {
        fingerprint: outcome.fingerprint.to_string(),
        path: outcome.path.to_string(),
        line: outcome.line,
        rule: outcome.rule_id.to_string(),
        cwe: record.finding.raw.as_ref().and_then(cwe_of),
        route: item
            .filter(|_| by_agent)
            .and_then(|i| i.route.as_deref())
            .map(str::to_owned),
        tier,
        ended,
        items,
        checked: verification.map(|v| match v.first.verdict.as_str() {
            "real" => Checked::Real,
            "unsure" => Checked::Unsure,
            _ => Checked::Dismissal,
        }),
    }
}

/// The tier an item's latest launch ran at (the transcript's evidence), else the one it was
/// dispatched at.
fn tier_of(item: &WorkItem) -> &'static str {
    item.ran.unwrap_or(item.tier).as_str()
}

/// The CWE an analyzer gave a finding: Bandit's `cwe.id` (or a number), a SARIF tag
/// `external/cwe/cwe-78`.
fn cwe_of(raw: &serde_json::Value) -> Option<u32> {
    let number = |v: &serde_json::Value| v.as_u64().and_then(|n| u32::try_from(n).ok());
    if let Some(cwe) = raw.get("cwe") {
        return number(cwe).or_else(|| cwe.get("id").and_then(number));
    }
    raw.get("tags")?.as_array()?.iter().find_map(|tag| {
        tag.as_str()?
            .to_ascii_lowercase()
            .strip_prefix("external/cwe/cwe-")?
            .parse()
            .ok()
    })
}

/// Each item's launches (as `report.json`'s cost counts them: a batch's findings launch
/// nothing of their own) with the tokens and dollars the ledger gave it, and the spend no item
/// of the state owns (the main session's).
fn item_spend(state: &RunState, report: &RunReport) -> (BTreeMap<String, Spend>, Spend) {
    let batch_of = self_repair_engine::batch_of(state);
    let mut items: BTreeMap<String, Spend> = BTreeMap::new();
    for item in &state.items {
        let answered_alone = item.kind != ItemKind::TriageBatch
            && item.status == ItemStatus::Done
            && !batch_of.contains_key(item.id.as_str());
        let agents = item.dispatches.max(u32::from(answered_alone));
        if agents > 0 {
            items.insert(
                item.id.to_string(),
                Spend {
                    agents,
                    ..Spend::default()
                },
            );
        }
    }
    let mut overhead = Spend::default();
    let Some(spend) = &report.spend else {
        return (items, overhead);
    };
    let in_state: HashSet<&str> = state.items.iter().map(|i| i.id.as_str()).collect();
    for line in &spend.items {
        let tokens = line.usage.total_tokens();
        if in_state.contains(line.part.as_str()) {
            let entry = items.entry(line.part.clone()).or_default();
            entry.tokens += tokens;
            entry.usd += line.usd;
        } else {
            overhead += Spend {
                agents: line.agents,
                tokens,
                usd: line.usd,
            };
        }
    }
    if let Some(main) = spend
        .lines
        .iter()
        .find(|l| l.part == self_repair_cost::MAIN_SESSION)
    {
        overhead += Spend {
            agents: 0,
            tokens: main.usage.total_tokens(),
            usd: main.usd,
        };
    }
    (items, overhead)
}

/// The time of the journal's last event (Unix seconds): the last line that reads.
fn last_journal_time(dir: &RunDir) -> Option<u64> {
    let text = std::fs::read_to_string(dir.journal().path()).ok()?;
    text.lines().rev().find_map(|line| {
        serde_json::from_str::<serde_json::Value>(line)
            .ok()?
            .get("at")?
            .as_u64()
    })
}

/// The model id the main session used most (by tokens), from the cost ledger's records;
/// `None` when the hook never read its transcript.
pub fn main_session_model(dir: &RunDir) -> Option<String> {
    let mut tokens: BTreeMap<String, u64> = BTreeMap::new();
    for record in self_repair_cost::read_records(dir.path()) {
        if record.part == self_repair_cost::MAIN_SESSION {
            *tokens.entry(record.model).or_default() += record.usage.total_tokens();
        }
    }
    tokens
        .into_iter()
        .max_by_key(|(_, t)| *t)
        .map(|(model, _)| model)
}

/// What the run read, when `eval` is not told: its analyzers and the project's folder name
/// (`bandit on bottle`).
pub fn default_corpus(report: &RunReport, root: &Path) -> String {
    let mut tools: Vec<&str> = report.findings.iter().map(|f| &*f.tool).collect();
    tools.sort_unstable();
    tools.dedup();
    let project = root.file_name().map_or_else(
        || root.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    format!("{} on {project}", tools.join(", "))
}

#[cfg(test)]
mod tests {
    /// A known answer: two dispatches of three launches each; the session launches one
    /// verbatim, one without `model`, one on another model, launches one twice, never launches
    /// one (dispatched again later) and has one refused; two stops moved nothing; the last
    /// stop reads the turn before it again (no second launch).
    #[test]
    fn protocol_figures_count_each_launch_against_its_dispatch() {
        let journal = [
            r#"{"at":1,"event":"stop","launched":[]}"#,
            r#"{"at":1,"event":"dispatched","launch":[{"item":"t-1","model":"sonnet"},{"item":"t-2","model":"sonnet"},{"item":"t-3","model":"opus"}]}"#,
            r#"{"at":2,"event":"stop","launched":[{"item":"t-1","model":"sonnet"},{"item":"t-2"},{"item":"t-3","model":"claude-haiku-4-5"}]}"#,
            r#"{"at":3,"event":"stop","launched":[{"item":"t-1","model":"sonnet"}]}"#,
            r#"{"at":3,"event":"dispatched","launch":[{"item":"t-4","model":"haiku"},{"item":"t-5","model":"haiku"},{"item":"t-6","model":"haiku"}]}"#,
            r#"{"at":4,"event":"submitted","item":"t-4","result":{}}"#,
            r#"{"at":4,"event":"stop","launched":[{"item":"t-4","model":"claude-haiku-4-5"},{"item":"t-5","refused":"user-rejected"}]}"#,
            r#"{"at":4,"event":"dispatched","launch":[{"item":"t-6","model":"haiku"}]}"#,
            r#"{"at":5,"event":"stop","launched":[{"item":"t-6","model":"haiku"}]}"#,
            r#"{"at":5,"event":"stop","launched":[{"item":"t-6","model":"haiku"}]}"#,
            "not json",
        ]
        .join("\n");
        let p = protocol_from_journal(&journal, true);
        assert_eq!(
            p,
            Protocol {
                launches_read: true,
                stops: 6,
                stops_without_progress: 4,
                dispatches: 3,
                entries: 7,
                verbatim: 3,
                model_changed: 1,
                model_dropped: 1,
                not_launched: 1,
                refused_by_user: 1,
                launched_twice: 1,
                ..Protocol::default()
            }
        );
        assert!(
            p.summary()
                .starts_with("3 dispatches, 7 launches asked: 3 verbatim"),
            "{}",
            p.summary()
        );
        let unread = protocol_from_journal(
            r#"{"at":1,"event":"dispatched","launch":[{"item":"t-1","model":"sonnet"}]}"#,
            true,
        );
        assert!(!unread.launches_read);
        assert!(
            unread.summary().contains("launches not read"),
            "{}",
            unread.summary()
        );
    }

    /// A known answer for the launches the client altered: a fork (no `subagent_type`), a
    /// launch run in the background though the run is foreground (counted only there), and an
    /// agent whose own transcript ran opus where sonnet was asked (its second record, and an
    /// agent on the asked model, count nothing).
    #[test]
    fn launches_the_client_altered_are_counted_each_once() {
        let journal = [
            r#"{"at":1,"event":"dispatched","launch":[{"item":"t-1","model":"sonnet"},{"item":"t-2","model":"haiku"}],"channel":"context","why":"the default"}"#,
            r#"{"at":2,"event":"stop","launched":[{"item":"t-1","model":"sonnet","fork":true},{"item":"t-2","model":"haiku","background":true}]}"#,
        ]
        .join("\n");
        let foreground = protocol_from_journal(&journal, true);
        assert_eq!(
            (foreground.forks, foreground.background_in_foreground),
            (1, 1)
        );
        let background = protocol_from_journal(&journal, false);
        assert_eq!(
            (background.forks, background.background_in_foreground),
            (1, 0)
        );
        let record = |item: &str, agent: &str, model: &str| self_repair_cost::CostRecord {
            part: "triage".into(),
            item: Some(item.into()),
            agent: Some(agent.into()),
            model: model.into(),
            usage: self_repair_transcript::Usage::default(),
            usd: None,
        };
        let records = [
            record("t-1", "a1", "claude-opus-5-5"),
            record("t-1", "a1", "claude-opus-5-5"),
            record("t-2", "a2", "claude-haiku-5-5"),
            record("t-9", "a9", "claude-opus-5-5"),
        ];
        assert_eq!(super::ran_other_model(&journal, &records), 1);
        let mut said = foreground;
        said.launches_read = true;
        said.channels = vec![
            "session 1a2b3c4d block (an additionalContext dispatch was never launched)".into(),
        ];
        let line = said.summary();
        assert!(
            line.contains("1 fork(s) without subagent_type")
                && line.contains("1 in the background in a foreground run")
                && line.ends_with("; channel: session 1a2b3c4d block (an additionalContext dispatch was never launched)"),
            "{line}"
        );
    }

    use serde_json::json;

    use super::{Protocol, cwe_of, protocol_from_journal};

    #[test]
    fn a_findings_cwe_is_read_from_bandit_and_from_sarif_tags() {
        assert_eq!(
            cwe_of(
                &json!({"cwe": {"id": 502, "link": "https://cwe.mitre.org/data/definitions/502.html"}})
            ),
            Some(502)
        );
        assert_eq!(cwe_of(&json!({"cwe": 78})), Some(78));
        assert_eq!(
            cwe_of(&json!({"tags": ["security", "external/cwe/cwe-022"]})),
            Some(22)
        );
        assert_eq!(cwe_of(&json!({"tags": ["maintainability"]})), None);
        assert_eq!(cwe_of(&json!({"cwe": null})), None);
    }
}
