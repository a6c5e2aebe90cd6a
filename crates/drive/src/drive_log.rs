//! `drive.jsonl`: one line per session the driver ran, appended when the session ends.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::drive_error::DriveError;
use crate::session_end::SessionEnd;
use crate::stream_facts::SessionTokens;

/// The version of a `drive.jsonl` line.
pub(crate) const DRIVE_LOG_VERSION: u32 = 1;

/// Tokens as logged (the client's `modelUsage`, sub-agents included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LoggedTokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
}

impl From<SessionTokens> for LoggedTokens {
    fn from(t: SessionTokens) -> LoggedTokens {
        LoggedTokens {
            input: t.input,
            output: t.output,
            cache_read: t.cache_read,
            cache_creation: t.cache_creation,
        }
    }
}

/// One session of `drive`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub schema_version: u32,
    /// 1, 2, ... within this run's drive log.
    pub session: u32,
    /// The client's session id, when its stream named one.
    #[serde(default)]
    pub claude_session: Option<String>,
    /// Unix seconds.
    pub started_at: u64,
    pub ended_at: u64,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// The process's exit code (`null` when a signal ended it).
    #[serde(default)]
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub signal: Option<i32>,
    /// The classified reason (`rate_limited`, `overloaded`, `auth_failed`, ...), flattened.
    #[serde(flatten)]
    pub end: SessionEnd,
    /// A one-line description of the failure, for the catalog (empty when it just ended).
    #[serde(default)]
    pub detail: String,
    /// Items submitted during the session (`submitted` journal events).
    pub submitted: u64,
    pub phase_before: String,
    pub phase_after: String,
    /// The run's status when the session ended.
    pub status_after: String,
    pub progressed: bool,
    /// The result's `total_cost_usd` (0 without a result).
    pub cost_usd: f64,
    pub tokens: LoggedTokens,
    /// `system/api_retry` lines of the stream.
    pub api_retries: u32,
    /// What the driver did next: `relaunch`, `done` or `stop`.
    pub next: String,
    /// Seconds waited before the next session (0 when none).
    pub backoff_secs: u64,
}

/// The last line of one `drive` invocation: how and why it stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriveStopRecord {
    pub schema_version: u32,
    /// Always `drive_stop` (session lines have no `event`).
    pub event: String,
    /// Unix seconds.
    pub at: u64,
    /// `complete`, `cancelled`, `auth_required`, `max_sessions`, `no_progress`, `budget`,
    /// `until`, `interrupted`, `paused_by_user`.
    pub outcome: String,
    /// The message `drive` printed.
    pub message: String,
    /// Sessions this invocation ran, and their summed `total_cost_usd`.
    pub sessions: u32,
    pub spent_usd: f64,
}

/// Appends any serializable line.
fn append_line<T: Serialize>(path: &Path, value: &T) -> Result<(), DriveError> {
    let line = serde_json::to_string(value).map_err(|e| DriveError::Io {
        action: "encode a drive log line for",
        path: path.to_owned(),
        source: std::io::Error::other(e),
    })?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(DriveError::io("open", path))?;
    writeln!(file, "{line}").map_err(DriveError::io("append to", path))
}

/// Appends the stop line.
pub(crate) fn append_stop(path: &Path, record: &DriveStopRecord) -> Result<(), DriveError> {
    append_line(path, record)
}

/// Appends one record.
pub(crate) fn append_session(path: &Path, record: &SessionRecord) -> Result<(), DriveError> {
    append_line(path, record)
}

/// The lines of a drive log (a missing log is empty; unreadable lines skipped).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DriveLog {
    pub sessions: Vec<SessionRecord>,
    pub stops: Vec<DriveStopRecord>,
}

/// Reads a drive log.
pub fn read_drive_log(path: &Path) -> Result<DriveLog, DriveError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(DriveLog::default()),
        Err(e) => return Err(DriveError::io("read", path)(e)),
    };
    let mut log = DriveLog::default();
    for line in text.lines() {
        // Read as a JSON value first: a crashed session's line names `signal` twice (the
        // record's own and the flattened `SessionEnd::Crashed`'s, the same number), which a
        // struct refuses as a duplicate field and a value keeps once.
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if let Ok(stop) = DriveStopRecord::deserialize(&value)
            && stop.event == "drive_stop"
        {
            log.stops.push(stop);
        } else if let Ok(session) = SessionRecord::deserialize(&value) {
            log.sessions.push(session);
        }
    }
    Ok(log)
}
