//! A sub-agent's policy: `show` the item, `submit` a result built from its output schema (or
//! what the scenario asks for), fix a rejected submission when allowed, end with one line.

use serde_json::Value;

use crate::conversation::{Conversation, ToolOutcome};
use crate::fix_script::script_for;
use crate::reply::Reply;
use crate::result_generator::{generate_invalid, generate_with, submission_text};
use crate::scenario::{Behaviour, FORBIDDEN_COMMAND, Scenario};
use crate::show_output::ShowOutput;

const HEREDOC: &str = "SELF_REPAIR_EOF";

/// Whether a `submit` call failed: the client flags a non-zero exit as an error result.
fn rejected(outcome: &ToolOutcome) -> bool {
    outcome.is_error
}

/// The Bash command that submits `text` for `id` of `run` (the `attempt`-th submission).
pub fn submit_command(
    scenario: &Scenario,
    id: &str,
    run: Option<&str>,
    text: &str,
    attempt: usize,
) -> String {
    let submit = crate::scenario::fill(&scenario.submit_command, id, run);
    if submit.contains("{file}") {
        let path = format!("/tmp/self-repair-mock-{id}-{attempt}.txt");
        format!(
            "cat > {path} <<'{HEREDOC}'\n{text}\n{HEREDOC}\n{}",
            submit.replace("{file}", &path)
        )
    } else {
        format!("{submit} <<'{HEREDOC}'\n{text}\n{HEREDOC}")
    }
}

/// How a repair run's fixer items are named (`fix-2`).
const FIX_ITEM: &str = "fix-";

/// A fixer's policy (`self-repair item fix-N`): `self-repair show fix-N`, then the steps of the
/// scenario's first [`FixScript`](crate::FixScript) that matches the task shown, else its
/// `fixer_command`, then one line.
fn fixer_reply(
    conversation: &Conversation<'_>,
    scenario: &Scenario,
    id: &str,
    run: Option<&str>,
    n: &str,
) -> Reply {
    let calls = conversation.calls_since(0);
    let show = crate::scenario::fill("self-repair show {id} --run {run}", id, run);
    let Some(at) = calls.iter().position(|(c, _)| c.command() == show) else {
        return Reply::bash(show, "Read the fix task");
    };
    let shown = calls[at].1.clone().unwrap_or_else(|| ToolOutcome {
        tool_use_id: String::new(),
        text: String::new(),
        is_error: false,
    });
    if shown.is_error {
        let last = shown
            .text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default();
        return Reply::text(format!("{id}: error {last}"));
    }
    let made = &calls[at + 1..];
    if let Some(steps) = script_for(&scenario.fix_scripts, &shown.text, n.parse().ok()) {
        return match steps.get(made.len()) {
            Some(step) => step.reply(),
            None => Reply::text(format!("{id}: done")),
        };
    }
    let Some(command) = scenario
        .fixer_command
        .as_ref()
        .map(|c| c.replace("{attempt}", n))
    else {
        return Reply::text(format!("{id}: no fix scripted"));
    };
    match made.iter().find(|(c, _)| c.command() == command) {
        None => Reply::bash(command, "Fix the code"),
        Some((_, Some(outcome))) if outcome.is_error => {
            Reply::text(format!("{id}: the fix command failed"))
        }
        Some(_) => Reply::text(format!("{id}: ran `{command}`")),
    }
}

/// The value to submit on this attempt, or `None` to give up.
fn choose(show: &ShowOutput, scenario: &Scenario, model: &str, submitted: usize) -> Option<Value> {
    let rule = scenario.rule_for(&show.item, &show.kind, model);
    let give_up_at =
        scenario.max_submits.max(1) + usize::from(rule.behaviour == Behaviour::InvalidFirst);
    let never = matches!(
        rule.behaviour,
        Behaviour::NeverSubmit | Behaviour::ClaimsWithoutSubmit
    );
    if never || submitted >= give_up_at {
        return None;
    }
    let invalid = match rule.behaviour {
        Behaviour::InvalidFirst => submitted == 0,
        Behaviour::AlwaysInvalid => true,
        _ => false,
    };
    if invalid {
        return Some(generate_invalid(&show.output_schema));
    }
    if let Some(chosen) = scenario.result_fn.as_ref().and_then(|f| (f.0)(show)) {
        return Some(chosen);
    }
    Some(generate_with(
        &show.output_schema,
        rule.values.as_ref().unwrap_or(&Value::Null),
    ))
}

/// The sub-agent's next message for item `item`.
pub fn sub_agent_reply(
    conversation: &Conversation<'_>,
    scenario: &Scenario,
    item: Option<&str>,
) -> Reply {
    let Some(id) = item else {
        return Reply::text("My prompt names no item; nothing to do.");
    };
    let run = crate::thread::run_of_prompt(&conversation.first_user_text());
    let run = run.as_deref();
    if let Some(n) = id.strip_prefix(FIX_ITEM) {
        return fixer_reply(conversation, scenario, id, run, n);
    }
    let calls = conversation.calls_since(0);
    let rule = scenario.rule_for(id, "", conversation.model());
    if rule.behaviour == Behaviour::ForbiddenFirst {
        let forbidden = FORBIDDEN_COMMAND.replace("{id}", id);
        if !calls.iter().any(|(c, _)| c.command() == forbidden) {
            return Reply::bash(forbidden, "Install the tool the finding mentions");
        }
    }
    let show_command = scenario.show_for(id, run);
    let Some((_, show_result)) = calls.iter().find(|(c, _)| c.command() == show_command) else {
        return Reply::bash(show_command, "Read the work item");
    };

    let Some(show) = show_result
        .as_ref()
        .filter(|o| !o.is_error)
        .and_then(|o| ShowOutput::parse_result(&o.text))
    else {
        return Reply::text(format!("{id}: could not read the item; stopping."));
    };
    if scenario
        .rule_for(id, &show.kind, conversation.model())
        .behaviour
        == Behaviour::Refused
    {
        // It read the finding's code; the classifier declines what comes next.
        return Reply::refusal();
    }
    let submit_prefix = format!("{}{id}", Scenario::prefix_of(&scenario.submit_command));
    let submits: Vec<&ToolOutcome> = calls
        .iter()
        .filter(|(c, _)| c.command().contains(&submit_prefix))
        .filter_map(|(_, o)| o.as_ref())
        .collect();
    if submits.last().is_some_and(|o| !rejected(o)) {
        return Reply::text(format!("{id}: submitted."));
    }
    let rule = scenario.rule_for(id, &show.kind, conversation.model());
    match choose(&show, scenario, conversation.model(), submits.len()) {
        Some(value) => {
            let mut text = submission_text(&value);
            if rule.behaviour == Behaviour::FencedFirst && submits.is_empty() {
                text = format!("```json\n{text}\n```");
            }
            Reply::bash(
                submit_command(scenario, id, run, &text, submits.len() + 1),
                "Submit the result",
            )
        }
        None if rule.behaviour == Behaviour::ClaimsWithoutSubmit => {
            Reply::text(format!("{id}: submitted."))
        }
        None => Reply::text(format!("{id}: no accepted result; stopping.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixer_body(messages: &[Value]) -> Value {
        let mut all = vec![json!({"role": "user", "content": [
            {"type": "text", "text": "<system-reminder>\nAttribution\n</system-reminder>\n"},
            {"type": "text", "text": "self-repair item fix-2"}]})];
        all.extend_from_slice(messages);
        json!({"model": "claude-sonnet-5-5", "messages": all,
            "system": "x-anthropic-billing-header: cc_is_subagent=true;\nYou are a self-repair fixer."})
    }

    fn call(id: &str, command: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Bash",
            "input": {"command": command}}]})
    }

    fn result(id: &str, text: &str, is_error: bool) -> Value {
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
            "content": text, "is_error": is_error}]})
    }

    fn reply(messages: &[Value], scenario: &Scenario) -> Reply {
        sub_agent_reply(
            &Conversation::new(&fixer_body(messages)),
            scenario,
            Some("fix-2"),
        )
    }

    fn command(reply: &Reply) -> String {
        match reply.blocks.first() {
            Some(crate::reply::Block::ToolUse { input, .. }) => {
                input["command"].as_str().unwrap_or_default().to_owned()
            }
            other => panic!("expected a Bash call, got {other:?}"),
        }
    }

    fn text(reply: &Reply) -> String {
        match reply.blocks.first() {
            Some(crate::reply::Block::Text(t)) => t.clone(),
            other => panic!("expected text, got {other:?}"),
        }
    }

    #[test]
    fn a_fixer_shows_its_task_runs_the_scripted_fix_then_replies_one_line() {
        let scenario = Scenario::new().fixer_runs("echo fixed-{attempt} > state.txt");
        assert_eq!(command(&reply(&[], &scenario)), "self-repair show fix-2");
        let shown = [
            call("s", "self-repair show fix-2"),
            result("s", "# self-repair fix-2: fix attempt 2 of 5", false),
        ];
        assert_eq!(
            command(&reply(&shown, &scenario)),
            "echo fixed-2 > state.txt"
        );
        let mut fixed = shown.to_vec();
        fixed.extend([
            call("f", "echo fixed-2 > state.txt"),
            result("f", "", false),
        ]);
        assert_eq!(
            text(&reply(&fixed, &scenario)),
            "fix-2: ran `echo fixed-2 > state.txt`"
        );
    }

    #[test]
    fn a_fixer_runs_the_script_matching_its_task_after_reading_it() {
        let scenario = Scenario::new().fix_script(crate::FixScript {
            when: "verify-task task-4 ".to_owned(),
            attempt: Some(2),
            steps: vec![crate::FixStep::Write {
                file_path: "/p/a.py".to_owned(),
                content: "pass\n".to_owned(),
            }],
        });
        let shown = [
            call("s", "self-repair show fix-2"),
            result(
                "s",
                "# self-repair fix-2: fix attempt 2 of 5\nThe check `sr verify-task task-4 --run r` fails.",
                false,
            ),
        ];
        assert_eq!(reply(&shown, &scenario).tool_names(), ["Write"]);
        let mut wrote = shown.to_vec();
        wrote.extend([
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "w",
                "name": "Write", "input": {"file_path": "/p/a.py", "content": "pass\n"}}]}),
            result("w", "File created", false),
        ]);
        assert_eq!(text(&reply(&wrote, &scenario)), "fix-2: done");
    }

    #[test]
    fn a_fixer_stops_when_show_fails_or_nothing_is_scripted() {
        let failed = [
            call("s", "self-repair show fix-2"),
            result("s", "Exit code 4\nno item fix-2", true),
        ];
        assert_eq!(
            text(&reply(&failed, &Scenario::new().fixer_runs("true"))),
            "fix-2: error no item fix-2"
        );
        let shown = [
            call("s", "self-repair show fix-2"),
            result("s", "task", false),
        ];
        assert_eq!(
            text(&reply(&shown, &Scenario::new())),
            "fix-2: no fix scripted"
        );
    }
}
