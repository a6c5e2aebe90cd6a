//! Which label holds for which finding, and the refusal of labels that match nothing.

use std::collections::BTreeMap;

use crate::{Ended, EvalReport, FindingResult, LabelSet, ModelSource, RunOutcome, Spend};

fn finding(
    fingerprint: &str,
    path: &str,
    line: u32,
    rule: &str,
    cwe: Option<u32>,
) -> FindingResult {
    FindingResult {
        fingerprint: fingerprint.to_owned(),
        path: path.to_owned(),
        line: Some(line),
        rule: rule.to_owned(),
        cwe,
        route: Some("security".to_owned()),
        tier: Some("sonnet".to_owned()),
        ended: Ended::Real,
        items: Vec::new(),
        checked: None,
    }
}

fn run(findings: Vec<FindingResult>) -> RunOutcome {
    RunOutcome {
        run: "r1".to_owned(),
        corpus: "test".to_owned(),
        model: ModelSource::Scripted {
            name: "test".to_owned(),
        },
        findings,
        items: BTreeMap::new(),
        overhead: Spend::default(),
        priced: false,
        wall_seconds: None,
        protocol: None,
    }
}

/// Each finding's label as the report counts it: `Some(real)` or `None`.
fn truths(run: &RunOutcome, labels: &str) -> Vec<Option<bool>> {
    let set = LabelSet::parse("labels", labels).unwrap();
    let matching = crate::label_match::match_labels(&set, run).unwrap();
    matching.truth
}

const OWASP: &str = "# test name, category, real vulnerability, cwe
BenchmarkTest00001,pathtraver,true,22
BenchmarkTest00002,cmdi,false,78
";

#[test]
fn a_case_name_matches_its_file_and_cwe_only() {
    let dir = "src/main/java/org/owasp/benchmark/testcode";
    let run = run(vec![
        finding(
            "a",
            &format!("{dir}/BenchmarkTest00001.java"),
            5,
            "x",
            Some(22),
        ),
        finding(
            "b",
            &format!("{dir}/BenchmarkTest000010.java"),
            5,
            "x",
            Some(22),
        ),
        finding(
            "c",
            &format!("{dir}/BenchmarkTest00001.java"),
            9,
            "x",
            Some(89),
        ),
        finding("d", &format!("{dir}/BenchmarkTest00002.java"), 5, "x", None),
        finding("e", "BenchmarkTest00002/helper.py", 1, "x", Some(78)),
    ]);
    assert_eq!(
        truths(&run, OWASP),
        [Some(true), None, None, Some(false), Some(false)]
    );
}

/// A case name holding a `.` or a `/` (scanned, not looked up by word) matches a path that
/// holds it between non-word characters, and no other; so does a name of word characters.
#[test]
fn a_case_name_with_a_dot_or_a_slash_matches_at_word_boundaries() {
    let run = run(vec![
        finding("a", "juliet/CWE89_Case.01/Main.java", 5, "x", None),
        finding("b", "juliet/CWE89_Case.010/Main.java", 5, "x", None),
        finding("c", "suite/cmdi/Test7.java", 5, "x", None),
        finding("d", "suite/xcmdi/Test7.java", 5, "x", None),
        // `_` and `-` are word characters: `Test01` is not a word of these two.
        finding("e", "suite/my_Test01.java", 5, "x", None),
        finding("f", "suite/my-Test01.java", 5, "x", None),
        finding("g", "suite/Test01.java", 5, "x", None),
    ]);
    let labels = "# test name, category, real vulnerability, cwe\n\
                  CWE89_Case.01,sqli,true,89\n\
                  cmdi/Test7,cmdi,false,78\n\
                  Test01,xss,true,79\n";
    assert_eq!(
        truths(&run, labels),
        [Some(true), None, Some(false), None, None, None, Some(true)]
    );
}

#[test]
fn a_path_matches_from_another_root_at_a_slash() {
    let run = run(vec![
        finding("a", "src/pkg/a.py", 3, "B602", None),
        finding("b", "src/pkg/xa.py", 3, "B602", None),
        finding("c", "src/pkg/a.py", 4, "B602", None),
        finding("d", "src/pkg/a.py", 3, "B101", None),
    ]);
    let labels = "path,line,rule,label\n/tmp/corpus/proj-1.0/src/pkg/a.py,3,b602,real\n";
    assert_eq!(truths(&run, labels), [Some(true), None, None, None]);
    let labels = "path,label\n.\\pkg\\a.py,false\n";
    assert_eq!(
        truths(&run, labels),
        [Some(false), None, Some(false), Some(false)]
    );
}

#[test]
fn the_most_specific_label_wins_and_equal_ones_that_disagree_conflict() {
    let run = run(vec![
        finding("fp1", "src/a.py", 3, "B602", None),
        finding("fp2", "src/a.py", 7, "B602", None),
    ]);
    let labels = "{\"fingerprint\":\"fp1\",\"label\":\"false\"}\n\
                  {\"path\":\"src/a.py\",\"label\":\"real\"}\n\
                  {\"path\":\"a.py\",\"line\":7,\"label\":\"false\"}\n";
    assert_eq!(truths(&run, labels), [Some(false), None]);
    let set = LabelSet::parse("labels", labels).unwrap();
    let report = EvalReport::of(&run, &set).unwrap();
    assert_eq!(report.labels.conflicts, 1);
    assert_eq!(report.labels.matched_labels, 3);
}

fn refusal(run: &RunOutcome, labels: &str) -> String {
    let set = LabelSet::parse("labels.csv", labels).unwrap();
    match EvalReport::of(run, &set) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("labels matched"),
    }
}

#[test]
fn refuses_labels_that_match_nothing_saying_what_each_side_looks_like() {
    let run = run(vec![
        finding("3f2a", "flask/app.py", 3, "B602", None),
        finding("9c1d", "flask/cli.py", 8, "B404", None),
    ]);
    insta::assert_snapshot!(
        "no_match_paths",
        refusal(
            &run,
            "path,line,rule,label\nsrc/main.py,3,B602,real\nlib/x.py,1,B101,false\n"
        )
    );
    insta::assert_snapshot!(
        "no_match_near_miss",
        refusal(&run, "path,line,rule,label\nflask/app.py,4,B602,real\n")
    );
    insta::assert_snapshot!(
        "no_match_fingerprints",
        refusal(&run, "fingerprint,label\nsha1:aa,real\n")
    );
    insta::assert_snapshot!("no_match_cases", refusal(&run, OWASP));
}

/// Issue 48: the findings a second look checked get rows of their own, by what their first
/// look said, so the second looks of reals show apart from those of dismissals; a run without
/// any has none.
#[test]
fn the_second_looks_of_reals_are_scored_apart_from_those_of_dismissals() {
    let dir = "testcode";
    let mut findings: Vec<FindingResult> = (1..=4)
        .map(|n| {
            finding(
                &format!("f{n}"),
                &format!("{dir}/BenchmarkTest0000{n}.py"),
                5,
                "x",
                Some(78),
            )
        })
        .collect();
    // A real one the second look kept; a false one it disputed (unsure); a false one a second
    // look confirmed dismissed; one never checked.
    findings[0].checked = Some(crate::Checked::Real);
    findings[1].checked = Some(crate::Checked::Real);
    findings[1].ended = Ended::Unsure;
    findings[2].checked = Some(crate::Checked::Dismissal);
    findings[2].ended = Ended::FalsePositive;
    let labels = "# test name, category, real vulnerability, cwe
BenchmarkTest00001,cmdi,true,78
BenchmarkTest00002,cmdi,false,78
BenchmarkTest00003,cmdi,false,78
BenchmarkTest00004,cmdi,false,78
";
    let set = LabelSet::parse("labels.csv", labels).unwrap();
    let report = EvalReport::of(&run(findings.clone()), &set).unwrap();
    let names: Vec<&str> = report.checked.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["real", "dismissal"]);
    let real = &report.checked[0];
    assert_eq!(
        (real.findings, real.false_alarms, real.abstentions),
        (2, 0, 1)
    );
    assert_eq!(report.all.false_alarms, 1, "the unchecked false one");
    assert!(report.render_text().contains("\nchecked real "));
    for f in &mut findings {
        f.checked = None;
    }
    let plain = EvalReport::of(&run(findings), &set).unwrap();
    assert!(plain.checked.is_empty());
    assert!(!serde_json::to_string(&plain).unwrap().contains("checked"));
}

/// A case name found in a path, but with another CWE, is counted as a near miss.
#[test]
fn a_case_name_found_with_another_cwe_is_a_near_miss() {
    let run = run(vec![
        finding("a", "testcode/BenchmarkTest00001.java", 5, "x", Some(89)),
        finding("b", "testcode/BenchmarkTest00003.java", 5, "x", Some(78)),
    ]);
    let why = refusal(&run, OWASP);
    assert!(
        why.contains("(1 case names appear in finding paths but not with their CWE or rule)"),
        "{why}"
    );
}
