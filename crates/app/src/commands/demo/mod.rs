//! `self-repair demo`: the whole pipeline on bundled real analyzer outputs, driven through the
//! Stop hook and the `show`/`submit` protocol by the built-in SIMULATED agent.

pub mod simulated_agent;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use self_repair_engine::Dispatch;
use self_repair_store::{Project, RunDir};
use serde_json::json;
use simulated_agent::SimulatedAgent;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::show::show;
use crate::commands::start::start;
use crate::commands::submit::submit;
use crate::hooks::stop::hook_stop;
use crate::output::Output;
use crate::run::finalize::read_findings;
use crate::run::inputs::InputSpec;
use crate::run::load::load_folded;
use crate::run::start_recipe::StartOptions;

/// The sources the bundled analyzers ran on, at the paths they had (`/home/dev/samples/...`),
/// and each part's manifest, so `self-repair init` in the demo finds the detectors a monorepo
/// of three parts has.
const SOURCES: [(&str, &str); 9] = [
    (
        "py/pyproject.toml",
        "[project]\nname = \"demo-py\"\nversion = \"0.1.0\"\n",
    ),
    (
        "rs/Cargo.toml",
        "[package]\nname = \"demo-rs\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    ),
    (
        "js/package.json",
        "{\"name\": \"demo-js\", \"private\": true, \"devDependencies\": {\"eslint\": \"^9.39.0\"}}\n",
    ),
    (
        "py/mod.py",
        include_str!("../../../../../tests/fixtures/formats/python-input-mod.py"),
    ),
    (
        "rs/src/main.rs",
        include_str!("../../../../../tests/fixtures/formats/rust-input-main.rs"),
    ),
    (
        "js/src/bad.js",
        include_str!("../../../../../tests/fixtures/formats/js-input/src/bad.js"),
    ),
    (
        "js/src/index.ts",
        include_str!("../../../../../tests/fixtures/formats/js-input/src/index.ts"),
    ),
    (
        "js/src/util.ts",
        include_str!("../../../../../tests/fixtures/formats/js-input/src/util.ts"),
    ),
    (
        "js/src/orphan.ts",
        include_str!("../../../../../tests/fixtures/formats/js-input/src/orphan.ts"),
    ),
];

/// Verbatim analyzer outputs (tests/fixtures/formats): where each is written in the demo
/// project (under `.self-repair/`, where findings files live), its text, and the project folder the tool ran in (its relative paths are under it).
const FINDINGS: [(&str, &str, &str); 7] = [
    (
        ".self-repair/ruff.json",
        include_str!("../../../../../tests/fixtures/formats/ruff-0.17.6.json"),
        "py",
    ),
    (
        ".self-repair/eslint.json",
        include_str!("../../../../../tests/fixtures/formats/eslint-10.15.json"),
        "js",
    ),
    (
        ".self-repair/knip.json",
        include_str!("../../../../../tests/fixtures/formats/knip-6.44.2.json"),
        "js",
    ),
    (
        ".self-repair/clippy.jsonl",
        include_str!("../../../../../tests/fixtures/formats/cargo-clippy-1.95.jsonl"),
        "rs",
    ),
    (
        ".self-repair/vulture.txt",
        include_str!("../../../../../tests/fixtures/formats/vulture-2.16.txt"),
        ".",
    ),
    (
        ".self-repair/bandit.json",
        include_str!("../../../../../tests/fixtures/formats/bandit-1.9.4.json"),
        "py",
    ),
    (
        ".self-repair/ts-prune.txt",
        include_str!("../../../../../tests/fixtures/formats/ts-prune-0.10.3.txt"),
        "js",
    ),
];

/// The detector that reproduces the demo's Ruff findings, for `self-repair fix` after the demo:
/// Ruff on `py/` with the rules it reported (Ruff's default rules no longer include E711). The
/// other tools' tasks have no detector here, and `fix` says it cannot prove them.
const DEMO_CONFIG: &str = r#"{
  "detectors": [
    {
      "name": "ruff-py",
      "argv": ["ruff", "check", "--output-format", "json", "--select", "E711,F401", "."],
      "cwd": "py",
      "format": "ruff",
      "ok_exit_codes": [0, 1]
    }
  ]
}
"#;

/// Where the analyzers ran; stripped from their absolute paths.
const SAMPLES_BASE: &str = "/home/dev/samples";

/// The session id the demo's stops carry.
const DEMO_SESSION: &str = "demo-session";

/// Most hook calls before the demo gives up (a bug guard; the pipeline needs far fewer).
const MAX_STOPS: usize = 10_000;

/// `self-repair demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Folder for the demo project, the same as `-C DIR` (default: a new folder under the
    /// system temp dir).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Runs `demo`: its progress goes to standard output as it happens. The folder is `--dir`, or
/// the global `-C DIR` (the project root every command takes), else a new temp folder.
pub fn run(env: &CommandEnv, args: DemoArgs) -> Result<Output, AppError> {
    let dir = match (args.dir, env.project.clone()) {
        (Some(dir), Some(root)) if env.cwd.join(&dir) != env.cwd.join(&root) => {
            return Err(AppError::Usage(format!(
                "-C {} and --dir {} name two folders: give the demo's folder once",
                root.display(),
                dir.display()
            )));
        }
        (Some(dir), _) | (None, Some(dir)) => env.cwd.join(dir),
        (None, None) => default_demo_dir(&env.temp_dir, env.now),
    };
    demo(env, &dir, &mut std::io::stdout().lock())?;
    Ok(Output::text(String::new()))
}

/// A folder under `base` no demo used yet.
fn default_demo_dir(base: &Path, now: u64) -> PathBuf {
    (0..1000)
        .map(|n| {
            if n == 0 {
                base.join(format!("self-repair-demo-{now}"))
            } else {
                base.join(format!("self-repair-demo-{now}-{n}"))
            }
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| base.join("self-repair-demo"))
}

/// What the demo left behind.
#[derive(Debug, Clone)]
pub struct DemoReport {
    pub project: PathBuf,
    pub run: String,
    pub report: PathBuf,
    pub tasks: Vec<String>,
}

/// Runs the demo in `dir` (created; must not hold a run yet), printing progress to `out`.
pub fn demo(env: &CommandEnv, dir: &Path, out: &mut dyn Write) -> Result<DemoReport, AppError> {
    lay_out(dir)?;
    say(
        out,
        &format!(
            "self-repair demo: the whole pipeline on real analyzer outputs (ruff, eslint, knip, clippy, vulture, bandit, ts-prune),\n\
         driven through the Stop hook and show/submit by a SIMULATED agent: no model is called and its verdicts are canned.\n\
         project: {}\n",
            dir.display()
        ),
    );
    let env = CommandEnv {
        cwd: dir.to_path_buf(),
        project: Some(dir.to_path_buf()),
        project_dir: None,
        session: Some(DEMO_SESSION.to_owned()),
        ..env.clone()
    };
    let started = start(
        &env,
        &StartOptions {
            prepared: FINDINGS
                .iter()
                .map(|(path, text, ran_in)| InputSpec {
                    source: (*path).to_owned(),
                    text: (*text).to_owned(),
                    format: None,
                    relative_to: Some((*ran_in).to_owned()),
                })
                .collect(),
            base: Some(PathBuf::from(SAMPLES_BASE)),
            ..StartOptions::default()
        },
    )?;
    for line in started.render().lines() {
        say(out, &format!("[start] {line}"));
    }
    let project = Project::at(dir.to_path_buf());
    let run_dir = project.run(&started.run)?;
    let stdin =
        json!({"session_id": DEMO_SESSION, "hook_event_name": "Stop", "stop_hook_active": true,
                       "cwd": dir, "background_tasks": []})
        .to_string();
    for _ in 0..MAX_STOPS {
        if !stop_once(&env, &project, &run_dir, &stdin, out)? {
            break;
        }
    }
    let (report, tasks) = say_where_it_ended(&project, &run_dir, dir, env.now, out)?;
    Ok(DemoReport {
        project: dir.to_path_buf(),
        run: started.run,
        report,
        tasks,
    })
}

fn say(out: &mut dyn Write, line: &str) {
    let _ = writeln!(out, "{line}");
}

/// One stop of the demo session: the hook's answer, then the simulated agent's results for
/// every item it dispatched. False once the hook allows the stop (the run ended).
fn stop_once(
    env: &CommandEnv,
    project: &Project,
    run_dir: &RunDir,
    stdin: &str,
    out: &mut dyn Write,
) -> Result<bool, AppError> {
    let answer = hook_stop(env, stdin.as_bytes());
    let Some(stdout) = answer.stdout else {
        say(out, "[hook] allowed the stop silently");
        return Ok(false);
    };
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_default();
    let Some(reason) = self_repair_engine::continuation(&value) else {
        say(
            out,
            &format!(
                "[hook] allowed the stop: {}",
                value["systemMessage"].as_str().unwrap_or("")
            ),
        );
        return Ok(false);
    };
    let Some(dispatch) = Dispatch::parse_reason(reason) else {
        // The run's closing line, which the session is asked to end its turn with.
        say(
            out,
            &format!(
                "[hook] the session ends its turn with: {}",
                reason.lines().next().unwrap_or(reason)
            ),
        );
        return Ok(false);
    };
    let ids: Vec<&str> = dispatch
        .launch
        .iter()
        .map(|l| l.prompt.split_whitespace().nth(2).unwrap_or_default())
        .collect();
    let state = load_folded(run_dir, false)?;
    say(
        out,
        &format!(
            "[hook] block: phase {}, launch {} agent(s): {}",
            state.phase.as_str(),
            ids.len(),
            ids.join(" ")
        ),
    );
    let findings = read_findings(run_dir)?;
    let agent = SimulatedAgent {
        state: &state,
        findings: &findings,
    };
    for id in ids {
        let shown = show(project, run_dir, &state, id)?;
        let answer = agent.answer(&shown);
        let recorded = submit(run_dir, id, &answer, env.now)?;
        say(
            out,
            &format!(
                "  [simulated agent] {}",
                recorded.render().trim_start_matches("recorded ")
            ),
        );
    }
    Ok(true)
}

/// The run's status, its report and its tasks, said at the end.
fn say_where_it_ended(
    project: &Project,
    run_dir: &RunDir,
    dir: &Path,
    now: u64,
    out: &mut dyn Write,
) -> Result<(PathBuf, Vec<String>), AppError> {
    let state = load_folded(run_dir, false)?;
    // What `self-repair status` in its folder shows, next steps included, but the progress and
    // money lines: the simulated agent spends nothing and its clock stands still.
    let mut status = crate::run::status_report::status(project, run_dir, now)?;
    status.progress = None;
    status.cost = None;
    say(out, &format!("\n{}", status.render()));
    let report = run_dir.path().join("report.md");
    let tasks: Vec<String> = state.tasks.iter().map(|t| t.file.clone()).collect();
    say(out, &format!("report: {}", report.display()));
    say(
        out,
        &format!(
            "tasks ({}): {}",
            tasks.len(),
            dir.join("backlog/tasks").display()
        ),
    );
    for task in &tasks {
        say(out, &format!("  {task}"));
    }
    say(out, &commit_for_fix(dir));
    say(
        out,
        &format!(
            "the next steps work on the demo's project: run them in {} (or with -C {0})",
            dir.display()
        ),
    );
    Ok((report, tasks))
}

/// Makes the demo's folder a git repository with one commit (what `fix` compares a fix with),
/// and says what `fix` can prove there.
fn commit_for_fix(dir: &Path) -> String {
    let git = self_repair_process::Git::at(dir).within(std::time::Duration::from_secs(30));
    let committed = git
        .text(&["init", "-q"])
        .and_then(|_| git.text(&["add", "-A"]))
        .and_then(|_| {
            git.text(&[
                "-c",
                "user.name=self-repair demo",
                "-c",
                "user.email=demo@self-repair.invalid",
                "commit",
                "-q",
                "-m",
                "self-repair demo",
            ])
        });
    let what = "`self-repair fix` can prove the Ruff tasks (its detector in .self-repair/config.json \
         runs `ruff` on py/ with the rules it reported: put Ruff on PATH, `pip install ruff`); the \
         other tools have no detector there, so fix says it cannot prove their tasks";
    match committed {
        Ok(_) => format!("fix: the folder is a git repository with one commit; {what}"),
        Err(e) => format!(
            "fix: git could not commit the demo ({e}): `git init`, then commit, before `self-repair \
             fix`; {what}"
        ),
    }
}

fn lay_out(dir: &Path) -> Result<(), AppError> {
    if dir.join(".self-repair").exists() {
        return Err(AppError::Usage(format!(
            "{} already holds a self-repair project; pick another --dir",
            dir.display()
        )));
    }
    let findings = FINDINGS.iter().map(|(rel, text, _)| (*rel, *text));
    let config = std::iter::once((".self-repair/config.json", DEMO_CONFIG));
    for (rel, text) in SOURCES.iter().copied().chain(findings).chain(config) {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(AppError::io("create", parent))?;
        }
        std::fs::write(&path, text).map_err(AppError::io("write", &path))?;
    }
    Ok(())
}
