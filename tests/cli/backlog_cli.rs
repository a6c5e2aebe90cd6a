//! The tasks we write, read back by the real `backlog` CLI (npm `backlog.md`), installed by
//! `scripts/install-tools.sh`. Compiled with the feature `real-tools` only: `just e2e` runs
//! these (and the fix-loop tests' Backlog.md checks), so plain `cargo test` runs no npm. A
//! missing CLI fails the test: it is never skipped.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::pipeline::{drive, started};
use crate::scripted_agent::ScriptedAgent;

pub(crate) fn backlog_bin() -> PathBuf {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install-tools.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg("--print-env")
        .output()
        .expect("run scripts/install-tools.sh");
    assert!(
        out.status.success(),
        "scripts/install-tools.sh failed; the backlog CLI is required:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let bin = text
        .lines()
        .find_map(|l| l.strip_prefix("export BACKLOG_BIN="))
        .expect("BACKLOG_BIN in --print-env output");
    PathBuf::from(bin.trim_matches('"'))
}

/// `backlog task list --json` in `dir`, which must succeed.
pub(crate) fn backlog_task_list(dir: &std::path::Path) -> Value {
    let out = Command::new(backlog_bin())
        .args(["task", "list", "--json"])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run backlog");
    assert!(
        out.status.success(),
        "backlog task list failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("backlog JSON")
}

#[test]
fn the_real_backlog_cli_lists_every_task_with_its_title_and_criteria() {
    let project = started(20);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    drive(&project, &agent, "s1", usize::MAX);
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap();
    let tasks = state["tasks"].as_array().unwrap();
    assert!(tasks.len() >= 3, "{tasks:?}");

    let listed = backlog_task_list(project.path());
    let listed = listed["tasks"].as_array().unwrap();
    assert_eq!(listed.len(), tasks.len());
    for task in tasks {
        let id = task["task_id"].as_str().unwrap().to_uppercase();
        let entry = listed
            .iter()
            .find(|t| t["id"] == id.as_str())
            .unwrap_or_else(|| panic!("{id} not listed"));
        assert_eq!(entry["title"], task["title"]);
        // The writer's two criteria, plus the analyzer's re-run for a group of one analyzer.
        let count = entry["acceptanceCriteriaCount"].as_u64().unwrap();
        assert!((2..=3).contains(&count), "{entry}");
        // The plan the planners wrote reaches the task, and the CLI reads it as its own section.
        let view = Command::new(backlog_bin())
            .args(["task", "view", &id, "--plain"])
            .current_dir(project.path())
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run backlog");
        let view = String::from_utf8_lossy(&view.stdout);
        let plan = view
            .split("Implementation Plan:")
            .nth(1)
            .unwrap_or_else(|| panic!("{id}: no Implementation Plan in\n{view}"));
        assert!(plan.contains("Scripted"), "{view}");
        assert!(
            entry["labels"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l == "self-repair")
        );
    }
}
