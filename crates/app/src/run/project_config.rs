//! `.self-repair/config.json`, read in one place and one pass: the run settings (engine
//! `Config`), the detectors, the prices, and the repair pipeline's `checks`, each section typed
//! and checked, so a typo anywhere in the file is reported by every command the same way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use self_repair_engine::Config;
use self_repair_repair::{CheckConfig, ProjectChecks};
use serde::{Deserialize, Serialize};

use crate::app_error::AppError;

/// A detector: an analyzer `detect` runs. Its argv is run as is, never through a shell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Detector {
    pub name: String,
    pub argv: Vec<String>,
    /// Project folder to run in (default: the root); its relative output paths are under it.
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Exit codes that mean "ran fine" (vulture exits 3 and clippy 101 when they find things).
    #[serde(default = "default_ok_codes")]
    pub ok_exit_codes: Vec<i32>,
    /// Input format of its output (default: sniffed).
    #[serde(default)]
    pub format: Option<String>,
}

fn default_timeout() -> u64 {
    600
}

fn default_ok_codes() -> Vec<i32> {
    vec![0]
}

/// The whole file.
#[derive(Debug, Clone, Default)]
pub struct ProjectConfig {
    pub run: Config,
    /// True when the file set `agent_prefix` itself.
    pub sets_prefix: bool,
    pub detectors: Vec<Detector>,
    /// `prices`: USD per million tokens by model-id prefix, over the built-in table
    /// (reference/cost.md); frozen into the run's cost ledger at `start`.
    pub prices: Vec<(String, self_repair_cost::Price)>,
    /// `checks.<name>` and `agent_prefix`, for the repair pipeline (`check`, `fix`).
    pub checks: ProjectChecks,
    /// `audit`: the sample size, confidence and gate of `self-repair audit` (reference/audit.md).
    pub audit: self_repair_audit::AuditPolicy,
}

/// Keys no pipeline reads (an editor's schema link).
const IGNORED_KEYS: [&str; 1] = ["$schema"];

/// The sections read here beside the run's settings (`Config::KEYS`). With them and
/// `IGNORED_KEYS` they are every top-level key the file may hold: reference/config.md and the
/// skill's reference are checked against that list.
const SECTIONS: [&str; 4] = ["audit", "checks", "detectors", "prices"];

/// Reads the config at `explicit`, else `<store>/config.json` when present, else defaults.
pub fn load_project_config(
    store_dir: &Path,
    explicit: Option<&Path>,
) -> Result<ProjectConfig, AppError> {
    let path: PathBuf = if let Some(p) = explicit {
        p.to_path_buf()
    } else {
        let default = store_dir.join("config.json");
        if !default.is_file() {
            return Ok(ProjectConfig {
                checks: ProjectChecks {
                    path: default,
                    ..ProjectChecks::default()
                },
                ..ProjectConfig::default()
            });
        }
        default
    };
    let text = std::fs::read_to_string(&path).map_err(AppError::io("read config", &path))?;
    let config_error = |message: String| AppError::Config {
        path: path.clone(),
        message,
    };
    let mut raw: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| config_error(format!("not valid JSON ({e}); fix the file or remove it")))?;
    let Some(map) = raw.as_object_mut() else {
        return Err(config_error("expected a JSON object".to_owned()));
    };
    let sets_prefix = map.contains_key("agent_prefix");
    for key in IGNORED_KEYS {
        map.remove(key);
    }
    let checks = match map.remove("checks") {
        Some(value) => read_checks(value, &config_error)?,
        None => BTreeMap::new(),
    };
    let detectors = match map.remove("detectors") {
        Some(value) => serde_json::from_value::<Vec<Detector>>(value)
            .map_err(|e| config_error(format!("detectors: {e}")))?,
        None => Vec::new(),
    };
    let prices = read_prices(map.remove("prices"), &config_error)?;
    let audit = read_audit(map.remove("audit"), &config_error)?;
    check_detectors(&detectors, &config_error)?;
    let run: Config = serde_json::from_value(raw).map_err(|e| {
        let sections = if e.to_string().starts_with("unknown field") {
            format!(", or a section: `{}`", SECTIONS.join("`, `"))
        } else {
            String::new()
        };
        config_error(format!(
            "{e}{sections}; see reference/config.md for the keys and their defaults"
        ))
    })?;
    run.validate().map_err(|e| config_error(e.to_string()))?;
    let checks = ProjectChecks {
        path: path.clone(),
        checks,
        agent_prefix: sets_prefix.then(|| run.agent_prefix.clone()),
    };
    Ok(ProjectConfig {
        run,
        sets_prefix,
        detectors,
        prices,
        checks,
        audit,
    })
}

/// `prices`: USD per million tokens by model-id prefix (reference/cost.md).
fn read_prices(
    value: Option<serde_json::Value>,
    config_error: &dyn Fn(String) -> AppError,
) -> Result<Vec<(String, self_repair_cost::Price)>, AppError> {
    Ok(match value {
        Some(value) => serde_json::from_value::<
            std::collections::BTreeMap<String, self_repair_cost::Price>,
        >(value)
        .map_err(|e| {
            config_error(format!(
                "prices: {e}; write {{\"claude-opus-5\": {{\"input\": 4.0, \"output\": 20.0}}}} (USD per million tokens)"
            ))
        })?
        .into_iter()
        .collect(),
        None => Vec::new(),
    })
}

/// `audit`: the policy of `self-repair audit` (reference/audit.md), defaults when absent.
fn read_audit(
    value: Option<serde_json::Value>,
    config_error: &dyn Fn(String) -> AppError,
) -> Result<self_repair_audit::AuditPolicy, AppError> {
    let audit = match value {
        Some(value) => serde_json::from_value::<self_repair_audit::AuditPolicy>(value)
            .map_err(|e| config_error(format!("audit: {e}; see reference/audit.md")))?,
        None => self_repair_audit::AuditPolicy::default(),
    };
    audit.check().map_err(config_error)?;
    Ok(audit)
}

/// `checks`: each `checks.<name>` checked against the repair pipeline's keys.
fn read_checks(
    value: serde_json::Value,
    config_error: &dyn Fn(String) -> AppError,
) -> Result<BTreeMap<String, CheckConfig>, AppError> {
    serde_json::from_value::<BTreeMap<String, serde_json::Value>>(value)
        .map_err(|e| config_error(format!("checks: {e}; see reference/repair.md")))?
        .into_iter()
        .map(|(name, entry)| {
            serde_json::from_value::<CheckConfig>(entry)
                .map(|check| (name.clone(), check))
                .map_err(|e| {
                    config_error(format!(
                        "checks.{name}: {e}; see reference/repair.md for the keys"
                    ))
                })
        })
        .collect()
}

/// Every detector has a program and runs in a folder inside the project.
fn check_detectors(
    detectors: &[Detector],
    config_error: &dyn Fn(String) -> AppError,
) -> Result<(), AppError> {
    for d in detectors {
        if d.argv.is_empty() || d.argv[0].is_empty() {
            return Err(config_error(format!(
                "detector `{}`: argv is empty",
                d.name
            )));
        }
        if d.cwd
            .as_deref()
            .is_some_and(|c| Path::new(c).is_absolute() || c.split('/').any(|p| p == ".."))
        {
            return Err(config_error(format!(
                "detector `{}`: cwd must be a folder inside the project, relative to its root",
                d.name
            )));
        }
    }
    Ok(())
}

/// The run settings only (what `start` freezes into the run).
pub fn load_config(store_dir: &Path, explicit: Option<&Path>) -> Result<(Config, bool), AppError> {
    let config = load_project_config(store_dir, explicit)?;
    Ok((config.run, config.sets_prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every top-level key `config.json` may hold.
    fn config_keys() -> impl Iterator<Item = &'static str> {
        Config::KEYS.into_iter().chain(SECTIONS).chain(IGNORED_KEYS)
    }

    /// The repository's file at `path`.
    fn repo_file(path: &str) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        std::fs::read_to_string(root.join(path)).unwrap()
    }

    /// The first column's names (`` `key` ``) of the markdown table whose header starts with
    /// `| key |`.
    fn documented_keys(markdown: &str) -> Vec<String> {
        let mut lines = markdown
            .lines()
            .skip_while(|line| !line.starts_with("| key |"))
            .skip(2);
        let mut keys = Vec::new();
        while let Some(line) = lines.next().filter(|l| l.starts_with('|')) {
            let cell = line.split('|').nth(1).unwrap_or_default().trim();
            keys.push(cell.trim_matches('`').to_owned());
        }
        keys
    }

    /// A value of `key` the binary accepts: its default, or one for the keys without one.
    fn sample_value(key: &str) -> serde_json::Value {
        let run = serde_json::to_value(Config::default()).unwrap();
        match key {
            "budget_usd" => serde_json::json!(10.0),
            "max_agents" => serde_json::json!(100),
            "detectors" => serde_json::json!([{"name": "ruff", "argv": ["ruff", "check"]}]),
            "prices" => serde_json::json!({"claude-x": {"input": 1.0, "output": 2.0}}),
            "checks" => serde_json::json!({}),
            "audit" => serde_json::json!({"gate": true, "size": 30, "confidence": 0.95}),
            "$schema" => serde_json::json!("https://example.invalid/schema.json"),
            _ => run[key].clone(),
        }
    }

    #[test]
    fn config_docs_list_exactly_the_keys_the_binary_reads() {
        let mut code: Vec<String> = config_keys().map(str::to_owned).collect();
        code.sort();
        for doc in [
            "reference/config.md",
            "plugin/skill/self-repair/reference/state-and-config.md",
        ] {
            let mut documented = documented_keys(&repo_file(doc));
            documented.sort();
            assert_eq!(
                documented, code,
                "{doc}'s table of config keys against the keys the binary reads"
            );
        }
        // Each documented key is one the binary accepts, and a typo is refused.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        for key in &code {
            std::fs::write(
                &path,
                serde_json::json!({ key: sample_value(key) }).to_string(),
            )
            .unwrap();
            if let Err(e) = load_project_config(dir.path(), Some(&path)) {
                panic!("{key} is documented but refused: {e}");
            }
        }
        std::fs::write(&path, r#"{"fanout": 3}"#).unwrap();
        let refused = load_project_config(dir.path(), Some(&path))
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("fanout") && refused.contains("`detectors`"),
            "{refused}"
        );
    }

    #[test]
    fn tiers_rows_name_every_tier_key() {
        for doc in [
            "reference/config.md",
            "plugin/skill/self-repair/reference/state-and-config.md",
        ] {
            let text = repo_file(doc);
            let row = text
                .lines()
                .find(|l| l.starts_with("| `tiers` |"))
                .unwrap_or_default();
            for key in self_repair_engine::KindTiers::KEYS {
                assert!(
                    row.contains(&format!("`{key}`")),
                    "{doc}: the tiers key `{key}` is not in the `tiers` row"
                );
            }
        }
    }
}
