//! Issue 42 item 5: the demo's next step works. The demo ended with "Next: `self-repair fix` for
//! 8 tasks", and `fix` then said 8 × "not reproduced" (`init`'s Ruff detector runs Ruff's
//! default rules, which dropped E711). The demo now leaves a git commit and a detector that
//! reproduces its Ruff findings, so `fix` fixes and proves one and says why it cannot prove the
//! others. And one binding rule: a repair run started from a terminal is bound by `adopt`, not
//! by the first stop of any session.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::harness::{Cmd, TestProject};

/// A stand-in `ruff` on `PATH`, answering for the demo's `py/mod.py` with Ruff 0.17.6's own
/// entries (tests/fixtures/formats/ruff-0.17.6.json): F401 while `import os` is there, E711
/// while `== None` is; `check --fix` removes the import.
fn ruff_on_path(project: &TestProject, demo: &Path) -> PathBuf {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/formats/ruff-0.17.6.json"
    );
    let text = std::fs::read_to_string(fixture)
        .unwrap()
        .replace("/home/dev/samples/py", demo.join("py").to_str().unwrap());
    let entries: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    for (name, codes) in [
        ("both", &["F401", "E711"][..]),
        ("f401", &["F401"][..]),
        ("e711", &["E711"][..]),
        ("none", &[][..]),
    ] {
        let kept: Vec<&serde_json::Value> = entries
            .iter()
            .filter(|e| codes.contains(&e["code"].as_str().unwrap()))
            .collect();
        project.write(
            &format!(".tools/ruff-{name}.json"),
            &serde_json::to_string(&kept).unwrap(),
        );
    }
    let tools = project.path().join(".tools");
    project.write(
        ".tools/ruff",
        &format!(
            "#!/bin/sh\n\
             if [ \"$2\" = \"--fix\" ]; then sed -i '/^import os$/d' mod.py; exit 0; fi\n\
             f=no; e=no\n\
             grep -q '^import os$' mod.py && f=yes\n\
             grep -q '== None' mod.py && e=yes\n\
             case $f$e in yesyes) n=both ;; yesno) n=f401 ;; noyes) n=e711 ;; *) n=none ;; esac\n\
             cat '{}'/ruff-$n.json\n",
            tools.display()
        ),
    );
    std::fs::set_permissions(tools.join("ruff"), std::fs::Permissions::from_mode(0o755)).unwrap();
    tools
}

/// `self-repair ARGS` from a terminal in the demo's folder, the stand-in Ruff first on `PATH`.
fn in_demo(project: &TestProject, demo: &Path, tools: &Path, args: &[&str]) -> Cmd {
    let path = format!(
        "{}:{}",
        tools.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    project.terminal(args).current_dir(demo).env("PATH", path)
}

fn demo(project: &TestProject) -> PathBuf {
    let demo = project.path().join("demo");
    let out = project
        .terminal(&["demo", "--dir", demo.to_str().unwrap()])
        .run()
        .success();
    assert!(
        out.stdout
            .contains("fix: the folder is a git repository with one commit; `self-repair fix` can prove the Ruff tasks"),
        "{}",
        out.stdout
    );
    demo
}

#[test]
fn after_the_demo_fix_fixes_and_proves_a_task_and_says_what_it_cannot_prove() {
    let project = TestProject::new();
    let demo = demo(&project);
    let tools = ruff_on_path(&project, &demo);
    let fix = in_demo(&project, &demo, &tools, &["fix"]).run().success();
    assert!(
        fix.stdout.contains("task-2: repair run") && fix.stdout.contains("started"),
        "{}",
        fix.stdout
    );
    assert!(
        fix.stdout
            .contains("task-1: not fixed (not proved: no configured detector runs"),
        "{}",
        fix.stdout
    );
    assert!(!fix.stdout.contains("not reproduced"), "{}", fix.stdout);
    let asked = in_demo(&project, &demo, &tools, &["tick"]).run().success();
    assert!(asked.stdout.contains("attempt 1"), "{}", asked.stdout);
    // The fixer's edit: E711's `== None` made `is None`.
    let module = demo.join("py/mod.py");
    let text = std::fs::read_to_string(&module).unwrap();
    std::fs::write(&module, text.replace("x == None", "x is None")).unwrap();
    let done = in_demo(&project, &demo, &tools, &["tick"]).run().success();
    assert!(
        done.stdout.contains("task-2: fixed (1 attempt(s))")
            && done.stdout.contains("fix done: 1 of 8 task(s) fixed"),
        "{}",
        done.stdout
    );
    assert!(
        done.stdout
            .contains("task-8: not fixed (not proved: no configured detector runs bandit"),
        "{}",
        done.stdout
    );
    // One line each, not one line for all.
    assert!(
        done.stdout
            .lines()
            .any(|l| l.starts_with("task-3: not fixed")),
        "{}",
        done.stdout
    );
}

/// Contradiction 14: a repair run was bound by the first stop of any session, a triage run only
/// by `adopt`. One rule: no stop binds a run a terminal started.
#[test]
fn a_repair_run_started_from_a_terminal_is_bound_by_adopt_not_by_another_sessions_stop() {
    let project = TestProject::new();
    let demo = demo(&project);
    let tools = ruff_on_path(&project, &demo);
    let fix = in_demo(&project, &demo, &tools, &["fix", "task-2"])
        .run()
        .success();
    assert!(fix.stdout.contains("bound to no session"), "{}", fix.stdout);
    let stop = |session: &str| {
        in_demo(&project, &demo, &tools, &["hook", "stop"])
            .env("CLAUDE_CODE_SESSION_ID", session)
            .stdin(
                json!({"session_id": session, "hook_event_name": "Stop",
                    "stop_hook_active": false, "cwd": demo, "background_tasks": []})
                .to_string(),
            )
            .run()
            .success()
    };
    assert_eq!(
        stop("s-other").stdout,
        "",
        "another session's stop takes nothing"
    );
    let status = in_demo(&project, &demo, &tools, &["status"])
        .run()
        .success();
    assert!(!status.stdout.contains("s-other"), "{}", status.stdout);
    in_demo(&project, &demo, &tools, &["adopt"])
        .env("CLAUDE_CODE_SESSION_ID", "s-mine")
        .run()
        .success();
    let asked = stop("s-mine").stdout;
    assert!(asked.contains("attempt 1"), "{asked}");
}
