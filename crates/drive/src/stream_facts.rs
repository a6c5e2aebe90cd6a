//! What one `claude -p --output-format stream-json --verbose` session said about how it ended:
//! folded line by line from its stdout, tolerant of every line it does not know.

use serde::Serialize;
use serde_json::Value;

/// Tokens of a session's result (`modelUsage`, which includes sub-agents), summed over models.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SessionTokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
}

/// A `rate_limit_event` whose status was `rejected`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RateLimitRejection {
    /// Unix seconds when the limit resets, when the client was told.
    pub resets_at: Option<u64>,
    /// `five_hour`, `seven_day`, ...
    pub limit_type: Option<String>,
}

/// The final `result` line.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ResultLine {
    pub is_error: bool,
    pub subtype: Option<String>,
    pub api_error_status: Option<u16>,
    pub api_error_type: Option<String>,
    pub terminal_reason: Option<String>,
    /// The last response's `stop_reason` (`end_turn`, `refusal`, ...; 2.1.330 writes it).
    pub stop_reason: Option<String>,
    pub total_cost_usd: f64,
    pub tokens: SessionTokens,
    /// The result text, cut to 300 characters.
    pub text: String,
    /// The tool calls the client's permissions refused (`permission_denials`): the tool name
    /// and, for Bash, its command, cut to 120 characters.
    pub permission_denials: Vec<String>,
}

/// Everything the driver keeps from one session's stream.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct StreamFacts {
    /// The client's session id (from any line that has one).
    pub session_id: Option<String>,
    /// The last rejected rate limit.
    pub rate_limit: Option<RateLimitRejection>,
    /// `system/api_retry` lines seen.
    pub api_retries: u32,
    /// `error_status` of the last `api_retry`.
    pub last_retry_status: Option<u16>,
    /// `error` of the last `api_retry` (`rate_limit`, `overloaded`, `authentication_failed`).
    pub last_retry_error: Option<String>,
    /// `error` of the last assistant message that carried one (`rate_limit`, `server_error`).
    pub assistant_error: Option<String>,
    /// The main session's last response was refused by the model provider: its `stop_reason`
    /// was `refusal`, or the client's own message said the request "appears to violate our
    /// Usage Policy". A later response that ended otherwise (the client's
    /// `model_refusal_fallback` retry on another model) clears it. Sub-agents' messages
    /// (`parent_tool_use_id` set) never count.
    pub main_refused: bool,
    /// `system/model_refusal_fallback` lines: the client retried a refused request on another
    /// model.
    pub refusal_fallbacks: u32,
    /// The last `result` line.
    pub result: Option<ResultLine>,
    /// Lines that were not JSON objects.
    pub unreadable_lines: u32,
}

/// What the client says in place of a refused answer ("API Error: Claude Code is unable to
/// respond to this request, which appears to violate our Usage Policy (...)").
const POLICY_WORDS: &str = "violate our Usage Policy";

/// Whether a stream `assistant` line of the main session ends a refused response: `Some(true)`
/// for `stop_reason: "refusal"` or the client's Usage Policy message, `Some(false)` for another
/// finished response, `None` for a sub-agent's line or one that finishes nothing.
fn main_response_refused(value: &Value) -> Option<bool> {
    if value
        .get("parent_tool_use_id")
        .is_some_and(|p| !p.is_null())
    {
        return None;
    }
    let message = value.get("message")?;
    if message.get("model").and_then(Value::as_str) == Some("<synthetic>") {
        // 2.1.330, once its own retries are spent: `stop_reason: "refusal"` on the client's
        // message ("API Error: Opus 4.8's safeguards flagged this message ...").
        if message.get("stop_reason").and_then(Value::as_str) == Some("refusal") {
            return Some(true);
        }
        let says_policy = message
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .any(|t| t.contains(POLICY_WORDS))
            });
        return says_policy.then_some(true);
    }
    let reason = message.get("stop_reason").and_then(Value::as_str)?;
    Some(reason == "refusal")
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn status(value: &Value, key: &str) -> Option<u16> {
    value
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|n| u16::try_from(n).ok())
}

fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// `Bash: self-repair adopt --run r1` for one `permission_denials` entry.
fn denial(value: &Value) -> String {
    let tool = value
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or("a tool");
    match value.pointer("/tool_input/command").and_then(Value::as_str) {
        Some(command) => cut(&format!("{tool}: {command}"), 120),
        None => tool.to_owned(),
    }
}

/// Sums `modelUsage` over its models (the client's camelCase fields).
fn model_usage_tokens(usage: Option<&Value>) -> SessionTokens {
    let mut tokens = SessionTokens::default();
    let Some(Value::Object(models)) = usage else {
        return tokens;
    };
    let field = |model: &Value, key: &str| model.get(key).and_then(Value::as_u64).unwrap_or(0);
    for model in models.values() {
        tokens.input += field(model, "inputTokens");
        tokens.output += field(model, "outputTokens");
        tokens.cache_read += field(model, "cacheReadInputTokens");
        tokens.cache_creation += field(model, "cacheCreationInputTokens");
    }
    tokens
}

impl StreamFacts {
    /// Folds every line of a whole stream.
    pub fn from_stream(stream: &str) -> StreamFacts {
        let mut facts = StreamFacts::default();
        for line in stream.lines() {
            facts.observe(line);
        }
        facts
    }

    /// Folds one stdout line.
    pub fn observe(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            self.unreadable_lines += 1;
            return;
        };
        if !value.is_object() {
            self.unreadable_lines += 1;
            return;
        }
        if let Some(id) = text(&value, "session_id") {
            self.session_id = Some(id);
        }
        match (
            value.get("type").and_then(Value::as_str),
            value.get("subtype").and_then(Value::as_str),
        ) {
            (Some("rate_limit_event"), _) => self.observe_rate_limit(&value),
            (Some("system"), Some("api_retry")) => {
                self.api_retries += 1;
                self.last_retry_status = status(&value, "error_status");
                self.last_retry_error = text(&value, "error");
            }
            (Some("system"), Some("model_refusal_fallback")) => self.refusal_fallbacks += 1,
            (Some("assistant"), _) => {
                if let Some(error) = text(&value, "error") {
                    self.assistant_error = Some(error);
                }
                if let Some(refused) = main_response_refused(&value) {
                    self.main_refused = refused;
                }
            }
            (Some("result"), _) => {
                let result = Self::result_line(&value);
                if result.stop_reason.as_deref() == Some("refusal")
                    || (result.is_error && result.text.contains(POLICY_WORDS))
                {
                    self.main_refused = true;
                }
                self.result = Some(result);
            }
            _ => {}
        }
    }

    fn observe_rate_limit(&mut self, value: &Value) {
        let Some(info) = value.get("rate_limit_info") else {
            return;
        };
        // `allowed` and `allowed_warning` only report usage; the session goes on.
        if info.get("status").and_then(Value::as_str) != Some("rejected") {
            return;
        }
        self.rate_limit = Some(RateLimitRejection {
            resets_at: info.get("resetsAt").and_then(Value::as_u64),
            limit_type: text(info, "rateLimitType"),
        });
    }

    fn result_line(value: &Value) -> ResultLine {
        ResultLine {
            is_error: value.get("is_error").and_then(Value::as_bool) == Some(true),
            subtype: text(value, "subtype"),
            api_error_status: status(value, "api_error_status"),
            api_error_type: text(value, "api_error_type"),
            terminal_reason: text(value, "terminal_reason"),
            stop_reason: text(value, "stop_reason"),
            total_cost_usd: value
                .get("total_cost_usd")
                .and_then(Value::as_f64)
                .filter(|c| c.is_finite() && *c >= 0.0)
                .unwrap_or(0.0),
            tokens: model_usage_tokens(value.get("modelUsage")),
            text: cut(
                value.get("result").and_then(Value::as_str).unwrap_or(""),
                300,
            ),
            permission_denials: value
                .get("permission_denials")
                .and_then(Value::as_array)
                .map(|denials| denials.iter().map(denial).collect())
                .unwrap_or_default(),
        }
    }

    /// Whether the stream already shows the API refusing the credentials: the driver ends the
    /// session at once instead of waiting through the client's own retries.
    pub fn auth_refused(&self) -> bool {
        matches!(self.last_retry_status, Some(401 | 403))
            || self.last_retry_error.as_deref() == Some("authentication_failed")
    }
}
