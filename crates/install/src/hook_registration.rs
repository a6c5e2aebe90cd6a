//! The Claude Code hooks self-repair registers, shared by `install` and the plugin's
//! `hooks/hooks.json`.

use std::path::Path;

use serde_json::{Value, json};

/// One hook self-repair registers: which event, which source matcher, which subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HookRegistration {
    /// Claude Code event name (`Stop`, `StopFailure`, `SessionStart`).
    pub(crate) event: &'static str,
    /// Matcher of the group; for `SessionStart` it matches the `source` field (a regex).
    pub(crate) matcher: Option<&'static str>,
    /// `self-repair hook <subcommand>`.
    pub(crate) subcommand: &'static str,
    /// Seconds before Claude Code kills the hook; the hook answers in milliseconds.
    pub(crate) timeout_secs: u64,
}

/// Every hook we register, in the order they are written.
pub(crate) const OUR_HOOKS: [HookRegistration; 5] = [
    HookRegistration {
        event: "Stop",
        matcher: None,
        subcommand: "stop",
        timeout_secs: 30,
    },
    HookRegistration {
        event: "StopFailure",
        matcher: None,
        subcommand: "stop-failure",
        timeout_secs: 30,
    },
    HookRegistration {
        // Every source: after a compaction or a resume the run summary is re-injected; a new
        // session (startup, /clear) hears once that a run is waiting for `self-repair adopt`.
        event: "SessionStart",
        matcher: None,
        subcommand: "session-start",
        timeout_secs: 30,
    },
    HookRegistration {
        // The permission gate: Bash calls, and the file tools our agents read with (a path
        // outside the project is denied to them).
        event: "PreToolUse",
        matcher: Some("Bash|Read|Grep|Glob"),
        subcommand: "pre-tool-use",
        timeout_secs: 30,
    },
    HookRegistration {
        // One line instead of the client's hand-back frame for each of our agents.
        event: "PostToolUse",
        matcher: Some("Agent"),
        subcommand: "post-tool-use",
        timeout_secs: 30,
    },
];

/// File name of our binary, used to recognise a hook left by an install from another path.
const BINARY_FILE_NAMES: [&str; 2] = ["self-repair", "self-repair.exe"];

impl HookRegistration {
    /// The exec-form `args` of this hook.
    pub(crate) fn args(&self) -> [&'static str; 2] {
        ["hook", self.subcommand]
    }

    /// The hook entry (`hooks[].hooks[]` element) running `command` in exec form.
    pub(crate) fn entry(&self, command: &str) -> Value {
        json!({
            "type": "command",
            "command": command,
            "args": self.args(),
            "timeout": self.timeout_secs,
        })
    }

    /// The matcher group (`hooks.<Event>[]` element) holding only our entry.
    pub(crate) fn group(&self, command: &str) -> Value {
        self.group_with_entry(self.entry(command))
    }

    /// The matcher group of this hook holding only `entry`.
    pub(crate) fn group_with_entry(&self, entry: Value) -> Value {
        let mut group = serde_json::Map::new();
        if let Some(matcher) = self.matcher {
            group.insert("matcher".to_owned(), Value::from(matcher));
        }
        group.insert("hooks".to_owned(), Value::Array(vec![entry]));
        Value::Object(group)
    }

    /// True when `entry` runs this hook's subcommand through one of `commands`, or through any
    /// file named `self-repair` (a previous install from another path).
    pub(crate) fn is_ours(&self, entry: &Value, commands: &[&str]) -> bool {
        if !entry_has_args(entry, &self.args()) {
            return false;
        }
        let Some(command) = entry.get("command").and_then(Value::as_str) else {
            return false;
        };
        commands.contains(&command)
            || Path::new(command)
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| BINARY_FILE_NAMES.contains(&name))
    }
}

/// True when `settings` (a Claude Code settings file) registers self-repair's Stop hook, as
/// `install` writes it: `self-repair doctor` reads the user's and the project's settings with it.
pub fn registers_stop_hook(settings: &Value) -> bool {
    let stop = OUR_HOOKS[0];
    settings
        .pointer("/hooks/Stop")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten()
        .any(|entry| stop.is_ours(entry, &[]))
}

/// True when `entry` is a command hook whose exec-form `args` equal `args`.
pub(crate) fn entry_has_args(entry: &Value, args: &[&str]) -> bool {
    entry.get("type").and_then(Value::as_str) == Some("command")
        && entry
            .get("args")
            .and_then(Value::as_array)
            .is_some_and(|given| {
                given.len() == args.len()
                    && given.iter().zip(args).all(|(g, a)| g.as_str() == Some(a))
            })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_our_entry_from_another_install_path() {
        let stop = OUR_HOOKS[0];
        let old = stop.entry("/opt/old/bin/self-repair");
        assert!(stop.is_ours(&old, &["/usr/bin/self-repair"]));
        let other_tool = stop.entry("/usr/bin/cc-stop-hook");
        assert!(!stop.is_ours(&other_tool, &["/usr/bin/self-repair"]));
        assert!(!OUR_HOOKS[1].is_ours(&old, &["/opt/old/bin/self-repair"]));
    }

    #[test]
    fn a_settings_file_registers_the_stop_hook_only_with_our_entry() {
        let ours =
            json!({"hooks": {"Stop": [OUR_HOOKS[0].group("/home/u/.cargo/bin/self-repair")]}});
        assert!(registers_stop_hook(&ours));
        let other = json!({"hooks": {"Stop": [OUR_HOOKS[0].group("/usr/bin/cc-stop-hook")]}});
        assert!(!registers_stop_hook(&other));
        let session_only = json!({"hooks": {"SessionStart": [OUR_HOOKS[2].group("self-repair")]}});
        assert!(!registers_stop_hook(&session_only));
        assert!(!registers_stop_hook(&json!({})));
    }

    #[test]
    fn the_permission_gate_sees_bash_and_the_file_tools() {
        let group = OUR_HOOKS[3].group("self-repair");
        assert_eq!(group["matcher"], "Bash|Read|Grep|Glob");
        assert_eq!(group["hooks"][0]["args"], json!(["hook", "pre-tool-use"]));
        assert_eq!(group["hooks"][0]["timeout"], 30);
    }
}
