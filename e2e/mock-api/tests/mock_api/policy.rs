//! The scripted model's answers on conversations shaped like Claude Code 2.1.330's requests
//! (trailing `system` messages, string feedback, merged task notifications, `Exit code` errors).

use self_repair_mock_api::{
    Behaviour, ItemRule, Reply, Scenario, StopReason, Thread, respond, submit_command,
};
use serde_json::{Value, json};

const FEEDBACK: &str = "Stop hook feedback:\nTriage 2 findings.\n```json\n{\"self_repair\":1,\"run\":\"r-1\",\"phase\":\"triage\",\"launch\":[\n  {\"subagent_type\":\"self-repair:triage-investigator\",\"model\":\"haiku\",\"description\":\"triage t-1\",\"prompt\":\"self-repair item t-1\"},\n  {\"subagent_type\":\"self-repair:triage-investigator\",\"model\":\"sonnet\",\"description\":\"triage t-2\",\"prompt\":\"self-repair item t-2\"}\n],\"then\":\"end your turn\"}\n```";

const SHOW: &str = r#"{"item":"t-1","kind":"triage","agent":"triage-investigator","model":"haiku","prompt":"...",
 "output_schema":{"type":"object","additionalProperties":false,"required":["verdict","root_cause","reason"],
  "properties":{"confidence": 0.9, "verdict":{"type":"string","enum":["real","false_positive"]},
   "root_cause":{"type":"string","minLength":3,"maxLength":120},
   "reason":{"type":"string","minLength":10,"maxLength":2000}}}}"#;

fn main_body(messages: &[Value]) -> Value {
    json!({"model": "claude-opus-5-5", "stream": true,
        "system": [{"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.330; cc_entrypoint=sdk-cli;"},
                   {"type": "text", "text": "You are Claude Code."}],
        "tools": [{"name": "Agent", "input_schema": {}}, {"name": "Bash", "input_schema": {}}],
        "messages": messages})
}

fn sub_body(model: &str, messages: Vec<Value>) -> Value {
    let mut all = vec![json!({"role": "user", "content": [
        {"type": "text", "text": "<system-reminder>\nAttribution\n</system-reminder>\n"},
        {"type": "text", "text": "self-repair item t-1"}]})];
    all.extend(messages);
    json!({"model": model, "stream": true,
        "system": [{"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.330; cc_entrypoint=sdk-cli; cc_is_subagent=true;"},
                   {"type": "text", "text": "self-repair sub-agent\nRun show, then submit."}],
        "tools": [{"name": "Bash", "input_schema": {}}], "messages": all})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn system(text: &str) -> Value {
    json!({"role": "system", "content": [{"type": "text", "text": text}]})
}

fn bash_call(id: &str, command: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Bash",
        "input": {"command": command, "description": "d"}}]})
}

fn result(id: &str, text: &str, is_error: bool) -> Value {
    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
        "content": text, "is_error": is_error}]})
}

fn command_of(reply: &Reply) -> String {
    match &reply.blocks[0] {
        self_repair_mock_api::Block::ToolUse { name, input, .. } => {
            assert_eq!(name, "Bash");
            input["command"].as_str().unwrap().to_owned()
        }
        self_repair_mock_api::Block::Text(t) => panic!("expected a Bash call, got text {t:?}"),
    }
}

#[test]
fn first_prompt_runs_its_dollar_command_then_ends_the_turn() {
    let scenario = Scenario::new();
    let prompt = user("Start the run.\n$ self-repair start findings.jsonl");
    let (thread, reply) = respond(&main_body(std::slice::from_ref(&prompt)), &scenario);
    assert_eq!(thread, Thread::Main);
    assert_eq!(command_of(&reply), "self-repair start findings.jsonl");
    let body = main_body(&[
        prompt,
        bash_call("b1", "self-repair start findings.jsonl"),
        result("b1", "started", false),
    ]);
    let (_, reply) = respond(&body, &scenario);
    assert_eq!(reply.stop_reason, StopReason::EndTurn);
}

#[test]
fn stop_feedback_launches_one_agent_per_entry_in_one_message() {
    let body = main_body(&[
        user("go"),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Ready."}]}),
        user(FEEDBACK),
        system("Stop hook blocking error from command: \"self-repair hook stop\": ..."),
    ]);
    let (_, reply) = respond(&body, &Scenario::new());
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    assert_eq!(reply.tool_names(), ["Agent", "Agent"]);
    let self_repair_mock_api::Block::ToolUse { input, .. } = &reply.blocks[1] else {
        panic!("not a tool call")
    };
    assert_eq!(
        input,
        &json!({"subagent_type": "self-repair:triage-investigator", "model": "sonnet",
                "description": "triage t-2", "prompt": "self-repair item t-2"})
    );
}

#[test]
fn agent_launch_results_and_notifications_end_the_turn() {
    let launched = main_body(&[
        user(FEEDBACK),
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "a1", "name": "Agent", "input": {}}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a1",
            "content": [{"type": "text", "text": "Async agent launched successfully."}]}]}),
    ]);
    let (_, reply) = respond(&launched, &Scenario::new());
    assert_eq!(reply.stop_reason, StopReason::EndTurn);
    let notified = main_body(&[
        user(FEEDBACK),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Agents launched"}]}),
        json!({"role": "user", "content": [{"type": "text",
            "text": "<system-reminder>\n<task-notification>\n<status>completed</status>\n<result>t-1: submitted.</result>\n</task-notification>\n</system-reminder>"}]}),
    ]);
    let (_, reply) = respond(&notified, &Scenario::new());
    assert_eq!(reply.stop_reason, StopReason::EndTurn);
    assert!(reply.tool_names().is_empty());
}

#[test]
fn sub_agent_shows_then_submits_a_schema_result_then_ends() {
    let scenario = Scenario::new();
    let (thread, reply) = respond(&sub_body("claude-haiku-5-5", vec![]), &scenario);
    assert_eq!(
        thread,
        Thread::SubAgent {
            item: Some("t-1".into())
        }
    );
    assert_eq!(command_of(&reply), "self-repair show t-1 --json");
    let shown = vec![
        bash_call("s1", "self-repair show t-1 --json"),
        result("s1", SHOW, false),
    ];
    let (_, reply) = respond(&sub_body("claude-haiku-5-5", shown.clone()), &scenario);
    let submit = command_of(&reply);
    insta::assert_snapshot!(submit);
    let mut done = shown;
    done.push(bash_call("u1", &submit));
    done.push(result("u1", "accepted t-1", false));
    let (_, reply) = respond(&sub_body("claude-haiku-5-5", done), &scenario);
    assert_eq!(reply, Reply::text("t-1: submitted."));
}

fn after_rejections(scenario: &Scenario, model: &str, rejections: usize) -> Reply {
    let mut messages = vec![
        bash_call("s1", "self-repair show t-1 --json"),
        result("s1", SHOW, false),
    ];
    for n in 0..rejections {
        let id = format!("u{n}");
        messages.push(bash_call(
            &id,
            "self-repair submit t-1 <<'SELF_REPAIR_EOF'\n{}\nSELF_REPAIR_EOF",
        ));
        messages.push(result(&id, "Exit code 1\nfield `verdict` is missing", true));
    }
    respond(&sub_body(model, messages), scenario).1
}

fn submitted_json(reply: &Reply) -> Value {
    let command = command_of(reply);
    let body = command.split('\n').nth(1).unwrap();
    serde_json::from_str(body).unwrap()
}

#[test]
fn invalid_first_submits_a_bad_result_then_fixes_it() {
    let scenario = Scenario::new().item(ItemRule {
        item: Some("t-1".into()),
        behaviour: Behaviour::InvalidFirst,
        ..ItemRule::default()
    });
    let first = submitted_json(&after_rejections(&scenario, "claude-haiku-5-5", 0));
    assert!(first.get("verdict").is_none());
    let second = submitted_json(&after_rejections(&scenario, "claude-haiku-5-5", 1));
    assert_eq!(second["verdict"], "real");
}

#[test]
fn always_invalid_gives_up_after_max_submits_and_only_on_the_matching_tier() {
    let scenario = Scenario::new().item(ItemRule {
        kind: Some("triage".into()),
        model: Some("haiku".into()),
        behaviour: Behaviour::AlwaysInvalid,
        ..ItemRule::default()
    });
    assert!(
        submitted_json(&after_rejections(&scenario, "claude-haiku-5-5", 1))
            .get("verdict")
            .is_none()
    );
    let gave_up = after_rejections(&scenario, "claude-haiku-5-5", 2);
    assert_eq!(gave_up.stop_reason, StopReason::EndTurn);
    assert_eq!(
        submitted_json(&after_rejections(&scenario, "claude-sonnet-5-5", 0))["verdict"],
        "real"
    );
}

#[test]
fn never_submit_ends_after_show_and_results_can_be_chosen_in_code() {
    let never = Scenario::new().item(ItemRule {
        behaviour: Behaviour::NeverSubmit,
        ..ItemRule::default()
    });
    assert_eq!(
        after_rejections(&never, "claude-haiku-5-5", 0).stop_reason,
        StopReason::EndTurn
    );
    let chosen = Scenario::new().results(|show| {
        (show.item == "t-1").then(|| json!({"confidence": 0.9, "verdict": "false_positive", "root_cause": "tool bug", "reason": "the tool is wrong here"}))
    });
    assert_eq!(
        submitted_json(&after_rejections(&chosen, "claude-haiku-5-5", 0))["verdict"],
        "false_positive"
    );
}

#[test]
fn file_submission_writes_with_cat_then_passes_the_path() {
    let scenario = Scenario::new().commands(
        "self-repair show {id}",
        "self-repair submit {id} --file {file}",
    );
    let command = submit_command(&scenario, "t-7", None, "{\"a\":1}", 2);
    assert_eq!(
        command,
        "cat > /tmp/self-repair-mock-t-7-2.txt <<'SELF_REPAIR_EOF'\n{\"a\":1}\nSELF_REPAIR_EOF\nself-repair submit t-7 --file /tmp/self-repair-mock-t-7-2.txt"
    );
}

#[test]
fn scenario_json_reads_rules_and_faults() {
    let scenario: Scenario = serde_json::from_value(json!({
        "items": [{"item": "t-2", "behaviour": "always_invalid"}],
        "faults": [{"thread": "main", "skip": 2, "count": 3, "kind": {"type": "status", "status": 429, "retry_after": 1}},
                   {"thread": {"item": "t-3"}, "count": 1, "kind": {"type": "hang", "millis": 500}}]
    }))
    .unwrap();
    assert_eq!(scenario.items[0].behaviour, Behaviour::AlwaysInvalid);
    assert_eq!(scenario.faults.len(), 2);
    assert_eq!(scenario.sub_agent_marker, "self-repair sub-agent");
    assert!(serde_json::from_value::<Scenario>(json!({"itemz": []})).is_err());
}

#[test]
fn a_sub_agent_whose_prompt_names_the_run_shows_and_submits_with_that_run() {
    let scenario = Scenario::new();
    let mut body = sub_body("claude-haiku-5-5", vec![]);
    body["messages"][0]["content"][1]["text"] = json!("self-repair item t-1 --run r-20261122-0930");
    let (thread, reply) = respond(&body, &scenario);
    assert_eq!(
        thread,
        Thread::SubAgent {
            item: Some("t-1".into())
        }
    );
    let show = "self-repair show t-1 --run r-20261122-0930 --json";
    assert_eq!(command_of(&reply), show);
    let mut shown = body.clone();
    let messages = shown["messages"].as_array_mut().unwrap();
    messages.push(bash_call("s1", show));
    messages.push(result("s1", SHOW, false));
    let (_, reply) = respond(&shown, &scenario);
    assert!(
        command_of(&reply)
            .starts_with("self-repair submit t-1 --run r-20261122-0930 <<'SELF_REPAIR_EOF'\n"),
        "{}",
        command_of(&reply)
    );
    assert_eq!(
        self_repair_mock_api::run_of_prompt("self-repair item t-1 --run r-1"),
        Some("r-1".to_owned())
    );
    assert_eq!(
        self_repair_mock_api::run_of_prompt("self-repair item t-1"),
        None
    );
}

#[test]
fn a_refused_item_shows_then_every_answer_is_the_providers_refusal() {
    let scenario = Scenario::new().item(ItemRule {
        item: Some("t-1".into()),
        behaviour: Behaviour::Refused,
        ..ItemRule::default()
    });
    let (_, first) = respond(&sub_body("claude-sonnet-5-5", vec![]), &scenario);
    assert_eq!(command_of(&first), "self-repair show t-1 --json");
    let shown = vec![
        bash_call("s1", "self-repair show t-1 --json"),
        result("s1", SHOW, false),
    ];
    let (_, refused) = respond(&sub_body("claude-sonnet-5-5", shown), &scenario);
    assert_eq!(refused, Reply::refusal());
    assert_eq!(refused.stop_reason, StopReason::Refusal);
    assert!(refused.blocks.is_empty());
}
