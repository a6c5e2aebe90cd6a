//! What the scorer needs of a run, filled by the app from the run folder (`report.json`'s
//! findings, the state's items, the cost ledger), so this crate never reads the store.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Ended, Spend};

/// Who gave the verdicts: every figure says which.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ModelSource {
    /// A scripted model (the e2e suite's mock API, a synthetic run): `name` says how it answers
    /// (`mock-api, errs haiku 25% sonnet 10% opus 0%`).
    Scripted { name: String },
    /// A real model: `name` is the main session's model id as the transcripts show it.
    Real { name: String },
}

impl ModelSource {
    /// `scripted (…)` or `real (…)`, as every figure is labelled.
    pub fn describe(&self) -> String {
        match self {
            ModelSource::Scripted { name } => format!("scripted ({name})"),
            ModelSource::Real { name } => format!("real ({name})"),
        }
    }
}

/// One finding of the run and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingResult {
    /// `report.json`'s `findings[].fingerprint`.
    pub fingerprint: String,
    /// The path as the run shows it (relative to the project's base).
    pub path: String,
    #[serde(default)]
    pub line: Option<u32>,
    /// The analyzer's rule id.
    pub rule: String,
    /// The CWE the analyzer gave it (Bandit's `issue_cwe`, a SARIF `external/cwe/cwe-78` tag).
    #[serde(default)]
    pub cwe: Option<u32>,
    /// Its diagnosis route (`security`, `dead-code`, `generic`); `None` when no agent was
    /// routed to it (decided by the known registry or a rule).
    #[serde(default)]
    pub route: Option<String>,
    /// The tier of the agent whose answer stood (`report.json`'s `ran_model`); `None` when no
    /// agent decided it.
    #[serde(default)]
    pub tier: Option<String>,
    pub ended: Ended,
    /// The items whose agents worked on it: its triage item, its batch (`tb-`), its survey
    /// (`rs-`), its verifier (`vf-`). Their spend is counted once per row of the table however
    /// many of the row's findings share them.
    #[serde(default)]
    pub items: Vec<String>,
    /// What its first look said when a second look (`vf-`) checked it; `None` without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<crate::Checked>,
}

/// A run, as the scorer reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// The run id.
    pub run: String,
    /// What the run read (`bandit 1.9.4 on <project> <version>`): every figure names it.
    pub corpus: String,
    pub model: ModelSource,
    pub findings: Vec<FindingResult>,
    /// Spend by item id (agents launched, and tokens and dollars when the cost ledger has them).
    #[serde(default)]
    pub items: BTreeMap<String, Spend>,
    /// Spend no finding owns: the main session, grouping, planning, tasks. Counted in the
    /// `all` row only.
    #[serde(default)]
    pub overhead: Spend,
    /// True when tokens and dollars were read from the transcripts (false: agents only).
    #[serde(default)]
    pub priced: bool,
    /// Seconds from the run's start to its last event.
    #[serde(default)]
    pub wall_seconds: Option<u64>,
    /// How the main session followed the dispatches; `None` when the journal was not read.
    #[serde(default)]
    pub protocol: Option<crate::Protocol>,
}
