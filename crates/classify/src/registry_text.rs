//! The text form of `known.json` and `rules.json` a team shares in git: a header line, then one
//! entry a line (JSON Lines). Two branches that each add entries change disjoint lines, and
//! the `merge=union` attribute `start` writes beside them keeps both sides' lines where git's
//! text merge would call two insertions next to each other a conflict (reference/state-file.md,
//! "The registry in git"). Older versions wrote one pretty-printed JSON document; it is still
//! read, and the next write turns it into lines.

use std::io::Write;
use std::path::Path;

use self_repair_store::write_atomic_with;
use serde_json::Value;

use crate::ClassifyError;

/// The `schema_version` of the line form; 1 was the single document.
pub const LINE_SCHEMA_VERSION: u32 = 2;

/// What a registry file holds, before its entries are decoded.
#[derive(Debug)]
pub(crate) enum RegistryText<'a> {
    /// The whole file is one JSON document (`{"schema_version": 1, "entries": {...}}`): what
    /// older versions wrote, and what a person may write by hand.
    Document(Value),
    /// One entry a line, with its 1-based line number; blank and header lines left out.
    Lines(Vec<(usize, &'a str)>),
}

/// Reads a registry file; `None` when there is none.
pub(crate) fn read_registry(path: &Path) -> Result<Option<String>, ClassifyError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ClassifyError::BadFile {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
    }
}

/// Splits a registry's text into its form. `document_keys` are the top-level keys only the
/// single-document form has (`entries`, `rules`).
pub(crate) fn split<'a>(
    text: &'a str,
    path: &Path,
    document_keys: &[&str],
) -> Result<RegistryText<'a>, ClassifyError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(line) = conflict_marker(text) {
        return Err(ClassifyError::ConflictMarkers {
            path: path.to_path_buf(),
            line,
        });
    }
    let Some(first) = text.lines().find(|l| !l.trim().is_empty()) else {
        return Ok(RegistryText::Lines(Vec::new()));
    };
    let first_is_document = match serde_json::from_str::<Value>(first) {
        Ok(Value::Object(map)) => document_keys.iter().any(|k| map.contains_key(*k)),
        // `{` alone, or the start of any JSON spread over lines.
        Err(_) => true,
        Ok(_) => false,
    };
    if first_is_document {
        return serde_json::from_str(text)
            .map(RegistryText::Document)
            .map_err(|e| ClassifyError::BadFile {
                path: path.to_path_buf(),
                message: format!(
                    "not valid JSON ({e}); self-repair writes one entry a line, a file written \
                     by hand may also be one JSON document"
                ),
            });
    }
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(version) = header_version(trimmed) {
            if version > LINE_SCHEMA_VERSION {
                return Err(ClassifyError::NewerFile {
                    path: path.to_path_buf(),
                    found: version,
                });
            }
            continue;
        }
        lines.push((index + 1, trimmed));
    }
    Ok(RegistryText::Lines(lines))
}

/// The `schema_version` of a header line (`{"schema_version":2,...}`), `None` for any other.
fn header_version(line: &str) -> Option<u32> {
    if !line.starts_with("{\"schema_version\"") {
        return None;
    }
    let value: Value = serde_json::from_str(line).ok()?;
    value
        .get("schema_version")?
        .as_u64()
        .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
}

/// The first line git left a conflict marker on, 1-based.
fn conflict_marker(text: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            ["<<<<<<< ", ">>>>>>> ", "||||||| "]
                .iter()
                .any(|m| l.starts_with(m))
                || l.trim_end() == "======="
        })
        .map(|i| i + 1)
}

/// The error for an entry line that does not decode.
pub(crate) fn bad_line(path: &Path, line: usize, message: &str) -> ClassifyError {
    ClassifyError::BadLine {
        path: path.to_path_buf(),
        line,
        message: message.to_owned(),
    }
}

/// The header line: the schema version, and what the file is for a person opening it.
pub(crate) fn header(about: &str) -> String {
    serde_json::json!({"schema_version": LINE_SCHEMA_VERSION, "about": about}).to_string()
}

/// Writes `header` and then each of `lines` on its own line (compact JSON), atomically,
/// streaming: each line is encoded straight into the file's buffer, not into a string first
/// (100,000 lines at a finalize of 100,000 findings).
pub(crate) fn write_lines<I, T>(path: &Path, header: &str, lines: I) -> Result<(), ClassifyError>
where
    I: IntoIterator<Item = Result<T, serde_json::Error>>,
    T: serde::Serialize,
{
    write_atomic_with(path, |out: &mut dyn Write| {
        // Buffered in a writer of a known type: the encoder's small writes are copies into
        // it, not a call through `dyn Write` each.
        let mut out = std::io::BufWriter::new(out);
        out.write_all(header.as_bytes())?;
        out.write_all(b"\n")?;
        for line in lines {
            serde_json::to_writer(&mut out, &line.map_err(std::io::Error::other)?)
                .map_err(std::io::Error::other)?;
            out.write_all(b"\n")?;
        }
        out.flush()
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<(usize, &str)> {
        match split(text, Path::new("known.json"), &["entries"]).unwrap() {
            RegistryText::Lines(lines) => lines,
            RegistryText::Document(v) => panic!("read as a document: {v}"),
        }
    }

    #[test]
    fn the_header_and_blank_lines_are_not_entries() {
        let text = "{\"schema_version\":2,\"about\":\"x\"}\n\n{\"fingerprint\":\"a\"}\n  \n{\"fingerprint\":\"b\"}\n";
        assert_eq!(
            lines(text),
            [
                (3, "{\"fingerprint\":\"a\"}"),
                (5, "{\"fingerprint\":\"b\"}")
            ]
        );
        assert!(lines("").is_empty());
        assert!(lines("{\"schema_version\":2}\n").is_empty());
    }

    #[test]
    fn a_pretty_document_is_read_as_one_document() {
        for text in [
            "{\n  \"schema_version\": 1,\n  \"entries\": {}\n}\n",
            "{\"schema_version\": 1, \"entries\": {}}",
        ] {
            let form = split(text, Path::new("known.json"), &["entries"]).unwrap();
            assert!(matches!(form, RegistryText::Document(_)), "{text:?}");
        }
    }

    #[test]
    fn conflict_markers_are_refused_with_their_line() {
        let text = "{\"schema_version\":2}\n<<<<<<< HEAD\n{\"fingerprint\":\"a\"}\n=======\n{\"fingerprint\":\"b\"}\n>>>>>>> b\n";
        let err = split(text, Path::new("known.json"), &["entries"]).unwrap_err();
        assert!(
            matches!(err, ClassifyError::ConflictMarkers { line: 2, .. }),
            "{err}"
        );
        let said = err.to_string();
        assert!(said.contains("line 2"), "{said}");
        assert!(said.contains("self-repair install"), "{said}");
    }

    #[test]
    fn a_newer_header_is_refused() {
        let err = split(
            "{\"schema_version\":3}\n",
            Path::new("known.json"),
            &["entries"],
        )
        .unwrap_err();
        assert!(err.to_string().contains("newer self-repair"), "{err}");
    }

    #[test]
    fn written_lines_read_back_and_a_failed_write_keeps_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("known.json");
        write_lines(
            &path,
            &header("test"),
            [serde_json::json!({"fingerprint": "a"})].map(Ok),
        )
        .unwrap();
        let before = std::fs::read_to_string(&path).unwrap();
        assert_eq!(lines(&before), [(2, "{\"fingerprint\":\"a\"}")]);
        let failing = serde_json::from_str::<Value>("{");
        assert!(write_lines(&path, &header("test"), [failing]).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    }
}
