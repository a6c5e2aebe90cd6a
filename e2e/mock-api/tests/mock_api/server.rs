//! The server over real sockets: keep-alive, chunked SSE, `count_tokens`, faults, records.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use self_repair_mock_api::{Fault, MockServer, RecordedRequest, Scenario, ThreadSelector};
use serde_json::{Value, json};

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

fn send(conn: &mut BufReader<TcpStream>, path: &str, body: &Value) -> Response {
    let text = body.to_string();
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-api-key: secret\r\n\
         connection: keep-alive\r\ncontent-length: {}\r\n\r\n{text}",
        text.len()
    );
    conn.get_mut().write_all(request.as_bytes()).unwrap();
    read_response(conn)
}

fn read_response(conn: &mut BufReader<TcpStream>) -> Response {
    let mut line = String::new();
    conn.read_line(&mut line).unwrap();
    let status: u16 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        conn.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        let (k, v) = line.trim().split_once(':').unwrap();
        headers.push((k.to_ascii_lowercase(), v.trim().to_owned()));
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if get("transfer-encoding").as_deref() == Some("chunked") {
        loop {
            line.clear();
            conn.read_line(&mut line).unwrap();
            let size = usize::from_str_radix(line.trim(), 16).unwrap();
            if size == 0 {
                line.clear();
                conn.read_line(&mut line).unwrap();
                break;
            }
            let mut piece = vec![0; size + 2];
            conn.read_exact(&mut piece).unwrap();
            body.extend_from_slice(&piece[..size]);
        }
    } else {
        let mut piece = vec![0; get("content-length").unwrap().parse().unwrap()];
        conn.read_exact(&mut piece).unwrap();
        body = piece;
    }
    Response {
        status,
        headers,
        body: String::from_utf8(body).unwrap(),
    }
}

fn connect(server: &MockServer) -> BufReader<TcpStream> {
    let stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    BufReader::new(stream)
}

fn main_request(prompt: &str) -> Value {
    json!({"model": "claude-opus-5-5", "stream": true, "max_tokens": 100,
        "system": [{"type": "text", "text": "You are Claude Code."}],
        "tools": [{"name": "Bash", "input_schema": {}}, {"name": "Agent", "input_schema": {}}],
        "messages": [{"role": "user", "content": prompt}]})
}

/// The `data:` objects of an SSE body, in order.
fn events(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

#[test]
fn serves_several_streams_and_count_tokens_on_one_keep_alive_connection() {
    let server = MockServer::start(Scenario::new()).unwrap();
    assert!(server.base_url().starts_with("http://127.0.0.1:"));
    let mut conn = connect(&server);
    let first = send(
        &mut conn,
        "/v1/messages?beta=true",
        &main_request("$ self-repair status"),
    );
    assert_eq!(first.status, 200);
    assert!(
        first
            .headers
            .iter()
            .any(|(k, v)| k == "content-type" && v.starts_with("text/event-stream"))
    );
    let first_events = events(&first.body);
    assert_eq!(first_events[0]["type"], "message_start");
    assert_eq!(first_events[0]["message"]["model"], "claude-opus-5-5");
    assert_eq!(first_events.last().unwrap()["type"], "message_stop");
    let count = send(
        &mut conn,
        "/v1/messages/count_tokens?beta=true",
        &json!({"messages": []}),
    );
    assert_eq!(count.status, 200);
    assert!(
        serde_json::from_str::<Value>(&count.body).unwrap()["input_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
    let second = send(&mut conn, "/v1/messages?beta=true", &main_request("hello"));
    assert_eq!(events(&second.body)[0]["type"], "message_start");
    let missing = send(&mut conn, "/v1/models", &json!({}));
    assert_eq!(missing.status, 404);

    let records = server.requests();
    let summary: Vec<(u64, &str, &str, u16, &str)> = records
        .iter()
        .map(|r| {
            (
                r.seq,
                r.target.as_str(),
                r.thread.as_str(),
                r.status,
                r.answer.as_str(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, "/v1/messages?beta=true", "main", 200, "tool_use Bash"),
            (2, "/v1/messages/count_tokens?beta=true", "-", 200, "200"),
            (3, "/v1/messages?beta=true", "main", 200, "end_turn text"),
            (4, "/v1/models", "-", 404, "404"),
        ]
    );
    assert_eq!(records[0].tool_inputs[0]["command"], "self-repair status");
    assert!(
        records[0].header("x-api-key").is_none(),
        "credentials are not recorded"
    );
    assert_eq!(records[0].header("content-type"), Some("application/json"));
    assert!(records[0].is_model_call() && !records[1].is_model_call());
}

#[test]
fn faults_hit_only_their_thread_window_and_carry_the_api_error_body() {
    let scenario = Scenario::new()
        .fault(Fault::status(ThreadSelector::Main, 429, 2).after(1))
        .fault(Fault::status(ThreadSelector::SubAgent, 529, 1));
    let server = MockServer::start(scenario).unwrap();
    let mut conn = connect(&server);
    let statuses: Vec<u16> = (0..4)
        .map(|_| send(&mut conn, "/v1/messages", &main_request("hi")).status)
        .collect();
    assert_eq!(statuses, [200, 429, 429, 200]);
    let mut conn = connect(&server);
    let limited = {
        send(&mut conn, "/v1/messages", &main_request("hi"));
        let scenario_sub = json!({"model": "claude-haiku-5-5", "stream": true,
            "system": "x-anthropic-billing-header: cc_is_subagent=true;\nself-repair sub-agent",
            "tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "self-repair item t-9"}]});
        send(&mut conn, "/v1/messages", &scenario_sub)
    };
    assert_eq!(limited.status, 529);
    let error: Value = serde_json::from_str(&limited.body).unwrap();
    assert_eq!(error["type"], "error");
    assert_eq!(error["error"]["type"], "overloaded_error");
    let threads: Vec<String> = server
        .requests()
        .iter()
        .map(|r| format!("{} {}", r.thread, r.answer))
        .collect();
    assert_eq!(threads.last().unwrap(), "item:t-9 fault 529");
}

#[test]
fn a_usage_limit_answers_429_with_its_reset_until_the_reset_passes() {
    let server = MockServer::start(
        Scenario::new().fault(Fault::usage_limit(ThreadSelector::Main, 2).after(1)),
    )
    .unwrap();
    let mut conn = connect(&server);
    assert_eq!(
        send(&mut conn, "/v1/messages", &main_request("hi")).status,
        200
    );
    let first = send(&mut conn, "/v1/messages", &main_request("hi"));
    let second = send(&mut conn, "/v1/messages", &main_request("hi"));
    let header = |r: &Response, name: &str| {
        r.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    for limited in [&first, &second] {
        assert_eq!(limited.status, 429);
        assert_eq!(
            header(limited, "anthropic-ratelimit-unified-status"),
            "rejected"
        );
        assert_eq!(
            header(limited, "anthropic-ratelimit-unified-representative-claim"),
            "five_hour"
        );
    }
    // The reset is fixed at the first rejection, not moved by later ones.
    let reset: u64 = header(&first, "anthropic-ratelimit-unified-reset")
        .parse()
        .unwrap();
    assert_eq!(
        header(&second, "anthropic-ratelimit-unified-reset"),
        reset.to_string()
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(reset > now && reset <= now + 2, "reset {reset}, now {now}");
    while std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        < reset
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        send(&mut conn, "/v1/messages", &main_request("hi")).status,
        200
    );
}

#[test]
fn a_hang_holds_the_connection_silent_then_closes_it() {
    let server =
        MockServer::start(Scenario::new().fault(Fault::hang(ThreadSelector::Any, 300, 1))).unwrap();
    let mut conn = connect(&server);
    let text = main_request("hi").to_string();
    let request = format!(
        "POST /v1/messages HTTP/1.1\r\ncontent-length: {}\r\n\r\n{text}",
        text.len()
    );
    conn.get_mut().write_all(request.as_bytes()).unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    let read = conn.read_to_end(&mut buf).unwrap();
    assert_eq!(read, 0, "no byte is sent during a hang");
    assert_eq!(server.requests()[0].done_ms, server.requests()[0].at_ms);
    assert!(started.elapsed() >= Duration::from_millis(250));
    let record = &server.requests()[0];
    assert_eq!((record.status, record.answer.as_str()), (0, "hang 300ms"));
    let mut conn = connect(&server);
    assert_eq!(
        send(&mut conn, "/v1/messages", &main_request("hi")).status,
        200
    );
}

#[test]
fn records_go_to_the_jsonl_file_as_they_happen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("requests.jsonl");
    let server = MockServer::start_recording(Scenario::new(), &path).unwrap();
    let mut conn = connect(&server);
    send(&mut conn, "/v1/messages", &main_request("hi"));
    let records = RecordedRequest::read_jsonl(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(records, server.requests());
    assert_eq!(records[0].body["messages"][0]["content"], "hi");
    server.shutdown();
}

/// A sub-agent's first request (its system prompt carries the marker).
fn agent_request(item: &str) -> Value {
    json!({"model": "claude-haiku-5-5", "stream": true, "max_tokens": 100,
        "system": "x-anthropic-billing-header: cc_is_subagent=true;\nself-repair sub-agent",
        "tools": [{"name": "Bash", "input_schema": {}}],
        "messages": [{"role": "user", "content": format!("self-repair item {item}")}]})
}

#[test]
fn a_sub_agent_delay_holds_every_agent_request_but_no_main_thread_request() {
    const DELAY: Duration = Duration::from_millis(600);
    let server = MockServer::start(Scenario::new().sub_agent_delay(DELAY)).unwrap();
    let mut conn = connect(&server);
    let started = Instant::now();
    assert_eq!(
        send(&mut conn, "/v1/messages", &main_request("hi")).status,
        200
    );
    let main_took = started.elapsed();
    assert!(
        main_took < DELAY / 2,
        "the main thread waited {main_took:?}"
    );
    let started = Instant::now();
    let answer = send(&mut conn, "/v1/messages", &agent_request("t-00001"));
    let agent_took = started.elapsed();
    assert_eq!(events(&answer.body)[0]["type"], "message_start");
    assert!(
        agent_took >= DELAY,
        "the agent's request took {agent_took:?}"
    );
    // Four agents of as many connections (several `claude -p` sessions) wait at once, not
    // one after another.
    let started = Instant::now();
    let agents: Vec<_> = (2..=5)
        .map(|n| {
            let mut conn = connect(&server);
            std::thread::spawn(move || {
                send(
                    &mut conn,
                    "/v1/messages",
                    &agent_request(&format!("t-0000{n}")),
                )
                .status
            })
        })
        .collect();
    for agent in agents {
        assert_eq!(agent.join().unwrap(), 200);
    }
    let four_took = started.elapsed();
    assert!(
        four_took >= DELAY && four_took < DELAY * 2,
        "four agents at once took {four_took:?}"
    );
    let threads: Vec<String> = server.requests().iter().map(|r| r.thread.clone()).collect();
    assert_eq!(threads[..2], ["main", "item:t-00001"]);
    let agent_record = &server.requests()[1];
    assert!(agent_record.done_ms - agent_record.at_ms >= 600);
}

#[test]
fn a_held_main_request_is_the_first_holding_the_text_and_only_it() {
    const HOLD: Duration = Duration::from_millis(600);
    let scenario = Scenario::new().hold_first_main("verify-task task-2 ", HOLD);
    let server = MockServer::start(scenario).unwrap();
    let mut conn = connect(&server);
    let took = |conn: &mut BufReader<TcpStream>, body: &Value| {
        let started = Instant::now();
        assert_eq!(send(conn, "/v1/messages", body).status, 200);
        started.elapsed()
    };
    let other = took(
        &mut conn,
        &main_request("fix it: verify-task task-1 --run r"),
    );
    assert!(
        other < HOLD / 2,
        "a request without the text waited {other:?}"
    );
    let agent = took(&mut conn, &agent_request("verify-task task-2 "));
    assert!(agent < HOLD / 2, "a sub-agent's request waited {agent:?}");
    let held = took(
        &mut conn,
        &main_request("fix it: verify-task task-2 --run r"),
    );
    assert!(
        held >= HOLD,
        "the first request with the text took {held:?}"
    );
    let again = took(
        &mut conn,
        &main_request("fix it: verify-task task-2 --run r"),
    );
    assert!(
        again < HOLD / 2,
        "the second request with the text waited {again:?}"
    );
}

#[test]
fn a_delay_spread_gives_each_agent_its_own_wait_the_same_for_all_its_requests() {
    let scenario = Scenario::new()
        .sub_agent_delay(Duration::from_secs(1))
        .sub_agent_delay_spread(Duration::from_millis(500));
    let waits: Vec<Duration> = (1..=20)
        .map(|n| scenario.sub_agent_wait(&format!("self-repair item t-{n:05} --run r-1")))
        .collect();
    for wait in &waits {
        assert!(
            (Duration::from_secs(1)..Duration::from_millis(1500)).contains(wait),
            "{wait:?}"
        );
    }
    let distinct: std::collections::BTreeSet<&Duration> = waits.iter().collect();
    assert!(distinct.len() >= 15, "the waits hardly differ: {waits:?}");
    assert_eq!(
        scenario.sub_agent_wait("self-repair item t-00001 --run r-1"),
        waits[0]
    );
    assert_ne!(
        scenario.sub_agent_wait("self-repair item t-00001 --run r-2"),
        waits[0],
        "another run's t-00001 is another agent"
    );
    assert_eq!(
        Scenario::new()
            .sub_agent_delay(Duration::from_millis(700))
            .sub_agent_wait("self-repair item t-00001 --run r-1"),
        Duration::from_millis(700)
    );
}

#[test]
fn a_refusal_fault_answers_200_with_stop_reason_refusal_and_its_details() {
    let server =
        MockServer::start(Scenario::new().fault(Fault::refusal(ThreadSelector::Main, 1).after(1)))
            .unwrap();
    let mut conn = connect(&server);
    send(&mut conn, "/v1/messages", &main_request("hi"));
    let refused = send(&mut conn, "/v1/messages", &main_request("hi"));
    assert_eq!(refused.status, 200);
    let delta = events(&refused.body)
        .into_iter()
        .find(|e| e["type"] == "message_delta")
        .unwrap();
    assert_eq!(delta["delta"]["stop_reason"], "refusal");
    assert_eq!(delta["delta"]["stop_details"]["type"], "refusal");
    assert_eq!(delta["delta"]["stop_details"]["category"], "cyber");
    let answers: Vec<String> = server.requests().iter().map(|r| r.answer.clone()).collect();
    assert_eq!(answers.last().unwrap(), "refusal text");
    let after = send(&mut conn, "/v1/messages", &main_request("hi"));
    assert!(!after.body.contains("\"refusal\""), "one refusal only");
}
