//! The complete lines a transcript gained since a byte offset: what each incremental reader
//! reads at a stop. A row still being written (no newline yet) waits for the next read.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::TranscriptError;

/// Complete lines read from a transcript.
#[derive(Debug)]
pub(crate) struct NewLines {
    /// The lines, each ending in `\n`.
    pub(crate) bytes: Vec<u8>,
    /// Where they start: `offset`, or 0 when the file is shorter than `offset` (it was replaced
    /// and is read from its start).
    pub(crate) start: u64,
    /// The offset to resume from: after the last complete line.
    pub(crate) end: u64,
}

impl NewLines {
    /// Each line, without its newline.
    pub(crate) fn lines(&self) -> impl Iterator<Item = &[u8]> {
        // `bytes` is empty or ends with a newline: no empty line after the last one.
        self.bytes
            .strip_suffix(b"\n")
            .into_iter()
            .flat_map(|body| body.split(|&b| b == b'\n'))
    }
}

/// Reads the complete lines of `path` after byte `offset`.
pub(crate) fn new_lines(path: &Path, offset: u64) -> Result<NewLines, TranscriptError> {
    let error = |source| TranscriptError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(error)?;
    let len = file.metadata().map_err(error)?.len();
    let start = if offset > len { 0 } else { offset };
    file.seek(SeekFrom::Start(start)).map_err(error)?;
    // Sized up front: one read, where an empty buffer grows through four or more.
    let mut bytes = Vec::with_capacity(usize::try_from(len - start).unwrap_or(0));
    file.take(len - start)
        .read_to_end(&mut bytes)
        .map_err(error)?;
    let complete = bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    bytes.truncate(complete);
    Ok(NewLines {
        bytes,
        start,
        end: start + complete as u64,
    })
}

/// Whether `haystack` holds `needle`: rows are filtered by a substring before any JSON parse.
pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
