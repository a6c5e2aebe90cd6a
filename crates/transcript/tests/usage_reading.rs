//! Token usage read from a transcript (`Usage`, `UsageCursor`): cases the crate's mutation run
//! found untested (reference/mutants.md). Each response counts once, across rows and reads;
//! `<synthetic>` and API-error rows count nothing; a replaced transcript is read again.
#![cfg(test)]

use std::io::Write;
use std::path::Path;

use self_repair_transcript::{ModelUsage, Usage, UsageCursor};
use serde_json::json;

fn usage(input: u64, output: u64, read: u64, five_minutes: u64, one_hour: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: read,
        cache_write_5m_tokens: five_minutes,
        cache_write_1h_tokens: one_hour,
    }
}

#[test]
fn usage_json_splits_cache_writes_by_lifetime() {
    let cases = [
        (
            json!({"input_tokens": 10, "output_tokens": 20, "cache_read_input_tokens": 30,
                   "cache_creation_input_tokens": 40,
                   "cache_creation": {"ephemeral_1h_input_tokens": 15}}),
            usage(10, 20, 30, 25, 15),
        ),
        // No split: every write is a 5-minute one.
        (
            json!({"cache_creation_input_tokens": 40}),
            usage(0, 0, 0, 40, 0),
        ),
        // A split larger than the total is capped at it.
        (
            json!({"cache_creation_input_tokens": 4,
                   "cache_creation": {"ephemeral_1h_input_tokens": 9}}),
            usage(0, 0, 0, 0, 4),
        ),
        (json!({}), Usage::default()),
        (json!(null), Usage::default()),
    ];
    for (input, expected) in cases {
        assert_eq!(Usage::from_json(&input), expected, "{input}");
    }
}

#[test]
fn usage_sums_add_and_subtract_field_by_field() {
    let small = usage(2, 3, 5, 7, 11);
    assert_eq!(small.cache_creation_input_tokens(), 18);
    assert_eq!(small.total_tokens(), 28);
    let mut sum = small;
    sum.add(&usage(10, 20, 30, 40, 50));
    assert_eq!(sum, usage(12, 23, 35, 47, 61));
    assert_eq!(sum.since(&small), usage(10, 20, 30, 40, 50));
    // Never below zero.
    assert_eq!(small.since(&sum), Usage::default());
    assert_eq!(
        usage(9, 9, 9, 9, 9).since(&usage(1, 2, 3, 4, 10)),
        usage(8, 7, 6, 5, 0)
    );
}

/// An assistant row of response `id` (request `request`) with the given usage.
fn row(model: &str, id: &str, request: &str, input: u64, output: u64) -> String {
    json!({"type": "assistant", "requestId": request,
           "message": {"model": model, "id": id, "role": "assistant",
                       "usage": {"input_tokens": input, "output_tokens": output}}})
    .to_string()
}

fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

fn lines(rows: &[String]) -> String {
    rows.iter().flat_map(|r| [r.as_str(), "\n"]).collect()
}

fn by_model(added: &[ModelUsage]) -> Vec<(String, u64, u64)> {
    added
        .iter()
        .map(|m| (m.model.clone(), m.usage.input_tokens, m.usage.output_tokens))
        .collect()
}

#[test]
fn each_response_counts_once_by_model_and_rows_that_are_not_responses_count_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let mut synthetic = json!({"type": "assistant", "message": {"model": "<synthetic>",
        "id": "s1", "usage": {"input_tokens": 1000}}});
    let api_error = json!({"type": "assistant", "isApiErrorMessage": true, "requestId": "e",
        "message": {"model": "m-x", "id": "e1", "usage": {"input_tokens": 1000}}});
    synthetic["requestId"] = json!("s");
    append(
        &path,
        &lines(&[
            row("m-x", "a", "q1", 10, 1),
            row("m-x", "a", "q1", 10, 5),
            row("m-y", "b", "q2", 3, 0),
            synthetic.to_string(),
            api_error.to_string(),
            // Not JSON, though it names usage: skipped.
            "{\"usage\": ".to_owned(),
            // No usage at all: counts nothing.
            json!({"type": "assistant", "message": {"model": "m-x", "id": "n"}}).to_string(),
            row("m-x", "c", "q3", 100, 7),
        ]),
    );
    let mut cursor = UsageCursor::default();
    let added = cursor.read(&path).unwrap();
    assert_eq!(
        by_model(&added),
        [("m-x".to_owned(), 110, 12), ("m-y".to_owned(), 3, 0)]
    );
    assert_eq!(cursor.offset, std::fs::metadata(&path).unwrap().len());
    // Nothing new: nothing counted.
    assert_eq!(cursor.read(&path).unwrap(), []);
}

#[test]
fn a_response_split_across_reads_adds_only_what_it_grew_by() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    append(&path, &lines(&[row("m-x", "a", "q1", 10, 1)]));
    // A row still being written waits for the next read.
    append(&path, &row("m-x", "a", "q1", 10, 3));
    let mut cursor = UsageCursor::default();
    assert_eq!(
        by_model(&cursor.read(&path).unwrap()),
        [("m-x".to_owned(), 10, 1)]
    );
    append(&path, "\n");
    append(&path, &lines(&[row("m-x", "a", "q1", 10, 5)]));
    assert_eq!(
        by_model(&cursor.read(&path).unwrap()),
        [("m-x".to_owned(), 0, 4)]
    );
}

#[test]
fn responses_are_told_apart_by_message_id_and_request_id_both() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    append(
        &path,
        &lines(&[
            // Same request, another message id: another response.
            row("m-x", "a", "q1", 10, 0),
            row("m-x", "b", "q1", 10, 0),
            // Same message id, another request: another response.
            row("m-x", "a", "q2", 10, 0),
            // No message id: never matched to an earlier row.
            row("m-x", "", "q9", 5, 0),
            row("m-x", "", "q9", 5, 0),
        ]),
    );
    let mut cursor = UsageCursor::default();
    assert_eq!(
        by_model(&cursor.read(&path).unwrap()),
        [("m-x".to_owned(), 40, 0)]
    );
}

#[test]
fn the_last_64_responses_are_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let first: Vec<String> = (0..64)
        .map(|i| row("m-x", &format!("r{i}"), "q", 1, 0))
        .collect();
    append(&path, &lines(&first));
    let mut cursor = UsageCursor::default();
    assert_eq!(
        by_model(&cursor.read(&path).unwrap()),
        [("m-x".to_owned(), 64, 0)]
    );
    assert_eq!(cursor.recent.len(), 64);
    // A later row of the first of the 64 is still known: only its growth counts.
    append(&path, &lines(&[row("m-x", "r0", "q", 1, 2)]));
    assert_eq!(
        by_model(&cursor.read(&path).unwrap()),
        [("m-x".to_owned(), 0, 2)]
    );
    // A 65th response pushes the oldest out: a later row of it counts again in full.
    append(
        &path,
        &lines(&[row("m-x", "r64", "q", 1, 0), row("m-x", "r0", "q", 1, 2)]),
    );
    assert_eq!(
        by_model(&cursor.read(&path).unwrap()),
        [("m-x".to_owned(), 2, 2)]
    );
    assert_eq!(cursor.recent.len(), 64);
}

#[test]
fn a_replaced_transcript_is_read_from_its_start_with_nothing_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    append(
        &path,
        &lines(&[
            row("m-x", "a", "q1", 10, 5),
            row("m-x", "b", "q2", 10, 5),
            row("m-x", "c", "q3", 10, 5),
        ]),
    );
    let mut cursor = UsageCursor::default();
    cursor.read(&path).unwrap();
    // Replaced by a shorter file holding response `a` again: counted in full.
    std::fs::write(&path, lines(&[row("m-x", "a", "q1", 10, 5)])).unwrap();
    assert_eq!(
        by_model(&cursor.read(&path).unwrap()),
        [("m-x".to_owned(), 10, 5)]
    );
    assert_eq!(cursor.offset, std::fs::metadata(&path).unwrap().len());
}

#[test]
fn the_item_and_run_come_from_the_first_user_message_naming_them() {
    let cases = [
        (
            json!("Work on it: self-repair item F-12 --run r7 please"),
            Some("F-12"),
            Some("r7"),
        ),
        (
            json!([{"type": "text", "text": "intro"},
                   {"type": "text", "text": "self-repair item F-3 --format json --run r9"}]),
            Some("F-3"),
            Some("r9"),
        ),
        (json!("self-repair item F-4"), Some("F-4"), None),
        (json!("no command here"), None, None),
        (json!({"text": "self-repair item F-5 --run r1"}), None, None),
    ];
    for (content, item, run) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent.jsonl");
        let user = json!({"type": "user", "message": {"role": "user", "content": content}});
        // An assistant row quoting another command, then a later user message naming another
        // item: neither changes what the first user message said.
        let quoted = json!({"type": "assistant", "message": {"role": "assistant",
            "content": "self-repair item F-99 --run r99"}});
        let later = json!({"type": "user", "message": {"role": "user",
            "content": "self-repair item F-77 --run r77"}});
        append(&path, &lines(&[quoted.to_string(), user.to_string()]));
        let mut cursor = UsageCursor::default();
        cursor.read(&path).unwrap();
        if item.is_some() {
            append(&path, &lines(&[later.to_string()]));
            cursor.read(&path).unwrap();
        }
        assert_eq!(cursor.item.as_deref(), item, "{content}");
        assert_eq!(cursor.run.as_deref(), run, "{content}");
    }
}
