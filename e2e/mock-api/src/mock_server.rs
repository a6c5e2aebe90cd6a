//! The HTTP server: binds 127.0.0.1 on a free port, answers `POST /v1/messages` (SSE or JSON)
//! and `POST /v1/messages/count_tokens`, injects faults, records every request.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::conversation::Conversation;
use crate::fault::{Fault, FaultKind};
use crate::http_request::HttpRequest;
use crate::mock_error::MockError;
use crate::model::respond;
use crate::recorded_request::RecordedRequest;
use crate::reply::{Block, Reply};
use crate::scenario::Scenario;
use crate::sse::{LAST_CHUNK, MessageMeta, chunk, encode_events, encode_message};
use crate::thread::Thread;

/// A running mock Messages API. Stops when dropped.
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared {
    scenario: Scenario,
    started: Instant,
    seq: AtomicU64,
    ids: AtomicU64,
    /// In every message id: two servers alive at once (two sessions of one scenario) never
    /// hand out the same id, as the real API never does (a transcript counts a response once
    /// per id, reference/cost.md).
    port: u16,
    records: Mutex<Vec<RecordedRequest>>,
    record_file: Option<Mutex<File>>,
    fault_hits: Mutex<Vec<FaultCounter>>,
    stopping: AtomicBool,
    /// Whether the scenario's `hold_first_main` has held its request.
    held: AtomicBool,
}

/// How often a fault selected a request, and a usage limit's reset once fixed.
#[derive(Debug, Clone, Copy, Default)]
struct FaultCounter {
    seen: usize,
    reset_at: Option<u64>,
}

/// A fault resolved for one request: a status with its extra headers, or a hang.
enum Injected {
    Status(u16, Vec<(String, String)>),
    Hang(Duration),
    /// A 200 answer with the provider's refusal in place of the scripted reply.
    Refusal,
}

/// What the server decided for one request, before writing it.
enum Answer {
    Stream(Reply, MessageMeta),
    Json(u16, Value, Vec<(String, String)>),
    Hang(Duration),
}

/// Unix seconds now.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The headers of a rejected usage limit that resets at `reset_at` (Unix seconds).
fn usage_limit_headers(reset_at: u64) -> Vec<(String, String)> {
    vec![
        (
            "anthropic-ratelimit-unified-status".to_owned(),
            "rejected".to_owned(),
        ),
        (
            "anthropic-ratelimit-unified-reset".to_owned(),
            reset_at.to_string(),
        ),
        (
            "anthropic-ratelimit-unified-representative-claim".to_owned(),
            "five_hour".to_owned(),
        ),
        (
            "retry-after".to_owned(),
            reset_at.saturating_sub(unix_now()).max(1).to_string(),
        ),
    ]
}

impl MockServer {
    /// Starts a server playing `scenario`, recording to memory only.
    pub fn start(scenario: Scenario) -> Result<MockServer, MockError> {
        MockServer::launch(scenario, None)
    }

    /// Starts a server that also appends every record to `jsonl` (created or truncated).
    pub fn start_recording(scenario: Scenario, jsonl: &Path) -> Result<MockServer, MockError> {
        let file = File::create(jsonl).map_err(|source| MockError::Record {
            path: jsonl.to_owned(),
            source,
        })?;
        MockServer::launch(scenario, Some(file))
    }

    fn launch(scenario: Scenario, record_file: Option<File>) -> Result<MockServer, MockError> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(MockError::Bind)?;
        let addr = listener.local_addr().map_err(MockError::Bind)?;
        let shared = Arc::new(Shared {
            fault_hits: Mutex::new(vec![FaultCounter::default(); scenario.faults.len()]),
            scenario,
            started: Instant::now(),
            seq: AtomicU64::new(0),
            ids: AtomicU64::new(0),
            port: addr.port(),
            records: Mutex::new(Vec::new()),
            record_file: record_file.map(Mutex::new),
            stopping: AtomicBool::new(false),
            held: AtomicBool::new(false),
        });
        let accept_shared = Arc::clone(&shared);
        let accept = thread::Builder::new()
            .name("mock-api-accept".into())
            .spawn(move || accept_loop(&listener, &accept_shared))
            .map_err(MockError::Thread)?;
        Ok(MockServer {
            addr,
            shared,
            accept: Some(accept),
        })
    }

    /// `http://127.0.0.1:PORT`, the value for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Every request answered so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        let mut records = self
            .shared
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        records.sort_by_key(|r| r.seq);
        records
    }

    /// Stops accepting connections (open connections end with their client).
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the blocking accept with one connection of our own.
        let _ = TcpStream::connect(self.addr);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(shared);
        // A connection that cannot get a thread is dropped; the client retries.
        let _ = thread::Builder::new()
            .name("mock-api-conn".into())
            .spawn(move || serve_connection(stream, &shared));
    }
}

fn serve_connection(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    while let Ok(Some(request)) = HttpRequest::read_from(&mut reader) {
        let keep_open = answer(&request, &mut writer, shared).unwrap_or(false);
        if !keep_open || request.wants_close() || shared.stopping.load(Ordering::SeqCst) {
            return;
        }
    }
}

impl Shared {
    fn millis(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The first fault that selects this request, counting it against every fault that
    /// selects its thread.
    /// The wait of the scenario's `hold_first_main` for a main-thread request of `body`: the
    /// first that holds its text, once.
    fn hold(&self, body: &[u8]) -> Option<Duration> {
        let (text, millis) = self.scenario.hold_first_main.as_ref()?;
        let holds = body
            .windows(text.len().max(1))
            .any(|w| w == text.as_bytes());
        (holds && !self.held.swap(true, Ordering::SeqCst)).then(|| Duration::from_millis(*millis))
    }

    fn fault_for(&self, thread: &Thread) -> Option<Injected> {
        let mut hits = self
            .fault_hits
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut chosen = None;
        for (i, fault) in self.scenario.faults.iter().enumerate() {
            if !fault.thread.selects(thread) {
                continue;
            }
            let counter = &mut hits[i];
            let seen = counter.seen;
            counter.seen += 1;
            if chosen.is_some() || !in_window(fault, seen) {
                continue;
            }
            chosen = match &fault.kind {
                FaultKind::Status {
                    status,
                    retry_after,
                } => Some(Injected::Status(
                    *status,
                    retry_after
                        .map(|s| ("retry-after".to_owned(), s.to_string()))
                        .into_iter()
                        .collect(),
                )),
                FaultKind::Hang { millis } => Some(Injected::Hang(Duration::from_millis(*millis))),
                FaultKind::Refusal => Some(Injected::Refusal),
                FaultKind::UsageLimit { reset_secs } => {
                    let now = unix_now();
                    let reset_at = *counter.reset_at.get_or_insert(now + reset_secs);
                    (now < reset_at).then(|| Injected::Status(429, usage_limit_headers(reset_at)))
                }
            };
        }
        chosen
    }

    fn record(&self, record: RecordedRequest) {
        if let Some(file) = &self.record_file {
            let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
            if let Ok(line) = serde_json::to_string(&record) {
                // Recording is best effort: a full disk must not fail the client's request.
                let _ = writeln!(file, "{line}");
                let _ = file.flush();
            }
        }
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record);
    }
}

/// The input tokens reported for a request body of `bytes`: four bytes a token, but for the
/// main thread at the scenario's own rate.
fn reported_tokens(thread: &Thread, bytes: usize, scenario: &Scenario) -> u64 {
    let bytes = bytes as u64;
    match thread {
        Thread::Main => bytes.saturating_mul(scenario.main_tokens_per_kib) / 1024,
        _ => bytes / 4,
    }
}

fn in_window(fault: &Fault, seen: usize) -> bool {
    seen >= fault.skip && seen < fault.skip.saturating_add(fault.count)
}

/// Answers one request; `Ok(true)` keeps the connection open.
fn answer(request: &HttpRequest, out: &mut TcpStream, shared: &Shared) -> io::Result<bool> {
    let seq = shared.seq.fetch_add(1, Ordering::SeqCst) + 1;
    let at_ms = shared.millis();
    let body: Value = serde_json::from_slice(&request.body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&request.body).into_owned()));
    let model = body.get("model").and_then(Value::as_str).map(str::to_owned);
    let mut record = RecordedRequest {
        seq,
        at_ms,
        done_ms: at_ms,
        method: request.method.clone(),
        target: request.target.clone(),
        headers: RecordedRequest::keep_headers(&request.headers),
        thread: "-".to_owned(),
        model: model.clone(),
        body,
        status: 200,
        answer: String::new(),
        tool_inputs: Vec::new(),
    };
    let decided = match (request.method.as_str(), request.path()) {
        ("POST", "/v1/messages") => {
            let (thread, mut reply) = respond(&record.body, &shared.scenario);
            record.thread = thread.label();
            // The agent "thinks" before its answer; the connection's own thread waits, so
            // other requests go on.
            if matches!(thread, Thread::SubAgent { .. }) {
                let prompt = Conversation::new(&record.body).first_user_text();
                thread::sleep(shared.scenario.sub_agent_wait(&prompt));
            }
            if matches!(thread, Thread::Main)
                && let Some(wait) = shared.hold(&request.body)
            {
                thread::sleep(wait);
            }
            match shared.fault_for(&thread) {
                Some(Injected::Status(status, headers)) => {
                    Answer::Json(status, error_body(status), headers)
                }
                Some(Injected::Hang(pause)) => Answer::Hang(pause),
                injected => {
                    if matches!(injected, Some(Injected::Refusal)) {
                        reply = Reply::refusal();
                    }
                    let id = shared.next_id();
                    for (k, block) in reply.blocks.iter_mut().enumerate() {
                        if let Block::ToolUse { id: tool_id, .. } = block {
                            *tool_id = format!("toolu_mock_{id:04}_{k}");
                        }
                    }
                    let meta = MessageMeta {
                        id: format!("msg_mock_{}_{id:04}", shared.port),
                        model: shared
                            .scenario
                            .sub_agent_model
                            .clone()
                            .filter(|_| matches!(thread, Thread::SubAgent { .. }))
                            .or(model)
                            .unwrap_or_else(|| "unknown".to_owned()),
                        input_tokens: shared.scenario.fixed_usage.map_or_else(
                            || reported_tokens(&thread, request.body.len(), &shared.scenario),
                            |(input, _)| input,
                        ),
                        output_tokens: shared.scenario.fixed_usage.map(|(_, output)| output),
                    };
                    Answer::Stream(reply, meta)
                }
            }
        }
        ("POST", "/v1/messages/count_tokens") => Answer::Json(
            200,
            json!({"input_tokens": (request.body.len() / 4).max(1)}),
            Vec::new(),
        ),
        _ => Answer::Json(
            404,
            json!({"type": "error", "error": {"type": "not_found_error",
                "message": format!("the mock Messages API does not serve {} {}", request.method, request.path())}}),
            Vec::new(),
        ),
    };
    let streamed = record.body.get("stream").and_then(Value::as_bool) == Some(true);
    // The record is stored before the answer's last bytes go out, so a client that has read
    // a whole answer always finds its record.
    match decided {
        Answer::Stream(reply, meta) => {
            record.answer = summarize(&reply);
            record.tool_inputs = reply
                .blocks
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse { input, .. } => Some(input.clone()),
                    Block::Text(_) => None,
                })
                .collect();
            if streamed {
                write_stream_events(out, &reply, &meta, seq)?;
                record.done_ms = shared.millis();
                shared.record(record);
                out.write_all(LAST_CHUNK.as_bytes())?;
                out.flush()?;
            } else {
                record.done_ms = shared.millis();
                shared.record(record);
                write_json(out, 200, &encode_message(&reply, &meta), &[], seq)?;
            }
            Ok(true)
        }
        Answer::Json(status, value, headers) => {
            record.status = status;
            record.answer = if record.thread == "-" {
                format!("{status}")
            } else {
                format!("fault {status}")
            };
            record.done_ms = shared.millis();
            shared.record(record);
            write_json(out, status, &value, &headers, seq)?;
            Ok(true)
        }
        Answer::Hang(pause) => {
            record.status = 0;
            record.answer = format!("hang {}ms", pause.as_millis());
            // Recorded when the hang starts: the client may give up (or be killed) first.
            shared.record(record);
            thread::sleep(pause);
            Ok(false)
        }
    }
}

fn summarize(reply: &Reply) -> String {
    let tools = reply.tool_names();
    if tools.is_empty() {
        format!("{} text", reply.stop_reason.as_str())
    } else {
        format!("{} {}", reply.stop_reason.as_str(), tools.join(","))
    }
}

fn error_body(status: u16) -> Value {
    json!({"type": "error", "error": {"type": FaultKind::error_type(status),
        "message": format!("injected by the mock Messages API (status {status})")}})
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Error",
    }
}

fn write_json(
    out: &mut TcpStream,
    status: u16,
    value: &Value,
    headers: &[(String, String)],
    seq: u64,
) -> io::Result<()> {
    let body = value.to_string();
    let mut retry = String::new();
    for (name, value) in headers {
        retry.push_str(name);
        retry.push_str(": ");
        retry.push_str(value);
        retry.push_str("\r\n");
    }
    let head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         request-id: req_mock_{seq:04}\r\n{retry}connection: keep-alive\r\n\r\n",
        reason_phrase(status),
        body.len()
    );
    out.write_all(head.as_bytes())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

/// Writes the head and every event chunk; the caller writes [`LAST_CHUNK`].
fn write_stream_events(
    out: &mut TcpStream,
    reply: &Reply,
    meta: &MessageMeta,
    seq: u64,
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n\
         cache-control: no-cache\r\ntransfer-encoding: chunked\r\nrequest-id: req_mock_{seq:04}\r\n\
         connection: keep-alive\r\n\r\n"
    );
    out.write_all(head.as_bytes())?;
    for event in encode_events(reply, meta) {
        out.write_all(chunk(&event.to_wire()).as_bytes())?;
        out.flush()?;
    }
    Ok(())
}

/// Appends `record` lines to an existing JSONL file (for tools that merge records).
pub fn append_jsonl(path: &Path, records: &[RecordedRequest]) -> io::Result<()> {
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    for record in records {
        writeln!(
            file,
            "{}",
            serde_json::to_string(record).map_err(io::Error::other)?
        )?;
    }
    Ok(())
}
