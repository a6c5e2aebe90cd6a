//! What a repair run checks and how hard it tries: the command, its limits and tiers, frozen into
//! the run when it starts. Options come from the command line, then the named check in
//! `.self-repair/config.json`, then the defaults.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::{ClassRule, FixTier, RepairError};

/// Default fix attempts.
pub(crate) const DEFAULT_MAX_ATTEMPTS: u32 = 5;
/// Default seconds one run of the check may take.
pub(crate) const DEFAULT_TIMEOUT_SECS: f64 = 120.0;
/// Default identical failures in a row that open the circuit.
pub(crate) const DEFAULT_CIRCUIT_BREAKER: u32 = 3;
/// Default first backoff, in seconds; it doubles, capped at [`BACKOFF_CAP_MS`].
pub(crate) const DEFAULT_BACKOFF_SECS: f64 = 2.0;
/// Longest backoff between transient reruns.
pub(crate) const BACKOFF_CAP_MS: u64 = 60_000;
/// Default seconds the Stop hook may spend running the check itself: below the 30 s timeout
/// `install` registers. A longer check is run by `self-repair tick`, which the hook asks for.
pub(crate) const DEFAULT_HOOK_BUDGET_SECS: f64 = 25.0;
/// Transient reruns of one step before the failure is treated as fixable.
pub(crate) const DEFAULT_TRANSIENT_RETRIES: u32 = 3;

/// Options given on the command line (all optional but the command, which may come from the
/// config).
#[derive(Debug, Clone, Default)]
pub struct CheckRequest {
    /// The named check in `.self-repair/config.json` (`checks.<name>`).
    pub name: Option<String>,
    pub run_id: Option<String>,
    /// The check's argv (empty: take it from the named check).
    pub command: Vec<String>,
    pub autofix: Option<Vec<String>>,
    pub max_attempts: Option<u32>,
    pub timeout_secs: Option<f64>,
    pub circuit_breaker: Option<u32>,
    pub tiers: Option<String>,
    pub backoff_secs: Option<f64>,
    pub hook_budget_secs: Option<f64>,
    /// Project-relative files that are never the repair's change (a `fix` task's triage run's
    /// findings files): left out of the hand-off's diff.
    pub exclude: Vec<String>,
}

/// `checks.<name>` in `.self-repair/config.json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub autofix: Option<Vec<String>>,
    #[serde(default)]
    pub max_attempts: Option<u32>,
    /// Short form: `retry: N` is `max_attempts: N + 1`.
    #[serde(default)]
    pub retry: Option<u32>,
    #[serde(default)]
    pub timeout: Option<f64>,
    #[serde(default)]
    pub circuit_breaker: Option<u32>,
    #[serde(default)]
    pub tiers: Option<String>,
    #[serde(default)]
    pub backoff: Option<f64>,
    #[serde(default)]
    pub hook_budget: Option<f64>,
    #[serde(default)]
    pub transient_retries: Option<u32>,
    /// Extra classification rules, checked before the built-in ones.
    #[serde(default)]
    pub classify: Vec<ClassRule>,
}

/// The frozen settings of one repair run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckSpec {
    pub name: Option<String>,
    pub command: Vec<String>,
    pub autofix: Option<Vec<String>>,
    pub max_attempts: u32,
    pub timeout_ms: u64,
    pub circuit_breaker: u32,
    pub tiers: Vec<FixTier>,
    pub backoff_ms: u64,
    pub hook_budget_ms: u64,
    pub transient_retries: u32,
    pub classify: Vec<ClassRule>,
    /// Agent type prefix: `self-repair:` for the plugin, empty after `self-repair install`.
    pub agent_prefix: String,
    /// Project-relative files that are never the repair's change (`CheckRequest::exclude`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

impl CheckSpec {
    /// The tier of attempt `n` (1-based): the n-th entry, the last one after the list ends.
    pub fn tier_of(&self, n: u32) -> FixTier {
        let index = (n.saturating_sub(1) as usize).min(self.tiers.len().saturating_sub(1));
        self.tiers.get(index).copied().unwrap_or(FixTier::Main)
    }

    /// The command as one line, for people (never run through a shell).
    pub fn command_line(&self) -> String {
        shell_words(&self.command)
    }

    /// Backoff before transient rerun `k` (1-based): doubles from the initial, capped.
    pub fn backoff_before(&self, k: u32) -> u64 {
        let factor = 1u64 << k.saturating_sub(1).min(20);
        self.backoff_ms.saturating_mul(factor).min(BACKOFF_CAP_MS)
    }
}

/// Words joined with spaces, each quoted when it holds anything a shell would split on.
pub fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What `.self-repair/config.json` says to the repair pipeline, read once with the rest of the
/// file by the project's one configuration reader (`app::run::project_config`).
#[derive(Debug, Clone, Default)]
pub struct ProjectChecks {
    /// The file they came from, for messages (`.self-repair/config.json` when absent).
    pub path: PathBuf,
    /// `checks.<name>`, each already checked against its keys.
    pub checks: BTreeMap<String, CheckConfig>,
    /// `agent_prefix`, when the file sets it.
    pub agent_prefix: Option<String>,
}

impl ProjectChecks {
    /// `checks.<name>`, if the file has it.
    pub fn get(&self, name: &str) -> Option<&CheckConfig> {
        self.checks.get(name)
    }
}

fn millis(secs: f64, option: &str) -> Result<u64, RepairError> {
    if secs.is_finite() && (0.0..=86_400.0).contains(&secs) {
        Ok((secs * 1000.0).round() as u64)
    } else {
        Err(RepairError::Usage(format!(
            "{option} is {secs}: use 0 to 86400 seconds"
        )))
    }
}

/// Merges the command line over the named check over the defaults, and checks every value.
pub fn resolve_spec(
    request: &CheckRequest,
    config: Option<&CheckConfig>,
    agent_prefix: String,
) -> Result<CheckSpec, RepairError> {
    let empty = CheckConfig::default();
    let config = config.unwrap_or(&empty);
    let command = if request.command.is_empty() {
        config.command.clone()
    } else {
        request.command.clone()
    };
    if command.is_empty() || command[0].is_empty() {
        return Err(RepairError::Usage(match &request.name {
            Some(name) => format!(
                "no command for check `{name}`: give it after `--` (self-repair check {name} -- CMD ARGS...) or as `checks.{name}.command` in .self-repair/config.json"
            ),
            None => "give the check command after `--`, e.g. `self-repair check -- cargo test`"
                .to_owned(),
        }));
    }
    let max_attempts = request
        .max_attempts
        .or(config.max_attempts)
        .or(config.retry.map(|r| r.saturating_add(1)))
        .unwrap_or(DEFAULT_MAX_ATTEMPTS);
    if !(1..=20).contains(&max_attempts) {
        return Err(RepairError::Usage(format!(
            "--max-attempts is {max_attempts}: use 1 to 20"
        )));
    }
    let circuit_breaker = request
        .circuit_breaker
        .or(config.circuit_breaker)
        .unwrap_or(DEFAULT_CIRCUIT_BREAKER);
    if circuit_breaker < 2 {
        return Err(RepairError::Usage(format!(
            "--circuit-breaker is {circuit_breaker}: use 2 or more"
        )));
    }
    let tiers = match request.tiers.as_ref().or(config.tiers.as_ref()) {
        Some(text) => {
            FixTier::parse_list(text).map_err(|e| RepairError::Usage(format!("--tiers: {e}")))?
        }
        None => FixTier::parse_list("main,sonnet,opus").map_err(RepairError::Usage)?,
    };
    let timeout_ms = millis(
        request
            .timeout_secs
            .or(config.timeout)
            .unwrap_or(DEFAULT_TIMEOUT_SECS),
        "--timeout",
    )?;
    if timeout_ms == 0 {
        return Err(RepairError::Usage("--timeout must be above 0".to_owned()));
    }
    for rule in &config.classify {
        rule.validate().map_err(|e| {
            RepairError::Usage(format!(
                "checks.{}.classify: {e}",
                request.name.as_deref().unwrap_or("?")
            ))
        })?;
    }
    let autofix = request.autofix.clone().or_else(|| config.autofix.clone());
    if autofix
        .as_ref()
        .is_some_and(|a| a.is_empty() || a[0].is_empty())
    {
        return Err(RepairError::Usage(
            "--autofix needs a command: `self-repair check --autofix -- cargo fmt -- cargo test`"
                .to_owned(),
        ));
    }
    Ok(CheckSpec {
        name: request.name.clone(),
        command,
        autofix,
        max_attempts,
        timeout_ms,
        circuit_breaker,
        tiers,
        backoff_ms: millis(
            request
                .backoff_secs
                .or(config.backoff)
                .unwrap_or(DEFAULT_BACKOFF_SECS),
            "--backoff",
        )?,
        hook_budget_ms: millis(
            request
                .hook_budget_secs
                .or(config.hook_budget)
                .unwrap_or(DEFAULT_HOOK_BUDGET_SECS),
            "--hook-budget",
        )?,
        transient_retries: config
            .transient_retries
            .unwrap_or(DEFAULT_TRANSIENT_RETRIES),
        classify: config.classify.clone(),
        agent_prefix,
        exclude: request.exclude.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_wins_over_config_and_retry_is_max_attempts_minus_one() {
        let config = CheckConfig {
            command: vec!["cargo".into(), "test".into()],
            retry: Some(2),
            timeout: Some(30.0),
            ..CheckConfig::default()
        };
        let request = CheckRequest {
            name: Some("test".into()),
            timeout_secs: Some(5.0),
            ..CheckRequest::default()
        };
        let spec = resolve_spec(&request, Some(&config), "self-repair:".into()).unwrap();
        assert_eq!(spec.command, ["cargo", "test"]);
        assert_eq!(spec.max_attempts, 3);
        assert_eq!(spec.timeout_ms, 5000);
        assert_eq!(spec.tier_of(1), FixTier::Main);
        assert_eq!(spec.tier_of(9).as_str(), "opus");
        assert_eq!(spec.backoff_before(1), 2000);
        assert_eq!(spec.backoff_before(3), 8000);
        assert_eq!(spec.backoff_before(10), BACKOFF_CAP_MS);
        assert!(resolve_spec(&CheckRequest::default(), None, String::new()).is_err());
    }

    #[test]
    fn shell_words_quote_what_a_shell_would_split() {
        let words: Vec<String> = ["sh", "-c", "grep -q fixed state.txt", "it's"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            shell_words(&words),
            r"sh -c 'grep -q fixed state.txt' 'it'\''s'"
        );
    }
}
