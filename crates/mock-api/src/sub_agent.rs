//! A sub-agent's policy: `show` the item, `submit` a result built from its output schema (or
//! what the scenario asks for), fix a rejected submission when allowed, end with one line.

use serde_json::Value;

use crate::conversation::{Conversation, ToolOutcome};
use crate::reply::Reply;
use crate::result_generator::{generate_invalid, generate_with, submission_text};
use crate::scenario::{Behaviour, Scenario};
use crate::show_output::ShowOutput;

const HEREDOC: &str = "SELF_REPAIR_EOF";

/// Whether a `submit` call failed: the client flags a non-zero exit as an error result.
fn rejected(outcome: &ToolOutcome) -> bool {
    outcome.is_error
}

/// The Bash command that submits `text` for `id` (the `attempt`-th submission).
pub fn submit_command(scenario: &Scenario, id: &str, text: &str, attempt: usize) -> String {
    let submit = scenario.submit_command.replace("{id}", id);
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

/// The value to submit on this attempt, or `None` to give up.
fn choose(show: &ShowOutput, scenario: &Scenario, model: &str, submitted: usize) -> Option<Value> {
    let rule = scenario.rule_for(&show.item, &show.kind, model);
    let give_up_at =
        scenario.max_submits.max(1) + usize::from(rule.behaviour == Behaviour::InvalidFirst);
    if rule.behaviour == Behaviour::NeverSubmit || submitted >= give_up_at {
        return None;
    }
    let invalid = match rule.behaviour {
        Behaviour::InvalidFirst => submitted == 0,
        Behaviour::AlwaysInvalid => true,
        Behaviour::Valid | Behaviour::NeverSubmit => false,
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
    let calls = conversation.calls_since(0);
    let show_command = scenario.show_for(id);
    let Some((_, show_result)) = calls.iter().find(|(c, _)| c.command() == show_command) else {
        return Reply::bash(show_command, "Read the work item");
    };
    let Some(show) = show_result
        .as_ref()
        .filter(|o| !o.is_error)
        .and_then(|o| ShowOutput::parse(&o.text))
    else {
        return Reply::text(format!("{id}: could not read the item; stopping."));
    };
    let submit_prefix = format!("{}{id}", Scenario::prefix_of(&scenario.submit_command));
    let submits: Vec<&ToolOutcome> = calls
        .iter()
        .filter(|(c, _)| c.command().contains(&submit_prefix))
        .filter_map(|(_, o)| o.as_ref())
        .collect();
    if submits.last().is_some_and(|o| !rejected(o)) {
        return Reply::text(format!("{id}: submitted."));
    }
    match choose(&show, scenario, conversation.model(), submits.len()) {
        Some(value) => Reply::bash(
            submit_command(scenario, id, &submission_text(&value), submits.len() + 1),
            "Submit the result",
        ),
        None => Reply::text(format!("{id}: no accepted result; stopping.")),
    }
}
