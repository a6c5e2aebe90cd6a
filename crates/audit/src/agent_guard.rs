//! The model cannot audit for the person: the variables a coding agent's client sets in the
//! shells it runs (Claude Code sets `CLAUDECODE=1` and `CLAUDE_CODE_ENTRYPOINT`; the list the
//! client itself checks for other agents is kept here too).

/// Variables whose presence means the command runs inside a coding agent's shell.
pub const AGENT_VARIABLES: [&str; 8] = [
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_AGENT_SDK_VERSION",
    "GEMINI_CLI",
    "CODEX_SANDBOX",
    "CODEX_THREAD_ID",
    "COPILOT_CLI",
    "CURSOR_AGENT",
];

/// The first of [`AGENT_VARIABLES`] that `lookup` finds set and not empty, as `NAME=value`.
pub fn agent_marker(lookup: impl Fn(&str) -> Option<String>) -> Option<String> {
    AGENT_VARIABLES.iter().find_map(|name| {
        lookup(name)
            .filter(|value| !value.is_empty())
            .map(|value| format!("{name}={value}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claude_code_shell_is_recognised_and_a_plain_one_is_not() {
        let claude = |name: &str| (name == "CLAUDE_CODE_ENTRYPOINT").then(|| "cli".to_owned());
        assert_eq!(
            agent_marker(claude).as_deref(),
            Some("CLAUDE_CODE_ENTRYPOINT=cli")
        );
        assert_eq!(agent_marker(|_| None), None);
        assert_eq!(agent_marker(|_| Some(String::new())), None);
    }
}
