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
        ] {
            commands.push(format!("{prefix}{tail}"));
        }
    }
    commands
}

/// What the skill may run that the gate leaves to the user: the user's go for a run waiting on
/// its estimate, which the user gives by saying so in the session (SKILL.md runs it only then;
/// reference/permissions.md). It runs nothing of the user's choosing.
const GO_SAID_IN_THE_SESSION: [&str; 1] = ["self-repair resume --confirm"];

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
            if GO_SAID_IN_THE_SESSION.contains(&command.as_str()) {
                continue;
            }
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
