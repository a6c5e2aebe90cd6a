//! Issue 15: the Stop hook records what each item cost, reading only what the session's
//! transcripts grew by; the config's `prices` override the built-in table; `status --json` and
//! `report.json` carry it.

use serde_json::Value;

use crate::harness::{TestProject, jsonl_findings};

fn row(model: &str, id: &str, input: u64, output: u64) -> String {
    serde_json::json!({"type": "assistant", "requestId": format!("req-{id}"),
        "message": {"id": id, "model": model, "stop_reason": "end_turn",
            "usage": {"input_tokens": input, "output_tokens": output,
                "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}})
    .to_string()
        + "\n"
}

fn first(text: &str) -> String {
    serde_json::json!({"type": "user", "message": {"role": "user", "content": text}}).to_string()
        + "\n"
}

fn append(path: &std::path::Path, text: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

fn stop(project: &TestProject, transcript: &std::path::Path) -> String {
    let input = serde_json::json!({"session_id": "s1", "hook_event_name": "Stop",
        "stop_hook_active": true, "cwd": project.path(), "transcript_path": transcript});
    project
        .cmd(&["hook", "stop"])
        .stdin(input.to_string())
        .run()
        .success()
        .stdout
}

fn records(project: &TestProject) -> Vec<Value> {
    std::fs::read_to_string(project.run_dir("r-test").join("cost.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_hook_records_each_items_cost_reading_only_what_the_transcripts_grew_by() {
    let project = TestProject::new();
    // A model the built-in table does not know, priced by the config.
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "fan_out": 8,
            "prices": {"claude-fable-5": {"input": 1.0, "output": 2.0}}}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(3));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let sessions = project.path().join("claude-projects");
    let main = sessions.join("s1.jsonl");
    let agents = sessions.join("s1/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(&main, row("claude-opus-5-5", "m1", 1_000_000, 0)).unwrap();
    let out = stop(&project, &main);
    assert!(out.contains("\"additionalContext\""), "{out}");
    assert_eq!(
        records(&project).len(),
        1,
        "the main session's first response"
    );

    // The agents of the dispatch write their transcripts; the next stop reads them.
    std::fs::write(
        agents.join("agent-a1.jsonl"),
        first("self-repair item t-00001 --run r-test")
            + &row("claude-fable-5-2", "a1", 1_000_000, 0),
    )
    .unwrap();
    std::fs::write(
        agents.join("agent-a2.jsonl"),
        first("self-repair item t-00002 --run r-test") + &row("claude-mystery-1", "a2", 7, 3),
    )
    .unwrap();
    stop(&project, &main);
    let after_two = records(&project);
    assert_eq!(after_two.len(), 3, "{after_two:?}");
    // t-00001's agent grows: only its new response is read and recorded.
    append(
        &agents.join("agent-a1.jsonl"),
        &row("claude-fable-5-2", "a3", 0, 1_000_000),
    );
    stop(&project, &main);
    let all = records(&project);
    assert_eq!(all.len(), 4, "{all:?}");
    assert_eq!(all[3]["item"], "t-00001");
    assert_eq!(all[3]["usage"]["output_tokens"], 1_000_000);
    assert_eq!(all[3]["usage"]["input_tokens"], 0);
    // A stop where nothing grew records nothing.
    stop(&project, &main);
    assert_eq!(records(&project).len(), 4);

    let status = project.cmd(&["status", "--json"]).run().success().json();
    let cost = &status["cost"];
    let total = cost["total_usd"].as_f64().unwrap();
    assert!((total - (4.0 + 1.0 + 2.0)).abs() < 1e-9, "{cost}");
    let triage = cost["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["part"] == "triage")
        .expect("a triage line");
    assert_eq!(triage["agents"], 2);
    assert_eq!(
        triage["unpriced_tokens"], 10,
        "the unknown model: counted, not priced"
    );
    assert!(
        cost["prices_version"]
            .as_str()
            .unwrap()
            .ends_with("+ config prices")
    );
    assert!(
        cost.get("items").is_none(),
        "status leaves the per-item lines out"
    );
    let text = project.cmd(&["status"]).run().success().stdout;
    assert!(text.contains("cost so far: $7.0000"), "{text}");

    // Once cancelled, two more stops are read (the session's reply is written after the stop
    // that follows it), and what the session does after is not the run's, for the hook or
    // `status`.
    project.cmd(&["cancel"]).run().success();
    stop(&project, &main);
    append(&main, &row("claude-opus-5-5", "m8", 0, 0));
    stop(&project, &main);
    assert_eq!(records(&project).len(), 5, "the last read");
    append(&main, &row("claude-opus-5-5", "m9", 1_000_000, 0));
    stop(&project, &main);
    assert_eq!(records(&project).len(), 5, "nothing after it");
    append(&main, &row("claude-opus-5-5", "m10", 1_000_000, 0));
    let text = project.cmd(&["status"]).run().success().stdout;
    assert!(text.contains("cost so far: $7.0000"), "{text}");
}

#[test]
fn a_price_that_is_not_a_price_is_a_config_error_that_shows_the_shape() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"prices": {"claude-fable-5": {"in": 1.0}}}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(2));
    let out = project.cmd(&["start", "findings.jsonl"]).run();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("prices:"), "{}", out.stderr);
    assert!(
        out.stderr.contains("USD per million tokens"),
        "{}",
        out.stderr
    );
}

/// Issue 15, budgets: `start --budget` caps the run; once what the transcripts show spent plus
/// the next agent would pass it, the hook dispatches nothing, the session stops with what was
/// spent and how to go on, `status` says `paused` at the budget, and `resume --budget` lets the
/// run continue.
#[test]
fn the_hook_dispatches_nothing_past_the_budget_and_resume_budget_goes_on() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "fan_out": 4}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(8));
    project
        .cmd(&[
            "start",
            "findings.jsonl",
            "--run-id",
            "r-test",
            "--budget",
            "0.5",
        ])
        .run()
        .success();
    let sessions = project.path().join("claude-projects");
    let main = sessions.join("s1.jsonl");
    let agents = sessions.join("s1/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(&main, "").unwrap();
    // Nothing spent; a haiku agent is estimated at $0.005: the whole first wave goes out.
    let first = stop(&project, &main);
    let wave: Vec<String> = (1..=4).map(|i| format!("t-{i:05}")).collect();
    for item in &wave {
        assert!(first.contains(item.as_str()), "{first}");
    }
    // Each agent cost $0.20 (2M input tokens on haiku-5): $0.80 spent, past the budget.
    project.write(
        ".v",
        r#"{"confidence": 0.9, "verdict":"real","root_cause":"unused import","reason":"the import is never used anywhere"}"#,
    );
    for (n, item) in wave.iter().enumerate() {
        std::fs::write(
            agents.join(format!("agent-a{n}.jsonl")),
            first_message(item) + &row("claude-haiku-5-5", &format!("a{n}"), 2_000_000, 0),
        )
        .unwrap();
        project
            .cmd(&["submit", item, "--run", "r-test", "--file", ".v"])
            .run()
            .success();
    }
    let paused = stop(&project, &main);
    let answer: Value = serde_json::from_str(&paused).unwrap();
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("budget is reached ($0.80 of $0.50 spent)"),
        "{paused}"
    );
    assert!(message.contains("Left undone: 4 items"), "{paused}");
    // The suggested budget covers what is left at this run's average ($0.20 an agent).
    assert!(message.contains("about $0.80 more"), "{paused}");
    assert!(
        message.contains("`self-repair resume --budget 2`"),
        "{paused}"
    );
    assert!(
        !paused.contains("t-00005"),
        "nothing dispatched past the budget: {paused}"
    );
    let status = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(status["status"], "paused");
    assert_eq!(status["pause"]["by"], "budget");
    assert_eq!(
        stop(&project, &main),
        "",
        "paused: later stops are allowed silently"
    );
    let text = project.cmd(&["status"]).run().success().stdout;
    // Spent, then spent plus the likely cost of what is left, the phases to come and the main
    // session included (reference/cost.md, "Progress").
    assert!(
        text.contains(
            "money: spent $0.80, likely $2.71 in all (the main session included), budget $0.50"
        ),
        "{text}"
    );
    assert!(text.contains("likely 15 agents left"), "{text}");

    // What is done so far is written on request; the run stays paused.
    let partial = project
        .cmd(&["finalize", "--partial"])
        .run()
        .success()
        .stdout;
    assert!(
        partial.contains("partial results written: 0 tasks")
            && partial.contains("`self-repair resume --budget USD` with more continues"),
        "{partial}"
    );
    let report = std::fs::read_to_string(project.run_dir("r-test").join("report.md")).unwrap();
    assert!(
        report.contains("is paused in phase triage: a partial report (4 of 8 findings triaged"),
        "{report}"
    );
    assert!(report.contains("## Cost"), "{report}");
    let json = std::fs::read_to_string(project.run_dir("r-test").join("report.json")).unwrap();
    let json: Value = serde_json::from_str(&json).unwrap();
    assert!(
        (json["spend"]["total_usd"].as_f64().unwrap() - 0.8).abs() < 1e-9,
        "{json}"
    );
    let status = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(
        status["status"], "paused",
        "finalize --partial leaves the run as it is"
    );

    let resumed = project
        .cmd(&["resume", "--budget", "5"])
        .run()
        .success()
        .stdout;
    assert!(resumed.contains("may spend $5.00 in all"), "{resumed}");
    let next = stop(&project, &main);
    assert!(
        next.contains("t-00005") && next.contains("\"additionalContext\""),
        "{next}"
    );
    let refused = project.cmd(&["resume", "--budget", "-3"]).run();
    assert_eq!(refused.code, 2, "{}", refused.stderr);
}

fn first_message(item: &str) -> String {
    first(&format!("self-repair item {item} --run r-test"))
}

/// Issue 15, preflight: `start --dry-run` prints the agents per phase (exact for triage, a
/// range after) and a token and dollar range, and creates nothing; once the project has a run
/// whose agents finished, its averages price the estimate.
#[test]
fn start_dry_run_prints_the_estimate_and_creates_nothing() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "fan_out": 4}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(3));
    let out = project
        .cmd(&["start", "findings.jsonl", "--dry-run", "--budget", "2"])
        .run()
        .success()
        .stdout;
    assert!(
        out.contains("dry run, nothing created: run (new) would be: 3 findings"),
        "{out}"
    );
    // Three first answers, and up to three second agents (a dismissal or an unsure one):
    // likely none of them.
    assert!(out.contains("triage       3 agents (3-6)"), "{out}");
    assert!(out.contains("plan         "), "{out}");
    assert!(out.contains("estimate: likely "), "{out}");
    assert!(out.contains("defaults per model tier"), "{out}");
    assert!(out.contains("budget $2.00"), "{out}");
    assert!(
        !project.path().join(".self-repair/runs").exists(),
        "a dry run creates no run"
    );
    assert!(!project.path().join(".self-repair/active").exists());

    // An earlier run of the project: two triage agents that cost $1.00 in all.
    project.write(
        ".self-repair/runs/r-old/cost.json",
        &serde_json::json!({"schema_version": 1,
            "prices": {"version": "2026-11-23", "models": []},
            "finished": {"triage": {"agents": 2, "usd": 1.0,
                "usage": {"input_tokens": 60000, "output_tokens": 0}}}})
        .to_string(),
    );
    let json = project
        .cmd(&["start", "findings.jsonl", "--dry-run", "--json"])
        .run()
        .success()
        .json();
    let estimate = &json["estimate"];
    assert_eq!(
        estimate["priced_by"], "earlier runs and defaults",
        "{estimate}"
    );
    // Three triage agents at the earlier runs' $0.50, and the main session by the defaults
    // (that run's ledger has none): $0.80 a run and $0.033 an agent launched in the foreground.
    assert!(
        (estimate["usd_min"].as_f64().unwrap() - (1.5 + 0.8 + 3.0 * 0.033)).abs() < 1e-9,
        "{estimate}"
    );
    assert_eq!(estimate["tokens_min"], 90_000, "{estimate}");
    assert_eq!(json["dry_run"], true);
    assert!(!project.path().join(".self-repair/active").exists());
}

/// Issue 15, run over run: the figure the project's learning is judged by. A second `start` on
/// the same findings, after the first run finished and its proposed rules were accepted,
/// launches at least 50% fewer agents, and `runs --cost` shows it.
#[test]
fn a_second_run_on_the_same_findings_launches_at_least_half_fewer_agents() {
    use crate::pipeline::drive;
    use crate::scripted_agent::ScriptedAgent;

    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "fan_out": 8}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(40));
    for (n, run) in ["r-one", "r-two"].into_iter().enumerate() {
        if n == 1 {
            // The first run's proposals, accepted by the user.
            let rules = project
                .cmd(&["rules", "list", "--json"])
                .run()
                .success()
                .json();
            for rule in rules.as_array().into_iter().flatten() {
                if rule["status"] == "proposed" {
                    let id = rule["id"].as_str().unwrap();
                    project.cmd(&["rules", "accept", id]).run().success();
                }
            }
        }
        project
            .cmd(&["start", "findings.jsonl", "--run-id", run])
            .run()
            .success();
        let agent = ScriptedAgent {
            project: &project,
            run: run.into(),
        };
        // Each run is started in its own session (the skill's `start`), which drives it.
        project
            .cmd(&["adopt", "--session", &format!("session-{n}"), "--run", run])
            .run()
            .success();
        drive(&project, &agent, &format!("session-{n}"), usize::MAX);
        let status = project
            .cmd(&["status", "--json", "--run", run])
            .run()
            .success()
            .json();
        assert_eq!(status["status"], "complete", "{run}: {status}");
    }
    let lines = project
        .cmd(&["runs", "--cost", "--json"])
        .run()
        .success()
        .json();
    let by_run = |run: &str| {
        lines
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["run"] == run)
            .cloned()
            .unwrap()
    };
    let (one, two) = (by_run("r-one"), by_run("r-two"));
    let first = one["agents_launched"].as_u64().unwrap();
    let second = two["agents_launched"].as_u64().unwrap();
    assert!(first > 0, "{lines}");
    assert!(
        second * 2 <= first,
        "the second run launched {second} agents, the first {first}: {lines}"
    );
    assert!(
        two["decided_without_agent"].as_u64().unwrap()
            > one["decided_without_agent"].as_u64().unwrap(),
        "{lines}"
    );
    let text = project.cmd(&["runs", "--cost"]).run().success().stdout;
    assert!(
        text.contains("agents launched") && text.contains("r-two"),
        "{text}"
    );
}

/// Review 2026-11-26, messages: `--budget -5` got clap's tip to write `-- -5`, which makes `-5`
/// a findings file (`start`) or a `claude` argument (`drive`); `--budget 0` named the config key.
#[test]
fn a_budget_not_above_zero_is_refused_naming_the_flag_not_clap_tip() {
    let project = TestProject::new();
    for args in [
        &["start", "--budget", "-5", "findings.jsonl"][..],
        &["start", "--budget", "0", "findings.jsonl"],
        &["drive", "--budget", "-1"],
        &["resume", "--budget", "-3"],
    ] {
        let out = project.cmd(args).run();
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("--budget") && out.stderr.contains("above 0"),
            "{args:?}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("-- -"), "{args:?}: {}", out.stderr);
    }
}

/// `next` previews the stop with the spend the hook would see: a run resumed with a budget the
/// next agent would pass previews the pause, not the wave the hook holds back (without the
/// spend, `next` showed `t-00005` going out).
#[test]
fn next_previews_the_pause_at_the_budget_not_the_wave_the_hook_holds_back() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "fan_out": 4}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(8));
    let start = [
        "start",
        "findings.jsonl",
        "--run-id",
        "r-test",
        "--budget",
        "0.5",
    ];
    project.cmd(&start).run().success();
    let sessions = project.path().join("claude-projects");
    let main = sessions.join("s1.jsonl");
    let agents = sessions.join("s1/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(&main, "").unwrap();
    let first = stop(&project, &main);
    project.write(
        ".v",
        r#"{"confidence": 0.9, "verdict":"real","root_cause":"unused import","reason":"the import is never used anywhere"}"#,
    );
    for n in 0..4 {
        let item = format!("t-{:05}", n + 1);
        assert!(first.contains(&item), "{first}");
        std::fs::write(
            agents.join(format!("agent-a{n}.jsonl")),
            first_message(&item) + &row("claude-haiku-5-5", &format!("a{n}"), 2_000_000, 0),
        )
        .unwrap();
        let submit = ["submit", &item, "--run", "r-test", "--file", ".v"];
        project.cmd(&submit).run().success();
    }
    // The hook reads the $0.80 spent and pauses at $0.50; $0.90 is not enough for one more
    // agent at $0.20.
    assert!(stop(&project, &main).contains("budget is reached ($0.80 of $0.50 spent)"));
    project.cmd(&["resume", "--budget", "0.9"]).run().success();

    let preview = project.cmd(&["next"]).run().success().stdout;
    assert!(
        preview.contains("the budget is reached ($0.80 of $0.90 spent)"),
        "{preview}"
    );
    assert!(!preview.contains("t-00005"), "{preview}");
    let json = project.cmd(&["next", "--json"]).run().success().json();
    assert_eq!(json["decision"], "allow", "{json}");
    assert_eq!(json["agents"], 0, "{json}");
    // What the hook then does.
    let paused = stop(&project, &main);
    assert!(
        paused.contains("the budget is reached ($0.80 of $0.90 spent)")
            && !paused.contains("t-00005"),
        "{paused}"
    );
}

/// The main session's share of an estimate, from the earlier runs that measured it: their main
/// sessions' dollars and tokens divided by their agents, per agent of this run, with no
/// once-a-run default on top.
#[test]
fn the_estimate_prices_the_main_session_per_agent_by_the_earlier_runs_that_measured_it() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "fan_out": 4}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(3));
    // An earlier run: two triage agents at $1.00 in all, its main session $0.30 and 10,000
    // tokens: $0.15 and 5,000 tokens an agent.
    project.write(
        ".self-repair/runs/r-old/cost.json",
        &serde_json::json!({"schema_version": 1,
            "prices": {"version": "2026-11-23", "models": []},
            "total": {"agents": 2, "usd": 1.3},
            "parts": {"main session": {"usd": 0.3,
                "usage": {"input_tokens": 10000, "output_tokens": 0}}},
            "finished": {"triage": {"agents": 2, "usd": 1.0,
                "usage": {"input_tokens": 60000, "output_tokens": 0}}}})
        .to_string(),
    );
    let json = project
        .cmd(&["start", "findings.jsonl", "--dry-run", "--json"])
        .run()
        .success()
        .json();
    let estimate = &json["estimate"];
    assert_eq!(estimate["main_session_measured"], true, "{estimate}");
    // Three triage agents at $0.50, and $0.15 and 5,000 tokens of the main session for each.
    assert!(
        (estimate["usd_min"].as_f64().unwrap() - (1.5 + 3.0 * 0.15)).abs() < 1e-9,
        "{estimate}"
    );
    assert_eq!(estimate["tokens_min"], 3 * 30_000 + 3 * 5_000, "{estimate}");
}

/// A clean report needs no agent, and so no main session to launch them: its estimate is
/// $0.00, without the main session's once-a-run default.
#[test]
fn a_clean_report_is_estimated_at_nothing_not_at_the_main_session_s_once_a_run_default() {
    let project = TestProject::new();
    project.write("ruff.json", "[]");
    let json = project
        .cmd(&["start", "ruff.json", "--dry-run", "--json"])
        .run()
        .success()
        .json();
    let estimate = &json["estimate"];
    assert_eq!(estimate["agents_max"], 0, "{estimate}");
    assert_eq!(estimate["usd_max"], 0.0, "{estimate}");
    assert_eq!(estimate["main_session_usd"], 0.0, "{estimate}");
    let text = project
        .cmd(&["start", "ruff.json", "--dry-run"])
        .run()
        .success()
        .stdout;
    assert!(
        text.contains("estimate: likely 0 agents, $0.00 (the main session's $0.00 included)"),
        "{text}"
    );
}
