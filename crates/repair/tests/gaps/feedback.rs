//! What an attempt is told: the feedback's parts (through a project template that shows them
//! all) and the fixer's dispatch.

use self_repair_repair::{
    Approach, Attempt, AutofixRecord, CheckPurpose, CheckRecord, CheckRequest, FailureClass,
    FixTier, GitBaseline, RepairState, render_dispatch, render_feedback, render_fixer_task,
    resolve_spec,
};

fn state(autofix: bool) -> RepairState {
    let request = CheckRequest {
        command: vec!["cargo".into(), "test".into()],
        autofix: autofix.then(|| vec!["cargo".into(), "fmt".into()]),
        max_attempts: Some(5),
        tiers: Some("main,sonnet".into()),
        ..CheckRequest::default()
    };
    RepairState::new(
        "r-7".into(),
        0,
        None,
        GitBaseline::default(),
        resolve_spec(&request, None, String::new()).unwrap(),
    )
}

fn failed(state: &mut RepairState, attempt: u32, signature: &str, tail: &str) {
    state.checks.push(CheckRecord {
        seq: state.checks.len() as u32 + 1,
        purpose: if attempt == 0 {
            CheckPurpose::Baseline
        } else {
            CheckPurpose::Recheck
        },
        attempt,
        exit_code: 1,
        timed_out: false,
        duration_ms: 1_500,
        signature: signature.into(),
        class: FailureClass::Fixable,
        tail: tail.into(),
        log: String::new(),
        at: 0,
    });
}

fn attempt(state: &mut RepairState, n: u32, files: &[&str], no_change: bool) {
    state.attempts.push(Attempt {
        n,
        item: format!("fix-{n}"),
        tier: FixTier::Main,
        approach: Approach::Logic,
        asked_at: 0,
        before: String::new(),
        ended_at: Some(1),
        after: None,
        files_changed: files.iter().map(|f| (*f).to_owned()).collect(),
        no_change,
        check: Some(n),
    });
}

/// The feedback of attempt `n` through a template that shows its parts, one a line.
fn feedback(state: &RepairState, n: u32) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("templates")).unwrap();
    std::fs::write(
        dir.path().join("templates/fix-feedback.md"),
        "{{changes}}\n@@\n{{exit}}\n@@\n{{output}}\n@@\n{{item}} {{attempt}}/{{max_attempts}} {{command}} {{run}}\n@@\n{{approach}}",
    )
    .unwrap();
    render_feedback(dir.path(), state, n)
        .unwrap()
        .split("\n@@\n")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_first_attempt_is_told_the_baseline_and_what_the_autofix_did() {
    let mut s = state(true);
    failed(&mut s, 0, "aaa", "");
    s.autofix = Some(AutofixRecord {
        exit_code: 0,
        timed_out: false,
        duration_ms: 1,
        files_changed: vec!["src/a.rs".into()],
        log: String::new(),
    });
    let parts = feedback(&s, 1);
    assert_eq!(
        parts[0],
        "This is the first attempt. The check failed at the baseline (exit 1, signature aaa). The autofix `cargo fmt` ran first and changed `src/a.rs`; the check still fails."
    );
    assert_eq!(parts[1], "exit 1, signature aaa, 1.50 s");
    assert!(parts[2].contains("(no output)"), "{}", parts[2]);
    assert_eq!(parts[3], "fix-1 1/5 `cargo test` r-7");
    assert!(parts[4].starts_with("direct — Direct fix:"), "{}", parts[4]);
    // Without an autofix: the baseline only.
    let mut s = state(false);
    failed(&mut s, 0, "aaa", "boom");
    let parts = feedback(&s, 1);
    assert_eq!(
        parts[0],
        "This is the first attempt. The check failed at the baseline (exit 1, signature aaa)."
    );
    assert!(parts[2].contains("boom"), "{}", parts[2]);
    // Nothing ran yet.
    assert_eq!(feedback(&state(false), 1)[0], "The check has not run yet.");
}

#[test]
fn a_later_attempt_is_told_what_the_last_one_changed_and_whether_the_failure_did() {
    let files_7: Vec<String> = (1..=6).map(|i| format!("f{i}.rs")).collect();
    let files_7: Vec<&str> = files_7.iter().map(String::as_str).collect();
    let cases: [(&[&str], bool, &str, &str); 4] = [
        (
            &["a`b.rs"],
            false,
            "aaa",
            "Attempt 1 (main, logic) changed ``a`b.rs``. The failure is unchanged (same signature aaa): that change did not reach the cause.",
        ),
        (
            &files_7,
            false,
            "bbb",
            "Attempt 1 (main, logic) changed 6 files. The failure changed (signature aaa → bbb, now exit 1): read the new output.",
        ),
        (
            &[],
            false,
            "aaa",
            "Attempt 1 (main, logic) changed no file. The failure is unchanged (same signature aaa): that change did not reach the cause.",
        ),
        (
            &[],
            true,
            "aaa",
            "Attempt 1 (main) changed NO file, so the check failed exactly as before. This time, make a change to the code. The failure is unchanged (same signature aaa): that change did not reach the cause.",
        ),
    ];
    for (files, no_change, second, said) in cases {
        let mut s = state(false);
        failed(&mut s, 0, "aaa", "x");
        attempt(&mut s, 1, files, no_change);
        failed(&mut s, 1, second, "x");
        assert_eq!(feedback(&s, 2)[0], said);
    }
    // An attempt without its record.
    let mut s = state(false);
    failed(&mut s, 0, "aaa", "x");
    failed(&mut s, 1, "aaa", "x");
    assert_eq!(feedback(&s, 2)[0], "The previous attempt left no record.");
}

#[test]
fn the_fixer_is_dispatched_at_the_attempt_s_tier_in_the_foreground() {
    let mut s = state(false);
    failed(&mut s, 0, "aaa", "x");
    let dispatch = render_dispatch(&s, 2);
    let launch = &dispatch.launch[0];
    assert_eq!(launch.model, "sonnet");
    assert_eq!(launch.subagent_type, "fixer", "no agent prefix given");
    assert_eq!(launch.description, "fix fix-2");
    assert_eq!(launch.prompt, "self-repair item fix-2 --run r-7");
    assert_eq!(launch.run_in_background, Some(false));
    assert_eq!(launch.item, "fix-2");
    assert_eq!(
        dispatch.summary,
        "self-repair check: attempt 2 of 5 for `cargo test` — launch the fixer (sonnet) below; self-repair reruns the check when it is done."
    );
    // A main-session attempt names the strongest tier if dispatched anyway.
    assert_eq!(render_dispatch(&s, 1).launch[0].model, "opus");
}

#[test]
fn an_attempt_shown_after_its_recheck_still_shows_the_failure_it_was_asked_to_fix() {
    let mut s = state(false);
    failed(&mut s, 0, "aaa", "before");
    attempt(&mut s, 1, &["a.rs"], false);
    failed(&mut s, 1, "bbb", "after");
    let parts = feedback(&s, 1);
    assert_eq!(parts[1], "exit 1, signature aaa, 1.50 s");
    assert!(parts[2].contains("before"), "{}", parts[2]);
    assert_eq!(
        self_repair_repair::failing_check(&s, 2).map(|c| c.signature.as_str()),
        Some("bbb")
    );
}

#[test]
fn an_attempt_already_asked_keeps_its_approach_and_the_fixer_gets_the_same_parts() {
    let mut s = state(false);
    failed(&mut s, 0, "aaa", "boom");
    // Chosen now, attempt 1 would be told `direct`; asked before as `logic`, it stays so.
    assert!(feedback(&s, 1)[4].starts_with("direct — "));
    attempt(&mut s, 1, &[], false);
    assert!(
        feedback(&s, 1)[4].starts_with("logic — "),
        "{}",
        feedback(&s, 1)[4]
    );
    // The fixer's task, through its own template.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("templates")).unwrap();
    std::fs::write(
        dir.path().join("templates/fix-fixer.md"),
        "{{item}} {{attempt}}/{{max_attempts}} {{command}} {{run}}: {{exit}}",
    )
    .unwrap();
    assert_eq!(
        render_fixer_task(dir.path(), &s, 1).unwrap(),
        "fix-1 1/5 `cargo test` r-7: exit 1, signature aaa, 1.50 s"
    );
}
