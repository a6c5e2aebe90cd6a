//! `self-repair timeline` over a journal and a drive log holding every kind of line: cases the
//! crate's mutation run found untested (reference/mutants.md). The whole rendering is compared,
//! so each line's words, order and folding are pinned.

use self_repair_drive::{DriveLog, DriveStopRecord, SessionRecord, build_timeline};
use serde_json::json;

fn session(number: u32, started: u64, ended: u64, end: &serde_json::Value) -> SessionRecord {
    let mut record = json!({
        "schema_version": 1, "session": number, "claude_session": null,
        "started_at": started, "ended_at": ended, "duration_ms": 1000,
        "exit_code": 0, "signal": null, "detail": "", "submitted": 2,
        "phase_before": "triage", "phase_after": "verify", "status_after": "active",
        "progressed": true, "cost_usd": 0.5,
        "tokens": {"input": 1, "output": 2, "cache_read": 3, "cache_creation": 4},
        "api_retries": 0, "next": "relaunch", "backoff_secs": 0});
    for (key, value) in end.as_object().unwrap() {
        record[key] = value.clone();
    }
    serde_json::from_value(record).unwrap()
}

const JOURNAL: &str = r#"{"at":1000,"event":"adopt","session":"s-1"}
{"at":1001,"event":"dispatched","channel":"context","why":"the default"}
{"at":1002,"event":"dispatched","channel":"block"}
{"at":1003,"event":"stop","launched":[{"item":"t-00001","model":"opus"},{"item":"t-00002"},{"item":"t-00003","refused":"user-rejected"},{"item":"t-00004","model":"opus","background":true},{"item":"t-00005","model":"opus","background":false}]}
{"at":1004,"event":"stop"}
{"at":1005,"event":"submitted","item":"t-00002"}
{"at":1030,"event":"submitted","item":"t-00001"}
{"at":1050,"event":"submitted","item":"t-00004"}
{"at":1200,"event":"submitted","item":"t-00005"}
{"at":1201,"event":"rejected","item":"t-00003","error":"first reason"}
{"at":1202,"event":"rejected","item":"t-00003","error":"second reason"}
{"at":1300,"event":"stop","launched":[{"item":"v-00001","model":"sonnet"}]}
{"at":1301,"event":"stop","launched":[{"item":"v-00002","model":"sonnet"}]}
{"at":1302,"event":"stop_failure","error":"rate_limit"}
{"at":1303,"event":"pause"}
{"at":1304,"event":"resume"}
{"at":1305,"event":"merged","runs":["r-a","r-b"]}
{"at":1306,"event":"finalized","tasks":[{},{},{}]}
{"at":1307,"event":"shown"}
not json
{"event":"submitted","item":"t-00009"}
{"at":1400,"event":"cancel"}
"#;

#[test]
fn every_kind_of_line_is_rendered_in_order_and_runs_of_one_kind_are_folded() {
    let log = DriveLog {
        sessions: vec![
            session(
                1,
                990,
                1100,
                &json!({"reason": "ended", "next": "relaunch"}),
            ),
            session(
                2,
                1150,
                1310,
                &json!({"reason": "crashed", "code": null, "signal": 9, "exit_code": null,
                       "signal": 9, "detail": "killed", "next": "relaunch",
                       "backoff_secs": 30, "cost_usd": 0.25}),
            ),
        ],
        stops: vec![DriveStopRecord {
            schema_version: 1,
            event: "drive_stop".to_owned(),
            at: 1310,
            outcome: "interrupted".to_owned(),
            message: "drive: stopped".to_owned(),
            sessions: 2,
            spent_usd: 0.75,
        }],
    };
    let phase_of = |id: &str| match id.chars().next() {
        Some('t') => Some("triage".to_owned()),
        Some('v') => Some("verify".to_owned()),
        _ => None,
    };
    let ended = [("v-00001".to_owned(), "quarantined: no answer".to_owned())];
    let timeline = build_timeline("r-1", JOURNAL, &log, &phase_of, &ended);
    let expected = "Timeline of run r-1
1970-01-01T00:16:30Z  drive    session_start  session 1 started in phase triage
1970-01-01T00:16:40Z  journal  adopt          bound to session s-1
1970-01-01T00:16:41Z  journal  channel        dispatches go by additionalContext: the default
1970-01-01T00:16:43Z  journal  phase          phase triage: its first item t-00001
1970-01-01T00:16:43Z  journal  launched       1 without `model` (run on the agent's default tier); 1 refused by the client; 1 run in the background by the client
1970-01-01T00:16:45Z  journal  submitted      3 items, t-00001 … t-00004
1970-01-01T00:18:20Z  drive    session_end    session 1 ended: exit 0, 2 submitted, phase triage -> verify, run active; next: relaunch now
1970-01-01T00:18:20Z  cost     session_cost   session 1: $0.5000 (tokens in 1, out 2, cache read 3, cache write 4)
1970-01-01T00:19:10Z  drive    session_start  session 2 started in phase triage
1970-01-01T00:20:00Z  journal  submitted      t-00005
1970-01-01T00:20:01Z  journal  rejected       2 rejections, the last: second reason
1970-01-01T00:21:40Z  journal  phase          phase verify: its first item v-00001
1970-01-01T00:21:40Z  journal  launched       v-00001
1970-01-01T00:21:40Z  journal  quarantined    quarantined: no answer
1970-01-01T00:21:41Z  journal  launched       v-00002
1970-01-01T00:21:42Z  journal  failure        the client's StopFailure: rate_limit
1970-01-01T00:21:43Z  journal  pause          1 events
1970-01-01T00:21:44Z  journal  resume         1 events
1970-01-01T00:21:45Z  journal  merged         made from 2 partitions' runs: r-a, r-b (their timelines are theirs)
1970-01-01T00:21:46Z  journal  finalized      3 tasks written
1970-01-01T00:21:50Z  drive    session_end    session 2 crashed: signal 9, 2 submitted, phase triage -> verify, run active; next: relaunch after 30 s (killed)
1970-01-01T00:21:50Z  cost     session_cost   session 2: $0.2500 (tokens in 1, out 2, cache read 3, cache write 4)
1970-01-01T00:21:50Z  drive    drive_stop     interrupted: drive: stopped
1970-01-01T00:23:20Z  journal  cancel         1 events
1970-01-01T00:21:50Z  cost     total_cost     $0.7500 over 2 driven sessions (the results' total_cost_usd)
";
    assert_eq!(timeline.render(), expected);
}

#[test]
fn an_empty_run_says_nothing_was_recorded() {
    let timeline = build_timeline("r-2", "", &DriveLog::default(), &|_| None, &[]);
    assert_eq!(timeline.render(), "Run r-2: nothing recorded yet.\n");
}

#[test]
fn launches_fold_only_with_the_same_detail_and_one_item_twice_is_counted_twice() {
    let journal = r#"{"at":1000,"event":"stop","launched":[{"item":"t-00001","model":"opus"}]}
{"at":1010,"event":"stop","launched":[{"item":"t-00002","model":"opus"}]}
{"at":1020,"event":"stop","launched":[{"item":"t-00003"}]}
{"at":1030,"event":"stop","launched":[{"item":"t-00004"}]}
{"at":1100,"event":"rejected","item":"t-00003","error":"only reason"}
{"at":1200,"event":"submitted","item":"t-00007"}
{"at":1210,"event":"submitted","item":"t-00007"}
"#;
    let timeline = build_timeline("r-3", journal, &DriveLog::default(), &|_| None, &[]);
    let lines: Vec<(&str, &str)> = timeline
        .entries
        .iter()
        .map(|e| (e.kind.as_str(), e.detail.as_str()))
        .collect();
    assert_eq!(
        lines,
        [
            ("launched", "2 items, t-00001 … t-00002"),
            (
                "launched",
                "1 without `model` (run on the agent's default tier)"
            ),
            ("rejected", "only reason"),
            ("submitted", "2 items from t-00007"),
        ]
    );
    assert_eq!(timeline.entries[1].count, 2);
    assert_eq!(timeline.entries[1].items, ["t-00003", "t-00004"]);
}
