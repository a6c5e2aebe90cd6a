//! Guesses an input's format from its file name and content, for `--format auto`.

use std::collections::BTreeSet;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::format::Format;
use crate::formats::text_location::split_location;
use crate::ingest_error::IngestError;

/// How much of an array-shaped input is searched for telltale keys.
const PREFIX_BYTES: usize = 4096;

/// The format `text` (named `source`) is written in.
///
/// File names ending in `.sarif` or `.sarif.json` are SARIF. Otherwise the top-level keys of
/// the first JSON object decide (without building the document): `reason` → clippy stream,
/// `runs` → SARIF, `tool` + `rule_id` → generic JSONL, `issues` → knip, `results` + `metrics`
/// or `generated_at` → Bandit, `number` + `rule` + `most_recent_instance` → GitHub code
/// scanning alerts (`gh api --jq '.[]'`). A top-level array is `ESLint` (`filePath`) or Ruff
/// (`filename`), else alerts when its first object (inside pages, `gh api --slurp`) is one.
/// Text is vulture (`(N% confidence)`) or ts-prune (`path:line - name`). Empty input is JSONL
/// with no findings.
pub(crate) fn sniff(text: &str, source: &str) -> Result<Format, IngestError> {
    let name = source.to_ascii_lowercase();
    if [".sarif", ".sarif.json"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
    {
        return Ok(Format::Sarif);
    }
    let unrecognized = |clue: String| IngestError::Unrecognized {
        input: source.to_owned(),
        clue,
        expected: Format::named(),
    };
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Ok(Format::Jsonl);
    }
    // `[package]` (a TOML file given by mistake) is not a JSON array.
    if trimmed.starts_with('[') && trimmed[1..].trim_start().starts_with(['{', ']', '[']) {
        return sniff_array(trimmed).ok_or_else(|| {
            unrecognized(
                "a JSON array whose objects have neither `filePath` nor `filename` nor \
                 `most_recent_instance`"
                    .into(),
            )
        });
    }
    if trimmed.starts_with('{') {
        let first_line = trimmed.lines().next().unwrap_or_default();
        let keys = top_level_keys(first_line)
            .or_else(|| top_level_keys(trimmed))
            .ok_or_else(|| unrecognized("starts with `{` but is not a JSON object".into()))?;
        return sniff_keys(&keys).ok_or_else(|| {
            let listed: Vec<&str> = keys.0.iter().map(String::as_str).take(8).collect();
            unrecognized(format!("a JSON object with keys `{}`", listed.join("`, `")))
        });
    }
    let first_line = trimmed.lines().next().unwrap_or_default().trim_end();
    if split_location(first_line, ": ").is_some() && first_line.contains("% confidence") {
        return Ok(Format::Vulture);
    }
    if split_location(first_line, " - ").is_some() {
        return Ok(Format::TsPrune);
    }
    let shown: String = first_line.chars().take(80).collect();
    Err(unrecognized(format!("first line `{shown}`")))
}

/// The top-level keys of a JSON object; values are skipped, not built.
struct TopLevelKeys(BTreeSet<String>);

impl<'de> Deserialize<'de> for TopLevelKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(KeysVisitor)
    }
}

struct KeysVisitor;

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = TopLevelKeys;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<IgnoredAny>()?;
            keys.insert(key);
        }
        Ok(TopLevelKeys(keys))
    }
}

/// The top-level keys of `text` if it is one JSON object.
fn top_level_keys(text: &str) -> Option<TopLevelKeys> {
    serde_json::from_str(text).ok()
}

fn sniff_keys(keys: &TopLevelKeys) -> Option<Format> {
    let has = |key: &str| keys.0.contains(key);
    if has("reason") {
        Some(Format::Clippy)
    } else if has("runs") {
        Some(Format::Sarif)
    } else if has("tool") && has("rule_id") {
        Some(Format::Jsonl)
    } else if has("issues") {
        Some(Format::Knip)
    } else if has("results") && (has("metrics") || has("generated_at")) {
        Some(Format::Bandit)
    } else if is_alert(keys) {
        Some(Format::GithubAlerts)
    } else {
        None
    }
}

/// Whether an object's keys are those of a code scanning alert.
fn is_alert(keys: &TopLevelKeys) -> bool {
    ["number", "rule", "most_recent_instance"]
        .iter()
        .all(|key| keys.0.contains(*key))
}

/// The keys of the first object in a JSON value, looking into arrays (pages of pages); the rest
/// of the value is skipped, not built. `None` for an empty array.
struct FirstObjectKeys(Option<TopLevelKeys>);

impl<'de> Deserialize<'de> for FirstObjectKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FirstObjectVisitor)
    }
}

struct FirstObjectVisitor;

impl<'de> Visitor<'de> for FirstObjectVisitor {
    type Value = FirstObjectKeys;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON array or object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        KeysVisitor
            .visit_map(map)
            .map(|keys| FirstObjectKeys(Some(keys)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let first = seq.next_element::<FirstObjectKeys>()?.and_then(|f| f.0);
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(FirstObjectKeys(first))
    }
}

/// Whether the first object of an array-shaped input is a code scanning alert. Only the first
/// JSON value is read: `gh api --paginate` prints more pages after it.
fn first_object_is_alert(text: &str) -> bool {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    FirstObjectKeys::deserialize(&mut deserializer)
        .ok()
        .and_then(|first| first.0)
        .is_some_and(|keys| is_alert(&keys))
}

/// `ESLint` and Ruff both print arrays; their first object's keys tell them apart. Neither:
/// code scanning alerts, when the first object is one.
fn sniff_array(text: &str) -> Option<Format> {
    let end = (0..=PREFIX_BYTES.min(text.len()))
        .rev()
        .find(|&index| text.is_char_boundary(index))
        .unwrap_or(0);
    let prefix = &text[..end];
    let eslint = prefix.find("\"filePath\"");
    let ruff = prefix
        .find("\"filename\"")
        .or_else(|| prefix.find("\"noqa_row\""));
    match (eslint, ruff) {
        (Some(e), Some(r)) => Some(if e < r { Format::Eslint } else { Format::Ruff }),
        (Some(_), None) => Some(Format::Eslint),
        (None, Some(_)) => Some(Format::Ruff),
        // `[]`: no findings whichever it is.
        (None, None) if text[1..].trim_start().starts_with(']') => Some(Format::Ruff),
        (None, None) if first_object_is_alert(text) => Some(Format::GithubAlerts),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A top-level array is told by its first object's keys; one that none of them names is
    /// refused, not taken for code scanning alerts.
    #[test]
    fn an_array_is_told_by_its_first_object_s_keys_and_refused_when_none_fits() {
        for (text, expected) in [
            (r#"[{"filePath": "a.js"}]"#, Some(Format::Eslint)),
            (r#"[{"filename": "a.py"}]"#, Some(Format::Ruff)),
            ("[ ]", Some(Format::Ruff)),
            (
                r#"[{"number": 1, "rule": {}, "most_recent_instance": {}}]"#,
                Some(Format::GithubAlerts),
            ),
            (
                r#"[[{"number": 1, "rule": {}, "most_recent_instance": {}}]]"#,
                Some(Format::GithubAlerts),
            ),
            (r#"[{"number": 1, "rule": {}}]"#, None),
            (r#"[{"hello": 1}]"#, None),
        ] {
            let sniffed = sniff(text, "findings.json");
            assert_eq!(sniffed.as_ref().ok(), expected.as_ref(), "{text}");
            if expected.is_none() {
                let error = sniffed.map(|_| ()).unwrap_err().to_string();
                assert!(error.contains("neither `filePath`"), "{text}: {error}");
            }
        }
    }

    /// `[package]` (a TOML file given by mistake) is not read as a JSON array: it is refused
    /// by its first line.
    #[test]
    fn a_bracket_not_followed_by_json_is_no_array() {
        let error = sniff("[package]\nname = \"x\"\n", "Cargo.toml")
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(error.contains("first line `[package]`"), "{error}");
        assert!(!error.contains("JSON array"), "{error}");
    }

    /// Bandit's report is told by `results` with either of its other keys; an array holding
    /// both `filePath` and `filename` is told by the one its first object names first.
    #[test]
    fn bandit_needs_results_and_one_of_its_keys_and_the_first_named_key_tells_an_array() {
        for (text, expected) in [
            (
                r#"{"results": [], "generated_at": "x"}"#,
                Some(Format::Bandit),
            ),
            (r#"{"results": [], "metrics": {}}"#, Some(Format::Bandit)),
            (r#"{"results": []}"#, None),
            (
                r#"[{"filePath": "a.js", "filename": "a.py"}]"#,
                Some(Format::Eslint),
            ),
            (
                r#"[{"filename": "a.py", "filePath": "a.js"}]"#,
                Some(Format::Ruff),
            ),
        ] {
            assert_eq!(sniff(text, "out.json").ok(), expected, "{text}");
        }
    }
}
