//! `known.json` and `rules.json` on disk: the line form read and written, the older single
//! document read and migrated, bad input refused without a write, and the two things a team
//! does in git: two branches adding entries merged by plain `git merge` (the union attribute
//! `start` writes), and the merge driver's three-way merge.

use std::path::Path;

use self_repair_engine::Verdict;
use self_repair_store::TeamFiles;
use self_repair_test_support::{Bounded, Finished, git_command};

use crate::{
    ClassifyError, KnownEntry, KnownRegistry, MergeSide, RegistryKind, RuleBook, RuleStatus,
    merge_known, merge_registry_files, merge_rules,
};

pub(crate) fn entry(verdict: Verdict, source: &str) -> KnownEntry {
    KnownEntry {
        verdict,
        reason: "because".to_owned(),
        source: source.to_owned(),
        summary: "ruff F401 src/a.py: unused".to_owned(),
        proposed: false,
        item: None,
        model: None,
        confidence: Some(0.5),
        lines: None,
        code: None,
        fixed: None,
    }
}

#[test]
fn known_json_is_one_entry_a_line_sorted_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut known = KnownRegistry::default();
    known.insert_at(
        "fp-b".to_owned(),
        entry(Verdict::Real, "r-1"),
        1_800_000_000,
    );
    known.insert_at("fp-a".to_owned(), entry(Verdict::Intended, "manual"), 0);
    known.save(dir.path()).unwrap();
    let text = std::fs::read_to_string(KnownRegistry::path(dir.path())).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("{\"schema_version\":2,"), "{text}");
    assert_eq!(
        lines[1],
        "{\"fingerprint\":\"fp-a\",\"verdict\":\"intended\",\"reason\":\"because\",\"source\":\"manual\",\"summary\":\"ruff F401 src/a.py: unused\",\"confidence\":0.5,\"decided_at\":\"1970-01-01T00:00:00Z\"}"
    );
    assert!(lines[2].starts_with("{\"fingerprint\":\"fp-b\""), "{text}");
    assert!(
        lines[2].ends_with("\"decided_at\":\"2027-01-15T08:00:00Z\"}"),
        "{text}"
    );
    let read = KnownRegistry::load(dir.path()).unwrap();
    assert_eq!(read, known);
}

#[test]
fn an_older_pretty_known_json_is_read_and_rewritten_as_lines() {
    let dir = tempfile::tempdir().unwrap();
    let old = r#"{
  "schema_version": 1,
  "entries": {
    "fp-1": {
      "verdict": "false_positive",
      "reason": "test fixture",
      "source": "manual",
      "summary": "ruff S101 tests/t.py: assert"
    }
  }
}
"#;
    std::fs::write(KnownRegistry::path(dir.path()), old).unwrap();
    let known = KnownRegistry::load(dir.path()).unwrap();
    assert_eq!(known.get("fp-1").unwrap().verdict, Verdict::FalsePositive);
    assert_eq!(known.decided_at("fp-1"), None);
    known.save(dir.path()).unwrap();
    let text = std::fs::read_to_string(KnownRegistry::path(dir.path())).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert_eq!(KnownRegistry::load(dir.path()).unwrap(), known);
}

#[test]
fn a_bad_hand_edited_line_is_refused_with_its_number_and_the_file_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = KnownRegistry::path(dir.path());
    let text = "{\"schema_version\":2}\n{\"fingerprint\":\"a\",\"verdict\":\"intended\",\"reason\":\"r\",\"source\":\"manual\"}\n{\"fingerprint\":\"b\",\"verdict\":\"maybe\",\"reason\":\"r\",\"source\":\"manual\"}\n";
    std::fs::write(&path, text).unwrap();
    let err = KnownRegistry::load(dir.path()).unwrap_err();
    assert!(
        matches!(err, ClassifyError::BadLine { line: 3, .. }),
        "{err}"
    );
    let said = err.to_string();
    assert!(said.contains("known.json line 3"), "{said}");
    assert!(said.contains("fix that line or delete it"), "{said}");
    assert!(said.contains("not changed"), "{said}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn one_fingerprint_on_two_lines_keeps_the_later_decision() {
    // What a union merge leaves when both branches decided the same finding.
    let text = "{\"schema_version\":2}
{\"fingerprint\":\"a\",\"verdict\":\"real\",\"reason\":\"new\",\"source\":\"r-2\",\"decided_at\":\"2026-11-26T10:00:00Z\"}
{\"fingerprint\":\"a\",\"verdict\":\"intended\",\"reason\":\"old\",\"source\":\"r-1\",\"decided_at\":\"2026-11-25T10:00:00Z\"}
{\"fingerprint\":\"b\",\"verdict\":\"real\",\"reason\":\"first\",\"source\":\"r-1\"}
{\"fingerprint\":\"b\",\"verdict\":\"intended\",\"reason\":\"second\",\"source\":\"r-2\"}
";
    let known = KnownRegistry::parse(text, Path::new("known.json")).unwrap();
    assert_eq!(known.get("a").unwrap().reason, "new");
    assert_eq!(
        known.get("b").unwrap().reason,
        "second",
        "equally old: the later line"
    );
}

#[test]
fn rules_json_keeps_rule_order_and_reads_the_hand_written_document() {
    let dir = tempfile::tempdir().unwrap();
    let hand_written = r#"{"schema_version": 1, "rules": [
  {"id": "gen-code", "name": "generated", "when": {"path_glob": "**/*.pb.go"},
   "verdict": "intended", "reason": "generated"},
  {"id": "sql", "name": "SQL", "when": {"message_regex": "(?i)sql"}, "route": "security"}
]}"#;
    std::fs::write(RuleBook::path(dir.path()), hand_written).unwrap();
    let mut book = RuleBook::load(dir.path()).unwrap();
    let ids: Vec<&str> = book.rules.iter().map(|r| r.id.as_str()).collect();

    assert_eq!(ids, ["gen-code", "sql"]);
    book.set_status("sql", RuleStatus::Rejected).unwrap();
    book.save(dir.path()).unwrap();
    let text = std::fs::read_to_string(RuleBook::path(dir.path())).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[1].starts_with("{\"id\":\"gen-code\""), "{text}");
    assert!(lines[2].contains("\"status\":\"rejected\""), "{text}");
    assert!(lines[2].contains("\"decided_at\":\""), "{text}");
    let read = RuleBook::load(dir.path()).unwrap();
    assert_eq!(read, book);
}

#[test]
fn a_rule_line_with_a_bad_pattern_names_its_line() {
    let text = "{\"schema_version\":2}\n{\"id\":\"x\",\"name\":\"x\",\"when\":{\"message_regex\":\"(\"},\"verdict\":\"intended\"}\n";
    let err = RuleBook::parse(text, Path::new("rules.json")).unwrap_err();
    assert!(
        matches!(err, ClassifyError::BadLine { line: 2, .. }),
        "{err}"
    );
}

#[test]
fn the_merge_takes_each_sides_changes_and_the_later_of_two_decisions() {
    let mut base = KnownRegistry::default();
    base.insert_at("kept".to_owned(), entry(Verdict::Real, "r-1"), 10);
    base.insert_at(
        "removed-by-ours".to_owned(),
        entry(Verdict::Real, "r-1"),
        10,
    );
    base.insert_at("disputed".to_owned(), entry(Verdict::Real, "r-1"), 10);
    let mut ours = base.clone();
    let mut theirs = base.clone();
    ours.remove("removed-by-ours");
    ours.insert_at("ours-new".to_owned(), entry(Verdict::Intended, "r-2"), 20);
    theirs.insert_at("theirs-new".to_owned(), entry(Verdict::Intended, "r-3"), 20);
    ours.insert_at(
        "disputed".to_owned(),
        entry(Verdict::Intended, "manual"),
        30,
    );
    theirs.insert_at(
        "disputed".to_owned(),
        entry(Verdict::FalsePositive, "r-3"),
        40,
    );
    let (merged, conflicts) = merge_known(&base, &ours, &theirs);
    let keys: Vec<&String> = merged.entries.keys().collect();
    assert_eq!(keys, ["disputed", "kept", "ours-new", "theirs-new"]);
    assert_eq!(
        merged.get("disputed").unwrap().verdict,
        Verdict::FalsePositive
    );
    assert_eq!(merged.decided_at("disputed"), Some("1970-01-01T00:00:40Z"));
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].kept, MergeSide::Theirs);
    assert_eq!(
        conflicts[0].render(),
        "disputed: ours intended (manual, 1970-01-01T00:00:30Z), theirs false_positive (r-3, 1970-01-01T00:00:40Z); kept theirs"
    );
}

#[test]
fn the_rule_merge_keeps_order_and_both_sides_new_rules() {
    let rule = |id: &str| -> crate::Rule {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": id, "when": {"rule_id": id}, "verdict": "intended"
        }))
        .unwrap()
    };
    let mut base = RuleBook::default();
    base.rules = vec![rule("a"), rule("b")];
    let mut ours = base.clone();
    ours.rules.push(rule("c"));
    ours.set_status("a", RuleStatus::Rejected).unwrap();
    let mut theirs = base.clone();
    theirs.rules.push(rule("d"));
    let (merged, conflicts) = merge_rules(&base, &ours, &theirs);
    let ids: Vec<&str> = merged.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    assert_eq!(merged.rules[0].status, RuleStatus::Rejected);
    assert!(conflicts.is_empty());
}

/// Runs git in `dir` (test-support's, isolated from the user's configuration); panics with
/// its output when it fails and `must` says so.
fn git(dir: &Path, args: &[&str], must: bool) -> Finished {
    let out = Bounded::new(git_command(dir, args)).run();
    assert!(
        !must || out.succeeded(),
        "git {args:?}: {}",
        out.stderr_text()
    );
    out
}

/// A repository whose first commit holds `.self-repair/` as `start` leaves it (team files and
/// a registry of `base` entries).
fn team_repository(base: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"], true);
    git(root, &["config", "user.email", "t@example.com"], true);
    git(root, &["config", "user.name", "t"], true);
    let store = root.join(".self-repair");
    TeamFiles::ensure(&store).unwrap();
    let mut known = KnownRegistry::default();
    for i in 0..base {
        known.insert_at(
            fingerprint("base", i),
            entry(Verdict::Intended, "r-0"),
            1_000,
        );
    }
    known.save(&store).unwrap();
    git(root, &["add", "-A"], true);
    git(root, &["commit", "-q", "-m", "base"], true);
    dir
}

/// Fingerprints spread like real ones (hashes), so two branches' entries interleave.
fn fingerprint(branch: &str, i: usize) -> String {
    format!(
        "{:016x}",
        crate::registry_file_tests::hash(&format!("{branch}-{i}"))
    )
}

fn hash(text: &str) -> u64 {
    // FNV-1a: enough spread for a test, no dependency.
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// On branch `name` (from main), adds `count` entries and commits.
fn add_on_branch(root: &Path, name: &str, count: usize, verdict: Verdict) {
    git(root, &["checkout", "-q", "-b", name, "main"], true);
    let store = root.join(".self-repair");
    let mut known = KnownRegistry::load(&store).unwrap();
    for i in 0..count {
        known.insert_at(fingerprint(name, i), entry(verdict, name), 2_000);
    }
    known.save(&store).unwrap();
    git(root, &["commit", "-q", "-am", name], true);
}

/// The must-show of issue 26: two branches each add 500 entries; plain `git merge` (no driver
/// registered, only the committed `.gitattributes`) merges with 0 conflicts and the registry
/// holds all 1,000 and the base's.
#[test]
fn two_branches_adding_500_entries_each_merge_without_conflicts() {
    let dir = team_repository(200);
    let root = dir.path();
    add_on_branch(root, "alice", 500, Verdict::Intended);
    add_on_branch(root, "bob", 500, Verdict::FalsePositive);
    git(root, &["checkout", "-q", "alice"], true);
    let merge = git(root, &["merge", "--no-edit", "bob"], false);
    let said = String::from_utf8_lossy(&merge.stdout).to_string()
        + &String::from_utf8_lossy(&merge.stderr);
    assert!(merge.succeeded(), "{said}");
    assert!(!said.contains("CONFLICT"), "{said}");
    let store = root.join(".self-repair");
    let text = std::fs::read_to_string(KnownRegistry::path(&store)).unwrap();
    assert!(!text.contains("<<<<<<<"), "no conflict markers");
    let merged = KnownRegistry::load(&store).unwrap();
    assert_eq!(merged.entries.len(), 1_200);
    // Where both sides' additions meet around a base line, the union writes that line twice
    // (one hunk, both sides in full); the copies are identical, read as one, and the next
    // write drops them.
    let lines = text.lines().count() - 1;
    assert!(lines >= 1_200, "{lines} lines");
    merged.save(&store).unwrap();
    let rewritten = std::fs::read_to_string(KnownRegistry::path(&store)).unwrap();
    assert_eq!(rewritten.lines().count(), 1_201);
    for branch in ["alice", "bob"] {
        for i in 0..500 {
            assert!(
                merged.get(&fingerprint(branch, i)).is_some(),
                "{branch} {i}"
            );
        }
    }
    // The same merge without the attribute is what the line form alone cannot do: git's text
    // merge calls neighbouring insertions a conflict.
    git(root, &["reset", "-q", "--hard", "alice@{1}"], true);
    std::fs::write(store.join(".gitattributes"), "").unwrap();
    git(root, &["commit", "-q", "-am", "no attributes"], true);
    let plain = git(root, &["merge", "--no-edit", "bob"], false);
    assert!(!plain.succeeded(), "expected the text merge to conflict");
}

/// What `install` registers: git runs `self-repair known merge-driver`, here its library call
/// through a shell script standing in for the binary, so a finding two branches decided
/// differently is settled by decision time instead of kept twice.
#[test]
fn the_merge_driver_settles_a_finding_both_branches_decided() {
    let dir = team_repository(3);
    let root = dir.path();
    let store = root.join(".self-repair");
    let disputed = fingerprint("base", 1);
    for (branch, verdict, at) in [
        ("alice", Verdict::Real, 3_000),
        ("bob", Verdict::FalsePositive, 4_000),
    ] {
        git(root, &["checkout", "-q", "-b", branch, "main"], true);
        let mut known = KnownRegistry::load(&store).unwrap();
        known.insert_at(disputed.clone(), entry(verdict, branch), at);
        known.insert_at(fingerprint(branch, 0), entry(verdict, branch), at);
        known.save(&store).unwrap();
        git(root, &["commit", "-q", "-am", branch], true);
    }
    git(root, &["checkout", "-q", "alice"], true);
    // The union attribute alone: both lines stay, the reader keeps the later decision.
    let merge = git(root, &["merge", "--no-edit", "bob"], false);
    assert!(merge.succeeded());
    let union = KnownRegistry::load(&store).unwrap();
    assert_eq!(
        union.get(&disputed).unwrap().verdict,
        Verdict::FalsePositive
    );
    let text = std::fs::read_to_string(KnownRegistry::path(&store)).unwrap();
    assert_eq!(text.matches(disputed.as_str()).count(), 2, "{text}");

    // The driver: one line for it, and the same verdict.
    git(root, &["reset", "-q", "--hard", "HEAD~1"], true);
    let versions = tempfile::tempdir().unwrap();
    let (o, a, b) = (
        versions.path().join("o"),
        versions.path().join("a"),
        versions.path().join("b"),
    );
    let show = |rev: &str, to: &Path| {
        let out = git(
            root,
            &["show", &format!("{rev}:.self-repair/known.json")],
            true,
        );
        std::fs::write(to, out.stdout).unwrap();
    };
    show("main", &o);
    show("alice", &a);
    show("bob", &b);
    let (_, conflicts) = merge_registry_files(&o, &a, &b, Some(".self-repair/known.json")).unwrap();
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert_eq!(conflicts[0].key, disputed);
    let merged_text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(merged_text.matches(disputed.as_str()).count(), 1);
    let merged = KnownRegistry::parse(&merged_text, &a).unwrap();
    assert_eq!(merged.entries.len(), 5);
    assert_eq!(
        merged.get(&disputed).unwrap().verdict,
        Verdict::FalsePositive
    );
}

/// Both sides changed a key differently: the later decision wins, ours on a tie, and a removal
/// loses to a change (issue 47: *ours* later, or a tie, was never tested).
#[test]
fn the_merge_keeps_ours_when_it_is_later_or_as_late_and_a_change_over_a_removal() {
    for (ours_at, theirs_at, kept) in [
        (40, 30, MergeSide::Ours),
        (30, 30, MergeSide::Ours),
        (30, 40, MergeSide::Theirs),
    ] {
        let mut base = KnownRegistry::default();
        base.insert_at("k".to_owned(), entry(Verdict::Real, "r-1"), 10);
        let mut ours = base.clone();
        let mut theirs = base.clone();
        ours.insert_at("k".to_owned(), entry(Verdict::Intended, "o"), ours_at);
        theirs.insert_at(
            "k".to_owned(),
            entry(Verdict::FalsePositive, "t"),
            theirs_at,
        );
        let (merged, conflicts) = merge_known(&base, &ours, &theirs);
        assert_eq!(conflicts.len(), 1, "{ours_at} {theirs_at}");
        assert_eq!(conflicts[0].kept, kept, "{ours_at} {theirs_at}");
        let want = if kept == MergeSide::Ours { "o" } else { "t" };
        assert_eq!(merged.get("k").unwrap().source, want);
    }
    let mut base = KnownRegistry::default();
    base.insert_at("gone-ours".to_owned(), entry(Verdict::Real, "r-1"), 10);
    base.insert_at("gone-theirs".to_owned(), entry(Verdict::Real, "r-1"), 10);
    let mut ours = base.clone();
    let mut theirs = base.clone();
    ours.remove("gone-ours");
    theirs.insert_at("gone-ours".to_owned(), entry(Verdict::Intended, "t"), 20);
    theirs.remove("gone-theirs");
    ours.insert_at("gone-theirs".to_owned(), entry(Verdict::Intended, "o"), 20);
    let (merged, conflicts) = merge_known(&base, &ours, &theirs);
    assert_eq!(merged.get("gone-ours").unwrap().source, "t");
    assert_eq!(merged.get("gone-theirs").unwrap().source, "o");
    let kept: Vec<MergeSide> = conflicts.iter().map(|c| c.kept).collect();
    assert_eq!(kept, [MergeSide::Theirs, MergeSide::Ours]);
    assert!(
        conflicts[0]
            .render()
            .starts_with("gone-ours: ours removed, theirs intended (t, "),
        "{}",
        conflicts[0].render()
    );
}

fn rule_line(id: &str, name: &str, at: Option<&str>) -> String {
    let mut value = serde_json::json!({
        "id": id, "name": name, "when": {"rule_id": id}, "verdict": "intended"
    });
    if let Some(at) = at {
        value["decided_at"] = serde_json::Value::from(at);
    }
    value.to_string()
}

/// One rule on two lines (a union merge): the later decision, the later line on a tie, in the
/// place of the first line.
#[test]
fn one_rule_on_two_lines_keeps_the_later_decision() {
    for (first, second, kept) in [
        (
            Some("2026-11-26T10:00:00Z"),
            Some("2026-11-25T10:00:00Z"),
            "first",
        ),
        (
            Some("2026-11-25T10:00:00Z"),
            Some("2026-11-26T10:00:00Z"),
            "second",
        ),
        (
            Some("2026-11-25T10:00:00Z"),
            Some("2026-11-25T10:00:00Z"),
            "second",
        ),
        (None, None, "second"),
        (Some("2026-11-25T10:00:00Z"), None, "first"),
    ] {
        let text = format!(
            "{{\"schema_version\":2}}\n{}\n{}\n{}\n",
            rule_line("a", "first", first),
            rule_line("b", "other", None),
            rule_line("a", "second", second)
        );
        let book = RuleBook::parse(&text, Path::new("rules.json")).unwrap();
        let names: Vec<(&str, &str)> = book
            .rules
            .iter()
            .map(|r| (r.id.as_str(), r.name.as_str()))
            .collect();
        assert_eq!(names, [("a", kept), ("b", "other")], "{first:?} {second:?}");
        let at = if kept == "first" { first } else { second };
        assert_eq!(book.decided_at("a"), at, "{first:?} {second:?}");
    }
}

/// A proposal equal to a rule (same conditions, verdict and route) only refreshes its
/// measurement; one that differs in its route alone is a new rule.
#[test]
fn a_proposal_that_differs_only_in_its_route_is_added() {
    let rule = |id: &str, route: Option<&str>| -> crate::Rule {
        let mut value = serde_json::json!({"id": id, "name": id, "when": {"rule_id": "S1"}});
        if let Some(route) = route {
            value["route"] = serde_json::Value::from(route);
        }
        serde_json::from_value(value).unwrap()
    };
    let mut book = RuleBook::default();
    book.rules = vec![rule("a", Some("security"))];
    let added = book.add_proposals(vec![
        rule("b", Some("security")),
        rule("c", Some("generic")),
        rule("d", None),
    ]);
    assert_eq!(added, ["c", "d"]);
    let ids: Vec<&str> = book.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a", "c", "d"]);
    assert!(book.decided_at("c").is_some() && book.decided_at("a").is_none());
}

/// Both sides changed a key to the same decision (another source, another time): no conflict to
/// report, the later version is kept. A different decision is reported with both.
#[test]
fn a_merge_reports_only_changes_that_decide_differently() {
    let mut base = KnownRegistry::default();
    base.insert_at("k".to_owned(), entry(Verdict::Real, "r-1"), 10);
    let mut ours = base.clone();
    let mut theirs = base.clone();
    ours.insert_at("k".to_owned(), entry(Verdict::Intended, "o"), 20);
    theirs.insert_at("k".to_owned(), entry(Verdict::Intended, "t"), 30);
    let (merged, conflicts) = merge_known(&base, &ours, &theirs);
    assert!(conflicts.is_empty(), "{conflicts:?}");
    assert_eq!(merged.get("k").unwrap().source, "t");

    let rule = |name: &str, verdict: Option<&str>, route: Option<&str>| -> crate::Rule {
        let mut value = serde_json::json!({"id": "x", "name": name, "when": {"rule_id": "S1"}});
        if let Some(verdict) = verdict {
            value["verdict"] = serde_json::Value::from(verdict);
        }
        if let Some(route) = route {
            value["route"] = serde_json::Value::from(route);
        }
        serde_json::from_value(value).unwrap()
    };
    let book = |rule: crate::Rule, at: &str| {
        let mut book = RuleBook::default();
        book.put_at(0, rule, Some(at.to_owned()));
        book
    };
    let base = book(rule("base", Some("intended"), None), "2026-01-01T00:00:00Z");
    let renamed_ours = book(rule("ours", Some("intended"), None), "2026-01-02T00:00:00Z");
    let renamed_theirs = book(
        rule("theirs", Some("intended"), None),
        "2026-01-03T00:00:00Z",
    );
    let (merged, conflicts) = merge_rules(&base, &renamed_ours, &renamed_theirs);
    assert!(conflicts.is_empty(), "{conflicts:?}");
    assert_eq!(merged.rules[0].name, "theirs");
    for (ours, theirs, render) in [
        (
            rule("o", None, Some("security")),
            rule("t", Some("false_positive"), None),
            "x: ours accepted route security (manual, 2026-01-02T00:00:00Z), theirs accepted false_positive (manual, 2026-01-03T00:00:00Z); kept theirs",
        ),
        (
            rule("o", None, None),
            rule("t", Some("real"), None),
            "x: ours accepted nothing (manual, 2026-01-02T00:00:00Z), theirs accepted real (manual, 2026-01-03T00:00:00Z); kept theirs",
        ),
    ] {
        let (_, conflicts) = merge_rules(
            &base,
            &book(ours, "2026-01-02T00:00:00Z"),
            &book(theirs, "2026-01-03T00:00:00Z"),
        );
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].render(), render);
    }
}

/// The merge driver reads which registry it merges from the file's name, else the content.
#[test]
fn the_merge_driver_tells_the_registry_by_its_name_then_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let rules = "{\"schema_version\":2}\n{\"id\":\"x\",\"name\":\"x\",\"when\":{\"rule_id\":\"S1\"},\"verdict\":\"intended\"}\n";
    for (name, text, by_name, kind) in [
        (
            "a",
            "",
            Some(".self-repair/rules.json"),
            RegistryKind::Rules,
        ),
        (
            "b",
            "",
            Some(".self-repair/known.json"),
            RegistryKind::Known,
        ),
        (
            "c",
            rules,
            Some("elsewhere/registry.json"),
            RegistryKind::Rules,
        ),
        ("d", rules, None, RegistryKind::Rules),
        ("e", "", None, RegistryKind::Known),
    ] {
        for side in ["o", "a", "b"] {
            std::fs::write(path(&format!("{name}.{side}")), text).unwrap();
        }
        let (read, _) = merge_registry_files(
            &path(&format!("{name}.o")),
            &path(&format!("{name}.a")),
            &path(&format!("{name}.b")),
            by_name,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read, kind, "{name} {by_name:?}");
    }
    // Named known.json, it is read as one: rule lines there do not read.
    for side in ["o", "a", "b"] {
        std::fs::write(path(&format!("f.{side}")), rules).unwrap();
    }
    assert!(
        merge_registry_files(&path("f.o"), &path("f.a"), &path("f.b"), Some("known.json")).is_err()
    );
}

#[test]
fn a_rules_document_without_a_version_reads_as_the_first_layout() {
    // `RuleBook` is public and deserializable: a hand-written document that leaves out
    // `schema_version` is of the single-document form, layout 1.
    let book: RuleBook = serde_json::from_str(r#"{"rules": []}"#).unwrap();
    assert_eq!(book.schema_version, 1);
    assert!(book.rules.is_empty());
    let book: RuleBook = serde_json::from_str(r#"{"schema_version": 2}"#).unwrap();
    assert_eq!(book.schema_version, 2, "a version it says is kept");
}

#[test]
fn only_accepted_rules_apply_in_file_order() {
    let text = r#"{"schema_version": 1, "rules": [
  {"id": "b", "name": "b", "when": {"path_glob": "**/b.py"}, "verdict": "intended"},
  {"id": "p", "name": "p", "when": {"path_glob": "**/p.py"}, "verdict": "intended", "status": "proposed"},
  {"id": "a", "name": "a", "when": {"path_glob": "**/a.py"}, "verdict": "intended"},
  {"id": "r", "name": "r", "when": {"path_glob": "**/r.py"}, "verdict": "intended", "status": "rejected"}
]}"#;
    let book = RuleBook::parse(text, Path::new("rules.json")).unwrap();
    let ids: Vec<&str> = book.accepted().iter().map(|c| c.rule.id.as_str()).collect();
    assert_eq!(ids, ["b", "a"]);
}

/// A small deterministic generator (the tests take no random seed from outside).
struct Draws(u64);

impl Draws {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

#[test]
fn entries_put_in_together_leave_the_registry_as_put_in_one_by_one() {
    let verdicts = [Verdict::Real, Verdict::FalsePositive, Verdict::Intended];
    let mut draws = Draws(7);
    let mut merged_once = false;
    for trial in 0..400 {
        // A registry of up to 120 of 150 fingerprints, some entries with a decision time.
        let mut before = KnownRegistry::default();
        for _ in 0..draws.below(121) {
            let fingerprint = format!("fp-{:03}", draws.below(150));
            let entry = entry(verdicts[draws.below(3) as usize], "r-old");
            if draws.below(2) == 0 {
                before.insert_at(fingerprint, entry, 1_000);
            } else {
                before.put(fingerprint, entry, None);
            }
        }
        // 0 to 200 entries of one run, a few of them the same as the registry's, every tenth
        // trial with a fingerprint twice.
        let count = draws.below(201) as usize;
        let mut entries: Vec<(String, KnownEntry)> = (0..count)
            .map(|i| {
                let fingerprint = format!("fp-{:03}", (i * 7 + trial) % 150);
                let source = if draws.below(4) == 0 {
                    "r-old"
                } else {
                    "r-new"
                };
                (
                    fingerprint,
                    entry(verdicts[draws.below(3) as usize], source),
                )
            })
            .collect();
        if trial % 10 == 0 && count > 1 {
            let twice = entries[0].0.clone();
            entries[count - 1].0 = twice;
        }
        let time = crate::DecisionTime::at(2_000);
        let mut one_by_one = before.clone();
        let changed_one_by_one: usize = entries
            .iter()
            .cloned()
            .map(|(f, e)| usize::from(one_by_one.insert_decided(f, e, &time)))
            .sum();
        let mut together = before.clone();
        let changed_together = together.insert_all_decided(entries.clone(), &time);
        merged_once |= count >= 64 && count * 16 >= before.entries.len() && trial % 10 != 0;
        assert_eq!(changed_together, changed_one_by_one, "trial {trial}");
        assert_eq!(together.entries, one_by_one.entries, "trial {trial}");
        for f in (0..150).map(|n| format!("fp-{n:03}")) {
            assert_eq!(
                together.decided_at(&f),
                one_by_one.decided_at(&f),
                "trial {trial}, {f}"
            );
        }
    }
    assert!(merged_once, "no trial took the merge");
}

/// `known.json`'s lines are what serde writes of the fingerprint, the entry flattened and the
/// decision time: the entry's own object with its braces left out is spliced in.
#[test]
fn a_known_line_is_the_entry_flattened_between_its_fingerprint_and_time() {
    #[derive(serde::Serialize)]
    struct Flattened<'a> {
        fingerprint: &'a str,
        #[serde(flatten)]
        entry: &'a KnownEntry,
        #[serde(skip_serializing_if = "Option::is_none")]
        decided_at: Option<&'a str>,
    }
    let mut full = entry(Verdict::FalsePositive, "r-1");
    full.proposed = true;
    full.item = Some("t-00001".to_owned());
    full.model = Some("haiku".to_owned());
    full.lines = Some("src/a.py:1-4".to_owned());
    full.code = Some("0123456789abcdef".to_owned());
    full.reason = "a \"quoted\" reason\nover two lines".to_owned();
    full.fixed = Some(crate::KnownFix {
        task: "task-3".to_owned(),
        run: "fix-1".to_owned(),
        commit: None,
    });
    let mut bare = KnownEntry::without_agent(
        Verdict::Real,
        String::new(),
        "manual".to_owned(),
        String::new(),
    );
    bare.confidence = None;
    let dir = tempfile::tempdir().unwrap();
    let mut known = KnownRegistry::default();
    known.put("fp \"1\"".to_owned(), full.clone(), None);
    known.insert_at("fp-2".to_owned(), bare.clone(), 1_763_800_000);
    known.save(dir.path()).unwrap();
    let text = std::fs::read_to_string(KnownRegistry::path(dir.path())).unwrap();
    let lines: Vec<&str> = text.lines().skip(1).collect();
    let expected = [
        serde_json::to_string(&Flattened {
            fingerprint: "fp \"1\"",
            entry: &full,
            decided_at: None,
        })
        .unwrap(),
        serde_json::to_string(&Flattened {
            fingerprint: "fp-2",
            entry: &bare,
            decided_at: known.decided_at("fp-2"),
        })
        .unwrap(),
    ];
    assert_eq!(lines, expected);
    assert_eq!(
        KnownRegistry::load(dir.path()).unwrap().entries,
        known.entries
    );
}
