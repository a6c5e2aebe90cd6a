//! The commit protocol, in the store's own tests (issue 47: CI holds it at 100 % of its
//! mutants): the journal line is the commit point, the marker a submit leaves before it lets the
//! next one finish an interrupted submit, a second submit of the same result is acknowledged and
//! a different one refused, and the fold applies every committed line once.

use serde_json::{Value, json};

use self_repair_engine::{
    Config, Event, Intake, ItemKind, JournalEntry, RoutedFinding, RunState, RunStatus, Tier,
    create_run,
};

use crate::{CommitError, Committed, Journal, NewResult, RunDir, StoreError};

const NOW: u64 = 1_795_339_805;

/// A run folder with `items/` and nothing else.
fn run_dir() -> (tempfile::TempDir, RunDir) {
    let folder = tempfile::tempdir().unwrap();
    let dir = RunDir::at(folder.path().to_path_buf());
    std::fs::create_dir_all(dir.items_dir()).unwrap();
    (folder, dir)
}

fn result(item: &str, canonical: Value) -> NewResult<'_> {
    let kind = ItemKind::of_id(item).unwrap();
    NewResult {
        item,
        kind,
        markdown: kind.takes_markdown(),
        what: format!("{item}'s result"),
        canonical,
    }
}

fn submitted(item: &str, result: Value) -> JournalEntry {
    JournalEntry {
        at: NOW,
        event: Event::Submitted {
            item: item.to_owned(),
            result,
        },
    }
}

fn journal_text(dir: &RunDir) -> String {
    std::fs::read_to_string(dir.journal().path()).unwrap_or_default()
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn real(cause: &str) -> Value {
    json!({"verdict": "real", "root_cause": cause, "reason": "r"})
}

/// A submit killed after its journal line, before its copy: the marker says where the line is.
fn interrupted(dir: &RunDir, item: &str, value: Value) {
    let offset = dir.journal().byte_len().unwrap();
    dir.mark_submitting(item, offset).unwrap();
    dir.journal().append(&[submitted(item, value)]).unwrap();
}

#[test]
fn a_first_result_is_journaled_then_copied_and_its_marker_dropped() {
    let (_f, dir) = run_dir();
    let answer = dir
        .commit_result(result("t-00001", real("a")), NOW)
        .unwrap();
    assert_eq!(answer, Committed::Recorded("t-00001's result".to_owned()));
    let lines: Vec<JournalEntry> = dir.journal().read_from(0).unwrap().entries;
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].at, NOW);
    assert!(
        matches!(&lines[0].event, Event::Submitted { item, result } if item == "t-00001" && *result == real("a"))
    );
    let copy = read(&dir.items_dir().join("t-00001.json"));
    assert_eq!(
        copy,
        serde_json::to_string_pretty(&real("a")).unwrap() + "\n"
    );
    assert!(dir.items_with_submit_marker().is_empty());
    assert!(!dir.items_dir().join("t-00001.pending").exists());
}

#[test]
fn the_same_result_again_is_acknowledged_and_a_different_one_refused() {
    let (_f, dir) = run_dir();
    dir.commit_result(result("t-00001", real("a")), NOW)
        .unwrap();
    let journal = journal_text(&dir);
    assert_eq!(
        dir.commit_result(result("t-00001", real("a")), NOW)
            .unwrap(),
        Committed::AlreadyRecorded("t-00001's result".to_owned())
    );
    let refused = dir
        .commit_result(result("t-00001", real("b")), NOW)
        .unwrap_err();
    let CommitError::Conflict(why) = refused else {
        panic!("{refused:?}");
    };
    assert!(
        why.starts_with(
            "t-00001 already has a different result, and that one counts: verdict real (a)"
        ),
        "{why}"
    );
    assert!(why.contains("t-00001.json"), "{why}");
    assert_eq!(journal_text(&dir), journal, "neither wrote a line");
    assert_eq!(
        read(&dir.items_dir().join("t-00001.json")),
        serde_json::to_string_pretty(&real("a")).unwrap() + "\n"
    );
}

#[test]
fn a_markdown_result_is_stored_as_text_and_compared_trimmed() {
    let (_f, dir) = run_dir();
    let item = "plan-g1-1";
    assert!(ItemKind::of_id(item).unwrap().takes_markdown());
    dir.commit_result(result(item, json!("# Plan\n\nFix it.\n\n")), NOW)
        .unwrap();
    assert_eq!(
        read(&dir.items_dir().join(format!("{item}.md"))),
        "# Plan\n\nFix it.\n\n\n"
    );
    assert!(matches!(
        dir.commit_result(result(item, json!("# Plan\n\nFix it.")), NOW),
        Ok(Committed::AlreadyRecorded(_))
    ));
    let refused = dir
        .commit_result(result(item, json!("# Other plan")), NOW)
        .unwrap_err();
    assert!(
        refused.to_string().contains("counts: \"# Plan\""),
        "{refused}"
    );
}

/// A markdown result found in the journal (its copy missing) compares trimmed too.
#[test]
fn an_interrupted_markdown_result_compares_trimmed() {
    let (_f, dir) = run_dir();
    interrupted(&dir, "plan-g1-1", json!("# Plan\n\n"));
    assert!(matches!(
        dir.commit_result(result("plan-g1-1", json!("# Plan")), NOW),
        Ok(Committed::AlreadyRecorded(_))
    ));
    assert_eq!(read(&dir.items_dir().join("plan-g1-1.md")), "# Plan\n");
}

#[test]
fn an_unsafe_item_id_is_refused_before_anything_is_written() {
    let (_f, dir) = run_dir();
    let refused = dir
        .commit_result(
            NewResult {
                item: "../t-00001",
                kind: ItemKind::Triage,
                markdown: false,
                what: String::new(),
                canonical: real("a"),
            },
            NOW,
        )
        .unwrap_err();
    assert_eq!(refused.to_string(), "no item `../t-00001`");
    assert_eq!(dir.journal().byte_len().unwrap(), 0);
}

/// Killed between its line and its copy: the journal line counts. The same result again writes
/// the copy and is acknowledged; a different one is refused and the copy still written.
#[test]
fn an_interrupted_submit_counts_and_the_next_one_finishes_it() {
    let (_f, dir) = run_dir();
    interrupted(&dir, "t-00001", real("a"));
    assert_eq!(dir.items_with_submit_marker(), ["t-00001"]);
    assert_eq!(
        dir.committed_without_copy("t-00001").unwrap(),
        Some(real("a"))
    );
    assert!(
        dir.read_result("t-00001", "json")
            .unwrap()
            .contains("\"root_cause\": \"a\"")
    );
    assert!(matches!(
        dir.commit_result(result("t-00001", real("a")), NOW),
        Ok(Committed::AlreadyRecorded(_))
    ));
    assert!(dir.items_dir().join("t-00001.json").is_file());
    assert!(dir.items_with_submit_marker().is_empty());
    assert_eq!(dir.journal().read_from(0).unwrap().entries.len(), 1);

    interrupted(&dir, "t-00002", real("a"));
    assert!(matches!(
        dir.commit_result(result("t-00002", real("b")), NOW),
        Err(CommitError::Conflict(_))
    ));
    assert_eq!(
        read(&dir.items_dir().join("t-00002.json")),
        serde_json::to_string_pretty(&real("a")).unwrap() + "\n",
        "the copy of what counts"
    );
}

/// Killed after its marker, before its line: nothing counts, and the next submit records.
#[test]
fn a_submit_killed_before_its_line_leaves_nothing_that_counts() {
    let (_f, dir) = run_dir();
    dir.journal()
        .append(&[submitted("t-00009", real("z"))])
        .unwrap();
    let offset = dir.journal().byte_len().unwrap();
    dir.mark_submitting("t-00001", offset).unwrap();
    assert_eq!(
        read(&dir.items_dir().join("t-00001.pending")),
        format!("{offset}\n")
    );
    assert_eq!(dir.committed_without_copy("t-00001").unwrap(), None);
    assert_eq!(dir.read_result("t-00001", "json"), None);
    // The marker points at another item's line: not this item's result either.
    dir.mark_submitting("t-00001", 0).unwrap();
    assert_eq!(dir.committed_without_copy("t-00001").unwrap(), None);
    assert_eq!(
        dir.commit_result(result("t-00001", real("b")), NOW)
            .unwrap(),
        Committed::Recorded("t-00001's result".to_owned())
    );
    assert_eq!(
        dir.journal().first_submission("t-00001").unwrap(),
        Some(real("b"))
    );
}

/// A marker torn by a power cut says no offset: the journal is scanned for the item's line.
#[test]
fn a_torn_marker_costs_a_scan_and_still_finds_the_line() {
    let (_f, dir) = run_dir();
    dir.journal()
        .append(&[submitted("t-00009", real("z"))])
        .unwrap();
    dir.journal()
        .append(&[submitted("t-00001", real("a"))])
        .unwrap();
    std::fs::write(dir.items_dir().join("t-00001.pending"), "12x").unwrap();
    assert_eq!(
        dir.committed_without_copy("t-00001").unwrap(),
        Some(real("a"))
    );
    assert_eq!(
        dir.committed_without_copy("t-00002").unwrap(),
        None,
        "no marker"
    );
    assert_eq!(
        dir.committed_without_copy("../x").unwrap(),
        None,
        "no such item"
    );
}

#[test]
fn doctor_writes_the_copies_of_interrupted_submits_and_drops_stale_markers() {
    let (_f, dir) = run_dir();
    interrupted(&dir, "t-00001", real("a"));
    interrupted(&dir, "plan-g1-1", json!("# Plan"));
    // Died before its line: a marker at the journal's end.
    dir.mark_submitting("t-00003", dir.journal().byte_len().unwrap())
        .unwrap();
    // Its copy was written, only the marker was left.
    dir.commit_result(result("t-00004", real("d")), NOW)
        .unwrap();
    dir.mark_submitting("t-00004", 0).unwrap();
    // A batch: its members' copies too.
    let batch = json!({"verdicts": [
        {"item": "t-00005", "verdict": "real", "root_cause": "c", "reason": "r"},
        {"item": "t-00006", "verdict": "intended", "reason": "r"}]});
    interrupted(&dir, "tb-00001", batch);
    std::fs::write(dir.items_dir().join("t-00006.json"), "{\"kept\": true}\n").unwrap();

    let lines = dir.finish_interrupted_submits();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[0].starts_with("wrote ")
            && lines[0].ends_with("plan-g1-1.md from the journal (its submit was interrupted)"),
        "{lines:?}"
    );
    assert!(
        lines[1].ends_with("t-00001.json from the journal (its submit was interrupted)"),
        "{lines:?}"
    );
    assert!(
        lines[2].ends_with("tb-00001.json from the journal (its submit was interrupted)"),
        "{lines:?}"
    );
    assert_eq!(read(&dir.items_dir().join("plan-g1-1.md")), "# Plan\n");
    assert!(read(&dir.items_dir().join("t-00001.json")).contains("\"a\""));
    assert!(!dir.items_dir().join("t-00003.json").exists());
    assert_eq!(
        serde_json::from_str::<Value>(&read(&dir.items_dir().join("t-00005.json"))).unwrap(),
        json!({"verdict": "real", "root_cause": "c", "reason": "r"})
    );
    assert_eq!(
        read(&dir.items_dir().join("t-00006.json")),
        "{\"kept\": true}\n",
        "kept"
    );
    assert!(dir.items_with_submit_marker().is_empty());
    assert!(
        dir.finish_interrupted_submits().is_empty(),
        "nothing left to do"
    );
}

#[test]
fn doctor_says_so_when_a_copy_cannot_be_written() {
    let (_f, dir) = run_dir();
    interrupted(&dir, "t-00001", real("a"));
    // A folder (not empty) where the copy goes: the rename over it fails, the marker stays.
    std::fs::create_dir_all(dir.items_dir().join("t-00001.json").join("x")).unwrap();
    let lines = dir.finish_interrupted_submits();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].ends_with("; free disk space and run doctor again"),
        "{lines:?}"
    );
    assert_eq!(dir.items_with_submit_marker(), ["t-00001"]);
}

/// A first triage result that asked for another route does not count: the next result does,
/// and the first is kept aside. A late copy of the first is acknowledged as history.
#[test]
fn a_reroute_request_leaves_the_item_open_for_one_more_result() {
    let (_f, dir) = run_dir();
    let reroute = json!({"verdict": "unsure", "reroute": "security", "reason": "r"});
    dir.commit_result(result("t-00001", reroute.clone()), NOW)
        .unwrap();
    assert_eq!(
        dir.commit_result(result("t-00001", real("a")), NOW)
            .unwrap(),
        Committed::Recorded("t-00001's result".to_owned())
    );
    let aside: Value =
        serde_json::from_str(&read(&dir.items_dir().join("t-00001.reroute.json"))).unwrap();
    assert_eq!(aside, reroute);
    assert!(matches!(
        dir.commit_result(result("t-00001", reroute.clone()), NOW),
        Ok(Committed::AlreadyRecorded(_))
    ));
    assert!(matches!(
        dir.commit_result(result("t-00001", real("b")), NOW),
        Err(CommitError::Conflict(_))
    ));
    assert_eq!(dir.journal().read_from(0).unwrap().entries.len(), 2);

    // Not a triage item, or no re-route asked: the first result counts.
    let other = json!({"verdict": "unsure", "reroute": null, "reason": "r"});
    dir.commit_result(result("t-00002", other), NOW).unwrap();
    assert!(matches!(
        dir.commit_result(result("t-00002", real("a")), NOW),
        Err(CommitError::Conflict(_))
    ));
    let verify = json!({"verdict": "unsure", "reroute": "security", "reason": "r"});
    dir.commit_result(result("vf-00001", verify), NOW).unwrap();
    assert!(matches!(
        dir.commit_result(result("vf-00001", real("a")), NOW),
        Err(CommitError::Conflict(_))
    ));
}

/// A re-route set aside by a submit that died before its own line: still the first result, so
/// the item stays open; a different result set aside means the item was re-routed already.
#[test]
fn a_reroute_set_aside_decides_whether_the_item_is_still_open() {
    let (_f, dir) = run_dir();
    let reroute = json!({"verdict": "unsure", "reroute": "security", "reason": "r"});
    dir.commit_result(result("t-00001", reroute.clone()), NOW)
        .unwrap();
    std::fs::write(
        dir.items_dir().join("t-00001.reroute.json"),
        reroute.to_string(),
    )
    .unwrap();
    assert!(matches!(
        dir.commit_result(result("t-00001", real("a")), NOW),
        Ok(Committed::Recorded(_))
    ));
    dir.commit_result(result("t-00002", reroute.clone()), NOW)
        .unwrap();
    std::fs::write(
        dir.items_dir().join("t-00002.reroute.json"),
        real("x").to_string(),
    )
    .unwrap();
    assert!(matches!(
        dir.commit_result(result("t-00002", real("a")), NOW),
        Err(CommitError::Conflict(_))
    ));
}

#[test]
fn a_batch_result_writes_each_members_copy_once() {
    let (_f, dir) = run_dir();
    std::fs::write(dir.items_dir().join("t-00002.json"), "{\"own\": 1}\n").unwrap();
    let batch = json!({"verdicts": [
        {"item": "t-00001", "verdict": "real", "root_cause": "c", "reason": "r"},
        {"item": "t-00002", "verdict": "real", "root_cause": "c", "reason": "r"},
        {"item": "../escape", "verdict": "real"},
        "not an object"]});
    dir.commit_result(result("tb-00001", batch.clone()), NOW)
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&read(&dir.items_dir().join("t-00001.json"))).unwrap(),
        json!({"verdict": "real", "root_cause": "c", "reason": "r"})
    );
    assert_eq!(
        read(&dir.items_dir().join("t-00002.json")),
        "{\"own\": 1}\n"
    );
    // A member copy lost: the same batch again writes it back.
    std::fs::remove_file(dir.items_dir().join("t-00001.json")).unwrap();
    assert!(matches!(
        dir.commit_result(result("tb-00001", batch), NOW),
        Ok(Committed::AlreadyRecorded(_))
    ));
    assert!(dir.items_dir().join("t-00001.json").is_file());
}

/// A damaged copy (not JSON) does not decide: the journal says what counts.
#[test]
fn a_damaged_copy_is_judged_by_the_journal() {
    let (_f, dir) = run_dir();
    dir.commit_result(result("t-00001", real("a")), NOW)
        .unwrap();
    std::fs::write(dir.items_dir().join("t-00001.json"), "{torn").unwrap();
    assert!(matches!(
        dir.commit_result(result("t-00001", real("a")), NOW),
        Ok(Committed::AlreadyRecorded(_))
    ));
    assert!(matches!(
        dir.commit_result(result("t-00001", real("b")), NOW),
        Err(CommitError::Conflict(_))
    ));
}

/// The journal refuses the append (its path is a folder): nothing is recorded, the marker goes.
#[test]
fn a_failed_append_records_nothing_and_says_so() {
    let (_f, dir) = run_dir();
    std::fs::create_dir(dir.journal().path()).unwrap();
    let refused = dir
        .commit_result(result("t-00001", real("a")), NOW)
        .unwrap_err();
    assert!(matches!(refused, CommitError::NotRecorded { ref item, .. } if item == "t-00001"));
    assert!(
        refused
            .to_string()
            .starts_with("t-00001 was not recorded: "),
        "{refused}"
    );
    assert!(dir.items_with_submit_marker().is_empty());
    assert!(!dir.items_dir().join("t-00001.json").exists());
}

/// The copy cannot be written: the result counts all the same, the reply says so, and the
/// marker stays for the next submit or `doctor`.
#[test]
fn a_failed_copy_still_records_and_leaves_the_marker() {
    let (_f, dir) = run_dir();
    std::fs::create_dir_all(dir.items_dir().join("t-00001.json").join("x")).unwrap();
    let Committed::Recorded(what) = dir
        .commit_result(result("t-00001", real("a")), NOW)
        .unwrap()
    else {
        panic!("not recorded");
    };
    assert!(
        what.starts_with("t-00001's result (its copy ")
            && what.ends_with("`self-repair doctor` writes it)"),
        "{what}"
    );
    assert_eq!(dir.items_with_submit_marker(), ["t-00001"]);
    assert_eq!(
        dir.journal().first_submission("t-00001").unwrap(),
        Some(real("a"))
    );
}

#[test]
fn dispatch_marks_are_links_of_one_file_made_again_when_it_goes() {
    let (folder, dir) = run_dir();
    let marker = |id: &str| dir.items_dir().join(format!("{id}.dispatched"));
    dir.mark_dispatched("tb-00001").unwrap();
    dir.mark_dispatched("tb-00002").unwrap();
    let template = folder.path().join("dispatched.mark");
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = |p: &std::path::Path| std::fs::metadata(p).unwrap();
        assert_eq!(meta(&template).nlink(), 3, "the file and its two markers");
        assert_eq!(meta(&marker("tb-00001")).ino(), meta(&template).ino());
        // A later dispatch of a marked item keeps its marker, and the file.
        let ino = meta(&template).ino();
        dir.mark_dispatched("tb-00001").unwrap();
        assert_eq!((meta(&template).ino(), meta(&template).nlink()), (ino, 3));
        // The file gone (a person tidied the folder): the next mark makes it again.
        std::fs::remove_file(&template).unwrap();
        dir.mark_dispatched("tb-00003").unwrap();
        assert_eq!(meta(&template).nlink(), 2);
        assert_eq!(meta(&marker("tb-00003")).ino(), meta(&template).ino());
    }
    // A file that cannot be linked: each marker is an empty file of its own.
    std::fs::remove_file(&template).ok();
    std::fs::create_dir(&template).unwrap();
    dir.mark_dispatched("tb-00004").unwrap();
    for id in ["tb-00001", "tb-00002", "tb-00003", "tb-00004"] {
        assert!(marker(id).is_file(), "{id}");
        assert_eq!(read(&marker(id)), "", "{id}");
    }
}

#[test]
fn dispatch_marks_set_aside_answers_and_rejections() {
    let folder = tempfile::tempdir().unwrap();
    let dir = RunDir::at(folder.path().to_path_buf());
    // No items/ yet: made once.
    dir.mark_dispatched("t-00001").unwrap();
    assert!(dir.items_dir().join("t-00001.dispatched").is_file());
    dir.mark_dispatched("t-00001").unwrap();
    dir.mark_dispatched("../x").unwrap();
    assert!(!folder.path().join("x.dispatched").exists());

    std::fs::write(dir.items_dir().join("vf-00001.json"), "{}").unwrap();
    std::fs::write(dir.items_dir().join("t-00001.json"), "{}").unwrap();
    dir.set_aside_answer("vf-00001").unwrap();
    dir.set_aside_answer("t-00001").unwrap();
    dir.set_aside_answer("vf-00002").unwrap();
    assert!(dir.items_dir().join("vf-00001.set-aside.json").is_file());
    assert!(!dir.items_dir().join("vf-00001.json").exists());
    assert!(
        dir.items_dir().join("t-00001.json").is_file(),
        "only a verifier's"
    );

    dir.record_rejection("t-00001", "bad verdict".to_owned(), NOW)
        .unwrap();
    let entries = dir.journal().read_from(0).unwrap().entries;
    assert!(matches!(
        &entries[..],
        [JournalEntry { at: NOW, event: Event::Rejected { item, error } }]
            if item == "t-00001" && error == "bad verdict"
    ));
}

#[test]
fn items_with_a_marker_are_listed_sorted_and_only_safe_ids() {
    let (_f, dir) = run_dir();
    for name in [
        "t-00002.pending",
        "t-00001.pending",
        "t-00003.json",
        "bad id.pending",
    ] {
        std::fs::write(dir.items_dir().join(name), "0\n").unwrap();
    }
    assert_eq!(dir.items_with_submit_marker(), ["t-00001", "t-00002"]);
    dir.clear_submitting("t-00001");
    assert_eq!(dir.items_with_submit_marker(), ["t-00002"]);
    let empty = RunDir::at(dir.path().join("none"));
    assert!(empty.items_with_submit_marker().is_empty());
}

// The journal.

#[test]
fn an_append_adds_one_line_an_entry_and_returns_the_new_end() {
    let (_f, dir) = run_dir();
    let journal = dir.journal();
    assert_eq!(journal.byte_len().unwrap(), 0);
    let end = journal
        .append(&[
            submitted("t-00001", real("a")),
            submitted("t-00002", real("b")),
        ])
        .unwrap();
    let text = journal_text(&dir);
    assert_eq!(end, text.len() as u64);
    assert_eq!(journal.byte_len().unwrap(), end);
    assert_eq!(text.lines().count(), 2);
    assert!(text.ends_with('\n'));
    assert!(
        !journal_text(&dir).contains("\n\n"),
        "no blank line before an append"
    );
    let end2 = journal
        .append_unsynced(&[submitted("t-00003", real("c"))])
        .unwrap();
    assert_eq!(end2, journal_text(&dir).len() as u64);
    assert_eq!(journal_text(&dir).lines().count(), 3);
    assert!(
        !journal_text(&dir).contains("\n\n"),
        "no blank line before an append"
    );
    assert!(end2 > end);
    assert_eq!(
        journal.entry_at(end).unwrap().map(|e| e.event),
        Some(submitted("t-00003", real("c")).event)
    );
}

/// A writer killed mid-line left a torn last line: the next append closes it first, so the
/// torn bytes are one skipped line and the new entry reads back whole.
#[test]
fn a_torn_last_line_is_closed_before_the_next_append() {
    let (_f, dir) = run_dir();
    let journal = dir.journal();
    journal.append(&[submitted("t-00001", real("a"))]).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(journal.path())
        .unwrap();
    std::io::Write::write_all(&mut file, b"{\"at\":1,\"ev").unwrap();
    let torn = journal.read_from(0).unwrap();
    assert!(torn.torn_tail);
    assert_eq!(torn.entries.len(), 1);
    let offset = journal.byte_len().unwrap();
    journal.append(&[submitted("t-00002", real("b"))]).unwrap();
    assert!(journal_text(&dir).contains("{\"at\":1,\"ev\n{"));
    // The entry written after the torn line, found from where the append started.
    assert_eq!(
        journal.entry_at(offset).unwrap().map(|e| e.event),
        Some(submitted("t-00002", real("b")).event)
    );
    let tail = journal.read_from(0).unwrap();
    assert!(!tail.torn_tail);
    assert_eq!(tail.entries.len(), 2);
    assert_eq!(tail.lines, [1, 3]);
    assert_eq!(tail.skipped.len(), 1);
    assert!(tail.skipped[0].contains("skipped a journal line that does not parse"));
}

#[test]
fn reading_from_an_offset_returns_complete_lines_and_where_to_go_on() {
    let (_f, dir) = run_dir();
    let journal = dir.journal();
    let missing = journal.read_from(0).unwrap();
    assert!(missing.entries.is_empty() && missing.end == 0 && !missing.torn_tail);
    assert!(matches!(
        journal.read_from(5),
        Err(StoreError::JournalBehindState {
            offset: 5,
            len: 0,
            ..
        })
    ));
    let first = journal.append(&[submitted("t-00001", real("a"))]).unwrap();
    let second = journal.append(&[submitted("t-00002", real("b"))]).unwrap();
    let tail = journal.read_from(first).unwrap();
    assert_eq!(tail.end, second);
    assert_eq!(tail.entries.len(), 1);
    assert_eq!(tail.lines, [1]);
    assert!(matches!(
        journal.read_from(second + 1),
        Err(StoreError::JournalBehindState { len, .. }) if len == second
    ));
    assert!(journal.read_from(second).unwrap().entries.is_empty());
    // Whitespace after the last line is not a torn write.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(journal.path())
        .unwrap();
    std::io::Write::write_all(&mut file, b"\n  ").unwrap();
    let tail = journal.read_from(0).unwrap();
    assert!(!tail.torn_tail);
    assert_eq!(tail.end, second + 1);
    assert_eq!(tail.entries.len(), 2);
}

#[test]
fn a_line_whose_time_is_past_any_real_value_is_skipped() {
    let (_f, dir) = run_dir();
    let journal = dir.journal();
    let late = JournalEntry {
        at: 1 << 53,
        ..submitted("t-00001", real("a"))
    };
    let last_real = JournalEntry {
        at: (1 << 53) - 1,
        ..submitted("t-00002", real("b"))
    };
    journal.append(&[late, last_real]).unwrap();
    let tail = journal.read_from(0).unwrap();
    assert_eq!(tail.entries.len(), 1);
    assert_eq!(tail.lines, [2]);
    assert_eq!(tail.skipped.len(), 1);
    assert!(tail.skipped[0].contains("whose time 9007199254740992 is past any real value"));
}

#[test]
fn entry_at_reads_the_one_line_at_an_offset() {
    let (_f, dir) = run_dir();
    let journal = dir.journal();
    assert!(journal.entry_at(0).unwrap().is_none(), "no journal");
    let end = journal.append(&[submitted("t-00001", real("a"))]).unwrap();
    assert_eq!(
        journal.entry_at(0).unwrap().map(|e| e.event),
        Some(submitted("t-00001", real("a")).event)
    );
    assert!(journal.entry_at(end).unwrap().is_none(), "at the end");
    assert!(journal.entry_at(1).unwrap().is_none(), "mid-line");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(journal.path())
        .unwrap();
    let line = serde_json::to_string(&pause()).unwrap();
    let (head, rest) = line.split_at(5);
    std::io::Write::write_all(&mut file, format!("\n\n{head}").as_bytes()).unwrap();
    assert!(
        journal.entry_at(end + 1).unwrap().is_none(),
        "a blank line, then a torn one"
    );
    std::io::Write::write_all(&mut file, format!("{rest}\n").as_bytes()).unwrap();
    assert!(
        journal.entry_at(end).unwrap().is_none(),
        "reads two lines at most"
    );
    assert_eq!(
        journal.entry_at(end + 1).unwrap().map(|e| e.event),
        Some(Event::Pause),
        "one blank line, then the entry"
    );
}

#[test]
fn first_submission_is_the_first_line_for_the_item() {
    let (_f, dir) = run_dir();
    let journal: Journal = dir.journal();
    journal
        .append(&[
            JournalEntry {
                at: NOW,
                event: Event::Rejected {
                    item: "t-00001".to_owned(),
                    error: "e".to_owned(),
                },
            },
            submitted("t-00002", real("x")),
            submitted("t-00001", real("a")),
            submitted("t-00001", real("b")),
        ])
        .unwrap();
    assert_eq!(
        journal.first_submission("t-00001").unwrap(),
        Some(real("a"))
    );
    assert_eq!(journal.first_submission("t-00003").unwrap(), None);
}

// The fold.

fn created() -> (tempfile::TempDir, RunDir, RunState) {
    let folder = tempfile::tempdir().unwrap();
    let dir = RunDir::at(folder.path().to_path_buf());
    let routed: Vec<RoutedFinding> = (0..2)
        .map(|i| RoutedFinding {
            finding: i,
            route: "generic".into(),
            tier: Tier::Haiku,
            rule: "ruff F401".into(),
            path: format!("src/m{i}.py"),
            safe_fix: false,
            security: false,
            severe: false,
        })
        .collect();
    let intake = Intake {
        findings: 2,
        unique: 2,
        routed: 2,
        ..Intake::default()
    };
    let config = Config {
        triage_batch: 1,
        survey_min: 0,
        ..Config::default()
    };
    let state = create_run(
        "r-fold".into(),
        1,
        config,
        intake,
        Some("s1".into()),
        &routed,
    );
    dir.create(&state).unwrap();
    (folder, dir, state)
}

fn pause() -> JournalEntry {
    JournalEntry {
        at: NOW,
        event: Event::Pause,
    }
}

#[test]
fn the_fold_applies_each_new_line_once_and_moves_its_offset() {
    let (_f, dir, mut state) = created();
    assert_eq!(state.status, RunStatus::Active);
    dir.journal().append(&[pause()]).unwrap();
    let mut torn = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.journal().path())
        .unwrap();
    std::io::Write::write_all(&mut torn, b"not json\n{\"at\":").unwrap();
    let report = dir.fold(&mut state).unwrap();
    assert_eq!(report.applied, 1);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(state.status, RunStatus::Paused);
    let end = state.journal_offset;
    assert_eq!(end, journal_text(&dir).rfind('\n').unwrap() as u64 + 1);
    let again = dir.fold(&mut state).unwrap();
    assert_eq!((again.applied, again.skipped.len()), (0, 0));
    assert_eq!(state.journal_offset, end);
}

#[test]
fn recording_appends_applies_and_moves_the_offset_past_the_lines() {
    let (_f, dir, mut state) = created();
    let outcomes = dir.record(&mut state, &[pause(), pause()]).unwrap();
    assert_eq!(outcomes.len(), 2);
    assert!(
        outcomes[0].changed && !outcomes[1].changed,
        "a second pause changes nothing"
    );
    assert_eq!(state.status, RunStatus::Paused);
    assert_eq!(state.journal_offset, dir.journal().byte_len().unwrap());
    assert_eq!(dir.fold(&mut state).unwrap().applied, 0);
    let before = state.clone();
    dir.append_applied(&mut state, &[pause()]).unwrap();
    assert_eq!(state.journal_offset, dir.journal().byte_len().unwrap());
    assert_eq!(state.status, before.status);
    assert_eq!(dir.journal().read_from(0).unwrap().entries.len(), 3);
}

/// An I/O error other than a missing file is an error (or, for a copy, no copy), never read as
/// "nothing there": a run folder that is a file, a marker or a copy that is a folder.
#[test]
fn io_errors_other_than_a_missing_file_are_not_read_as_nothing() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let journal = RunDir::at(file).journal();
    assert!(journal.byte_len().is_err());
    assert!(journal.entry_at(0).is_err());
    assert!(journal.read_from(0).is_err());

    let (_f, dir) = run_dir();
    std::fs::create_dir_all(dir.items_dir().join("t-00001.pending").join("x")).unwrap();
    assert!(dir.committed_without_copy("t-00001").is_err());

    interrupted(&dir, "t-00002", real("a"));
    std::fs::create_dir_all(dir.items_dir().join("t-00002.json").join("x")).unwrap();
    assert_eq!(
        dir.read_result("t-00002", "json"),
        None,
        "an unreadable copy"
    );

    std::fs::write(dir.items_dir().join("vf-00001.json"), "{}").unwrap();
    std::fs::create_dir_all(dir.items_dir().join("vf-00001.set-aside.json").join("x")).unwrap();
    assert!(dir.set_aside_answer("vf-00001").is_err());

    // A copy that cannot be read: the journal (a scan) says what counts.
    dir.commit_result(result("t-00003", real("a")), NOW)
        .unwrap();
    std::fs::remove_file(dir.items_dir().join("t-00003.json")).unwrap();
    std::fs::create_dir_all(dir.items_dir().join("t-00003.json").join("x")).unwrap();
    assert!(matches!(
        dir.commit_result(result("t-00003", real("b")), NOW),
        Err(CommitError::Conflict(_))
    ));
}

#[test]
fn read_result_gives_an_interrupted_submits_text_in_its_copys_form() {
    let (_f, dir) = run_dir();
    interrupted(&dir, "plan-g1-1", json!("# Plan"));
    assert_eq!(
        dir.read_result("plan-g1-1", "md").as_deref(),
        Some("# Plan\n")
    );
    interrupted(&dir, "t-00001", real("a"));
    assert_eq!(
        dir.read_result("t-00001", "json"),
        Some(serde_json::to_string_pretty(&real("a")).unwrap() + "\n")
    );
    assert_eq!(dir.read_result("../x", "json"), None);
    // A JSON string stays JSON in a `.json` copy.
    interrupted(&dir, "t-00002", json!("x"));
    assert_eq!(
        dir.read_result("t-00002", "json").as_deref(),
        Some("\"x\"\n")
    );
}

/// The item was re-routed, then its second submit died after its line: that line counts, so a
/// third, different result is refused, and the same one acknowledged.
#[test]
fn after_a_reroute_an_interrupted_second_submit_counts() {
    let (_f, dir) = run_dir();
    let reroute = json!({"verdict": "unsure", "reroute": "security", "reason": "r"});
    dir.commit_result(result("t-00001", reroute), NOW).unwrap();
    interrupted(&dir, "t-00001", real("a"));
    assert!(matches!(
        dir.commit_result(result("t-00001", real("b")), NOW),
        Err(CommitError::Conflict(_))
    ));
    assert!(matches!(
        dir.commit_result(result("t-00001", real("a")), NOW),
        Ok(Committed::AlreadyRecorded(_))
    ));
}

/// The re-route request itself was interrupted (its line, no copy): it is the first result, so
/// the next, different one counts.
#[test]
fn an_interrupted_reroute_request_leaves_the_item_open() {
    let (_f, dir) = run_dir();
    let reroute = json!({"verdict": "unsure", "reroute": "security", "reason": "r"});
    interrupted(&dir, "t-00001", reroute);
    assert!(matches!(
        dir.commit_result(result("t-00001", real("a")), NOW),
        Ok(Committed::Recorded(_))
    ));
    assert_eq!(dir.journal().read_from(0).unwrap().entries.len(), 2);
}

/// Only markdown is compared trimmed: a JSON string keeps its blanks.
#[test]
fn a_json_result_is_compared_as_it_is() {
    let (_f, dir) = run_dir();
    dir.commit_result(result("t-00001", json!(" x ")), NOW)
        .unwrap();
    assert!(matches!(
        dir.commit_result(result("t-00001", json!(" x ")), NOW),
        Ok(Committed::AlreadyRecorded(_))
    ));
    assert!(matches!(
        dir.commit_result(result("t-00001", json!("x")), NOW),
        Err(CommitError::Conflict(_))
    ));
}

/// The refusal names the recorded result: a verdict and its root cause, else its JSON.
#[test]
fn a_conflict_names_the_recorded_result() {
    let (_f, dir) = run_dir();
    dir.commit_result(result("rs-00001", json!({"proposals": 1})), NOW)
        .unwrap();
    let refused = dir
        .commit_result(result("rs-00001", json!({"proposals": 2})), NOW)
        .unwrap_err();
    assert!(
        refused.to_string().contains("counts: {\"proposals\":1} ("),
        "{refused}"
    );
    dir.commit_result(result("t-00001", json!({"verdict": "intended"})), NOW)
        .unwrap();
    let refused = dir
        .commit_result(result("t-00001", real("b")), NOW)
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("counts: verdict intended (no root cause) ("),
        "{refused}"
    );
}
