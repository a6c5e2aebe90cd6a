use super::*;
use crate::{ItemStatus, RunState, Tier};

/// 40 triage items, then surveys, batches of every shape and other items interleaved.
fn sample() -> Vec<WorkItem> {
    let mut items: Vec<WorkItem> = (1..=40)
        .map(|n| WorkItem::new(crate::triage_id(n), ItemKind::Triage, Tier::Haiku))
        .collect();
    let mut survey = WorkItem::new("rs-00001", ItemKind::RuleSurvey, Tier::Sonnet);
    survey.extra_mut().inputs = vec!["t-00001".into(), "t-00007".into()];
    items.push(survey);
    let batch = |n: usize, members: &[usize]| {
        let mut b = WorkItem::new(format!("tb-{n:05}"), ItemKind::TriageBatch, Tier::Haiku);
        b.route = Some("generic".into());
        b.extra_mut().inputs = members
            .iter()
            .map(|&m| crate::triage_id(m).into())
            .collect();
        b
    };
    let mut done = batch(1, &[1, 2, 3, 4, 5, 6, 7, 8]);
    done.status = ItemStatus::Done;
    done.dispatches = 1;
    done.batch = 2;
    done.ran = Some(Tier::Sonnet);
    done.extra_mut().rule = Some("ruff F401".into());
    items.push(done);
    let mut running = batch(2, &[9, 11, 12, 13, 20]);
    running.status = ItemStatus::Dispatched;
    running.dispatches = 2;
    running.attempts = 1;
    running.tier = Tier::Sonnet;
    running.batch = 2;
    running.lease = Some(1_795_339_805);
    running.seen_running = true;
    running.resends = 2;
    running.extra_mut().errors = vec!["attempt 1 (haiku): ended".into()];
    running.extra_mut().last_rejection = Some("field `verdicts`".into());
    running.extra_mut().rule = Some("ruff F401".into());
    items.push(running);
    items.push(WorkItem::new("vf-00003", ItemKind::Verify, Tier::Opus));
    let mut failed = batch(3, &[30, 29, 28]);
    failed.status = ItemStatus::Failed;
    failed.route = Some("security".into());
    failed.reroutes = 1;
    items.push(failed);
    // Not held by the columns: members that are second looks, a member not in the run, an
    // id of another form, a batch that waits for another item.
    let mut looks = batch(4, &[]);
    looks.extra_mut().inputs = vec!["vf-00003".into()];
    items.push(looks);
    let mut stray = batch(5, &[]);
    stray.extra_mut().inputs = vec!["t-00041".into(), "t-1".into()];
    items.push(stray);
    items.push(batch(6, &[40]));
    let mut odd = batch(7, &[39]);
    odd.id = "tb-7".into();
    items.push(odd);
    let mut waits = batch(8, &[38]);
    waits.extra_mut().depends_on = vec!["rs-00001".into()];
    items.push(waits);
    items.push(WorkItem::new("agg-1", ItemKind::Aggregate, Tier::Sonnet));
    items.push(batch(100_000, &[33, 34, 35, 36, 37]));
    items
}

fn round_trip(items: &[WorkItem]) -> (serde_json::Value, Vec<WorkItem>) {
    let json = crate::item_table::tests_encode(items);
    let back = crate::item_table::tests_decode(json.clone()).unwrap();
    (json, back)
}

#[test]
fn every_batch_round_trips_in_its_place_whether_in_columns_or_not() {
    let items = sample();
    let (json, back) = round_trip(&items);
    assert_eq!(back, items);
    let batches = &json["batches"];
    assert_eq!(batches["count"], 5, "{batches}");
    assert_eq!(batches["order"], "wbbwbwwbwwwb");
    assert_eq!(batches["members"], "1-8 9,11-13,20 30,29,28 40 33-37");
    assert_eq!(
        batches["id"],
        serde_json::json!([[0, 1, 3], [3, 6, 1], [4, 100_000, 1]])
    );
    assert_eq!(batches["status"], "dsfpp");
    assert_eq!(batches["rule"], serde_json::json!([[0, 1, 2], [2, 0, 3]]));
    assert_eq!(batches["ran"], "s----");
    let objects: Vec<&str> = json["work"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        objects,
        [
            "rs-00001", "vf-00003", "tb-00004", "tb-00005", "tb-7", "tb-00008", "agg-1"
        ]
    );
}

#[test]
fn a_run_without_batches_writes_no_columns_and_a_layout_1_file_reads_the_same() {
    let items: Vec<WorkItem> = sample()
        .into_iter()
        .filter(|i| i.kind != ItemKind::TriageBatch)
        .collect();
    let (json, back) = round_trip(&items);
    assert!(json.get("batches").is_none());
    assert_eq!(back, items);
    // Layout 1: every batch an object of `work`.
    let items = sample();
    let mut json = crate::item_table::tests_encode(&items);
    json.as_object_mut().unwrap().remove("batches");
    json["work"] = serde_json::to_value(&items[40..]).unwrap();
    assert_eq!(crate::item_table::tests_decode(json).unwrap(), items);
}

#[test]
fn damaged_columns_are_errors_not_panics() {
    let items = sample();
    let (json, _) = round_trip(&items);
    let damage = |path: &str, value: serde_json::Value| {
        let mut json = json.clone();
        json["batches"][path] = value;
        crate::item_table::tests_decode(json).unwrap_err()
    };
    assert!(damage("status", "dsf".into()).contains("items.batches.status"));
    assert!(damage("tier", "xhhhh".into()).contains("tier"));
    assert!(damage("order", "wbbwbwwbwww".into()).contains("items.batches.order"));
    assert!(damage("order", "wbbwbwwbwwxb".into()).contains("items.batches.order"));
    assert!(damage("members", "1-8 9 30 40".into()).contains("members"));
    assert!(damage("members", "1-8 9 30 40 41".into()).contains("past the 40 triage items"));
    assert!(damage("members", "1-8 9 30 40 9-2".into()).contains("batch 5"));
    assert!(damage("members", "1-8 9 30 40 1-99999999999".into()).contains("batch 5"));
    // The survey members' reader reads these too (member_list.rs): the same refusals.
    for bad in ["0", "1--2", "1-2-3", "3,", ",3", "", "1-41"] {
        let members = format!("1-8 9 30 40 {bad}");
        assert!(
            damage("members", members.into()).contains("batch 5 reads"),
            "{bad:?}"
        );
    }
    assert!(damage("id", serde_json::json!([[0, 1, 3]])).contains("cover 3 of the 5"));
    assert!(damage("id", serde_json::json!([[0, 1, 3], [4, 1, 2]])).contains("does not follow"));
    assert!(damage("id", serde_json::json!([[0, 1, u64::MAX]])).contains("does not follow"));
    assert!(damage("id", serde_json::json!([[0, u64::MAX, 5]])).contains("too large"));
    assert!(damage("rule", serde_json::json!([[0, 9, 5]])).contains("no rule 9"));
}

#[test]
fn a_state_with_batches_round_trips_through_its_file() {
    let findings: Vec<(&str, &str, &str)> = (0..30)
        .map(|i| {
            (
                "generic",
                if i % 2 == 0 { "ruff F401" } else { "ruff E501" },
                "src/a.py",
            )
        })
        .collect();
    let config = crate::Config {
        survey_min: 0,
        ..crate::Config::default()
    };
    let mut state = crate::test_support::run_of_findings("r", &findings, config);
    let first = state.triage_items as usize;
    assert_eq!(state.items[first].kind, ItemKind::TriageBatch);
    state.items[first].status = ItemStatus::Done;
    let text = serde_json::to_string(&state).unwrap();
    assert!(text.contains("\"batches\""), "{text}");
    let back: RunState = serde_json::from_str(&text).unwrap();
    assert_eq!(back.items, state.items);
}

#[test]
fn members_read_from_the_columns_are_written_back_as_read_and_expand_to_the_same_ids() {
    let items = sample();
    let (json, back) = round_trip(&items);
    let read: Vec<&WorkItem> = back.iter().filter(|i| i.members_text().is_some()).collect();
    let texts: Vec<&str> = read.iter().filter_map(|b| b.members_text()).collect();
    assert_eq!(texts, ["1-8", "9,11-13,20", "30,29,28", "40", "33-37"]);
    // Written again untouched: the same bytes, no member expanded for it.
    let again = crate::item_table::tests_encode(&back);
    assert_eq!(again, json);
    // Each expands to the ids it was written from, and its indices are theirs.
    let state = RunState {
        triage_items: 40,
        items: back.clone(),
        ..crate::test_support::per_finding_run(
            "r",
            0,
            "ruff F401",
            |_| "generic",
            |_| false,
            crate::Config::default(),
        )
    };
    for batch in &read {
        let original = items.iter().find(|i| i.id == batch.id).unwrap();
        assert_eq!(batch.inputs(), original.inputs(), "{}", batch.id);
        let indices: Vec<Option<usize>> =
            crate::member_list::member_indices(&state, batch).collect();
        let by_id: Vec<Option<usize>> = original
            .inputs()
            .iter()
            .map(|m| state.index_of(m))
            .collect();
        assert_eq!(indices, by_id, "{}", batch.id);
    }
}

#[test]
fn a_batch_whose_members_change_is_written_from_its_new_members() {
    let (_, mut back) = round_trip(&sample());
    let at = back
        .iter()
        .position(|i| i.members_text() == Some("9,11-13,20"))
        .unwrap();
    // A split keeps part of the list: the text read is dropped with the change.
    back[at].extra_mut().inputs.truncate(2);
    assert_eq!(back[at].members_text(), None);
    assert_eq!(back[at].inputs(), ["t-00009", "t-00011"]);
    let json = crate::item_table::tests_encode(&back);
    assert_eq!(json["batches"]["members"], "1-8 9,11 30,29,28 40 33-37");
    // A change to another field of it keeps the members as they were.
    let (_, mut back) = round_trip(&sample());
    back[at]
        .extra_mut()
        .errors
        .push("attempt 2 (sonnet): ended".into());
    assert_eq!(
        back[at].inputs(),
        ["t-00009", "t-00011", "t-00012", "t-00013", "t-00020"]
    );
    let json = crate::item_table::tests_encode(&back);
    assert_eq!(
        json["batches"]["members"],
        "1-8 9,11-13,20 30,29,28 40 33-37"
    );
}
