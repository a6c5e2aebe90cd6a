//! The main session's policy: launch one `Agent` per dispatch entry of the latest Stop-hook
//! feedback, end the turn after tool results and notifications, and run a prompt's commands.

use serde_json::{Map, Value};

use crate::conversation::Conversation;
use crate::fix_script::{FixStep, script_for};
use crate::reply::Reply;
use crate::scenario::{MainHabit, Scenario};

/// How the client shows a Stop hook's block reason to the model.
pub const STOP_FEEDBACK: &str = "Stop hook feedback:";

/// How the client shows a Stop hook's `hookSpecificOutput.additionalContext` to the model (inside
/// a `<system-reminder>`): how the hook dispatches since design note 48.
pub const STOP_CONTEXT: &str = "Stop hook additional context:";

/// The Stop hook's text in `text`: what follows its last [`STOP_FEEDBACK`] or [`STOP_CONTEXT`].
pub fn stop_feedback(text: &str) -> Option<&str> {
    [STOP_FEEDBACK, STOP_CONTEXT]
        .iter()
        .filter_map(|mark| text.rfind(mark).map(|at| at + mark.len()))
        .max()
        .map(|start| &text[start..])
}

/// Whether the Stop hook's text in `text` came as the Stop event's `additionalContext` (its
/// last mark is [`STOP_CONTEXT`]), not as a block's reason.
fn came_as_context(text: &str) -> bool {
    text.rfind(STOP_CONTEXT) > text.rfind(STOP_FEEDBACK)
}

/// Whether the scenario's main session leaves the dispatch in `text` alone.
fn ignores_dispatch(text: &str, scenario: &Scenario) -> bool {
    scenario.has(MainHabit::IgnoreDispatches)
        || (scenario.has(MainHabit::IgnoreContext) && came_as_context(text))
}

/// [`MainHabit::ForkFirst`]: removes `subagent_type` from each entry whose item was never
/// launched without it in this conversation.
fn fork_first_launches(conversation: &Conversation<'_>, entries: &mut [Value]) {
    let forked_before: Vec<String> = conversation
        .calls_since(0)
        .iter()
        .filter(|(call, _)| call.name == "Agent" && call.input.get("subagent_type").is_none())
        .map(|(call, _)| entry_id(&call.input))
        .collect();
    for entry in entries.iter_mut() {
        if !forked_before.contains(&entry_id(entry))
            && let Some(map) = entry.as_object_mut()
        {
            map.remove("subagent_type");
        }
    }
}

/// Whether `text` carries a Stop hook's text.
fn has_stop_feedback(text: &str) -> bool {
    stop_feedback(text).is_some()
}

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

/// The `launch` entries of the first dispatch in `text`: a JSON object that starts with
/// `{"self_repair":` (on a line of its own, as the hook writes it) or a fenced `json` block that
/// has `self_repair`.
pub fn parse_dispatch(text: &str) -> Option<Vec<Value>> {
    if let Some(start) = text.find(self_repair_engine::DISPATCH_START)
        && let Some(Ok(value)) = serde_json::Deserializer::from_str(&text[start..])
            .into_iter::<Value>()
            .next()
    {
        return value.get("launch")?.as_array().cloned();
    }
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

/// How a repair run's Stop-hook feedback starts (fix requests, tick requests).
const REPAIR_FEEDBACK: &str = "self-repair check:";

/// How a repair run's hook asks the session to run the check through `self-repair tick`.
const TICK_REQUEST: &str = "Run `self-repair tick`";

/// N of a fix request `self-repair check: attempt N of M ...`.
fn fix_attempt(feedback: &str) -> Option<u32> {
    let rest = feedback.strip_prefix(REPAIR_FEEDBACK)?.trim_start();
    let rest = rest.strip_prefix("attempt ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The answer to a Stop-hook feedback without a dispatch: the run's closing line is relayed as
/// asked; a repair run's tick request runs `self-repair tick`; its fix request runs the
/// scenario's `fix_command`; anything else ends the turn.
fn repair_reply(feedback: &str, scenario: &Scenario) -> Reply {
    let feedback = feedback.trim_start();
    if let Some(at) = feedback.find(self_repair_engine::RELAY_INSTRUCTION) {
        let line = feedback[..at].trim_end().lines().last().unwrap_or_default();
        return Reply::text(line.to_owned());
    }
    if !feedback.starts_with(REPAIR_FEEDBACK) {
        return Reply::text("The stop hook feedback holds no dispatch; ending the turn.");
    }
    if feedback.contains(TICK_REQUEST) {
        return Reply::bash("self-repair tick", "Run the check for self-repair");
    }
    match fix_steps(feedback, scenario).first() {
        Some(step) => step.reply(),
        None => Reply::text("No fix scripted for this request; ending the turn."),
    }
}

/// The scripted steps for a fix request: the first matching [`FixScript`](crate::FixScript),
/// else the scenario's `fix_command` as one Bash call; none for any other feedback.
fn fix_steps(feedback: &str, scenario: &Scenario) -> Vec<FixStep> {
    let Some(n) = fix_attempt(feedback.trim_start()) else {
        return Vec::new();
    };
    if let Some(steps) = script_for(&scenario.fix_scripts, feedback, Some(n)) {
        return steps.to_vec();
    }
    scenario
        .fix_command
        .iter()
        .map(|command| FixStep::Bash {
            command: command.replace("{attempt}", &n.to_string()),
        })
        .collect()
}

/// After a tool result: the next step of the fix the latest Stop-hook feedback asked for, or the
/// end of the turn once every step ran; `None` when that feedback was no fix request.
fn next_fix_step(
    conversation: &Conversation<'_>,
    last: usize,
    scenario: &Scenario,
) -> Option<Reply> {
    if conversation.outcomes_at(last).is_empty() {
        return None;
    }
    let asked = (0..last)
        .rev()
        .find(|i| conversation.is_user(*i) && has_stop_feedback(&conversation.text_at(*i)))?;
    if (asked + 1..last).any(|i| is_prompt(conversation, i)) {
        return None;
    }
    let text = conversation.text_at(asked);
    let feedback = stop_feedback(&text)?;
    // A fixer's dispatch names the attempt too: the fixer makes that fix, not this session.
    if parse_dispatch(feedback).is_some() {
        return None;
    }
    let steps = fix_steps(feedback, scenario);
    if steps.is_empty() {
        return None;
    }
    let made = conversation.calls_since(asked).len();
    Some(match steps.get(made) {
        Some(step) => step.reply(),
        None => Reply::text("Done what the stop hook asked; ending the turn."),
    })
}

/// Whether the main session launched any agent before.
fn launched_before(conversation: &Conversation<'_>) -> bool {
    conversation
        .calls_since(0)
        .iter()
        .any(|(call, _)| call.name == "Agent")
}

/// The item id a dispatch entry's description names (`triage t-00003` -> `t-00003`).
fn entry_id(entry: &Value) -> String {
    entry
        .get("description")
        .and_then(Value::as_str)
        .and_then(|d| d.split_whitespace().last())
        .unwrap_or_default()
        .to_owned()
}

/// The entries to launch for a dispatch, after the scenario's habits.
fn with_habits(launches: &[Value], scenario: &Scenario, first: bool) -> Vec<Value> {
    let mut chosen: Vec<Value> = launches.to_vec();
    if first && scenario.has(MainHabit::SkipLast) && chosen.len() > 1 {
        chosen.pop();
    }
    if first
        && scenario.has(MainHabit::LaunchTwice)
        && let Some(entry) = chosen.first().cloned()
    {
        chosen.insert(1, entry);
    }
    if scenario.has(MainHabit::Paraphrase) {
        for entry in &mut chosen {
            let id = entry_id(entry);
            entry["description"] = Value::from(format!("Investigate {id} for self-repair"));
        }
    }
    chosen
}

/// [`MainHabit::DropModel`]: removes `model` from each entry above haiku whose item never had
/// its model dropped before in this conversation.
fn drop_models_once(conversation: &Conversation<'_>, entries: &mut [Value]) {
    let dropped_before: Vec<String> = conversation
        .calls_since(0)
        .iter()
        .filter(|(call, _)| call.name == "Agent" && call.input.get("model").is_none())
        .map(|(call, _)| entry_id(&call.input))
        .collect();
    for entry in entries.iter_mut() {
        let above_first = entry
            .get("model")
            .and_then(Value::as_str)
            .is_some_and(|m| m != "haiku");
        if above_first
            && !dropped_before.contains(&entry_id(entry))
            && let Some(map) = entry.as_object_mut()
        {
            map.remove("model");
        }
    }
}

fn launch(entries: &[Value], scenario: &Scenario) -> Reply {
    Reply::tools(
        entries
            .iter()
            .map(|e| {
                (
                    "Agent".to_owned(),
                    agent_input(e, scenario.agent_extra.as_ref()),
                )
            })
            .collect(),
    )
}

/// With [`MainHabit::SplitLaunch`]: after the first half's results, the entries of the latest
/// dispatch not launched since it.
fn split_remainder(
    conversation: &Conversation<'_>,
    last: usize,
    scenario: &Scenario,
) -> Option<Vec<Value>> {
    let feedback_at = (0..=last)
        .rev()
        .find(|i| conversation.is_user(*i) && has_stop_feedback(&conversation.text_at(*i)))?;
    let text = conversation.text_at(feedback_at);
    let dispatch = parse_dispatch(stop_feedback(&text)?)?;
    let first = !launched_before_index(conversation, feedback_at);
    let wanted = with_habits(&dispatch, scenario, first);
    let launched: Vec<String> = conversation
        .calls_since(feedback_at)
        .iter()
        .filter(|(call, _)| call.name == "Agent")
        .map(|(call, _)| entry_id(&call.input))
        .collect();
    let rest: Vec<Value> = wanted
        .into_iter()
        .filter(|e| !launched.contains(&entry_id(e)))
        .collect();
    (!rest.is_empty()).then_some(rest)
}

/// Whether an agent was launched before message `index`.
fn launched_before_index(conversation: &Conversation<'_>, index: usize) -> bool {
    let all = conversation.calls_since(0).len();
    let since = conversation.calls_since(index).len();
    conversation.calls_since(0)[..all - since]
        .iter()
        .any(|(call, _)| call.name == "Agent")
}

fn is_prompt(conversation: &Conversation<'_>, index: usize) -> bool {
    let text = conversation.text_at(index);
    conversation.outcomes_at(index).is_empty()
        && conversation.calls_at(index).is_empty()
        && !has_stop_feedback(&text)
        && !text.contains(TASK_NOTIFICATION)
        && conversation.is_user(index)
}

/// How the client names a slash command the user typed (`/self-repair ruff.json` arrives as
/// `<command-name>/self-repair:self-repair</command-name>` for the plugin's skill).
const COMMAND_NAME: &str = "<command-name>/";

/// The user's word that starts a run waiting for their go (SKILL.md: only then does the session
/// run `self-repair resume --confirm`).
const GO: &str = "go";

/// What SKILL.md makes of a prompt typed in the interactive UI: `/self-repair ARGS` starts a run
/// on ARGS; a prompt that is just "go" confirms the run waiting for it. `None` for any other.
fn skill_commands(text: &str) -> Option<Vec<String>> {
    if let Some(at) = text.find(COMMAND_NAME) {
        let name = text[at + COMMAND_NAME.len()..].split('<').next()?;
        if name.split(':').next() != Some("self-repair") {
            return None;
        }
        let args = text
            .split("<command-args>")
            .nth(1)
            .and_then(|rest| rest.split("</command-args>").next())
            .unwrap_or_default()
            .trim();
        return Some(vec![format!("self-repair start {args}")]);
    }
    text.lines()
        .any(|line| line.trim().eq_ignore_ascii_case(GO))
        .then(|| vec!["self-repair resume --confirm".to_owned()])
}

/// The commands of a prompt: its `$ command` lines, else what the skill makes of it, else the
/// scenario's defaults.
fn prompt_commands(text: &str, scenario: &Scenario) -> Vec<String> {
    let own: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("$ "))
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect();
    if !own.is_empty() {
        return own;
    }
    skill_commands(text).unwrap_or_else(|| scenario.prompt_commands.clone())
}

/// The main thread's next message.
pub fn main_reply(conversation: &Conversation<'_>, scenario: &Scenario) -> Reply {
    let Some(last) = conversation.last_user_index() else {
        return Reply::text("Nothing to answer.");
    };
    let text = conversation.text_at(last);
    if let Some(feedback) = stop_feedback(&text) {
        return match parse_dispatch(feedback) {
            Some(launches) if !launches.is_empty() && ignores_dispatch(&text, scenario) => {
                Reply::text("Noted; ending the turn.")
            }
            Some(launches) if !launches.is_empty() => {
                let first = !launched_before(conversation);
                let mut chosen = with_habits(&launches, scenario, first);
                if scenario.has(MainHabit::DropModel) {
                    drop_models_once(conversation, &mut chosen);
                }
                if scenario.has(MainHabit::DropModelAlways) {
                    for entry in chosen.iter_mut().filter_map(Value::as_object_mut) {
                        entry.remove("model");
                    }
                }
                if scenario.has(MainHabit::ForkFirst) {
                    fork_first_launches(conversation, &mut chosen);
                }
                if scenario.has(MainHabit::SplitLaunch) && chosen.len() > 1 {
                    chosen.truncate(chosen.len().div_ceil(2));
                }
                launch(&chosen, scenario)
            }
            _ => repair_reply(feedback, scenario),
        };
    }
    if scenario.has(MainHabit::SplitLaunch)
        && let Some(rest) = split_remainder(conversation, last, scenario)
    {
        return launch(&rest, scenario);
    }
    if text.contains(TASK_NOTIFICATION) {
        return Reply::text("Noted.");
    }
    if let Some(reply) = next_fix_step(conversation, last, scenario) {
        return reply;
    }
    let launched_agents = !conversation.outcomes_at(last).is_empty()
        && conversation
            .turn_before(last)
            .is_some_and(|i| conversation.calls_at(i).iter().any(|c| c.name == "Agent"));
    if launched_agents {
        return Reply::text("Agents launched; ending the turn.");
    }
    let answered_feedback = !conversation.outcomes_at(last).is_empty()
        && conversation
            .turn_before(last)
            .and_then(|i| conversation.turn_before(i))
            .is_some_and(|i| has_stop_feedback(&conversation.text_at(i)));
    if answered_feedback {
        return Reply::text("Done what the stop hook asked; ending the turn.");
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

    fn body(messages: &[Value]) -> Value {
        json!({"model": "claude-opus-5-5", "tools": [{"name": "Agent"}, {"name": "Bash"}],
            "messages": messages})
    }

    fn reply_to(messages: &[Value], scenario: &Scenario) -> Reply {
        main_reply(&Conversation::new(&body(messages)), scenario)
    }

    fn bash_command(reply: &Reply) -> Option<String> {
        match reply.blocks.first() {
            Some(crate::reply::Block::ToolUse { name, input, .. }) if name == "Bash" => {
                input["command"].as_str().map(str::to_owned)
            }
            _ => None,
        }
    }

    const FIX_REQUEST: &str = "Stop hook feedback:\nself-repair check: attempt 3 of 5 — the check `sh -c 'grep -q fixed state.txt'` fails. Fix the code now, in this session.";

    #[test]
    fn a_repair_fix_request_runs_the_scripted_command_then_ends_the_turn() {
        let scenario = Scenario::new().on_fix_request_run("echo 'try {attempt}' > state.txt");
        let prompt = json!({"role": "user", "content": "$ self-repair check -- true"});
        let ended = json!({"role": "assistant", "content": [{"type": "text", "text": "Ran 1 command(s)."}]});
        let feedback = json!({"role": "user", "content": FIX_REQUEST});
        let blocking =
            json!({"role": "system", "content": "Stop hook blocking error from command: ..."});
        let reply = reply_to(
            &[
                prompt.clone(),
                ended.clone(),
                feedback.clone(),
                blocking.clone(),
            ],
            &scenario,
        );
        assert_eq!(
            bash_command(&reply).as_deref(),
            Some("echo 'try 3' > state.txt")
        );
        let call = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "b9",
            "name": "Bash", "input": {"command": "echo 'try 3' > state.txt"}}]});
        let result = json!({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "b9", "content": ""}]});
        let reply = reply_to(
            &[prompt, ended, feedback, blocking, call, result],
            &scenario,
        );
        assert_eq!(reply.stop_reason, crate::reply::StopReason::EndTurn);
        // Without a scripted fix the request just ends the turn.
        let unscripted = reply_to(
            &[json!({"role": "user", "content": FIX_REQUEST})],
            &Scenario::new(),
        );
        assert_eq!(unscripted.stop_reason, crate::reply::StopReason::EndTurn);
    }

    #[test]
    fn a_scripted_fix_runs_its_tool_calls_one_a_turn_then_ends_the_turn() {
        let script = crate::FixScript {
            when: "grep -q fixed".to_owned(),
            attempt: Some(3),
            steps: vec![
                FixStep::Read {
                    file_path: "/p/state.txt".to_owned(),
                },
                FixStep::Edit {
                    file_path: "/p/state.txt".to_owned(),
                    old_string: "broken".to_owned(),
                    new_string: "fixed".to_owned(),
                },
            ],
        };
        let scenario = Scenario::new()
            .on_fix_request_run("echo unscripted")
            .fix_script(script);
        let feedback = json!({"role": "user", "content": FIX_REQUEST});
        let first = reply_to(std::slice::from_ref(&feedback), &scenario);
        assert_eq!(first.tool_names(), ["Read"]);
        let call = |id: &str, name: &str| {
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name,
                "input": {}}]})
        };
        let result = |id: &str| {
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                "content": "ok"}]})
        };
        let mut messages = vec![feedback, call("r1", "Read"), result("r1")];
        assert_eq!(reply_to(&messages, &scenario).tool_names(), ["Edit"]);
        messages.extend([call("e1", "Edit"), result("e1")]);
        let done = reply_to(&messages, &scenario);
        assert_eq!(done.stop_reason, crate::reply::StopReason::EndTurn);
        // Another attempt has no script: the scenario's fix command.
        let other = FIX_REQUEST.replace("attempt 3 of 5", "attempt 4 of 5");
        let reply = reply_to(&[json!({"role": "user", "content": other})], &scenario);
        assert_eq!(bash_command(&reply).as_deref(), Some("echo unscripted"));
    }

    #[test]
    fn a_repair_tick_request_runs_self_repair_tick() {
        // The hook's request, as it words it when the check's recent runs do not fit its budget.
        let text = "Stop hook feedback:\nself-repair check: the check `cargo test` took up to 40.2 s in its recent runs, longer than this hook may run. Run `self-repair tick` with the Bash tool (timeout 150 s or more; it runs the check and records the result), then end your turn. Do not fix anything in this turn.";
        let reply = reply_to(
            &[json!({"role": "user", "content": text})],
            &Scenario::new(),
        );
        assert_eq!(bash_command(&reply).as_deref(), Some("self-repair tick"));
    }

    #[test]
    fn fix_attempt_reads_the_number_of_a_fix_request() {
        assert_eq!(
            fix_attempt("self-repair check: attempt 12 of 20 — x"),
            Some(12)
        );
        assert_eq!(
            fix_attempt("self-repair check: the check `x` may take"),
            None
        );
        assert_eq!(fix_attempt("Triage 2 findings."), None);
    }

    #[test]
    fn a_typed_self_repair_command_starts_a_run_and_go_confirms_it() {
        let typed = "<command-message>self-repair:self-repair</command-message>\n\
            <command-name>/self-repair:self-repair</command-name>\n\
            <command-args>ruff.json</command-args>\nBase directory for this skill: /p";
        assert_eq!(
            prompt_commands(typed, &Scenario::new()),
            ["self-repair start ruff.json"]
        );
        assert_eq!(
            prompt_commands("<system-reminder>x</system-reminder>\nGo", &Scenario::new()),
            ["self-repair resume --confirm"]
        );
        let other = "<command-name>/model</command-name>\n<command-args>haiku</command-args>";
        assert!(prompt_commands(other, &Scenario::new()).is_empty());
        assert!(prompt_commands("continue", &Scenario::new()).is_empty());
    }

    #[test]
    fn a_dispatch_as_additional_context_is_launched() {
        let text = "<system-reminder>\nStop hook additional context: {\"self_repair\":2,\"launch\":[\
            {\"subagent_type\":\"self-repair:triage-investigator\",\"model\":\"haiku\",\
            \"description\":\"triage t-1\",\"prompt\":\"self-repair item t-1\"}]}\n</system-reminder>";
        let reply = reply_to(
            &[json!({"role": "user", "content": text})],
            &Scenario::new(),
        );
        assert_eq!(reply.tool_names(), ["Agent"]);
    }

    #[test]
    fn a_reason_without_a_contract_block_has_no_dispatch() {
        assert_eq!(parse_dispatch("Stop hook feedback:\nplease continue"), None);
        assert_eq!(parse_dispatch("```json\n{\"self_repair\":1}\n```"), None);
    }
}
