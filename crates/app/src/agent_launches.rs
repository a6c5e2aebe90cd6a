//! Which `Agent` calls the main session made since the previous stop, and at which model,
//! read from its transcript (`transcript_path`): the evidence of what really ran when a launch
//! drops the dispatch's `model`. The read position is kept in the run's `transcript.json`.

use std::path::{Path, PathBuf};

use self_repair_engine::{AgentLaunch, ItemKind};
use self_repair_store::{RunDir, is_safe_item_id, write_atomic};
use serde::{Deserialize, Serialize};

/// Where the last read of the session transcript ended.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TranscriptCursor {
    path: PathBuf,
    offset: u64,
}

/// The launches of this run's items since the last call, or nothing when the transcript is
/// unknown or unreadable (the evidence is then missing, never invented). The first time a
/// transcript is seen it is read from its end: no item of the run was launched before.
pub fn launches_since_last_stop(
    dir: &RunDir,
    transcript: Option<&Path>,
    run: &str,
) -> Vec<AgentLaunch> {
    let Some(transcript) = transcript else {
        return Vec::new();
    };
    let cursor_path = dir.path().join("transcript.json");
    let cursor: Option<TranscriptCursor> = std::fs::read_to_string(&cursor_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .filter(|c: &TranscriptCursor| c.path == transcript);
    let cursor_offset = cursor.as_ref().map(|c| c.offset);
    let (calls, offset) = match cursor {
        Some(cursor) => match self_repair_transcript::read_agent_calls(transcript, cursor.offset) {
            Ok(read) => read,
            Err(_) => return Vec::new(),
        },
        None => match std::fs::metadata(transcript) {
            Ok(meta) => (Vec::new(), meta.len()),
            Err(_) => return Vec::new(),
        },
    };
    let unchanged = cursor_offset == Some(offset);
    let next = TranscriptCursor {
        path: transcript.to_path_buf(),
        offset,
    };
    // A stop whose transcript did not grow writes nothing (design note 2): no rename, no flush.
    if !unchanged && let Ok(text) = serde_json::to_string(&next) {
        // Losing the cursor only means reading from the end next time: no write error matters.
        let _ = write_atomic(&cursor_path, text.as_bytes());
    }
    calls
        .into_iter()
        .filter(|call| names_run(&call.prompt, run))
        .filter_map(|call| {
            let item = item_of(&call.description)?;
            Some(AgentLaunch {
                item,
                model: call.model,
            })
        })
        .collect()
}

/// A prompt `self-repair item <id> --run <run>` of another run is not ours; one without
/// `--run` (an older dispatch) is taken as ours.
fn names_run(prompt: &str, run: &str) -> bool {
    let mut words = prompt.split_whitespace();
    while let Some(word) = words.next() {
        if word == "--run" {
            return words.next() == Some(run);
        }
    }
    true
}

/// The item id a dispatch `description` names (`triage t-00042`).
fn item_of(description: &str) -> Option<String> {
    description
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .find(|token| is_safe_item_id(token) && ItemKind::of_id(token).is_some())
        .map(str::to_owned)
}
