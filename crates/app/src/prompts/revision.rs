//! What the reviews asked of a group's plan and what the revise step made of it, read back from
//! the run's result files: the revise step's prompt lists the asks, the task writer's prompt and
//! the task file's `## Implementation Plan` show the revised plan and each ask's outcome
//! (design note 35).

use std::collections::BTreeMap;

use self_repair_engine::{PointOutcome, ReviewAsks, ReviseResult};
use self_repair_store::RunDir;

/// The revise step's result for a group.
#[derive(Debug, Clone)]
pub(crate) struct Revision {
    /// The id of the revise item (`rv-g1`).
    pub(crate) item: String,
    pub(crate) plan: String,
    /// Each ask's outcome and how, by ask id.
    pub(crate) points: BTreeMap<String, (PointOutcome, String)>,
}

impl Revision {
    /// The revise step's result for group `gid` (`g1`), when an agent wrote one.
    pub(crate) fn of(dir: &RunDir, gid: &str) -> Option<Revision> {
        let item = format!("rv-{gid}");
        let result: ReviseResult = serde_json::from_str(&dir.read_result(&item, "json")?).ok()?;
        Some(Revision {
            item,
            plan: result.plan,
            points: result
                .points
                .into_iter()
                .map(|p| (p.point, (p.outcome, p.how)))
                .collect(),
        })
    }

    /// `Applied: how` for an ask, as one line.
    pub(crate) fn outcome_line(&self, ask: &str) -> Option<String> {
        self.points
            .get(ask)
            .map(|(outcome, how)| format!("{}: {}", outcome_word(*outcome), one_line(how)))
    }
}

/// What review `id` asks, from its result file; `None` without one.
pub(crate) fn review_asks(dir: &RunDir, id: &str) -> Option<ReviewAsks> {
    dir.read_result(id, "md").map(|text| ReviewAsks::of(&text))
}

fn outcome_word(outcome: PointOutcome) -> &'static str {
    match outcome {
        PointOutcome::Applied => "Applied",
        PointOutcome::Partly => "Partly applied",
        PointOutcome::NotApplied => "Not applied",
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
