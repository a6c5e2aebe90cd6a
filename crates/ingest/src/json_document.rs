//! Reads a whole JSON document into typed structs, naming the JSON path of any failure.

use serde::Deserialize;

use crate::format::Format;
use crate::ingest_error::IngestError;

/// Parses `text` as `T`. The fast path is plain `serde_json`; only when that fails is the
/// document parsed again with path tracking, so the error can say `runs[0].results[3].level`
/// instead of a bare line and column.
pub(crate) fn parse_document<'de, T: Deserialize<'de>>(
    text: &'de str,
    format: Format,
    input: &str,
    expected: &'static str,
) -> Result<T, IngestError> {
    serde_json::from_str::<T>(text).map_err(|error| {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let path = match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
            Err(tracked) => tracked.path().to_string(),
            Ok(_) => ".".to_owned(),
        };
        let position = format!("line {} column {}", error.line(), error.column());
        let location = if path == "." || path.is_empty() {
            position
        } else {
            format!("{path}, {position}")
        };
        IngestError::BadDocument {
            input: input.to_owned(),
            format,
            location,
            problem: without_position(&error),
            expected,
        }
    })
}

/// The `serde_json` message without its trailing " at line L column C".
pub(crate) fn without_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&suffix) {
        Some(bare) => bare.to_owned(),
        None => message,
    }
}
