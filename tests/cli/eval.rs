//! `eval` through the binary (issue 34). Known answer: a run on a shipped labelled corpus
//! (tests/fixtures/eval), driven to its end through the real Stop hook, `show` and `submit` by
//! a scripted model whose every look errs at a set rate per tier, must be scored exactly as
//! that rate implies, computed here from the labels and the plan alone. The rows of
//! reference/quality.md are generated here. Bad inputs are refused with their exit code.

use std::path::Path;

use self_repair_app::ExitStatus;
use serde_json::{Value, json};

use crate::harness::{TestProject, filters};
use crate::scripted_agent::{ScriptedAgent, dispatch_reason, launched};

/// The error plan of issue 34: each tier errs on 1 in `n` of each label's findings, in the
/// labels file's order (the 1st, the n+1-th, ...); `None`: never.
const PLAN: [(&str, Option<usize>); 3] = [("haiku", Some(4)), ("sonnet", Some(10)), ("opus", None)];

/// The plan as every figure names it.
const PLAN_NAME: &str = "errs haiku 25%, sonnet 10%, opus 0%";

/// A shipped corpus: its folder, the analyzer's output, what it is, and how `start` routes it.
struct Corpus {
    folder: &'static str,
    input: &'static str,
    format: &'static str,
    name: &'static str,
    /// The route every finding takes and the tier its first look runs at (reference/routes.md).
    route: &'static str,
    first_tier: &'static str,
}

const BANDIT: Corpus = Corpus {
    folder: "bandit-bottle-0.13.2",
    input: "bandit-1.9.4.json",
    format: "bandit",
    name: "bandit 1.9.4 on Bottle 0.13.2",
    route: "security",
    first_tier: "sonnet",
};

const VULTURE: Corpus = Corpus {
    folder: "vulture-invoke-2.2.0",
    input: "vulture-2.16.txt",
    format: "vulture",
    name: "vulture 2.16 on Invoke 2.2.0",
    route: "dead-code",
    first_tier: "haiku",
};

/// One line of a corpus' `labels.csv`, and its place among the findings of its label.
#[derive(Debug, Clone)]
struct Label {
    path: String,
    line: u32,
    rule: String,
    real: bool,
    /// Its place among the findings of its label, from 0 (the plan's errors are counted in it).
    rank: usize,
}

impl Label {
    /// Whether an agent of `tier` errs on this finding.
    fn errs_at(&self, tier: &str) -> bool {
        let every = PLAN.iter().find(|(t, _)| *t == tier).and_then(|(_, n)| *n);
        every.is_some_and(|n| self.rank.is_multiple_of(n))
    }
}

fn fixture(corpus: &Corpus) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/eval")
        .join(corpus.folder)
}

/// The labels, read by hand (the first four columns: the notes hold commas, these never do).
fn labels(corpus: &Corpus) -> Vec<Label> {
    let text = std::fs::read_to_string(fixture(corpus).join("labels.csv")).unwrap();
    let (mut reals, mut falses) = (0, 0);
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let cells: Vec<&str> = line.splitn(5, ',').collect();
            let real = cells[3] == "real";
            let counter = if real { &mut reals } else { &mut falses };
            *counter += 1;
            Label {
                path: cells[0].trim_start_matches("./").to_owned(),
                line: cells[1].parse().unwrap(),
                rule: cells[2].to_owned(),
                real,
                rank: *counter - 1,
            }
        })
        .collect()
}

/// Copies a folder's files into the project, recursively.
fn copy_into(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_into(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A scripted model that answers each finding as its label says, except where the plan makes
/// the agent's tier err: then the opposite (`real` for a false finding, `false_positive` for a
/// real one). Every answer has confidence 0.9 (no low-confidence second look).
struct ErringModel<'a> {
    scripted: ScriptedAgent<'a>,
    labels: Vec<Label>,
}

impl ErringModel<'_> {
    fn work(&self, item: &str) {
        let shown = self.scripted.show(item);
        let prompt = shown["prompt"].as_str().unwrap();
        let tier = shown["model"].as_str().unwrap();
        let answer = match shown["kind"].as_str().unwrap() {
            "triage" => self.verdict(prompt, item, tier),
            "verify" => self.verdict(prompt, &item.replacen("vf-", "t-", 1), tier),
            "triage_batch" => {
                let ids = &shown["output_schema"]["properties"]["verdicts"]["items"]["properties"]
                    ["item"]["enum"];
                let verdicts: Vec<Value> = ids
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|id| {
                        let mut verdict = self.verdict(prompt, id.as_str().unwrap(), tier);
                        verdict["item"] = id.clone();
                        verdict
                    })
                    .collect();
                json!({ "verdicts": verdicts })
            }
            other => panic!("{item}: a run until triage launched a {other} agent"),
        };
        self.scripted.submit(item, &answer.to_string()).success();
    }

    /// The finding `id` of a task (its line reads `t-00001 bottle.py:99:5 bandit B403 (note)`)
    /// answered by an agent of `tier`.
    fn verdict(&self, prompt: &str, id: &str, tier: &str) -> Value {
        let words: Vec<&str> = prompt
            .lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("{id} is not in its task"))
            .split_whitespace()
            .collect();
        let mut location = words[1].split(':');
        let (path, line) = (location.next().unwrap(), location.next().unwrap());
        let label = self
            .labels
            .iter()
            .find(|l| l.path == path && l.line.to_string() == line && l.rule == words[3])
            .unwrap_or_else(|| panic!("no label for {}", words[1]));
        let says_real = label.real != label.errs_at(tier);
        let verdict = if says_real { "real" } else { "false_positive" };
        json!({"confidence": 0.9, "verdict": verdict, "root_cause": format!("scripted {}", label.rule),
               "reason": format!("scripted ({tier}): {} at {path}:{line}", label.rule)})
    }
}

/// Drives the run with stops of session `s1` until the hook lets the session end; returns
/// every item launched.
fn drive(project: &TestProject, model: &ErringModel) -> Vec<String> {
    let mut launches = Vec::new();
    for _ in 0..200 {
        let out = project.stop("s1", &[]);
        let Ok(answer) = serde_json::from_str::<Value>(&out.stdout) else {
            break;
        };
        let Some(reason) = dispatch_reason(&answer) else {
            break;
        };
        let (_, ids) = launched(reason);
        for id in &ids {
            model.work(id);
        }
        launches.extend(ids);
    }
    launches
}

/// A project holding the corpus, a run `r-eval` of it until triage, driven to its end.
fn driven_run(corpus: &Corpus) -> (TestProject, Vec<String>) {
    let project = TestProject::new();
    copy_into(&fixture(corpus), project.path());
    // Every finding triaged by its own look (no rule survey answers for a rule).
    project.write(".self-repair/config.json", r#"{"survey_min": 0}"#);
    project
        .cmd(&[
            "start",
            corpus.input,
            "--format",
            corpus.format,
            "--run-id",
            "r-eval",
            "--until",
            "triage",
            "--budget",
            "100",
        ])
        .run()
        .success();
    let model = ErringModel {
        scripted: ScriptedAgent {
            project: &project,
            run: "r-eval".into(),
        },
        labels: labels(corpus),
    };
    let launches = drive(&project, &model);
    assert_eq!(
        crate::harness::run_state(&project, "r-eval")
            .status
            .as_str(),
        "complete"
    );
    (project, launches)
}

/// How a finding ends under the plan, and the tier whose answer stands: the first look at the
/// route's tier; a dismissal on the security route is looked at again by an independent agent
/// at opus (tiers.verify), whose answer stands, and a dismissal it does not share stays real.
fn implied_end(corpus: &Corpus, label: &Label) -> (bool, &'static str) {
    let first_says_real = label.real != label.errs_at(corpus.first_tier);
    if first_says_real || corpus.route != "security" {
        return (first_says_real, corpus.first_tier);
    }
    (label.real != label.errs_at("opus"), "opus")
}

/// The confusion counts a set of (label, kept) pairs makes, as `eval --json` names them.
fn confusion(ends: &[(bool, bool)]) -> Value {
    let count = |real: bool, kept: bool| ends.iter().filter(|e| **e == (real, kept)).count();
    json!({"real_kept": count(true, true), "real_closed": count(true, false), "real_abstained": 0,
           "false_kept": count(false, true), "false_closed": count(false, false), "false_abstained": 0,
           "unsure": 0, "quarantined": 0, "refused": 0, "pending": 0})
}

fn ratio(numerator: usize, denominator: usize) -> Value {
    if denominator == 0 {
        Value::Null
    } else {
        json!(numerator as f64 / denominator as f64)
    }
}

/// `eval --json` on the driven run, checked against what the plan implies; returns it.
fn known_answer(corpus: &Corpus) -> (TestProject, Value) {
    let (project, launches) = driven_run(corpus);
    let model = format!("scripted:{PLAN_NAME}");
    let eval = project
        .cmd(&[
            "eval",
            "r-eval",
            "--labels",
            "labels.csv",
            "--corpus",
            corpus.name,
            "--model",
            &model,
            "--json",
        ])
        .run()
        .success()
        .json();
    let labels = labels(corpus);
    let ends: Vec<(bool, (bool, &str))> = labels
        .iter()
        .map(|l| (l.real, implied_end(corpus, l)))
        .collect();
    let all: Vec<(bool, bool)> = ends.iter().map(|(r, (k, _))| (*r, *k)).collect();
    let row = &eval["all"];
    assert_eq!(row["findings"], json!(labels.len()));
    assert_eq!(row["labelled"], json!(labels.len()));
    assert_eq!(row["confusion"], confusion(&all));
    let c = |real: bool, kept: bool| all.iter().filter(|e| **e == (real, kept)).count();
    let (tp, fn_, fp, tn) = (
        c(true, true),
        c(true, false),
        c(false, true),
        c(false, false),
    );
    assert_eq!(row["precision"], ratio(tp, tp + fp));
    assert_eq!(row["recall"], ratio(tp, tp + fn_));
    assert_eq!(row["unsafe_closure_rate"], ratio(fn_, tp + fn_));
    assert_eq!(row["false_alarm_rate"], ratio(fp, fp + tn));
    assert_eq!(row["strict_score"], ratio(tp + tn, labels.len()));
    for (tier, _) in PLAN {
        let in_tier: Vec<(bool, bool)> = ends
            .iter()
            .filter(|(_, (_, t))| *t == tier)
            .map(|(r, (k, _))| (*r, *k))
            .collect();
        let rows = eval["tiers"].as_array().unwrap();
        let got = rows.iter().find(|r| r["name"] == tier);
        match got {
            None => assert!(in_tier.is_empty(), "no row for tier {tier}: {eval:#}"),
            Some(got) => assert_eq!(got["confusion"], confusion(&in_tier), "tier {tier}"),
        }
    }
    // Agents: one per launch; a second look for every first-look dismissal on the security route
    // (alone, or as a member of a batch of second looks: each is a `vf-` item).
    assert_eq!(row["spend"]["agents"], json!(launches.len()));
    let dismissed_first = labels
        .iter()
        .filter(|l| l.real == l.errs_at(corpus.first_tier))
        .count();
    let state = crate::harness::run_state(&project, "r-eval");
    let second_looks = state
        .items
        .iter()
        .filter(|i| i.kind == self_repair_engine::ItemKind::Verify)
        .inspect(|v| assert_eq!(v.status.as_str(), "done", "{}", v.id))
        .count();
    let implied_second_looks = if corpus.route == "security" {
        dismissed_first
    } else {
        0
    };
    assert_eq!(second_looks, implied_second_looks);
    assert_eq!(eval["routes"][0]["name"], corpus.route);
    (project, eval)
}

/// A ratio as reference/quality.md shows it.
fn percent(value: &Value) -> String {
    value
        .as_f64()
        .map_or_else(|| "-".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

/// The row of reference/quality.md for an `eval --json`.
fn quality_row(eval: &Value) -> String {
    let all = &eval["all"];
    let rate = |count: &str, rate: &str| format!("{} ({})", all[count], percent(&all[rate]));
    format!(
        "| {} | scripted ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2} |",
        eval["corpus"].as_str().unwrap(),
        eval["model"]["name"].as_str().unwrap(),
        all["findings"],
        all["labelled"],
        percent(&all["precision"]),
        percent(&all["recall"]),
        rate("unsafe_closures", "unsafe_closure_rate"),
        rate("false_alarms", "false_alarm_rate"),
        all["abstentions"],
        percent(&all["strict_score"]),
        all["spend"]["agents"],
        all["per_finding"]["agents"].as_f64().unwrap(),
    )
}

/// reference/quality.md holds the row this run makes.
fn assert_quality_row(eval: &Value) {
    let row = quality_row(eval);
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("reference/quality.md"))
            .unwrap();
    assert!(
        doc.lines().any(|l| l == row),
        "reference/quality.md lacks this row (paste it in its table):\n{row}"
    );
}

#[test]
fn eval_on_the_security_corpus_reports_exactly_what_the_error_rates_imply() {
    let (project, eval) = known_answer(&BANDIT);
    assert_quality_row(&eval);
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let text = project
        .cmd(&[
            "eval",
            "--labels",
            "labels.csv",
            "--corpus",
            BANDIT.name,
            "--model",
            &format!("scripted:{PLAN_NAME}"),
        ])
        .run()
        .success();
    insta::assert_snapshot!("eval_text_bandit_scripted", text.stdout);
    let run = project.run_dir("r-eval");
    assert!(
        project
            .read(".self-repair/runs/r-eval/eval.md")
            .contains("](eval.svg)")
    );
    assert!(
        std::fs::read_to_string(run.join("eval.svg"))
            .unwrap()
            .starts_with("<svg")
    );
}

#[test]
fn eval_on_the_dead_code_corpus_reports_exactly_what_the_error_rates_imply() {
    let (_project, eval) = known_answer(&VULTURE);
    assert_quality_row(&eval);
}

#[test]
fn eval_refuses_labels_that_match_nothing_a_missing_file_and_an_unknown_model() {
    let project = TestProject::new();
    copy_into(&fixture(&BANDIT), project.path());
    project
        .cmd(&[
            "start",
            BANDIT.input,
            "--run-id",
            "r-eval",
            "--budget",
            "100",
        ])
        .run()
        .success();
    project.write(
        "other.csv",
        "path,line,rule,label\nsrc/app.py,4,B602,real\n",
    );
    let eval = |args: &[&str]| {
        let mut all = vec!["eval", "--model", "scripted"];
        all.extend(args);
        project.cmd(&all).run()
    };
    let refused = eval(&["--labels", "other.csv"]).code(ExitStatus::Usage);
    assert!(
        refused
            .stderr
            .contains("none of its labels (1) matches any of the run's 15 findings"),
        "{}",
        refused.stderr
    );
    let missing = eval(&["--labels", "nope.csv"]).code(ExitStatus::Usage);
    assert!(
        missing
            .stderr
            .contains("cannot read the labels file nope.csv")
    );
    let no_run = eval(&["r-none", "--labels", "labels.csv"]).code(ExitStatus::NotFound);
    assert!(no_run.stderr.contains("r-none"), "{}", no_run.stderr);
    let unknown = project
        .cmd(&["eval", "--labels", "labels.csv"])
        .run()
        .code(ExitStatus::Usage);
    assert!(unknown.stderr.contains("pass `--model scripted:PLAN`"));
    // A run nothing has answered yet: every labelled finding pending, said so.
    let partial = eval(&["--labels", "labels.csv"]).success();
    assert!(
        partial
            .stdout
            .contains("15 labelled findings have no verdict yet"),
        "{}",
        partial.stdout
    );
}

/// The wall time is the run's start to the journal's last event: a run paused 754 s after it
/// started says 12m 34s, in the JSON and the text (with the last event's time read as 0, the
/// wall time was 0).
#[test]
fn eval_s_wall_time_runs_from_the_start_to_the_journal_s_last_event() {
    let project = TestProject::new();
    copy_into(&fixture(&BANDIT), project.path());
    let start = [
        "start",
        BANDIT.input,
        "--run-id",
        "r-eval",
        "--budget",
        "100",
    ];
    project.cmd(&start).run().success();
    let later = (crate::harness::NOW + 754).to_string();
    project
        .cmd(&["pause"])
        .env("SELF_REPAIR_NOW", &later)
        .run()
        .success();
    let eval = ["eval", "--model", "scripted", "--labels", "labels.csv"];
    let json = project
        .cmd(&[&eval[..], &["--json"]].concat())
        .run()
        .success()
        .json();
    assert_eq!(json["wall_seconds"], 754, "{json}");
    let text = project.cmd(&eval).run().success().stdout;
    assert!(text.contains("wall time 12m 34s\n"), "{text}");
}
