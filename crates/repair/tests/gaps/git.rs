//! The git baseline of a repair run: what it records, how it says to restore the start, and the
//! combined diff since.

use std::path::Path;
use std::process::Command;

use self_repair_repair::{FixTier, GitBaseline};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn the_baseline_is_head_when_clean_and_a_stash_commit_when_not() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(GitBaseline::record(dir.path()), GitBaseline::default());
    git(dir.path(), &["init", "-q"]);
    let empty = GitBaseline::record(dir.path());
    assert_eq!(
        (empty.repo, empty.head.as_deref(), empty.base()),
        (true, None, None)
    );
    assert!(empty.restore_hint().contains("no commit at the start"));
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    git(dir.path(), &["add", "a.txt"]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    let clean = GitBaseline::record(dir.path());
    let head = clean.head.clone().unwrap();
    assert_eq!(head.len(), 40);
    assert_eq!(clean.stash, None);
    assert_eq!(clean.base(), Some(head.as_str()));
    assert!(clean.restore_hint().contains(&format!("`git diff {head}`")));
    std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
    let dirty = GitBaseline::record(dir.path());
    let stash = dirty.stash.clone().unwrap();
    assert_ne!(stash, head);
    assert_eq!(dirty.base(), Some(stash.as_str()));
    assert!(
        dirty
            .restore_hint()
            .contains(&format!("`git stash apply {stash}`"))
    );
    assert!(
        GitBaseline::default()
            .restore_hint()
            .contains("not a git work tree")
    );
}

#[test]
fn the_combined_diff_holds_tracked_changes_and_new_files_but_not_the_excluded_ones() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    git(dir.path(), &["add", "a.txt"]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    let baseline = GitBaseline::record(dir.path());
    std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
    std::fs::write(dir.path().join("new.txt"), "fresh\n").unwrap();
    std::fs::write(dir.path().join("findings.json"), "[]\n").unwrap();
    std::fs::create_dir_all(dir.path().join(".self-repair")).unwrap();
    std::fs::write(dir.path().join(".self-repair/state.json"), "{}\n").unwrap();
    let diff = baseline.combined_diff(dir.path(), &["findings.json".to_owned()]);
    assert!(diff.contains("-one\n+two\n"), "{diff}");
    assert!(diff.contains("+fresh\n"), "{diff}");
    assert!(!diff.contains("findings.json"), "{diff}");
    assert!(!diff.contains(".self-repair"), "{diff}");
    assert_eq!(GitBaseline::default().combined_diff(dir.path(), &[]), "");
}

#[test]
fn a_tier_is_shown_by_its_name() {
    let tiers = FixTier::parse_list("main,haiku").unwrap();
    let names: Vec<String> = tiers.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["main", "haiku"]);
    assert!(FixTier::parse_list("").is_err());
}
