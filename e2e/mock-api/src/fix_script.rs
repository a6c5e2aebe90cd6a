//! Scripted fixes: the tool calls (Read, Edit, Write, Bash) the main session or a fixer
//! sub-agent makes for a repair run's fix request, so a scenario changes real files through the
//! client's own tools, with the client's own permission checks.

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::reply::Reply;

/// One tool call of a scripted fix; paths are absolute, as the client's file tools want them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case", deny_unknown_fields)]
pub enum FixStep {
    /// `Read`: the client refuses an `Edit` or a `Write` over a file not read first.
    Read { file_path: String },
    /// `Edit`: replace `old_string` (which must occur once) by `new_string`.
    Edit {
        file_path: String,
        old_string: String,
        new_string: String,
    },
    /// `Write`: the whole file.
    Write { file_path: String, content: String },
    /// `Bash`.
    Bash { command: String },
}

impl FixStep {
    /// The one tool call of this step.
    pub fn reply(&self) -> Reply {
        let (name, input) = match self {
            FixStep::Read { file_path } => ("Read", json!({ "file_path": file_path })),
            FixStep::Edit {
                file_path,
                old_string,
                new_string,
            } => (
                "Edit",
                json!({"file_path": file_path, "old_string": old_string, "new_string": new_string}),
            ),
            FixStep::Write { file_path, content } => {
                ("Write", json!({"file_path": file_path, "content": content}))
            }
            FixStep::Bash { command } => (
                "Bash",
                json!({"command": command, "description": "Fix the code"}),
            ),
        };
        Reply::tools(vec![(name.to_owned(), input)])
    }
}

/// A scripted fix: for the request whose text (the main session's Stop-hook feedback, or the
/// output of the fixer's `self-repair show fix-N`) contains `when`, at attempt `attempt` (any
/// attempt when `None`), the steps run in order, then the turn ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixScript {
    pub when: String,
    #[serde(default)]
    pub attempt: Option<u32>,
    pub steps: Vec<FixStep>,
}

/// The steps of the first script that matches `text` at `attempt`.
pub fn script_for<'a>(
    scripts: &'a [FixScript],
    text: &str,
    attempt: Option<u32>,
) -> Option<&'a [FixStep]> {
    scripts
        .iter()
        .find(|s| text.contains(&s.when) && s.attempt.is_none_or(|a| Some(a) == attempt))
        .map(|s| s.steps.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(when: &str, attempt: Option<u32>, command: &str) -> FixScript {
        FixScript {
            when: when.to_owned(),
            attempt,
            steps: vec![FixStep::Bash {
                command: command.to_owned(),
            }],
        }
    }

    #[test]
    fn the_first_script_whose_text_and_attempt_match_wins() {
        let scripts = [
            script("verify-task task-2 ", Some(1), "one"),
            script("verify-task task-2 ", None, "any"),
        ];
        let text = "the check `self-repair verify-task task-2 --run r` fails";
        let command = |attempt| match script_for(&scripts, text, attempt).map(|s| &s[0]) {
            Some(FixStep::Bash { command }) => command.clone(),
            other => format!("{other:?}"),
        };
        assert_eq!(command(Some(1)), "one");
        assert_eq!(command(Some(2)), "any");
        assert!(script_for(&scripts, "verify-task task-3 --run r", Some(1)).is_none());
    }

    #[test]
    fn a_step_is_one_call_of_the_clients_tool_with_its_input_fields() {
        let edit = FixStep::Edit {
            file_path: "/p/a.py".to_owned(),
            old_string: "x == None".to_owned(),
            new_string: "x is None".to_owned(),
        };
        let reply = edit.reply();
        assert_eq!(reply.tool_names(), ["Edit"]);
        let parsed: FixStep = serde_json::from_str(
            r#"{"tool": "write", "file_path": "/p/b.py", "content": "pass\n"}"#,
        )
        .unwrap();
        assert_eq!(parsed.reply().tool_names(), ["Write"]);
    }
}
