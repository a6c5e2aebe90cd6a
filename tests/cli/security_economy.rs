//! Security findings at a lint corpus's price (issue 34, item 2), measured from outside:
//! `scripts/bench/security_eval.py` drives a run on the shipped OWASP Benchmark for Python
//! corpus (Bandit 1.9.4, 568 findings, labels from the benchmark's expected results) to its end
//! through this binary's Stop hook, `show` and `submit`, with a scripted model that errs haiku
//! 25 %, sonnet 10 %, opus never (the same finding each time it asks the same tier), and scores
//! it with `eval --json`. The bounds are the issue's; the figures before the change were 655
//! agents per 1,000 findings, 530 of them on the top tier (reference/quality.md).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn measured(mode: &[&str]) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("scripts/bench/security_eval.py"))
        .arg(crate::harness::binary())
        .arg(root.join("tests/fixtures/eval/owasp-python-0.1"))
        .args(["bandit-1.9.4.json", "expectedresults-0.1.csv"])
        .args(mode)
        .output()
        .expect("python3 runs (CI installs it; scripts/install-tools.sh needs it too)");
    assert!(
        out.status.success(),
        "security_eval.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("security_eval.py prints JSON")
}

#[test]
fn a_568_finding_security_corpus_costs_a_lint_corpus_agents_and_closes_no_real_finding() {
    let run = measured(&[]);
    assert_eq!(run["status"], "complete", "{run}");
    assert_eq!(run["real_closed"], 0, "{run}");
    assert_eq!(run["real_decided_in_known"], 0, "{run}");
    assert_eq!(run["findings"], 568);
    let per_1000 = run["agents_per_1000"].as_u64().unwrap();
    let top = run["top_tier_per_1000"].as_u64().unwrap();
    assert!(
        per_1000 <= 200,
        "agents per 1,000 findings: {per_1000} (at most 200)"
    );
    assert!(
        top <= 50,
        "top-tier agents per 1,000 findings: {top} (at most 50)"
    );
    let eval = &run["eval"]["confusion"];
    let real = eval["real_kept"].as_u64().unwrap() + eval["real_closed"].as_u64().unwrap();
    let unsafe_closures = eval["real_closed"].as_u64().unwrap();
    assert_eq!(real, 134, "labelled real findings: {eval}");
    assert!(
        unsafe_closures * 50 <= real,
        "unsafe closures {unsafe_closures} of {real} real (at most 2 %)"
    );
    // Before the change: 12 of the 71 labelled false kept real (the first look's errors).
    assert!(
        eval["false_kept"].as_u64().unwrap() <= 12,
        "false alarms worse than before: {eval}"
    );
    // The estimate `start` gave is within x1.5 of the agents launched.
    let likely = run["estimate"]["agents_likely"].as_f64().unwrap();
    let agents = run["agents"].as_f64().unwrap();
    assert!(
        likely / agents <= 1.5 && agents / likely <= 1.5,
        "estimate {likely} against {agents} launched"
    );
}

/// Issue 40: a first look that answers the schema's other answers on real findings (a third
/// `duplicate` of another real one, cycles included; a third `unsure` with `reroute:
/// "generic"`, its re-routed look fooled once; a third `unsure`), every second look honest.
/// Before the fix (7565c12) it closed 45 of the 134 labelled real findings (176 of the
/// findings it treats as real, unlabelled ones included) and stored all 176 in known.json as
/// decided (reference/quality.md).
#[test]
fn an_adversarial_first_look_closes_no_real_security_finding_and_decides_none_in_known_json() {
    let run = measured(&["--adversarial"]);
    assert_eq!(run["status"], "complete", "{run}");
    assert_eq!(run["real_closed"], 0, "{run}");
    assert_eq!(run["real_decided_in_known"], 0, "{run}");
    assert_eq!(run["eval"]["confusion"]["real_closed"], 0, "{run}");
}

/// Issue 48: with the model calibrated (a wrong answer says confidence 0.6 seven times in ten,
/// a right one once in ten; seed 48), a `real` below `verify_below` gets a blind second look.
/// `security_eval.py` exits 1 unless the run ends exactly as the rules imply for the model's
/// answers; the goals are the issue's. Before the change (2af635c): 12 of 71 false alarms, the
/// first look's errors, whatever the confidence said (reference/quality.md).
#[test]
fn a_calibrated_model_s_unsure_reals_get_second_looks_false_alarms_at_most_5_percent() {
    let run = measured(&["--calibrated"]);
    assert_eq!(run["status"], "complete", "{run}");
    assert_eq!(run["implied"], run["measured"], "{run}");
    let eval = &run["eval"]["confusion"];
    let count = |k: &str| eval[k].as_u64().unwrap();
    let labelled_false = count("false_kept") + count("false_closed") + count("false_abstained");
    assert_eq!(labelled_false, 71, "{eval}");
    assert!(
        count("false_kept") * 20 <= labelled_false,
        "false alarms above 5 %: {eval}"
    );
    assert_eq!(count("real_closed"), 0, "{eval}");
    assert!(run["measured"]["second_looks_of_reals"].as_u64().unwrap() > 0);
    assert!(run["agents_per_1000"].as_u64().unwrap() <= 200, "{run}");
    assert!(run["top_tier_per_1000"].as_u64().unwrap() <= 50, "{run}");
}
