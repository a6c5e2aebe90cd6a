//! The transcripts of `tests/fixtures/claude-code/transcript` (a copy of the shared fixture)
//! priced to the cent of its `expected-cost.json`, and the ways a real transcript is read:
//! torn last lines, unknown models, a transcript that grows between two stops.

use std::path::{Path, PathBuf};

use self_repair_transcript::{ModelUsage, Usage, UsageCursor};
use serde_json::Value;

use crate::PriceTable;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claude-code/transcript")
}

const SESSION: &str = "projects/-home-dev-acme/0b7c2f4e-3d1a-4c8e-9f10-2a6b5c7d8e9f";

fn cost(table: &PriceTable, read: &[ModelUsage]) -> f64 {
    read.iter()
        .map(|m| table.cost(&m.model, &m.usage).unwrap())
        .sum()
}

fn total(read: &[ModelUsage]) -> Usage {
    let mut sum = Usage::default();
    for m in read {
        sum.add(&m.usage);
    }
    sum
}

fn cents(usd: f64) -> i64 {
    (usd * 100.0).round() as i64
}

#[test]
fn the_fixture_transcripts_cost_what_expected_cost_json_says_to_the_cent() {
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture().join("expected-cost.json")).unwrap(),
    )
    .unwrap();
    let table = PriceTable::default();
    let main = UsageCursor::default()
        .read(&fixture().join(format!("{SESSION}.jsonl")))
        .unwrap();
    let mut agent_cursor = UsageCursor::default();
    let agent = agent_cursor
        .read(&fixture().join(format!("{SESSION}/subagents/agent-a4d2c8f1e0b3a297.jsonl")))
        .unwrap();
    let main_only = &expected["totals"]["main_transcript_only"];
    let sum = total(&main);
    assert_eq!(
        sum.input_tokens,
        main_only["input_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        sum.output_tokens,
        main_only["output_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        sum.cache_read_input_tokens,
        main_only["cache_read_input_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        sum.cache_creation_input_tokens(),
        main_only["cache_creation_input_tokens"].as_u64().unwrap()
    );
    let main_usd = cost(&table, &main);
    assert!(
        (main_usd - main_only["cost_usd"].as_f64().unwrap()).abs() < 1e-9,
        "{main_usd}"
    );
    let all = &expected["totals"]["main_plus_subagents"];
    let all_usd = main_usd + cost(&table, &agent);
    assert_eq!(cents(all_usd), cents(all["cost_usd"].as_f64().unwrap()));
    assert!(
        (all_usd - all["cost_usd"].as_f64().unwrap()).abs() < 1e-9,
        "{all_usd}"
    );
    let naive = expected["anti_test"]["naive_sum_if_req_011AAA_counted_3x_with_final_usage_usd"]
        .as_f64()
        .unwrap();
    assert_ne!(cents(all_usd), cents(naive));
}

fn assistant_row(message: &str, request: &str, model: &str, output: u64, stop: bool) -> String {
    let stop = if stop { "\"end_turn\"" } else { "null" };
    format!(
        "{{\"type\":\"assistant\",\"requestId\":\"{request}\",\"message\":{{\"id\":\"{message}\",\"model\":\"{model}\",\"stop_reason\":{stop},\"usage\":{{\"input_tokens\":10,\"output_tokens\":{output},\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0}}}}}}\n"
    )
}

#[test]
fn a_transcript_that_grows_between_two_stops_is_read_only_where_it_grew() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent-1.jsonl");
    let first_user = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"self-repair item t-00042 --run r-7\"}}\n";
    // The response's first row (placeholder usage) and a torn row still being written.
    std::fs::write(
        &path,
        format!(
            "{first_user}{}{{\"type\":\"assis",
            assistant_row("m1", "q1", "claude-haiku-5-5", 1, false)
        ),
    )
    .unwrap();
    let mut cursor = UsageCursor::default();
    let first = cursor.read(&path).unwrap();
    assert_eq!(total(&first).output_tokens, 1);
    assert_eq!(cursor.item.as_deref(), Some("t-00042"));
    assert_eq!(cursor.run.as_deref(), Some("r-7"));
    let offset = cursor.offset;
    // The torn row is finished as the response's final row, and a second response follows.
    let text = std::fs::read_to_string(&path).unwrap();
    let done = text.trim_end_matches("{\"type\":\"assis").to_owned()
        + &assistant_row("m1", "q1", "claude-haiku-5-5", 300, true)
        + &assistant_row("m2", "q2", "claude-haiku-5-5", 50, true);
    std::fs::write(&path, done).unwrap();
    let second = cursor.read(&path).unwrap();
    assert!(cursor.offset > offset);
    let sum = total(&second);
    assert_eq!(sum.output_tokens, 299 + 50, "only what grew: {second:?}");
    assert_eq!(
        sum.input_tokens, 10,
        "the first response's input was counted already"
    );
    assert!(
        cursor.read(&path).unwrap().is_empty(),
        "nothing new, nothing read"
    );
}

#[test]
fn an_unknown_model_is_counted_but_not_priced_and_torn_or_bad_lines_never_fail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(
        &path,
        format!(
            "not json at all\n{}{{\"torn",
            assistant_row("m9", "q9", "claude-fable-5-2", 7, true)
        ),
    )
    .unwrap();
    let read = UsageCursor::default().read(&path).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].model, "claude-fable-5-2");
    assert_eq!(read[0].usage.output_tokens, 7);
    assert_eq!(
        PriceTable::default().cost(&read[0].model, &read[0].usage),
        None
    );
}
