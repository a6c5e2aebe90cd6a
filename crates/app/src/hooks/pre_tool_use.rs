//! `self-repair hook pre-tool-use`: the permission gate. Our agents' own commands (`show`,
//! `submit` with a JSON heredoc, `refs`, read-only search) run without a prompt in both install
//! paths, and nothing else they try is approved (reference/permissions.md).

use std::path::Path;

use self_repair_gate::{Caller, FILE_TOOLS, GateDecision, decide_bash, decide_file_read};
use serde::Deserialize;
use serde_json::json;

use crate::command_env::CommandEnv;
use crate::hooks::answer::StopAnswer;

/// The fields of a `PreToolUse` input the gate reads; unknown fields are ignored.
#[derive(Debug, Default, Deserialize)]
struct PreToolUseInput {
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Option<ToolInput>,
    #[serde(default)]
    agent_type: Option<String>,
    #[serde(default)]
    cwd: Option<std::path::PathBuf>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolInput {
    #[serde(default)]
    command: Option<String>,
    /// `Read`'s file.
    #[serde(default)]
    file_path: Option<String>,
    /// `Grep`'s and `Glob`'s folder.
    #[serde(default)]
    path: Option<String>,
}

/// Answers a `PreToolUse` hook: `allow` or `deny` for a Bash call the gate recognises, nothing
/// (the client's own rules decide) otherwise. Bad input is no decision, never a block.
pub fn hook_pre_tool_use(env: &CommandEnv, stdin: &[u8], own_exe: Option<&Path>) -> StopAnswer {
    let input: PreToolUseInput = match serde_json::from_slice(stdin) {
        Ok(input) => input,
        Err(e) => {
            return StopAnswer {
                stdout: None,
                stderr: vec![format!(
                    "self-repair hook pre-tool-use: stdin is not the hook's JSON object ({e})"
                )],
            };
        }
    };
    let project = env
        .project_dir
        .as_deref()
        .or(input.cwd.as_deref())
        .unwrap_or(&env.cwd);
    let caller = Caller::from_agent_type(input.agent_type.as_deref());
    let (Some(tool), Some(tool_input)) = (&input.tool_name, &input.tool_input) else {
        return StopAnswer::default();
    };
    let decided = if tool == "Bash" {
        match &tool_input.command {
            Some(command) => decide_bash(command, caller, Some(project), own_exe),
            None => return StopAnswer::default(),
        }
    } else if FILE_TOOLS.iter().any(|(name, _)| name == tool) {
        let path = tool_input
            .file_path
            .as_deref()
            .or(tool_input.path.as_deref());
        decide_file_read(tool, path, caller, Some(project))
    } else {
        return StopAnswer::default();
    };
    let (decision, reason) = match decided {
        GateDecision::Allow(reason) => ("allow", format!("self-repair: {reason}")),
        GateDecision::Deny(reason) => ("deny", reason),
        GateDecision::Abstain => return StopAnswer::default(),
    };
    StopAnswer {
        stdout: Some(
            json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": reason,
            }})
            .to_string(),
        ),
        stderr: Vec::new(),
    }
}
