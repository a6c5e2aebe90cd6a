//! Issue 11, item 5: runs cannot be confused. A new run never silently replaces one in
//! progress, every agent command names its run, and `submit` refuses items its run never
//! dispatched.

use crate::harness::jsonl_findings;
use crate::pipeline::dispatched;
use crate::scripted_agent::ScriptedAgent;
use self_repair_app::ExitStatus;

const VERDICT: &str = r#"{"confidence": 0.9, "verdict":"real","root_cause":"unused import","reason":"the name is never used"}"#;

#[test]
fn start_while_a_run_is_in_progress_is_refused_and_replace_cancels_it_saying_so() {
    let project = dispatched(3);
    project.write("other.jsonl", &jsonl_findings(5));
    let refused = project
        .cmd(&["start", "other.jsonl", "--run-id", "r-b"])
        .run()
        .code(ExitStatus::RunInProgress);
    assert!(
        refused
            .stderr
            .contains("run r-test is still in progress (phase triage, 0 of 3 items done"),
        "{}",
        refused.stderr
    );
    assert!(
        refused
            .stderr
            .contains("`self-repair start other.jsonl --run-id r-b --replace`"),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("`self-repair cancel --run r-test`"));
    assert!(!project.run_dir("r-b").exists(), "nothing created");
    assert_eq!(project.read(".self-repair/active").trim(), "r-test");

    let replaced = project
        .cmd(&["start", "other.jsonl", "--run-id", "r-b", "--replace"])
        .run()
        .success();
    assert!(
        replaced
            .stdout
            .starts_with("replaced run r-test (phase triage"),
        "{}",
        replaced.stdout
    );
    assert_eq!(project.read(".self-repair/active").trim(), "r-b");
    let runs = project.cmd(&["runs"]).run().success().stdout;
    assert!(runs.contains("  r-test  triage  cancelled"), "{runs}");
    assert!(runs.contains("* r-b     triage  active"), "{runs}");
    // A finished run is replaced without a word.
    project.cmd(&["cancel"]).run().success();
    project
        .cmd(&["start", "other.jsonl", "--run-id", "r-c"])
        .run()
        .success();
}

#[test]
fn check_while_a_triage_run_is_in_progress_is_refused_with_the_replace_command() {
    let project = dispatched(3);
    let refused = project
        .cmd(&["check", "--run-id", "c1", "--", "true"])
        .run()
        .code(ExitStatus::RunInProgress);
    assert!(
        refused
            .stderr
            .contains("`self-repair check --run-id c1 --replace -- true`"),
        "{}",
        refused.stderr
    );
    assert!(!project.run_dir("c1").exists());
}

#[test]
fn a_late_submit_of_the_replaced_runs_agent_lands_on_its_own_run_not_on_the_new_runs_item() {
    let project = dispatched(3);
    project.write("other.jsonl", &jsonl_findings(5));
    project
        .cmd(&["start", "other.jsonl", "--run-id", "r-b", "--replace"])
        .run()
        .success();
    // Run A's agent, qualified with its run as its prompt tells it: recorded on A.
    project.write(".v", VERDICT);
    project
        .cmd(&["submit", "t-00002", "--run", "r-test", "--file", ".v"])
        .run()
        .success();
    assert!(
        project
            .run_dir("r-test")
            .join("items/t-00002.json")
            .is_file()
    );
    // An old agent without `--run`: B never dispatched its t-00002, so it is refused (exit 8).
    let refused = project
        .cmd(&["submit", "t-00002", "--file", ".v"])
        .run()
        .code(ExitStatus::NotDispatched);
    assert!(
        refused
            .stderr
            .contains("t-00002 was never dispatched in run r-b"),
        "{}",
        refused.stderr
    );
    assert!(
        refused
            .stderr
            .contains("self-repair submit <ID> --run <RUN>")
    );
    assert!(!project.run_dir("r-b").join("items/t-00002.json").exists());
    let journal = project.run_dir("r-b").join("journal.jsonl");
    assert!(
        !std::fs::read_to_string(journal)
            .unwrap_or_default()
            .contains("t-00002")
    );
}

#[test]
fn dispatch_prompts_and_rendered_tasks_name_the_run() {
    let project = crate::pipeline::started(3);
    let out = project.stop("s1", &[]);
    let answer: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let reason = self_repair_engine::continuation(&answer).unwrap();
    assert!(
        reason.contains(
            r#""description":"triage t-00001","prompt":"self-repair item t-00001 --run r-test""#
        ),
        "{reason}"
    );
    // The prompt works as a command: it prints the task, which names the run in every command.
    let shown = project
        .cmd(&["item", "t-00001", "--run", "r-test"])
        .run()
        .success()
        .stdout;
    assert!(
        shown.contains("self-repair submit t-00001 --run r-test <<'SELF_REPAIR_EOF'"),
        "{shown}"
    );
    assert!(
        shown.contains("`self-repair show t-00001 --run r-test`"),
        "{shown}"
    );
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    assert_eq!(
        agent.show("t-00001")["item"],
        "t-00001",
        "without --run: the active run"
    );
}
