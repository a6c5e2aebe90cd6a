//! `drive --partitions` on one machine (issue 27 item 3, its "Must show"): two projects with
//! the same slice of the committed Jinja2 corpus, each run started from the terminal (`start`,
//! bound to no session). Project A runs plain `drive` (one session at a time); project B runs
//! `drive --partitions 4` (four `claude -p` sessions at once, one per hash share, then the
//! merged run driven to the end). The scripted model holds every sub-agent request for a fixed
//! delay, so agents take time as real ones do. Measured: triage wall time of each (A: from
//! drive's start until the run's phase leaves triage; B: until drive's `the 4 shares are
//! triaged` line), bound B/A ≤ 0.35. Checked: both runs complete, the merged run's verdicts
//! equal the single run's finding by finding (`report.json`, by fingerprint), its tasks hold
//! the same findings, and no item was launched twice. Under the user's own permissions
//! (`install --project`, no `--allowedTools`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::thread;
use std::time::Duration;

use serde_json::Value;

use crate::e2e::drive_run::{DriveOutcome, DriveRun};
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::agent_launches;
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{check_tasks, pipeline_scenario};
use crate::mock_server::MockServer;
use crate::recorded_request::RecordedRequest;
use crate::thread::{item_of_prompt, run_of_prompt};

/// The run both projects start.
const RUN: &str = "r-parts";
/// Project B's sessions at once.
const SHARES: usize = 4;
/// The corpus, and its Ruff SARIF log.
const CORPUS: &str = "tests/fixtures/corpus/jinja2-3.1.6";
const SARIF: &str = "ruff-0.17.6-select-all.sarif";
/// The slice: three whole files of the corpus, 73 distinct findings, one triage agent each.
/// The single run needs four waves of 20 agents (the client's most at once); the four hash
/// shares hold 18, 18, 19 and 18 findings, so each fits in one wave. The corpus's slice of the
/// fewest-findings files (`E2E_CORPUS_FINDINGS=60`, 63 findings) splits 17/21/10/15: its
/// largest share needs a second wave for one agent, and the measure would be the shares'
/// imbalance rather than the sessions' parallelism (reference/benchmarks.md).
const FILES: [&str; 3] = [
    "src/jinja2/debug.py",
    "src/jinja2/tests.py",
    "src/jinja2/visitor.py",
];
/// The slice's distinct findings.
const FINDINGS: usize = 73;
/// One triage agent per finding (no batches, no rule surveys: the shares split by finding),
/// in waves of 20 (the default `fan_out`), foreground; the run starts at once (no go to wait
/// for).
const CONFIG: &str = "{\"launch_mode\": \"foreground\", \"triage_batch\": 1, \"survey_min\": 0, \
                      \"confirm_above_usd\": null}\n";
/// What the server holds each sub-agent request: a triage agent makes three (`show`,
/// `submit`, its last words), so it takes at least 15 s (a real one takes minutes), and the
/// scenario about 6 minutes of a debug build. Shorter agents (1.5 s a request, 4.5 s an agent,
/// near issue 27's "e.g. 2 s") measure the 2-core machine instead: four sessions' 76 agents at
/// once wait for its CPU and each session's start costs about 5 s, so the ratio was 0.47-0.71
/// there (reference/benchmarks.md, "Partitions on one machine").
const REQUEST_DELAY: Duration = Duration::from_secs(5);
/// Replaces [`REQUEST_DELAY`] (milliseconds), to measure how the ratio moves with the agents'
/// length (reference/benchmarks.md, "Partitions on one machine").
const DELAY_VAR: &str = "E2E_PARTITIONS_DELAY_MS";
/// Lets each agent wait up to this many milliseconds more, by its prompt (default 0: every
/// agent the same), to measure agents whose answers do not all arrive at one instant.
const SPREAD_VAR: &str = "E2E_PARTITIONS_SPREAD_MS";
/// Issue 27's bound on triage time with four partitions against one session.
const MAX_RATIO: f64 = 0.35;
/// A key the scripted server accepts.
const API_KEY: (&str, &str) = ("ANTHROPIC_API_KEY", "e2e-not-a-key");
/// Backoffs at 1%.
const SCALE: (&str, &str) = ("SELF_REPAIR_DRIVE_BACKOFF_SCALE", "0.01");

/// One project's `drive` and what it measured.
struct Side {
    project: E2eProject,
    outcome: DriveOutcome,
    records: Vec<RecordedRequest>,
    /// From drive's start until triage was over; `None` when it never was.
    triage: Option<Duration>,
    /// CPU seconds of drive and every process it started (the clients, the hooks, the agents'
    /// commands), from the kernel's count of reaped children.
    cpu_secs: f64,
    /// How busy the machine's cores were (all processes, other users' too) from drive's start
    /// until triage was over, 0 to 1.
    busy_in_triage: f64,
}

/// The machine's CPU time so far (`/proc/stat`'s first line, in ticks): all of it, and the
/// part spent idle or waiting for I/O.
#[derive(Debug, Clone, Copy, Default)]
struct CpuTicks {
    total: u64,
    idle: u64,
}

impl CpuTicks {
    fn now() -> CpuTicks {
        let stat = fs::read_to_string("/proc/stat").unwrap_or_default();
        let ticks: Vec<u64> = stat
            .lines()
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .skip(1)
            .filter_map(|t| t.parse().ok())
            .collect();
        CpuTicks {
            total: ticks.iter().sum(),
            // idle and iowait
            idle: ticks.iter().skip(3).take(2).sum(),
        }
    }

    /// The busy share of the cores between `self` and `later`.
    fn busy_until(self, later: CpuTicks) -> f64 {
        let total = later.total.saturating_sub(self.total).max(1) as f64;
        1.0 - later.idle.saturating_sub(self.idle) as f64 / total
    }
}

/// The delay each sub-agent request waits: [`REQUEST_DELAY`] or [`DELAY_VAR`]'s.
fn request_delay() -> Duration {
    millis_of(DELAY_VAR).unwrap_or(REQUEST_DELAY)
}

/// The milliseconds the variable `name` holds, if it holds a number.
fn millis_of(name: &str) -> Option<Duration> {
    std::env::var(name)
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map(Duration::from_millis)
}

/// `drive-partitions`: see the module's text.
pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let single = drive_side(ctx, "drive-partitions-single", &[], |project, _| {
        project
            .run(RUN)
            .state()
            .is_ok_and(|s| field(&s, "/phase") != "triage")
    })?;
    check_side(ctx, &single, "N=1", RUN)?;
    ctx.checks.that(single.triage.is_some(), || {
        format!(
            "the single run's phase never left triage: {}",
            single.outcome.describe()
        )
    });
    let shares = SHARES.to_string();
    let triaged_line = format!("drive: the {SHARES} shares are triaged");
    let parallel = drive_side(
        ctx,
        "drive-partitions-4",
        &["--partitions", &shares],
        |_, drive| drive.stderr_so_far().contains(&triaged_line),
    )?;
    let merged = format!("{RUN}.merged");
    check_side(ctx, &parallel, &format!("N={SHARES}"), &merged)?;
    ctx.checks.that(parallel.triage.is_some(), || {
        format!(
            "drive never printed `{triaged_line}`: {}",
            parallel.outcome.describe()
        )
    });
    check_parallel_part(
        ctx,
        &parallel.project,
        &parallel.outcome.stderr,
        &triaged_line,
    )?;
    check_merged_triaged_nothing(ctx, &merged, &parallel.records);

    let single_report = report(&single.project, RUN)?;
    let merged_report = report(&parallel.project, &merged)?;
    let single_verdicts = verdicts(&single_report);
    check_same_verdicts(ctx, &single_verdicts, &verdicts(&merged_report));
    ctx.checks.equal(
        "tasks by their findings' fingerprints (merged against single)",
        &task_findings(&merged_report),
        &task_findings(&single_report),
    );

    if let (Some(one), Some(four)) = (single.triage, parallel.triage) {
        let ratio = four.as_secs_f64() / one.as_secs_f64().max(0.001);
        ctx.checks.that(ratio <= MAX_RATIO, || {
            format!(
                "triage with {SHARES} partitions took {ratio:.2} of the single session's time, above {MAX_RATIO}"
            )
        });
        ctx.notes.push(format!(
            "{FINDINGS} findings, sub-agent requests held {:.1} s (+ up to {:.1} s by agent): triage N=1 {:.1} s, N={SHARES} {:.1} s, ratio {ratio:.2} (bound {MAX_RATIO})",
            request_delay().as_secs_f64(),
            millis_of(SPREAD_VAR).unwrap_or(Duration::ZERO).as_secs_f64(),
            one.as_secs_f64(),
            four.as_secs_f64(),
        ));
    }
    Ok(())
}

/// One side's own checks (its drive exits 0, its run completes with tasks, no item launched
/// twice, every finding in its report) and figures.
fn check_side(
    ctx: &mut ScenarioContext,
    side: &Side,
    label: &str,
    run: &str,
) -> Result<(), E2eError> {
    ctx.notes.push(format!(
        "{label}: triage {} (the machine's cores {:.0}% busy meanwhile; a triage agent's client took {:.1} s between an answer and its next request, median), {} agents in {} launching turns, {} sessions, drive {:.1} s, {:.0} CPU s ({:.2} s an agent)",
        side.triage
            .map_or("never ended".to_owned(), |t| format!("{:.1} s", t.as_secs_f64())),
        side.busy_in_triage * 100.0,
        client_turn_ms(&side.records) as f64 / 1000.0,
        agent_launches(&side.records).len(),
        launching_turns(&side.records),
        sessions(&side.project),
        side.outcome.wall.as_secs_f64(),
        side.cpu_secs,
        side.cpu_secs / agent_launches(&side.records).len().max(1) as f64,
    ));
    ctx.checks.that(side.outcome.code == Some(0), || {
        format!("drive of {run}: {}", side.outcome.describe())
    });
    check_launched_once(ctx, label, &side.records);
    let Ok(state) = side.project.run(run).state() else {
        ctx.checks.fail(format!("{label}: no run {run}"));
        return Ok(());
    };
    ctx.checks.equal(
        &format!("{run}: status"),
        &field(&state, "/status"),
        &"complete",
    );
    check_tasks(ctx, &side.project, &state)?;
    let report = report(&side.project, run)?;
    ctx.checks.equal(
        &format!("{run}: findings with a verdict in report.json"),
        &verdicts(&report)
            .values()
            .filter(|(v, _)| !v.is_empty())
            .count(),
        &FINDINGS,
    );
    Ok(())
}

/// Makes a project with the corpus slice, starts the run from the terminal, drives it with
/// `args`, and notes the time from drive's start until `triaged` holds.
fn drive_side(
    ctx: &ScenarioContext,
    name: &str,
    args: &[&str],
    triaged: impl Fn(&E2eProject, &DriveRun) -> bool,
) -> Result<Side, E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Project, 0)?;
    let corpus = ctx.tools.repo.join(CORPUS);
    project.copy_in(&corpus.join("src"), "src")?;
    project.write("ruff.sarif", &slice(&corpus.join(SARIF))?)?;
    project.write(".self-repair/config.json", CONFIG)?;
    project.self_repair_ok(&["start", "ruff.sarif", "--run-id", RUN])?;
    let scenario = pipeline_scenario()
        .sub_agent_delay(request_delay())
        .sub_agent_delay_spread(millis_of(SPREAD_VAR).unwrap_or(Duration::ZERO));
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let cpu_before = children_cpu_secs();
    let machine_before = CpuTicks::now();
    let mut machine_at_triage = None;
    let mut drive = project.drive(&server.base_url(), RUN, args, &[API_KEY, SCALE])?;
    let timeout = ctx.claude_timeout() * 3;
    let mut triage = None;
    while drive.running() && drive.elapsed() < timeout {
        if triage.is_none() && triaged(&project, &drive) {
            triage = Some(drive.elapsed());
            machine_at_triage = Some(CpuTicks::now());
        }
        thread::sleep(Duration::from_millis(100));
    }
    let outcome = drive.wait(timeout)?;
    let cpu_secs = children_cpu_secs() - cpu_before;
    Ok(Side {
        project,
        outcome,
        records: server.requests(),
        triage,
        cpu_secs,
        busy_in_triage: machine_at_triage.map_or(f64::NAN, |at| machine_before.busy_until(at)),
    })
}

/// The corpus's SARIF log with only the results in [`FILES`].
fn slice(path: &Path) -> Result<String, E2eError> {
    let unexpected = |message: String| E2eError::Unexpected {
        path: path.to_path_buf(),
        message,
    };
    let text = fs::read_to_string(path).map_err(E2eError::io(path))?;
    let mut log: Value =
        serde_json::from_str(&text).map_err(|e| unexpected(format!("not JSON: {e}")))?;
    let results = log
        .pointer_mut("/runs/0/results")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| unexpected("no runs[0].results".to_owned()))?;
    results.retain(|r| {
        r.pointer("/locations/0/physicalLocation/artifactLocation/uri")
            .and_then(Value::as_str)
            .is_some_and(|uri| FILES.iter().any(|f| uri.ends_with(f)))
    });
    Ok(log.to_string())
}

/// CPU seconds (user and system) of this process's reaped children and their reaped
/// descendants (`/proc/self/stat` fields 16 and 17, at the kernel's 100 ticks a second).
fn children_cpu_secs() -> f64 {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    // After the command's `)`: field 3 is index 0, so fields 16 and 17 are 13 and 14.
    let ticks: u64 = [13, 14]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
}

/// Every `(run, item)` an `Agent` call launched, in order (duplicates kept).
fn launched(records: &[RecordedRequest]) -> Vec<(String, String)> {
    agent_launches(records)
        .iter()
        .filter_map(|input| input.get("prompt").and_then(Value::as_str))
        .filter_map(|prompt| {
            Some((
                run_of_prompt(prompt).unwrap_or_default(),
                item_of_prompt(prompt)?,
            ))
        })
        .collect()
}

/// No item of any run of this project was launched twice.
fn check_launched_once(ctx: &mut ScenarioContext, label: &str, records: &[RecordedRequest]) {
    let mut seen = BTreeSet::new();
    let twice: Vec<String> = launched(records)
        .into_iter()
        .filter(|pair| !seen.insert(pair.clone()))
        .map(|(run, item)| format!("{item} of {run}"))
        .collect();
    ctx.checks.that(twice.is_empty(), || {
        format!("{label}'s project launched items twice: {twice:?}")
    });
}

/// The merged run launched no triage agent: every verdict came from the shares.
fn check_merged_triaged_nothing(
    ctx: &mut ScenarioContext,
    merged: &str,
    records: &[RecordedRequest],
) {
    let again: Vec<String> = launched(records)
        .into_iter()
        .filter(|(run, item)| {
            run == merged && ["t-", "tb-", "rs-"].iter().any(|p| item.starts_with(p))
        })
        .map(|(_, item)| item)
        .collect();
    ctx.checks.that(again.is_empty(), || {
        format!("the merged run triaged again: {again:?}")
    });
}

/// The shares: each `<R>.p<K>of<N>` triaged its part and ended after triage, together they hold
/// every finding once; R is cancelled; drive's progress lines name the shares.
fn check_parallel_part(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    stderr: &str,
    triaged_line: &str,
) -> Result<(), E2eError> {
    let mut triaged = 0;
    for share in 1..=SHARES {
        let id = format!("{RUN}.p{share}of{SHARES}");
        let Ok(state) = project.run(&id).state() else {
            ctx.checks.fail(format!("no share run {id}"));
            continue;
        };
        ctx.checks.equal(
            &format!("{id}: status, until, share"),
            &(
                field(&state, "/status"),
                field(&state, "/until"),
                state
                    .pointer("/scope/partition/share")
                    .and_then(Value::as_u64),
            ),
            &("complete", "triage", Some(share as u64)),
        );
        triaged += state["triage_items"].as_u64().unwrap_or_default() as usize;
        ctx.checks.that(
            stderr.contains(&format!("share {share}/{SHARES}: ")),
            || format!("drive's stderr has no `share {share}/{SHARES}: ` line"),
        );
    }
    ctx.checks
        .equal("triage items over the shares", &triaged, &FINDINGS);
    let state = project.run(RUN).state()?;
    ctx.checks.equal(
        &format!("{RUN} after the merge"),
        &field(&state, "/status"),
        &"cancelled",
    );
    ctx.checks.that(
        stderr.contains(&format!("; merged into run {RUN}.merged")),
        || format!("drive's `{triaged_line}` line does not name the merged run: {stderr}"),
    );
    Ok(())
}

/// A run's `report.json`.
fn report(project: &E2eProject, run: &str) -> Result<Value, E2eError> {
    let path = project.run(run).dir().join("report.json");
    let text = fs::read_to_string(&path).map_err(E2eError::io(&path))?;
    serde_json::from_str(&text).map_err(|e| E2eError::Unexpected {
        path,
        message: format!("not JSON: {e}"),
    })
}

/// Each finding's verdict and who decided it, by fingerprint.
fn verdicts(report: &Value) -> BTreeMap<String, (String, String)> {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                field(f, "/fingerprint").to_owned(),
                (
                    field(f, "/verdict").to_owned(),
                    field(f, "/decided_by").to_owned(),
                ),
            )
        })
        .collect()
}

fn check_same_verdicts(
    ctx: &mut ScenarioContext,
    single: &BTreeMap<String, (String, String)>,
    merged: &BTreeMap<String, (String, String)>,
) {
    let differ: Vec<String> = single
        .keys()
        .chain(merged.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|fp| single.get(*fp) != merged.get(*fp))
        .map(|fp| {
            format!(
                "{fp}: single {:?}, merged {:?}",
                single.get(fp),
                merged.get(fp)
            )
        })
        .collect();
    ctx.checks.that(differ.is_empty(), || {
        format!(
            "{} findings' verdicts differ between the merged and the single run, first: {:?}",
            differ.len(),
            differ.iter().take(5).collect::<Vec<_>>()
        )
    });
}

/// Each task's findings, as a set of fingerprints (a task is its group's).
fn task_findings(report: &Value) -> BTreeSet<BTreeSet<String>> {
    let with_task: BTreeSet<&str> = report["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|g| !g["task"].is_null())
        .filter_map(|g| g["id"].as_str())
        .collect();
    let mut by_group: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for finding in report["findings"].as_array().into_iter().flatten() {
        if let Some(group) = finding["group"].as_str().filter(|g| with_task.contains(g)) {
            by_group
                .entry(group)
                .or_default()
                .insert(field(finding, "/fingerprint").to_owned());
        }
    }
    by_group.into_values().collect()
}

/// The median time a triage agent's client took between the end of one answer and its next
/// request (reading the answer, running the Bash command and its `PreToolUse` hook, sending
/// again), in milliseconds: the client's own work, which waits for CPU when many agents of
/// several sessions get their answers at once.
fn client_turn_ms(records: &[RecordedRequest]) -> u64 {
    let mut agents: BTreeMap<(&str, &str), Vec<&RecordedRequest>> = BTreeMap::new();
    for record in records.iter().filter(|r| r.thread.starts_with("item:t-")) {
        let session = record.header("x-claude-code-session-id").unwrap_or("-");
        agents
            .entry((session, record.thread.as_str()))
            .or_default()
            .push(record);
    }
    let mut gaps: Vec<u64> = agents
        .values_mut()
        .flat_map(|requests| {
            requests.sort_by_key(|r| r.seq);
            requests
                .windows(2)
                .map(|pair| pair[1].at_ms.saturating_sub(pair[0].done_ms))
                .collect::<Vec<_>>()
        })
        .collect();
    gaps.sort_unstable();
    gaps.get(gaps.len() / 2).copied().unwrap_or(0)
}

/// The main thread's answers that launched agents (a wave each in foreground mode).
fn launching_turns(records: &[RecordedRequest]) -> usize {
    records
        .iter()
        .filter(|r| r.thread == "main" && r.answer.contains("Agent"))
        .count()
}

/// The sessions every run of the project logged in its `drive.jsonl`.
fn sessions(project: &E2eProject) -> usize {
    let runs = project.path().join(".self-repair/runs");
    fs::read_dir(&runs)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|run| {
            fs::read_to_string(run.path().join("drive.jsonl"))
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter(|v| v.get("event").is_none())
                .count()
        })
        .sum()
}
