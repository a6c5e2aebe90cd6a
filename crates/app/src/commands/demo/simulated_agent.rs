//! The demo's built-in SIMULATED agent: it answers every item through the same `show`/`submit`
//! protocol a sub-agent uses, but decides with fixed rules over the finding's fields instead of
//! reading code with a model. It exists to show the pipeline, not to triage anything.

use std::collections::BTreeMap;

use self_repair_engine::{FindingRecord, ItemKind, ItemStatus, RunState, Verdict, WorkItem};
use serde_json::{Value, json};

use crate::commands::show::ShowOutput;

/// Answers items of one run.
pub struct SimulatedAgent<'a> {
    pub state: &'a RunState,
    pub findings: &'a [FindingRecord],
}

impl SimulatedAgent<'_> {
    /// The submission text for the item `show` rendered.
    pub fn answer(&self, shown: &ShowOutput) -> String {
        let Some(item) = self.state.item(&shown.item) else {
            return String::new();
        };
        match item.kind {
            ItemKind::Triage => self.triage(item).to_string(),
            ItemKind::TriageBatch => {
                let verdicts: Vec<Value> = item
                    .inputs()
                    .iter()
                    .filter_map(|id| {
                        let mut verdict = self.triage(self.state.item(id)?);
                        verdict["item"] = json!(id);
                        Some(verdict)
                    })
                    .collect();
                json!({ "verdicts": verdicts }).to_string()
            }
            ItemKind::RuleSurvey => self.survey(item).to_string(),
            // A second opinion that agrees with the first.
            ItemKind::Verify => item
                .inputs()
                .first()
                .and_then(|id| self.state.item(id))
                .map(|first| self.triage(first).to_string())
                .unwrap_or_default(),
            ItemKind::Aggregate => self.aggregate(item).to_string(),
            // The simulated aggregators already use one label per cause.
            ItemKind::MergeLabels => json!({ "merges": [] }).to_string(),
            ItemKind::RuleReview => self.rule_review().to_string(),
            ItemKind::Plan => format!(
                "## Plan {} (simulated)\n\nChange the code at every listed location so the analyzer no longer reports it, \
                 then run the analyzer and the test suite. Planner emphasis: {}.",
                item.id,
                match item.id.rsplit('-').next() {
                    Some("1") => "smallest safe change",
                    Some("2") => "fix the root cause",
                    Some("3") => "prevent recurrence with a lint or test",
                    _ => "simplest code",
                }
            ),
            ItemKind::Synthesize => json!({
                "scores": item.inputs().iter().enumerate().map(|(i, p)| json!({
                    "plan": p, "correctness": 4, "simplicity": 5 - (i % 3), "scope": 4,
                    "tests": 3, "regression_risk": 4})).collect::<Vec<_>>(),
                "plan": format!("## Merged plan for group {} (simulated)\n\nTake the smallest safe change of plan 1 and the regression test of plan 3.",
                                item.group.unwrap_or(0)),
            })
            .to_string(),
            // The first angle asks for one change, so the demo shows the revise step.
            ItemKind::Review if item.id.ends_with("-1") => format!(
                "## Verdict\napprove with changes, the plan names no regression test (simulated, {}).\n\n\
                 ## Must fix\n1. The Tests step: name a test that fails before the change and passes after it.\n\n\
                 ## Checked\nThe listed locations.",
                item.id
            ),
            ItemKind::Review => format!(
                "## Verdict\napprove (simulated, {}).\n\n## Must fix\nnone\n\n## Checked\nThe plan fixes the cause at each location.",
                item.id
            ),
            ItemKind::Revise => json!({
                "plan": format!("## Summary (simulated)\nThe merged plan of group {}, revised after its reviews.\n\n\
                                 ## Changes\n1. Change the code at every listed location.\n\n\
                                 ## Tests\nA test that fails before the change and passes after it.",
                                item.group.unwrap_or(0)),
                "points": item.inputs().iter().map(|p| json!({"point": p, "outcome": "applied",
                    "how": "(simulated) the Tests step now names the test"})).collect::<Vec<_>>(),
            })
            .to_string(),
            ItemKind::WriteTask => self.write_task(item).to_string(),
        }
    }

    fn record(&self, item: &WorkItem) -> Option<&FindingRecord> {
        self.findings.get(item.finding? as usize)
    }

    fn triage(&self, item: &WorkItem) -> Value {
        let Some(record) = self.record(item) else {
            return json!({});
        };
        let f = &record.finding;
        let confidence = f
            .raw
            .as_ref()
            .and_then(|r| r.get("confidence"))
            .and_then(Value::as_f64);
        let (verdict, cause, reason) = if confidence.is_some_and(|c| c < 70.0) {
            (
                Verdict::FalsePositive,
                "low-confidence dead code report".to_owned(),
                format!(
                    "{} reported it with {}% confidence only",
                    f.tool,
                    confidence.unwrap_or(0.0)
                ),
            )
        } else if item.route.as_deref() == Some("dead-code") {
            (
                Verdict::Real,
                "unused code".to_owned(),
                format!(
                    "{} found no use of {}",
                    f.tool,
                    f.symbol.as_deref().unwrap_or("it")
                ),
            )
        } else if item.route.as_deref() == Some("security") {
            (
                Verdict::Real,
                "unsafe subprocess use".to_owned(),
                format!("{} {} flags a risky call", f.tool, f.rule_id),
            )
        } else {
            (
                Verdict::Real,
                format!("{} {}", f.tool, f.rule_id),
                format!("the code does what {} {} describes", f.tool, f.rule_id),
            )
        };
        json!({"verdict": verdict.as_str(), "root_cause": cause, "confidence": 0.9,
               "reason": format!("(simulated) {reason}")})
    }

    /// Dead-code rules need a look at each finding; any other rule is fixed everywhere, with
    /// the root cause its triage would give.
    fn survey(&self, item: &WorkItem) -> Value {
        let rule = item
            .inputs()
            .first()
            .and_then(|id| self.state.item(id))
            .and_then(|i| self.record(i))
            .map(|r| format!("{} {}", r.finding.tool, r.finding.rule_id))
            .unwrap_or_default();
        if item.route.as_deref() == Some("dead-code") {
            return json!({"policy": "triage_each",
                "reason": "(simulated) unused-code reports need each use checked"});
        }
        json!({"policy": "fix_all", "root_cause": rule,
            "reason": format!("(simulated) every sampled finding is what {rule} describes")})
    }

    fn aggregate(&self, item: &WorkItem) -> Value {
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for id in item.inputs() {
            let cause = self
                .state
                .item(id)
                .and_then(|i| i.root_cause.as_deref())
                .unwrap_or("other")
                .to_owned();
            groups.entry(cause).or_default().push(id.to_string());
        }
        json!({"groups": groups.into_iter().map(|(label, items)| json!({
            "label": label, "root_cause": format!("(simulated) findings caused by {label}"), "items": items
        })).collect::<Vec<_>>()})
    }

    fn rule_review(&self) -> Value {
        let mut by_rule: BTreeMap<(String, String), Vec<(&WorkItem, Verdict)>> = BTreeMap::new();
        for item in &self.state.items[..self.state.triage_items as usize] {
            if let (Some(record), Some(verdict), ItemStatus::Done) =
                (self.record(item), item.verdict, item.status)
            {
                by_rule
                    .entry((record.finding.tool.clone(), record.finding.rule_id.clone()))
                    .or_default()
                    .push((item, verdict));
            }
        }
        let rules: Vec<Value> = by_rule
            .into_iter()
            .filter(|(_, v)| v.len() >= 2 && v.iter().all(|(_, verdict)| *verdict == v[0].1))
            .map(|((tool, rule), v)| json!({
                "name": format!("{tool} {rule} is always {}", v[0].1.as_str()),
                "when": {"tool": tool, "rule_id": rule},
                "verdict": v[0].1.as_str(),
                "reason": "(simulated) every finding of this rule got the same verdict in this run",
                "evidence": v.iter().map(|(i, _)| i.id.clone()).collect::<Vec<_>>(),
            }))
            .collect();
        json!({ "rules": rules })
    }

    fn write_task(&self, item: &WorkItem) -> Value {
        let Some(group) = item
            .group
            .and_then(|g| self.state.groups.get(g as usize - 1))
        else {
            return json!({});
        };
        let mut title = format!("Fix {}", group.label);
        if title.chars().count() > 69 {
            title = title.chars().take(66).collect::<String>() + "...";
        }
        let mut criteria: Vec<String> = group
            .members
            .iter()
            .take(10)
            .filter_map(|id| self.state.item(id))
            .filter_map(|i| self.record(i))
            .map(|r| {
                let f = &r.finding;
                let at = f
                    .line
                    .map_or_else(|| f.path.clone(), |l| format!("{}:{l}", f.path));
                format!("{} {} no longer reports {at}", f.tool, f.rule_id)
            })
            .collect();
        criteria.push("A test covers the changed behaviour".to_owned());
        let mut labels: Vec<String> = group
            .members
            .iter()
            .filter_map(|id| self.state.item(id))
            .filter_map(|i| self.record(i))
            .map(|r| {
                r.finding
                    .tool
                    .to_ascii_lowercase()
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                    .collect::<String>()
            })
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_alphanumeric()))
            .collect();
        labels.sort();
        labels.dedup();
        json!({
            "title": title,
            "description": format!("(simulated) {} finding(s) share one root cause: {}. Apply the merged plan of group {}.",
                                   group.members.len(), group.root_cause, group.id),
            "acceptance_criteria": criteria,
            "labels": labels,
            "priority": "medium",
        })
    }
}
