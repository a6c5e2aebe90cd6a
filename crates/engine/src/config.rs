//! Run configuration: counts, limits and tiers, with the documented defaults.

use serde::{Deserialize, Serialize};

use crate::{ItemKind, Tier};

/// The client runs at most this many sub-agents at once; the fan-out is clamped to it.
pub const CLIENT_AGENT_LIMIT: u32 = 20;

/// Tunables of one run. Read from `.self-repair/config.json` at `start` and frozen into the
/// run's state, so a run behaves the same after the file changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Sub-agents in flight at once (default 20, the client's limit; measured: half the main-thread request bytes of 8).
    pub fan_out: u32,
    /// Blocks without progress before the hook lets the session stop and marks the run stalled.
    pub stall_blocks: u32,
    /// Minutes a dispatched item may run before it counts as failed, when the client does not
    /// report `background_tasks`.
    pub lease_minutes: u32,
    /// Competing fix plans per group.
    pub planners: u32,
    /// Review angles; one reviewer item per angle.
    pub reviewer_angles: Vec<String>,
    /// Groups with fewer findings than this are reported but not planned.
    pub min_group_size: u32,
    /// Groups with at least this many findings (or any finding on the security route) get the
    /// full plan depth: `planners` plans, a synthesis, one review per angle and the task
    /// writer. Smaller groups get one plan, one review (the first angle) and the task writer.
    pub full_plan_min: u32,
    /// Triage verdicts per aggregator slice.
    pub aggregate_batch: u32,
    /// Findings one triage agent investigates at once (a `tb-` item); 1 dispatches each
    /// finding on its own.
    pub triage_batch: u32,
    /// Rules with at least this many findings (security route aside) are surveyed first: one
    /// agent answers a policy for the whole rule (design note 26); 0 turns the survey off.
    pub survey_min: u32,
    /// Findings of a surveyed rule its agent reads, spread over files.
    pub survey_sample: u32,
    /// Findings of a rule, not in the sample, triaged on their own to check a `fix_all` or
    /// `suppress` policy; one that disagrees drops the policy.
    pub survey_spot_checks: u32,
    /// A `false_positive` or `intended` answered with a lower confidence than this is triaged
    /// again one tier up, the first answer shown as a claim to check (`vf-` item); 0 turns it
    /// off. Security dismissals always get a second opinion, and `unsure` always gets a
    /// second look.
    pub verify_below: f64,
    /// Security dismissals of one rule one second-look agent checks at once, each judged on
    /// its own (a `tb-` batch of `vf-` items); 1 sends each on its own.
    pub verify_batch: u32,
    /// Identical failures in a row, within one kind of item, that open the circuit.
    pub circuit_failures: u32,
    /// Starting model tier per kind of item (triage tiers come from the route).
    pub tiers: KindTiers,
    /// `foreground` (default: `run_in_background: false`, a batch at a time; measured on the
    /// real client to cost the main session half the context per item and half the stops) or
    /// `background` (the client's default: a worker pool, agents seen in `background_tasks`).
    /// See reference/design-notes.md.
    pub launch_mode: LaunchMode,
    /// How a dispatch continues the session: `auto` (default: per session, adapted), or always
    /// `context` or `block`.
    pub dispatch_as: DispatchAs,
    /// Plugin namespace for agent types: `self-repair:` when installed as a plugin, empty when
    /// the agents were copied into `.claude/agents` by `self-repair install`.
    pub agent_prefix: String,
    /// Classes of security finding the security route judges although they are out of scope by
    /// default (tests, denial of service, log spoofing).
    pub security_in_scope: Vec<SecurityScope>,
    /// Which files are test code (`crate::test_code_pattern`): a security finding in one is out
    /// of scope unless `security_in_scope` has `tests`, and is settled without an agent.
    pub test_paths: Vec<String>,
    /// Dollars the run may spend in all (reference/cost.md); `None`: no budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_usd: Option<f64>,
    /// Agents the run may launch in all; `None`: no cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_agents: Option<u32>,
    /// Above this likely cost (`start`'s estimate, reference/cost.md) a run started without a
    /// budget waits for the user's go (`self-repair resume --confirm`) before any dispatch;
    /// `null`: never wait.
    pub confirm_above_usd: Option<f64>,
}

impl Config {
    /// Every key `config.json` may set for a run, as serde reads them: the tables of
    /// reference/config.md and the skill's reference are checked against this list (a test
    /// fails on a key in one and not the other).
    pub const KEYS: [&'static str; 24] = [
        "fan_out",
        "stall_blocks",
        "lease_minutes",
        "planners",
        "reviewer_angles",
        "min_group_size",
        "full_plan_min",
        "aggregate_batch",
        "triage_batch",
        "survey_min",
        "survey_sample",
        "survey_spot_checks",
        "verify_below",
        "verify_batch",
        "circuit_failures",
        "tiers",
        "launch_mode",
        "dispatch_as",
        "agent_prefix",
        "security_in_scope",
        "test_paths",
        "budget_usd",
        "max_agents",
        "confirm_above_usd",
    ];
}

/// The client's continuation cap: it overrides the 9th consecutive Stop hook continuation
/// (`decision: block` or `additionalContext`) unless a tool ran in between.
pub const CLIENT_CONTINUATION_CAP: u32 = 8;

/// The most blocks without progress a run sends before it stalls: with the stall line (a
/// continuation too, in an unattended session) it stays within [`CLIENT_CONTINUATION_CAP`].
pub const MAX_STALL_BLOCKS: u32 = CLIENT_CONTINUATION_CAP - 1;

/// The longest `agent_prefix`: every launch of a dispatch names it, and a dispatch must fit the
/// client's hook text limit ([`crate::HOOK_TEXT_LIMIT`]).
pub const MAX_AGENT_PREFIX: usize = 64;

/// The default `confirm_above_usd`: see reference/config.md for why this figure.
pub const DEFAULT_CONFIRM_ABOVE_USD: f64 = 5.0;

/// A class of security finding that is out of scope unless configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecurityScope {
    /// Findings in test code.
    Tests,
    /// Denial of service: resource exhaustion, regular-expression blow-up, unbounded loops.
    Dos,
    /// Log spoofing or log injection.
    LogSpoofing,
}

impl SecurityScope {
    pub const ALL: [SecurityScope; 3] = [
        SecurityScope::Tests,
        SecurityScope::Dos,
        SecurityScope::LogSpoofing,
    ];

    /// How the security template names it.
    pub fn describe(self) -> &'static str {
        match self {
            SecurityScope::Tests => {
                "findings in test code (a file the project's `test_paths` name: its finding says \
                 `test code: yes`; a folder's name alone does not make code test code)"
            }
            SecurityScope::Dos => {
                "denial of service (resource exhaustion, ReDoS, unbounded loops or allocations)"
            }
            SecurityScope::LogSpoofing => "log spoofing or log injection",
        }
    }
}

/// How the main session launches the agents of a dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchMode {
    Background,
    #[default]
    Foreground,
}

/// How a Stop hook's dispatch continues the session (reference/design-notes.md, notes 48 and
/// 61).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DispatchAs {
    /// Per session: `additionalContext` first, `block` for a client that rejects it, and the
    /// other channel once a dispatch on one was not launched at all (`SessionChannel`).
    #[default]
    Auto,
    /// Always the Stop event's `additionalContext`: the model reads it as a system reminder,
    /// the terminal shows "Stop hook says" (no "problem" frame).
    Context,
    /// `decision: block` with the dispatch as its `reason`: the model reads it as hook
    /// feedback, which a model may follow more closely; the terminal shows every dispatch as
    /// "Stop hook reported a problem".
    Block,
}

/// Starting tier for each kind of item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KindTiers {
    pub triage: Tier,
    pub rule_survey: Tier,
    /// The second opinion on a security dismissal (a low-confidence dismissal or an `unsure`
    /// is checked one tier above the tier that answered it).
    pub verify: Tier,
    pub aggregate: Tier,
    /// The agent that joins groups whose labels name one cause (labels only: cheap).
    pub merge_labels: Tier,
    pub rule_review: Tier,
    pub plan: Tier,
    pub synthesize: Tier,
    pub review: Tier,
    pub write_task: Tier,
}

impl Default for KindTiers {
    fn default() -> Self {
        KindTiers {
            triage: Tier::Haiku,
            rule_survey: Tier::Sonnet,
            verify: Tier::Opus,
            aggregate: Tier::Sonnet,
            merge_labels: Tier::Haiku,
            rule_review: Tier::Sonnet,
            plan: Tier::Sonnet,
            synthesize: Tier::Opus,
            review: Tier::Sonnet,
            write_task: Tier::Haiku,
        }
    }
}

impl KindTiers {
    /// Every key of `tiers`, as serde reads them.
    pub const KEYS: [&'static str; 10] = [
        "triage",
        "rule_survey",
        "verify",
        "aggregate",
        "merge_labels",
        "rule_review",
        "plan",
        "synthesize",
        "review",
        "write_task",
    ];

    /// The starting tier of a kind.
    pub fn of(&self, kind: ItemKind) -> Tier {
        match kind {
            ItemKind::Triage | ItemKind::TriageBatch => self.triage,
            ItemKind::RuleSurvey => self.rule_survey,
            ItemKind::Verify => self.verify,
            ItemKind::Aggregate => self.aggregate,
            ItemKind::MergeLabels => self.merge_labels,
            ItemKind::RuleReview => self.rule_review,
            ItemKind::Plan => self.plan,
            // The revision is the synthesizer's work carried on: same tier, no key of its own.
            ItemKind::Synthesize | ItemKind::Revise => self.synthesize,
            ItemKind::Review => self.review,
            ItemKind::WriteTask => self.write_task,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            fan_out: 20,
            stall_blocks: 3,
            lease_minutes: 15,
            planners: 5,
            reviewer_angles: vec![
                "root cause vs symptom".to_owned(),
                "simplicity".to_owned(),
                "tests and regressions".to_owned(),
                "architecture and naming".to_owned(),
            ],
            min_group_size: 1,
            full_plan_min: 10,
            aggregate_batch: 40,
            triage_batch: 8,
            survey_min: 5,
            survey_sample: 6,
            survey_spot_checks: 2,
            verify_below: 0.8,
            verify_batch: 20,
            circuit_failures: 3,
            tiers: KindTiers::default(),
            launch_mode: LaunchMode::Foreground,
            dispatch_as: DispatchAs::Auto,
            agent_prefix: "self-repair:".to_owned(),
            security_in_scope: Vec::new(),
            test_paths: crate::DEFAULT_TEST_PATHS
                .iter()
                .map(|p| (*p).to_owned())
                .collect(),
            budget_usd: None,
            max_agents: None,
            confirm_above_usd: Some(DEFAULT_CONFIRM_ABOVE_USD),
        }
    }
}

/// A configuration value outside its allowed range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("config `{field}` is {value}: {expected}")]
pub struct ConfigError {
    pub field: &'static str,
    pub value: String,
    pub expected: &'static str,
}

impl Config {
    /// Checks every range; the first violation is returned with what is allowed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let check = |field: &'static str, value: u32, ok: bool, expected: &'static str| {
            if ok {
                Ok(())
            } else {
                Err(ConfigError {
                    field,
                    value: value.to_string(),
                    expected,
                })
            }
        };
        check(
            "fan_out",
            self.fan_out,
            (1..=CLIENT_AGENT_LIMIT).contains(&self.fan_out),
            "use 1 to 20 (the client runs at most 20 sub-agents at once)",
        )?;
        check(
            "stall_blocks",
            self.stall_blocks,
            (1..=MAX_STALL_BLOCKS).contains(&self.stall_blocks),
            "use 1 to 7 (the client ends a turn at its 9th continuation in a row, and the stall \
             line needs the 8th)",
        )?;
        check(
            "lease_minutes",
            self.lease_minutes,
            (1..=24 * 60).contains(&self.lease_minutes),
            "use 1 to 1440",
        )?;
        check(
            "planners",
            self.planners,
            (1..=20).contains(&self.planners),
            "use 1 to 20",
        )?;
        check(
            "min_group_size",
            self.min_group_size,
            self.min_group_size >= 1,
            "use 1 or more",
        )?;
        check(
            "full_plan_min",
            self.full_plan_min,
            self.full_plan_min >= 1,
            "use 1 or more (1: every group gets the full plan depth)",
        )?;
        check(
            "aggregate_batch",
            self.aggregate_batch,
            (2..=500).contains(&self.aggregate_batch),
            "use 2 to 500",
        )?;
        check(
            "triage_batch",
            self.triage_batch,
            (1..=50).contains(&self.triage_batch),
            "use 1 (no batching) to 50",
        )?;
        check(
            "verify_batch",
            self.verify_batch,
            (1..=50).contains(&self.verify_batch),
            "use 1 (each second look on its own) to 50",
        )?;
        check(
            "survey_min",
            self.survey_min,
            self.survey_min != 1,
            "use 0 (no survey) or 2 or more",
        )?;
        check(
            "survey_sample",
            self.survey_sample,
            (1..=40).contains(&self.survey_sample),
            "use 1 to 40",
        )?;
        check(
            "survey_spot_checks",
            self.survey_spot_checks,
            (1..=20).contains(&self.survey_spot_checks),
            "use 1 to 20",
        )?;
        check(
            "circuit_failures",
            self.circuit_failures,
            self.circuit_failures >= 2,
            "use 2 or more",
        )?;
        if !(0.0..=1.0).contains(&self.verify_below) {
            return Err(ConfigError {
                field: "verify_below",
                value: self.verify_below.to_string(),
                expected: "use a confidence from 0 (verify no dismissal by its confidence) to 1",
            });
        }
        if let Some(budget) = self.budget_usd
            && !(budget.is_finite() && budget > 0.0)
        {
            return Err(ConfigError {
                field: "budget_usd",
                value: budget.to_string(),
                expected: "use a number of dollars above 0",
            });
        }
        if let Some(above) = self.confirm_above_usd
            && !(above.is_finite() && above >= 0.0)
        {
            return Err(ConfigError {
                field: "confirm_above_usd",
                value: above.to_string(),
                expected: "use a number of dollars of 0 or more (0: always ask), or null (never ask)",
            });
        }
        if let Some(max) = self.max_agents {
            check("max_agents", max, max >= 1, "use 1 or more")?;
        }
        let patterns = self.test_paths.len() as u32;
        check(
            "test_paths",
            patterns,
            self.test_paths.len() <= crate::MOST_TEST_PATHS
                && self
                    .test_paths
                    .iter()
                    .all(|p| !p.trim().is_empty() && !p.contains('\\') && p.trim() != "/"),
            "give at most 100 non-empty path patterns written with `/` (`tests/`, `test_*.py`; [] for none)",
        )?;
        if self.agent_prefix.len() > MAX_AGENT_PREFIX {
            return Err(ConfigError {
                field: "agent_prefix",
                value: self.agent_prefix.clone(),
                expected: "use at most 64 characters (a plugin's name and `:`, or empty)",
            });
        }
        let angles = self.reviewer_angles.len() as u32;
        check(
            "reviewer_angles",
            angles,
            (1..=20).contains(&angles) && self.reviewer_angles.iter().all(|a| !a.trim().is_empty()),
            "give 1 to 20 non-empty angles",
        )?;
        Ok(())
    }

    /// Lease length in seconds.
    pub fn lease_secs(&self) -> u64 {
        u64::from(self.lease_minutes) * 60
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys serde writes for a config with every optional key set.
    fn written_keys<T: Serialize>(value: &T) -> Vec<String> {
        let mut keys: Vec<String> = serde_json::to_value(value)
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    }

    fn sorted(keys: &[&str]) -> Vec<String> {
        let mut keys: Vec<String> = keys.iter().map(|k| (*k).to_owned()).collect();
        keys.sort();
        keys
    }

    #[test]
    fn config_keys_are_the_fields_serde_reads() {
        let full = Config {
            budget_usd: Some(1.0),
            max_agents: Some(1),
            ..Config::default()
        };
        assert_eq!(written_keys(&full), sorted(&Config::KEYS));
        assert_eq!(
            written_keys(&KindTiers::default()),
            sorted(&KindTiers::KEYS)
        );
        // Each key alone is read back, and an unknown one is refused.
        let whole = serde_json::to_value(&full).unwrap();
        for key in Config::KEYS {
            let one = serde_json::json!({ key: whole[key].clone() });
            serde_json::from_value::<Config>(one).unwrap();
        }
        assert!(serde_json::from_value::<Config>(serde_json::json!({"fanout": 3})).is_err());
    }
}
