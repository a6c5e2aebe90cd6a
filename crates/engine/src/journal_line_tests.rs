//! A journal line reads the same by the fast reading of `submitted` lines as by the derived
//! reading every line once took.

use super::*;

/// A line as the derived reading reads it.
fn derived(line: &str) -> Result<JournalEntry, String> {
    serde_json::from_str::<JournalEntryFile>(line)
        .map(|l| JournalEntry {
            at: l.at,
            event: l.event,
        })
        .map_err(|e| e.to_string())
}

fn read(line: &str) -> Result<JournalEntry, String> {
    serde_json::from_str::<JournalEntry>(line).map_err(|e| e.to_string())
}

/// Lines of every kind the journal holds, and the damage a torn or edited line shows.
const LINES: &[&str] = &[
    r#"{"at":1763800000,"event":"submitted","item":"tb-00003","result":{"verdicts":[{"item":"t-00017","verdict":"real","confidence":0.9,"root_cause":"unused import"}]}}"#,
    r#"{"event":"submitted","item":"t-00001","result":"plan text","at":5}"#,
    r#"{"at":5,"event":"submitted","item":"t-00001","result":null}"#,
    r#"{"at":5,"event":"submitted","item":"t-00001","result":{"a":1},"extra":true}"#,
    r#"{"at":5,"event":"rejected","item":"t-00001","error":"field `verdict`"}"#,
    r#"{"at":5,"event":"stop","session":"s1","running":[],"new_turn":true}"#,
    r#"{"at":5,"event":"shown","item":"t-00002"}"#,
    r#"{"at":5,"event":"stop_failure","error":"rate_limit"}"#,
    r#"{"at":5,"event":"adopt","session":"s2"}"#,
    r#"{"at":5,"event":"pause"}"#,
    r#"{"at":5,"event":"resume"}"#,
    r#"{"at":5,"event":"confirm"}"#,
    r#"{"at":5,"event":"budget","usd":2.5}"#,
    r#"{"at":5,"event":"cancel"}"#,
    r#"{"at":5,"event":"merged","runs":["a.p1of2","a.p2of2"]}"#,
    r#"{"at":5,"event":"dispatched","launch":[{"item":"t-00001","model":"haiku"}],"channel":"block"}"#,
    // Damage: each is refused by both readings.
    r#"{"event":"submitted","item":"t-00001","result":{}}"#,
    r#"{"at":"5","event":"submitted","item":"t-00001","result":{}}"#,
    r#"{"at":-5,"event":"submitted","item":"t-00001","result":{}}"#,
    r#"{"at":5,"at":6,"event":"submitted","item":"t-00001","result":{}}"#,
    r#"{"at":5,"event":"submitted","item":7,"result":{}}"#,
    r#"{"at":5,"event":"submitted","item":"t-00001"}"#,
    r#"{"at":5,"event":"submitted","result":{}}"#,
    r#"{"at":5,"event":"no_such_event"}"#,
    r#"{"at":5}"#,
    r#"{"at":5,"event":"submitted","item":"t-00001","result":{"verdicts":[{"item":"t-0"#,
    r#"[5,"submitted"]"#,
    "{}",
];

#[test]
fn every_line_reads_as_the_derived_reading_reads_it() {
    for line in LINES {
        match (read(line), derived(line)) {
            (Ok(fast), Ok(slow)) => assert_eq!(fast, slow, "{line}"),
            (Err(_), Err(_)) => {}
            (fast, slow) => panic!("{line}: read {fast:?}, the derived reading {slow:?}"),
        }
    }
}

#[test]
fn a_submission_reads_back_as_written() {
    let entry = JournalEntry {
        at: 1_763_800_000,
        event: Event::Submitted {
            item: "tb-00001".to_owned(),
            result: serde_json::json!({"verdicts": [{"item": "t-00001", "verdict": "real"}]}),
        },
    };
    let line = serde_json::to_string(&entry).unwrap();
    assert_eq!(read(&line).unwrap(), entry);
    let stop = JournalEntry {
        at: 9,
        event: Event::Stop(StopEvent {
            session: Some("s1".to_owned()),
            running: Some(vec!["t-00002".to_owned()]),
            ..StopEvent::default()
        }),
    };
    assert_eq!(read(&serde_json::to_string(&stop).unwrap()).unwrap(), stop);
}

#[test]
fn the_plain_submissions_are_read_and_the_damaged_ones_refused() {
    assert!(
        read(LINES[0]).is_ok() && read(LINES[1]).is_ok() && read(LINES[3]).is_ok(),
        "a submission, its fields in any order, an extra field"
    );
    for damaged in &LINES[16..] {
        assert!(read(damaged).is_err(), "{damaged}");
    }
    assert!(
        read(r#"{"at":5,"event":"submitted","item":"t-00001","item":"t-00002","result":{}}"#)
            .unwrap_err()
            .contains("duplicate field `item`")
    );
}
