//! The proposal merged into `.self-repair/config.json`: what the user wrote is kept (every key,
//! its order, a detector of the same name, a test command), unless `--force` replaces the
//! entries the proposal names; nothing else is ever removed.

use serde_json::{Map, Value, json};

use crate::project_setup::ProjectSetup;
use crate::setup_error::SetupError;

/// What the merge did to one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigChange {
    /// A new entry (``detector `ruff` ``, `checks.test`).
    Added(String),
    /// The file had this entry; kept as the user wrote it.
    Kept(String),
    /// The file had this entry; `--force` replaced it.
    Replaced(String),
}

/// The config after the merge, and what changed.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedConfig {
    pub config: Value,
    pub changes: Vec<ConfigChange>,
}

impl MergedConfig {
    /// True when the merge added or replaced something (the file needs writing).
    pub fn changed(&self) -> bool {
        self.changes
            .iter()
            .any(|c| !matches!(c, ConfigChange::Kept(_)))
    }
}

/// Merges `setup` into `existing` (none: a new config). `force` replaces a detector of the same
/// name and the test command; without it they are kept.
pub fn merge_into_config(
    existing: Option<Value>,
    setup: &ProjectSetup,
    force: bool,
) -> Result<MergedConfig, SetupError> {
    let mut config = match existing {
        None => Map::new(),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(SetupError::Shape(
                "config.json is not a JSON object".to_owned(),
            ));
        }
    };
    let mut changes = Vec::new();
    if !setup.detectors.is_empty() {
        let detectors = config
            .entry("detectors")
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| {
                SetupError::Shape("config.json: `detectors` is not a list".to_owned())
            })?;
        for proposed in &setup.detectors {
            let what = format!("detector `{}`", proposed.name);
            let same = detectors
                .iter()
                .position(|d| d.get("name").and_then(Value::as_str) == Some(&proposed.name));
            match same {
                Some(i) if force => {
                    detectors[i] = proposed.to_json();
                    changes.push(ConfigChange::Replaced(what));
                }
                Some(_) => changes.push(ConfigChange::Kept(what)),
                None => {
                    detectors.push(proposed.to_json());
                    changes.push(ConfigChange::Added(what));
                }
            }
        }
    }
    if let Some(test) = setup.test() {
        let checks = config
            .entry("checks")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .ok_or_else(|| {
                SetupError::Shape("config.json: `checks` is not an object".to_owned())
            })?;
        let what = "checks.test".to_owned();
        match checks.get_mut("test") {
            Some(Value::Object(entry)) if force => {
                entry.insert("command".to_owned(), json!(test.command));
                changes.push(ConfigChange::Replaced(what));
            }
            Some(_) if force => {
                checks.insert("test".to_owned(), json!({"command": test.command}));
                changes.push(ConfigChange::Replaced(what));
            }
            Some(_) => changes.push(ConfigChange::Kept(what)),
            None => {
                checks.insert("test".to_owned(), json!({"command": test.command}));
                changes.push(ConfigChange::Added(what));
            }
        }
    }
    Ok(MergedConfig {
        config: Value::Object(config),
        changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proposed_detector::detector;
    use crate::proposed_test::ProposedTest;

    fn setup() -> ProjectSetup {
        ProjectSetup {
            detectors: vec![detector(
                "ruff",
                &["ruff", "check"],
                &[0, 1],
                "ruff",
                "r".to_owned(),
                "m",
            )],
            tests: vec![ProposedTest::new(&["pytest", "-q"], "t".to_owned())],
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_new_config_gets_the_detectors_and_the_test_command() {
        let merged = merge_into_config(None, &setup(), false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            merged.config,
            json!({"detectors": [{"name": "ruff", "argv": ["ruff", "check"], "ok_exit_codes": [0, 1], "format": "ruff"}],
                   "checks": {"test": {"command": ["pytest", "-q"]}}})
        );
        assert!(merged.changed());
    }

    #[test]
    fn the_user_s_keys_detector_and_test_command_are_kept_without_force() {
        let existing = json!({"fan_out": 4, "detectors": [{"name": "ruff", "argv": ["ruff", "check", "src"]},
                              {"name": "vulture", "argv": ["vulture", "."]}],
                              "checks": {"test": {"command": ["make", "test"], "retry": 2}}});
        let merged = merge_into_config(Some(existing.clone()), &setup(), false)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(merged.config, existing);
        assert!(!merged.changed());
        assert_eq!(
            merged.changes,
            [
                ConfigChange::Kept("detector `ruff`".to_owned()),
                ConfigChange::Kept("checks.test".to_owned())
            ]
        );
    }

    #[test]
    fn force_replaces_only_the_entries_it_proposes() {
        let existing = json!({"fan_out": 4, "detectors": [{"name": "ruff", "argv": ["ruff", "check", "src"]},
                              {"name": "vulture", "argv": ["vulture", "."]}],
                              "checks": {"test": {"command": ["make", "test"], "retry": 2}}});
        let merged =
            merge_into_config(Some(existing), &setup(), true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(merged.config["fan_out"], 4);
        assert_eq!(
            merged.config["detectors"][0]["argv"],
            json!(["ruff", "check"])
        );
        assert_eq!(merged.config["detectors"][1]["name"], "vulture");
        assert_eq!(
            merged.config["checks"]["test"],
            json!({"command": ["pytest", "-q"], "retry": 2})
        );
        assert!(merged.changed());
    }

    #[test]
    fn a_config_that_is_not_an_object_is_refused() {
        let err = merge_into_config(Some(json!([1])), &setup(), false).err();
        assert!(matches!(err, Some(SetupError::Shape(_))), "{err:?}");
        let err = merge_into_config(Some(json!({"detectors": {}})), &setup(), false).err();
        assert!(err.is_some_and(|e| e.to_string().contains("`detectors` is not a list")),);
    }
}
