//! The command line (clap derive): the subcommands and their help. Each command's own arguments
//! live with the command, in `self_repair_app::commands`. Every command has `--help`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use self_repair_app::commands::{
    RunArg, check, demo, detect, doctor, drive, eval, export, finalize, fix, init, install, known,
    merge, next, refs, rules, runs, show, start, status, statusline, steer, submit,
};
use self_repair_app::hooks::HookEvent;

/// Works through every analyzer finding inside one Claude Code session: triage by sub-agents,
/// root-cause groups, reviewed fix plans, backlog tasks. A Stop hook drives it.
#[derive(Debug, Parser)]
#[command(name = "self-repair", version, about, max_term_width = 100)]
pub(crate) struct Cli {
    /// Project root (default: the nearest folder with `.self-repair/`, else the git root).
    #[arg(long = "root", short = 'C', global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Read findings, merge identical ones, route them, and create the project's active run.
    Start(start::StartArgs),
    /// Phase, progress per phase, groups, tasks, and what to do next.
    Status(status::StatusArgs),
    /// One line for Claude Code's status bar: run, phase, a bar over the whole run, dollars,
    /// ETA. Reads the client's JSON on stdin; prints nothing when no run is in progress.
    Statusline(statusline::StatuslineArgs),
    /// Write `.self-repair/config.json`'s detectors and test command from what the project has.
    ///
    /// pyproject.toml/ruff.toml/setup.cfg: ruff, pytest when configured; package.json: eslint,
    /// npm test; Cargo.toml: clippy, cargo test. Merged into an existing config (its entries
    /// win unless --force); prints what it wrote and why; `--dry-run` prints it only.
    Init(init::InitArgs),
    /// Run the detectors of `.self-repair/config.json` and report what they found.
    Detect(detect::DetectArgs),
    /// Deterministic rules: list them, accept or reject proposals.
    Rules {
        #[command(subcommand)]
        action: rules::RulesAction,
    },
    /// The registry of findings already decided (`known.json`).
    Known {
        #[command(subcommand)]
        action: known::KnownAction,
    },
    /// The instruction the Stop hook would give now, without changing anything.
    Next(next::NextArgs),
    /// The rendered task of a work item, for its agent.
    Show(show::ShowArgs),
    /// Same as `show` (an agent's prompt is `self-repair item <id>`).
    Item(show::ShowArgs),
    /// Record an agent's result for an item (JSON; markdown for plans and reviews).
    Submit(submit::SubmitArgs),
    /// Stop driving the run until `resume`.
    Pause(steer::SteerArgs),
    /// Continue a paused or stalled run.
    Resume(steer::ResumeArgs),
    /// End the run for good; the hook never drives it again.
    Cancel(steer::SteerArgs),
    /// Bind the run to this Claude Code session (resume a run in a new session).
    Adopt(steer::AdoptArgs),
    /// Run the job unattended: relaunch headless `claude -p` sessions until the run ends.
    Drive(drive::DriveArgs),
    /// The fix loop's composite check for one task of a triage run: the analyzer re-run, the
    /// tests, the guard against weakened checks (reference/fix.md). Exit 0 fixed, 6 not.
    VerifyTask(fix::verify_task::VerifyTaskArgs),
    /// The fix loop's autofix for one task: the analyzer's own edits for its findings, kept at
    /// `start`, applied where the files still hold the text they expect (reference/fix.md).
    /// Exit 0 when every fix applied, 6 when one did not.
    ApplyFixes(fix::apply_fixes::ApplyFixesArgs),
    /// Fix a triage run's tasks one at a time, each a repair run checked by `verify-task`
    /// (reference/fix.md). Exit 0 while it goes on or once all are fixed, 6 when one was not.
    Fix(fix::FixArgs),
    /// After `fix --commit`: each fixed task as its own branch and draft pull request, through
    /// `gh`; run again, it updates them (reference/fix.md). Exit 0, or 6 when one could not.
    PullRequests(fix::pull_requests::PullRequestsArgs),
    /// The error catalog of the driven sessions (`errors.jsonl`).
    Errors(drive::RunViewArgs),
    /// The run's journal, drive log and cost records as one time-ordered view.
    Timeline(drive::RunViewArgs),
    /// List the project's runs.
    Runs(runs::RunsArgs),
    /// Check the setup, then every run (rebuilding unreadable run states from their journals).
    ///
    /// The setup: the binary on PATH, the hooks, the plugin and client versions, the project's
    /// trust, git, the backlog CLI, the detectors; one ✓/✗ line each with what to do. Exit 10
    /// when a setup check fails, 5 when a run could not be repaired.
    Doctor(doctor::DoctorArgs),
    /// Write tasks and reports now (normally done by the hook when every phase is done).
    Finalize(finalize::FinalizeArgs),
    /// The run's verdicts out to where teams keep findings: SARIF with suppressions and task
    /// links (`export sarif`), or the `gh api` calls that dismiss GitHub code scanning alerts
    /// (`export github-dismissals`, printed, never sent). See reference/export.md.
    Export(export::ExportArgs),
    /// Score a run's verdicts against a labels file, with what they cost (reference/eval.md).
    ///
    /// Precision, recall, unsafe closures, false alarms, abstentions, agents, tokens and dollars
    /// per route, per tier and in all. Prints the table (or `--json`) and writes `eval.md` and
    /// `eval.svg` into the run folder.
    Eval(eval::EvalArgs),
    /// References to a symbol in the project (word boundaries, `.gitignore` honoured).
    Refs(refs::RefsArgs),
    /// Run the whole pipeline on bundled real findings with a SIMULATED agent (no model).
    Demo(demo::DemoArgs),
    /// Combine the run folders of one job's partitions (`start --partition hash:K/N --until
    /// triage`) into one run that goes on from aggregation: groups and tasks over every share.
    Merge(merge::MergeArgs),
    /// Start a repair run: rerun a failing check until it passes, bounded and escalating
    /// (`self-repair check -- cargo test`; `--autofix -- cargo fmt -- cargo test`).
    Check(check::CheckArgs),
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
    /// Register the hooks, agents, skill and status line without the plugin manager (no
    /// permission rule: the `PreToolUse` gate decides our commands).
    Install(install::InstallArgs),
    /// Remove exactly what `install` added.
    Uninstall(install::InstallArgs),
}
