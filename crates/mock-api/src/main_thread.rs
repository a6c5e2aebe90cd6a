//! The main session's policy: launch one `Agent` per dispatch entry of the latest Stop-hook
//! feedback, end the turn after tool results and notifications, and run a prompt's commands.

use serde_json::{Map, Value};

use crate::conversation::Conversation;
use crate::reply::Reply;
use crate::scenario::Scenario;

/// How the client shows a Stop hook's block reason to the model.
pub const STOP_FEEDBACK: &str = "Stop hook feedback:";

/// How the client wraps a background agent's completion.
pub const TASK_NOTIFICATION: &str = "<task-notification>";

/// The fields of a dispatch entry copied into the `Agent` call (every field of the `Agent`
/// tool's input schema: a dispatch entry maps onto it field for field).
const LAUNCH_FIELDS: [&str; 7] = [
    "subagent_type",
    "model",
    "description",
    "prompt",
    "effort",
    "run_in_background",
    "isolation",
];

/// The `launch` entries of the first fenced `json` block in `text` that has `self_repair`.
pub fn parse_dispatch(text: &str) -> Option<Vec<Value>> {
    let mut rest = text;
    while let Some(open) = rest.find("```json") {
        let after = &rest[open + "```json".len()..];
        let close = after.find("```")?;
        if let Ok(value) = serde_json::from_str::<Value>(after[..close].trim())
            && value.get("self_repair").is_some()
        {
            return value.get("launch")?.as_array().cloned();
        }
        rest = &after[close + 3..];
    }
    None
}

/// The `Agent` call input for one launch entry.
pub fn agent_input(entry: &Value, extra: Option<&Value>) -> Value {
    let mut input = Map::new();
    for field in LAUNCH_FIELDS {
        if let Some(v) = entry.get(field) {
            input.insert(field.to_owned(), v.clone());
        }
    }
    if let Some(Value::Object(extra)) = extra {
        for (k, v) in extra {
            input.insert(k.clone(), v.clone());
        }
    }
    Value::Object(input)
}

fn is_prompt(conversation: &Conversation<'_>, index: usize) -> bool {
    let text = conversation.text_at(index);
    conversation.outcomes_at(index).is_empty()
        && conversation.calls_at(index).is_empty()
        && !text.contains(STOP_FEEDBACK)
        && !text.contains(TASK_NOTIFICATION)
        && conversation.is_user(index)
}

/// The commands of a prompt: its `$ command` lines, else the scenario's defaults.
fn prompt_commands(text: &str, scenario: &Scenario) -> Vec<String> {
    let own: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("$ "))
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect();
    if own.is_empty() {
        scenario.prompt_commands.clone()
    } else {
        own
    }
}

/// The main thread's next message.
pub fn main_reply(conversation: &Conversation<'_>, scenario: &Scenario) -> Reply {
    let Some(last) = conversation.last_user_index() else {
        return Reply::text("Nothing to answer.");
    };
    let text = conversation.text_at(last);
    if let Some(at) = text.rfind(STOP_FEEDBACK) {
        return match parse_dispatch(&text[at..]) {
            Some(launches) if !launches.is_empty() => Reply::tools(
                launches
                    .iter()
                    .map(|e| {
                        (
                            "Agent".to_owned(),
                            agent_input(e, scenario.agent_extra.as_ref()),
                        )
                    })
                    .collect(),
            ),
            _ => Reply::text("The stop hook feedback holds no dispatch; ending the turn."),
        };
    }
    if text.contains(TASK_NOTIFICATION) {
        return Reply::text("Noted.");
    }
    let launched_agents = !conversation.outcomes_at(last).is_empty()
        && conversation
            .turn_before(last)
            .is_some_and(|i| conversation.calls_at(i).iter().any(|c| c.name == "Agent"));
    if launched_agents {
        return Reply::text("Agents launched; ending the turn.");
    }
    let Some(prompt) = (0..=last).rev().find(|i| is_prompt(conversation, *i)) else {
        return Reply::text("Done.");
    };
    let commands = prompt_commands(&conversation.text_at(prompt), scenario);
    let ran = conversation
        .calls_since(prompt)
        .iter()
        .filter(|(c, _)| c.name == "Bash")
        .count();
    match commands.get(ran) {
        Some(command) => Reply::bash(command.clone(), "Run the requested command"),
        None if commands.is_empty() => Reply::text("Ready."),
        None => Reply::text(format!("Ran {ran} command(s).")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_the_dispatch_after_other_fenced_blocks() {
        let text = "Stop hook feedback:\nTriage 2 findings.\n```json\n{\"x\":1}\n```\n```json\n\
            {\"self_repair\":1,\"run\":\"r\",\"phase\":\"triage\",\"launch\":[\n\
            {\"subagent_type\":\"self-repair:triage-investigator\",\"model\":\"haiku\",\"description\":\"triage t-1\",\"prompt\":\"self-repair item t-1\"}\n],\"then\":\"end\"}\n```";
        let launches = parse_dispatch(text).unwrap();
        assert_eq!(launches.len(), 1);
        assert_eq!(
            agent_input(&launches[0], Some(&json!({"run_in_background": true}))),
            json!({"subagent_type":"self-repair:triage-investigator","model":"haiku",
                   "description":"triage t-1","prompt":"self-repair item t-1","run_in_background":true})
        );
    }

    #[test]
    fn a_foreground_dispatch_entry_keeps_run_in_background_false() {
        let entry = json!({"subagent_type":"triage-investigator","model":"haiku",
            "description":"triage t-1","prompt":"self-repair item t-1","run_in_background":false,
            "not_an_agent_field":1});
        assert_eq!(
            agent_input(&entry, None),
            json!({"subagent_type":"triage-investigator","model":"haiku",
                   "description":"triage t-1","prompt":"self-repair item t-1","run_in_background":false})
        );
    }

    #[test]
    fn a_reason_without_a_contract_block_has_no_dispatch() {
        assert_eq!(parse_dispatch("Stop hook feedback:\nplease continue"), None);
        assert_eq!(parse_dispatch("```json\n{\"self_repair\":1}\n```"), None);
    }
}
