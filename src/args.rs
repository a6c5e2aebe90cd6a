//! Command-line arguments (clap derive). Every command has `--help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Works through every analyzer finding inside one Claude Code session: triage by sub-agents,
/// root-cause groups, reviewed fix plans, backlog tasks. A Stop hook drives it.
#[derive(Debug, Parser)]
#[command(name = "self-repair", version, about, max_term_width = 100)]
pub struct Cli {
    /// Project root (default: the nearest folder with `.self-repair/`, else the git root).
    #[arg(long = "root", short = 'C', global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// Which run a command acts on.
#[derive(Debug, Args)]
pub struct RunArg {
    /// Run id (default: the project's active run).
    #[arg(long, value_name = "ID")]
    pub run: Option<String>,
}

/// What `show` prints.
#[derive(Debug, Args)]
pub struct ShowView {
    /// `{item, kind, agent, model, prompt, output_schema}` as JSON.
    #[arg(long)]
    pub json: bool,
    /// Every finding the item works on (its slice, its group), 40 a page, instead of the task.
    #[arg(long)]
    pub findings: bool,
    /// The page of `--findings` (from 1).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "findings")]
    pub page: usize,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read findings, merge identical ones, route them, and create the project's active run.
    Start {
        /// Findings files; `-` or none reads standard input.
        files: Vec<PathBuf>,
        /// Input format: auto, jsonl, sarif, clippy, ruff, eslint, knip, vulture, bandit, ts-prune.
        #[arg(long, default_value = "auto")]
        format: String,
        /// Run id (default `r-YYYYMMDD-HHMM`).
        #[arg(long, value_name = "ID")]
        run_id: Option<String>,
        /// Config file (default `.self-repair/config.json` when present).
        #[arg(long, value_name = "PATH")]
        config: Option<PathBuf>,
        /// Absolute prefix to strip from paths an analyzer wrote on another machine (default:
        /// inferred from the project's files when they lie outside the project).
        #[arg(long, value_name = "DIR")]
        base: Option<PathBuf>,
        /// Project folder the analyzer ran in: relative paths in its output are under it.
        #[arg(long, value_name = "DIR")]
        relative_to: Option<String>,
        /// Also run the detectors of `.self-repair/config.json` and ingest their output.
        #[arg(long)]
        detect: bool,
        /// Cancel the active run if it is still in progress (without it, `start` refuses).
        #[arg(long)]
        replace: bool,
        /// Dollars the run may spend in all (over the config's `budget_usd`).
        #[arg(long, value_name = "USD")]
        budget: Option<f64>,
        /// Print the agents, tokens and dollars the run is expected to take; create nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Phase, progress per phase, groups, tasks, and what to do next.
    Status {
        #[command(flatten)]
        run: RunArg,
        /// List every finding with how it was decided (agent, known registry, rule) and why.
        #[arg(long)]
        findings: bool,
        #[arg(long)]
        json: bool,
    },
    /// Run the detectors of `.self-repair/config.json` and report what they found.
    Detect {
        /// Only this detector.
        #[arg(long, value_name = "NAME")]
        only: Option<String>,
    },
    /// Deterministic rules: list them, accept or reject proposals.
    Rules {
        #[command(subcommand)]
        action: RulesAction,
    },
    /// The registry of findings already decided (`known.json`).
    Known {
        #[command(subcommand)]
        action: KnownAction,
    },
    /// The instruction the Stop hook would give now, without changing anything.
    Next {
        #[command(flatten)]
        run: RunArg,
    },
    /// The rendered task of a work item, for its agent.
    Show {
        /// Item id, e.g. t-00042.
        item: String,
        #[command(flatten)]
        run: RunArg,
        #[command(flatten)]
        view: ShowView,
    },
    /// Same as `show` (an agent's prompt is `self-repair item <id>`).
    Item {
        item: String,
        #[command(flatten)]
        run: RunArg,
        #[command(flatten)]
        view: ShowView,
    },
    /// Record an agent's result for an item (JSON; markdown for plans and reviews).
    Submit {
        item: String,
        /// Read the result from this file instead of standard input.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        #[command(flatten)]
        run: RunArg,
    },
    /// Stop driving the run until `resume`.
    Pause {
        #[command(flatten)]
        run: RunArg,
    },
    /// Continue a paused or stalled run.
    Resume {
        #[command(flatten)]
        run: RunArg,
        /// A new budget in dollars for the whole run (a run paused at its budget, or waiting
        /// for your go, goes on).
        #[arg(long, value_name = "USD")]
        budget: Option<f64>,
        /// The user's go for a run that waits on its estimate (above `confirm_above_usd`); with
        /// `--budget USD`, the go with that cap.
        #[arg(long)]
        confirm: bool,
    },
    /// End the run for good; the hook never drives it again.
    Cancel {
        #[command(flatten)]
        run: RunArg,
    },
    /// Bind the run to this Claude Code session (resume a run in a new session).
    Adopt {
        /// Session id (default: `CLAUDE_CODE_SESSION_ID`).
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        #[command(flatten)]
        run: RunArg,
    },
    /// Run the job unattended: relaunch headless `claude -p` sessions until the run ends.
    Drive(crate::drive_args::DriveArgs),
    /// The fix loop's composite check for one task of a triage run: the analyzer re-run, the
    /// tests, the guard against weakened checks (reference/fix.md). Exit 0 fixed, 6 not.
    VerifyTask(crate::fix_args::VerifyTaskArgs),
    /// The fix loop's autofix for one task: the analyzer's own edits for its findings, kept at
    /// `start`, applied where the files still hold the text they expect (reference/fix.md).
    /// Exit 0 when every fix applied, 6 when one did not.
    ApplyFixes(crate::fix_args::ApplyFixesArgs),
    /// Fix a triage run's tasks one at a time, each a repair run checked by `verify-task`
    /// (reference/fix.md). Exit 0 while it goes on or once all are fixed, 6 when one was not.
    Fix(crate::fix_args::FixArgs),
    /// The error catalog of the driven sessions (`errors.jsonl`).
    Errors {
        /// Run id (default: the project's active run).
        run: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The run's journal, drive log and cost records as one time-ordered view.
    Timeline {
        /// Run id (default: the project's active run).
        run: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List the project's runs.
    Runs {
        #[arg(long)]
        json: bool,
        /// Compare the triage runs' bills: findings, agents launched, decided without an agent,
        /// dollars.
        #[arg(long)]
        cost: bool,
    },
    /// Check the store; rebuild unreadable run states from their journals.
    Doctor {
        #[command(flatten)]
        run: RunArg,
    },
    /// Write tasks and reports now (normally done by the hook when every phase is done).
    Finalize {
        #[command(flatten)]
        run: RunArg,
        /// Write what is done so far (tasks of finished groups, reports with the verdicts so
        /// far) and leave the run as it is (a run paused at its budget).
        #[arg(long)]
        partial: bool,
    },
    /// References to a symbol in the project (word boundaries, `.gitignore` honoured).
    Refs {
        symbol: String,
        /// Most hits shown.
        #[arg(long, default_value_t = 50)]
        max: usize,
    },
    /// Run the whole pipeline on bundled real findings with a SIMULATED agent (no model).
    Demo {
        /// Folder for the demo project (default: a new folder under the system temp dir).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Start a repair run: rerun a failing check until it passes, bounded and escalating
    /// (`self-repair check -- cargo test`; `--autofix -- cargo fmt -- cargo test`).
    Check(CheckArgs),
    /// Advance a repair run by one deterministic step (CI, debugging).
    Tick {
        #[command(flatten)]
        run: RunArg,
    },
    /// Claude Code hook entry points (read the hook JSON on stdin).
    Hook {
        #[command(subcommand)]
        event: HookEvent,
    },
    /// Register the hooks, agents, skill and permissions without the plugin manager.
    Install(InstallArgs),
    /// Remove exactly what `install` added.
    Uninstall(InstallArgs),
}

/// `rules` subcommands.
#[derive(Debug, Subcommand)]
pub enum RulesAction {
    /// Every rule with its status and measured accuracy.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Apply a rule from the next `start`.
    Accept { id: String },
    /// Never apply a rule.
    Reject { id: String },
}

/// `known` subcommands.
#[derive(Debug, Subcommand)]
pub enum KnownAction {
    /// Every decided finding.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Record a decision: a fingerprint (16 hex digits) or a triage item id of the run.
    Add {
        target: String,
        #[arg(long)]
        verdict: String,
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        run: RunArg,
    },
    /// Let a proposed security dismissal decide from the next `start`.
    Accept {
        /// A fingerprint (16 hex digits) or a triage item id of the run.
        target: String,
        #[command(flatten)]
        run: RunArg,
    },
    /// Refuse a proposed dismissal (the same as `remove`): the finding is triaged again.
    Reject {
        /// A fingerprint (16 hex digits) or a triage item id of the run.
        target: String,
        #[command(flatten)]
        run: RunArg,
    },
    /// Forget a decision: the finding goes to triage again from the next `start`.
    Remove {
        /// A fingerprint (16 hex digits) or a triage item id of the run.
        target: String,
        #[command(flatten)]
        run: RunArg,
    },
}

/// Options of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A named check in `.self-repair/config.json` (`checks.<name>`): its options and command.
    pub name: Option<String>,
    /// Run id (default `check-YYYYMMDD-HHMM`).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Fix attempts before giving up (default 5; `retry: N` in the config means N+1).
    #[arg(long, value_name = "N")]
    pub max_attempts: Option<u32>,
    /// Seconds one run of the check may take (default 120); past it, exit 124 `timeout`.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Identical failures in a row that open the circuit (default 3).
    #[arg(long, value_name = "K")]
    pub circuit_breaker: Option<u32>,
    /// The first `--`-separated command is a mechanical fixer (e.g. `cargo fmt`) run by
    /// self-repair once before the first fix attempt: `--autofix -- FIX... -- CHECK...`.
    #[arg(long)]
    pub autofix: bool,
    /// Who makes attempts 1, 2, ...: `main` (this session) or a fixer tier (default main,sonnet,opus).
    #[arg(long, value_name = "LIST")]
    pub tiers: Option<String>,
    /// First wait before rerunning a transient failure, in seconds (doubles, cap 60; default 2).
    #[arg(long, value_name = "SECS")]
    pub backoff: Option<f64>,
    /// Cancel the active run if it is still in progress (without it, `check` refuses).
    #[arg(long)]
    pub replace: bool,
    /// Seconds the Stop hook may spend running the check itself (default 25); a longer check is
    /// run by `self-repair tick`.
    #[arg(long, value_name = "SECS")]
    pub hook_budget: Option<f64>,
    /// The check command and its arguments (argv, never a shell string), after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Options of `install` and `uninstall`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Into the project's `.claude/` (default).
    #[arg(long = "project", conflicts_with = "user")]
    pub project_scope: bool,
    /// Into `~/.claude/`.
    #[arg(long)]
    pub user: bool,
    /// Print the diff of every change and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Hook events.
#[derive(Debug, Subcommand)]
pub enum HookEvent {
    /// The Stop hook: allow, or block with the next instruction.
    Stop,
    /// A turn ended on an API error: pause instead of re-blocking.
    StopFailure,
    /// At a session's start: the run summary after a compaction or resume, and a word about a
    /// waiting run in a new session.
    SessionStart,
    /// The permission gate: our agents' own commands run without a prompt, nothing else of
    /// theirs is approved (reference/permissions.md).
    PreToolUse,
    /// After one of our agents returns: its hand-back to the main session becomes one line.
    PostToolUse,
}
