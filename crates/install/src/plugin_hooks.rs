//! The plugin's `hooks/hooks.json`: the same hooks as `install`, with `self-repair` from PATH.

use serde_json::{Map, Value};

use crate::hook_registration::OUR_HOOKS;

/// Command the plugin registers. A plugin ships no binary, so it is resolved from PATH
/// (`cargo install` or a release download); `${CLAUDE_PLUGIN_ROOT}` is not needed.
const PLUGIN_COMMAND: &str = "self-repair";

/// The exact text the committed `hooks/hooks.json` must have (2-space JSON, trailing newline).
pub fn hooks_json_for_plugin() -> String {
    let mut hooks = Map::new();
    for registration in OUR_HOOKS {
        hooks.insert(
            registration.event.to_owned(),
            Value::Array(vec![registration.group(PLUGIN_COMMAND)]),
        );
    }
    let mut root = Map::new();
    root.insert(
        "description".to_owned(),
        Value::from(
            "self-repair: drive the pipeline on every stop, pause on API failures, re-inject \
             the run summary at session start, and let its agents run their own commands \
             without a prompt (PreToolUse permission gate), and hand each of its agents back to \
             the main session in one line (PostToolUse)",
        ),
    );
    root.insert("hooks".to_owned(), Value::Object(hooks));
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_hooks_json_snapshot() {
        insta::assert_snapshot!(hooks_json_for_plugin());
    }

    #[test]
    fn plugin_hooks_use_path_binary_and_no_plugin_root() {
        let text = hooks_json_for_plugin();
        assert!(!text.contains("CLAUDE_PLUGIN_ROOT"));
        let value: Value = serde_json::from_str(&text).unwrap();
        for event in ["Stop", "StopFailure", "SessionStart"] {
            assert_eq!(
                value["hooks"][event][0]["hooks"][0]["command"],
                "self-repair"
            );
        }
    }
}
