//! The plugin's `hooks/hooks.json`: the same hooks as `install`, run through the plugin's
//! launcher, which finds `self-repair` or says once how to install it.

use serde_json::{Map, Value, json};

use crate::hook_registration::OUR_HOOKS;

/// The launcher, a POSIX sh script in the plugin (`hooks/self-repair-hook.sh`). A plugin ships
/// no binary: the launcher runs `self-repair hook EVENT` from PATH, `~/.local/bin` or
/// `~/.cargo/bin`, and without one answers the session's start with the install command and
/// lets every other event pass (reference/design-notes.md, note 40). It is run by `sh` (exec
/// form, so no shell parses the plugin's path, and the file's mode does not matter).
const PLUGIN_LAUNCHER: &str = "${CLAUDE_PLUGIN_ROOT}/hooks/self-repair-hook.sh";

/// The exact text the committed `hooks/hooks.json` must have (2-space JSON, trailing newline).
pub fn hooks_json_for_plugin() -> String {
    let mut hooks = Map::new();
    for registration in OUR_HOOKS {
        hooks.insert(
            registration.event.to_owned(),
            Value::Array(vec![registration.group_with_entry(json!({
                "type": "command",
                "command": "sh",
                "args": [PLUGIN_LAUNCHER, registration.subcommand],
                "timeout": registration.timeout_secs,
            }))]),
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
    fn plugin_hooks_run_the_launcher_in_exec_form() {
        let value: Value = serde_json::from_str(&hooks_json_for_plugin()).unwrap();
        for (event, subcommand) in [
            ("Stop", "stop"),
            ("StopFailure", "stop-failure"),
            ("SessionStart", "session-start"),
            ("PreToolUse", "pre-tool-use"),
            ("PostToolUse", "post-tool-use"),
        ] {
            let entry = &value["hooks"][event][0]["hooks"][0];
            assert_eq!(entry["command"], "sh");
            assert_eq!(entry["args"], json!([PLUGIN_LAUNCHER, subcommand]));
        }
    }
}
