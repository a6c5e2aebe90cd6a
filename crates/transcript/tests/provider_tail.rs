//! Where the tail `refused_by_provider` reads starts: cases the crate's mutation run found
//! untested (reference/mutants.md). Only the last 64 KiB are read, and the line the cut falls
//! in is never read as a row, even when what is left of it parses.
#![cfg(test)]

use std::path::Path;

use self_repair_transcript::refused_by_provider;

const TAIL: usize = 64 * 1024;
const REFUSED: &str =
    r#"{"type":"assistant","message":{"model":"m","id":"a","stop_reason":"refusal"}}"#;

/// A user row (no verdict) of exactly `len` bytes, its newline included.
fn user_row(len: usize) -> String {
    let bare = r#"{"type":"user","pad":""}"#.len() + 1;
    format!(
        "{{\"type\":\"user\",\"pad\":\"{}\"}}\n",
        "x".repeat(len - bare)
    )
}

/// A transcript whose last 64 KiB start with `cut_at`, then `rest_of_line` ends the cut line,
/// and one user row fills the rest.
fn transcript(
    dir: &Path,
    before_cut: &str,
    cut_at: &str,
    rest_of_line: &str,
) -> std::path::PathBuf {
    let tail_len = cut_at.len() + rest_of_line.len() + 1;
    let text = format!(
        "{before_cut}{cut_at}{rest_of_line}\n{}",
        user_row(TAIL - tail_len)
    );
    assert_eq!(text.len() - TAIL, before_cut.len());
    let path = dir.join("agent.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_cut_line_is_dropped_even_when_what_is_left_of_it_parses() {
    let dir = tempfile::tempdir().unwrap();
    // The cut falls on the `{` of a refusal written after other text on the same line.
    let path = transcript(dir.path(), "junk junk ", "", REFUSED);
    assert!(!refused_by_provider(&path).unwrap());
    // The cut falls one byte before it.
    let path = transcript(dir.path(), "junk junk ", "x", REFUSED);
    assert!(!refused_by_provider(&path).unwrap());
}

#[test]
fn a_cut_on_a_newline_drops_only_that_newline() {
    let dir = tempfile::tempdir().unwrap();
    // The last 64 KiB start with the newline that ends a refusal: the refusal is not read.
    let path = dir.path().join("agent.jsonl");
    std::fs::write(&path, format!("{REFUSED}\n{}", user_row(TAIL - 1))).unwrap();
    assert!(!refused_by_provider(&path).unwrap());
    // The last 64 KiB start with the newline that ends `junk`: the refusal after it is read.
    std::fs::write(
        &path,
        format!("junk\n{REFUSED}\n{}", user_row(TAIL - REFUSED.len() - 2)),
    )
    .unwrap();
    assert!(refused_by_provider(&path).unwrap());
}

#[test]
fn a_short_transcript_is_read_from_its_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.jsonl");
    std::fs::write(&path, format!("{REFUSED}\n")).unwrap();
    assert!(refused_by_provider(&path).unwrap());
}
