//! The permission gate: a strict reader of Bash command lines that tells our own command shapes
//! (`self-repair show|submit|refs ...`, read-only search) from everything else, and the
//! `PreToolUse` decision built on it (reference/permissions.md).

mod command_line;
mod file_read;
mod gate_decision;
mod shell_line;
#[cfg(test)]
mod skill_allowed_tools_tests;

pub use command_line::{CommandLine, Stage};
pub use file_read::{FILE_TOOLS, decide_file_read};
pub use gate_decision::{Caller, GateDecision, decide_bash};
pub use shell_line::{ShellLine, ShellLineError};
