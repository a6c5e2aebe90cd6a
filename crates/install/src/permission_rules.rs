//! The narrow `permissions.allow` rules that let sub-agents call the CLI without prompts.

/// Subcommands a session or its sub-agents run; each gets a `Bash(<cmd> <sub>:*)` rule.
/// `tick` is what the Stop hook asks the session to run when a repair check is too long for it.
const ALLOWED_SUBCOMMANDS: [&str; 8] = [
    "show", "submit", "item", "status", "next", "start", "refs", "tick",
];

/// The rules for `self-repair` by name, plus the same for `binary` when it is not on PATH
/// (then the model may call it by its full path).
pub(crate) fn permission_rules(binary: &str, binary_on_path: bool) -> Vec<String> {
    let mut commands = vec!["self-repair"];
    if !binary_on_path {
        commands.push(binary);
    }
    commands
        .iter()
        .flat_map(|command| {
            ALLOWED_SUBCOMMANDS
                .iter()
                .map(move |sub| format!("Bash({command} {sub}:*)"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_rules_only_when_not_on_path() {
        let on_path = permission_rules("/b/self-repair", true);
        assert_eq!(on_path.len(), 8);
        assert!(on_path.contains(&"Bash(self-repair tick:*)".to_owned()));
        assert_eq!(on_path[0], "Bash(self-repair show:*)");
        let off_path = permission_rules("/b/self-repair", false);
        assert_eq!(off_path.len(), 16);
        assert!(off_path.contains(&"Bash(/b/self-repair submit:*)".to_owned()));
    }
}
