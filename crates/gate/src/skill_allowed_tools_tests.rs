//! The skill's `allowed-tools` pre-approves commands in the turn the skill runs; it must never
//! approve more than the gate allows the main session (reference/permissions.md): a
//! `Bash(self-repair:*)` rule would let `self-repair check -- ANY COMMAND` run without a prompt.

use std::path::Path;

use crate::{Caller, GateDecision, decide_bash};

const SKILL_MD: &str = include_str!("../../../plugin/skill/self-repair/SKILL.md");

/// The `Bash(...)` patterns of SKILL.md's `allowed-tools` front-matter line.
fn bash_rules(skill_md: &str) -> Vec<String> {
    let front_matter = skill_md
        .strip_prefix("---\n")
        .and_then(|rest| rest.split("\n---").next())
        .unwrap_or_default();
    let Some(line) = front_matter
        .lines()
        .find_map(|line| line.strip_prefix("allowed-tools:"))
    else {
        return Vec::new();
    };
    line.split("Bash(")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(str::to_owned)
        .collect()
}

/// Command lines a prefix rule approves: the prefix alone and followed by arguments that make a
/// command run something of the user's choosing.
fn commands_approved_by(rule: &str) -> Vec<String> {
    let prefix = rule.strip_suffix(":*").unwrap_or(rule).trim();
    let mut commands = vec![prefix.to_owned()];
    if rule.ends_with(":*") {
        for tail in [
            " -- rm -rf build",
            " --detect ruff",
            " --test 'rm -rf build'",
            " check -- rm -rf build",
            " detect",
            " fix --all",
            " --confirm",
            " --budget 1000",
            " resume --confirm",
            " resume --budget 1000",
            " known accept abc",
            " rules accept R1",
        ] {
            commands.push(format!("{prefix}{tail}"));
        }
    }
    commands
}

fn main_session_decides(command: &str) -> GateDecision {
    decide_bash(
        command,
        Caller::MainThread,
        Some(Path::new("/home/dev/app")),
        None,
    )
}

#[test]
fn skill_allowed_tools_approve_nothing_the_gate_would_ask_for() {
    let rules = bash_rules(SKILL_MD);
    assert!(
        !rules.is_empty(),
        "SKILL.md lists no Bash rule: the test would prove nothing"
    );
    for rule in rules {
        for command in commands_approved_by(&rule) {
            assert!(
                matches!(main_session_decides(&command), GateDecision::Allow(_)),
                "SKILL.md's `Bash({rule})` approves `{command}`, which the gate leaves to the \
                 user's permission rules; narrow the rule"
            );
        }
    }
}

#[test]
fn a_blanket_self_repair_rule_is_caught() {
    let rules = bash_rules("---\nname: x\nallowed-tools: Bash(self-repair:*)\n---\n");
    assert_eq!(rules, ["self-repair:*"]);
    let asked_for = commands_approved_by(&rules[0])
        .into_iter()
        .filter(|c| !matches!(main_session_decides(c), GateDecision::Allow(_)))
        .count();
    assert!(
        asked_for > 0,
        "`self-repair check -- ...` must not pass as allowed"
    );
}

/// The go to spend and a team's decision are the user's: SKILL.md pre-approves none of them,
/// so the client asks (interactive) or refuses (`-p` without the user's own rule).
#[test]
fn skill_allowed_tools_pre_approve_nothing_that_spends_or_decides_for_the_team() {
    let rules = bash_rules(SKILL_MD);
    for command in [
        "self-repair resume --confirm",
        "self-repair resume --budget 1000",
        "self-repair start f.json --budget 1000",
        "self-repair known accept abc",
        "self-repair rules accept R1",
    ] {
        for rule in &rules {
            let prefix = rule.strip_suffix(":*").unwrap_or(rule).trim();
            let approves = if rule.ends_with(":*") {
                command.starts_with(prefix)
            } else {
                command == prefix
            };
            assert!(
                !approves,
                "SKILL.md's `Bash({rule})` pre-approves `{command}`"
            );
        }
    }
}
