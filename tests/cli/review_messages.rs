//! The error messages the UX review of 2026-11-26 judged weak or wrong, each pinned by the
//! next step it now names.

use self_repair_app::ExitStatus;

use crate::harness::TestProject;
use crate::pipeline::dispatched;
use crate::scripted_agent::ScriptedAgent;

/// `status` in a project with no run sent the user to a `FINDINGS.jsonl` nobody has; then
/// (review of 2026-11-29) to a report in the project's root, where the skill, the README and
/// the recipes keep it under `.self-repair/`.
#[test]
fn status_without_a_run_says_how_to_make_a_findings_file() {
    let project = TestProject::new();
    let out = project.cmd(&["status"]).run().code(ExitStatus::NotFound);
    assert!(
        out.stderr
            .contains("ruff check --output-format json . > .self-repair/ruff.json")
            && out
                .stderr
                .contains("self-repair start .self-repair/ruff.json")
            && !out.stderr.contains("FINDINGS.jsonl"),
        "{}",
        out.stderr
    );
}

/// `start ruff.json` on a missing file said only "No such file or directory".
#[test]
fn start_on_a_missing_findings_file_names_where_it_looked_and_how_to_make_it() {
    let project = TestProject::new();
    let out = project
        .cmd(&["start", "ruff.json"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr.contains("ruff.json does not exist")
            && out.stderr.contains(project.path().to_str().unwrap())
            && out
                .stderr
                .contains("ruff check --output-format json . > .self-repair/ruff.json"),
        "{}",
        out.stderr
    );
}

/// An input no format recognises offered `--format auto`, which is what had just failed.
#[test]
fn an_unrecognised_input_does_not_offer_format_auto_again() {
    let project = TestProject::new();
    project.write("wrong.json", r#"{"foo": 1}"#);
    let out = project
        .cmd(&["start", "wrong.json"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr.contains("one of jsonl|sarif") && !out.stderr.contains("auto|"),
        "{}",
        out.stderr
    );
}

/// `submit` with nothing on stdin said "not valid JSON (EOF while parsing)".
#[test]
fn an_empty_submission_says_nothing_came_and_how_to_send_it() {
    let project = dispatched(3);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let out = agent.submit("t-00001", "").code(ExitStatus::Rejected);
    assert!(
        out.stderr.contains("nothing came with the submission")
            && out.stderr.contains("--file FILE")
            && out
                .stderr
                .contains("self-repair submit t-00001 --run r-test"),
        "{}",
        out.stderr
    );
}

/// `finalize` mid-triage did not name `--partial`; `runs` printed rows with no header.
#[test]
fn finalize_mid_triage_names_partial_and_runs_has_a_header() {
    let project = dispatched(3);
    let out = project.cmd(&["finalize"]).run().code(ExitStatus::Usage);
    assert!(
        out.stderr
            .contains("self-repair finalize --partial --run r-test"),
        "{}",
        out.stderr
    );
    let runs = project.cmd(&["runs"]).run().success().stdout;
    assert!(
        runs.starts_with("  run     kind    status  phase   progress") && runs.contains("r-test"),
        "{runs}"
    );
}

/// `finalize --partial` said "`self-repair resume` continues it" of every run, though `resume`
/// answers "nothing to resume" on an active one: it names what moves the run on, as `status`.
#[test]
fn finalize_partial_names_what_continues_the_run_not_always_resume() {
    let project = dispatched(3);
    let active = project
        .cmd(&["finalize", "--partial"])
        .run()
        .success()
        .stdout;
    assert!(
        active.contains("The run is unchanged; next: the Stop hook dispatches the next agents")
            && !active.contains("`self-repair resume`"),
        "{active}"
    );
    let report = project.read(".self-repair/runs/r-test/report.md");
    assert!(
        report.contains("next: the Stop hook dispatches")
            && !report.contains("`self-repair resume`"),
        "{report}"
    );
    let resume = project.cmd(&["resume"]).run().success().stdout;
    assert!(resume.contains("nothing to resume"), "{resume}");

    project.cmd(&["pause"]).run().success();
    let paused = project
        .cmd(&["finalize", "--partial"])
        .run()
        .success()
        .stdout;
    assert!(
        paused.contains("next: paused: `self-repair resume` continues"),
        "{paused}"
    );
}
