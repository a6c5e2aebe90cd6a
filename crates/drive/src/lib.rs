//! `self-repair drive`: relaunches headless Claude Code sessions until a run ends, reading each
//! session's structured output (rate-limit events, retries, the result) to wait, back off or
//! stop; and the logs a human reads afterwards (`drive.jsonl`, `errors.jsonl`, the timeline).

mod claude_session;
mod drive_error;
mod drive_log;
mod drive_policy;
mod driver;
mod error_catalog;
mod run_probe;
mod session_end;
mod stream_facts;
mod timeline;
mod until_time;

#[cfg(test)]
mod classifier_tests;
#[cfg(test)]
mod policy_boundary_tests;
#[cfg(test)]
mod policy_tests;

pub use claude_session::is_executable;
pub use drive_error::DriveError;
pub use drive_log::{DriveLog, DriveStopRecord, SessionRecord, read_drive_log};
pub use drive_policy::{DriveLimits, StopReason};
pub use driver::{DriveOptions, DriveOutcome, DriveReport, drive, lock_run, session_prompt};
pub use error_catalog::{CatalogEntry, ErrorCatalog};
pub use run_probe::{RunObservation, RunProbe};
pub use session_end::{ProcessExit, SessionEnd, classify};
pub use stream_facts::StreamFacts;
pub use timeline::{Timeline, TimelineEntry, build_timeline};
pub use until_time::parse_until;
