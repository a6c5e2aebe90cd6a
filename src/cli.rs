//! The command line (clap derive): the subcommands and their help. Each command's own arguments
//! live with the command, in `self_repair_app::commands`. Every command has `--help`.

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};
use self_repair_app::commands::{
    RunArg, audit, check, demo, detect, doctor, drive, eval, export, finalize, fix, init, install,
    known, merge, next, refs, rules, runs, show, start, status, statusline, steer, submit,
};
use self_repair_app::hooks::HookEvent;

/// `--version`: the semver, then the commit and its date when built in a git clone
/// (`self-repair 0.1.0 (abc1234 2026-11-29)`; build.rs).
pub(crate) const VERSION: &str =
    concat!(env!("CARGO_PKG_VERSION"), env!("SELF_REPAIR_BUILD_SUFFIX"));

/// Works through every analyzer finding inside one Claude Code session: triage by sub-agents,
/// root-cause groups, reviewed fix plans, backlog tasks. A Stop hook drives it.
#[derive(Debug, Parser)]
#[command(name = "self-repair", version = VERSION, about, max_term_width = 100)]
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
    /// A person checks a sample of a run's dismissals: labels kept, wrong ones reopened, the
    /// bound on the unsafe-closure rate (reference/audit.md).
    ///
    /// A disagreement reopens the finding as real. In the terminal (line prompts: agree, disagree with a reason, skip), or as a Markdown
    /// checklist (`--write FILE`, then `--read FILE`); both resume. Answers go to
    /// `.self-repair/audit.jsonl`. Refused inside Claude Code or another coding agent.
    Audit(audit::AuditArgs),
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
    /// Remove what `install` added (`.self-repair/.gitignore` and `.gitattributes` only when
    /// unedited and alone in `.self-repair/`: a store in use keeps them).
    Uninstall(install::InstallArgs),
    /// Print the completion script for a shell (bash, zsh, fish, elvish, powershell).
    ///
    /// bash: `self-repair completions bash > ~/.local/share/bash-completion/completions/self-repair`;
    /// zsh: into a folder of `$fpath` as `_self-repair`; fish: `~/.config/fish/completions/self-repair.fish`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `self-repair man > ~/.local/share/man/man1/self-repair.1`.
    Man,
}

/// The commands of `--help`, by what they are for: every command is in one group (a test
/// checks it), in the order a user meets them.
const GROUPS: [(&str, &[&str]); 8] = [
    (
        "Run a triage",
        &[
            "start", "status", "next", "pause", "resume", "cancel", "adopt", "drive", "finalize",
            "merge",
        ],
    ),
    (
        "Look at a run",
        &["runs", "statusline", "errors", "timeline", "eval", "refs"],
    ),
    ("Decide findings once", &["known", "rules", "audit"]),
    (
        "Fix",
        &["fix", "verify-task", "apply-fixes", "pull-requests"],
    ),
    ("Repair a check", &["check", "tick"]),
    ("Export", &["export"]),
    (
        "Set up",
        &[
            "init",
            "detect",
            "install",
            "uninstall",
            "doctor",
            "demo",
            "completions",
            "man",
        ],
    ),
    (
        "Run by the hooks and the agents",
        &["hook", "show", "item", "submit"],
    ),
];

/// The command line, its `--help` listing the commands in [`GROUPS`].
pub(crate) fn command() -> clap::Command {
    let command = Cli::command();
    let width = command
        .get_subcommands()
        .map(|sub| sub.get_name().len())
        .max()
        .unwrap_or(0);
    let mut groups = String::new();
    for (heading, names) in GROUPS {
        groups.push_str(&format!("{heading}:\n"));
        for name in names {
            let about = command
                .find_subcommand(name)
                .and_then(clap::Command::get_about)
                .map(ToString::to_string)
                .unwrap_or_default();
            groups.push_str(&format!("  {name:width$}  {about}\n"));
        }
        groups.push('\n');
    }
    command.help_template(format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{groups}Options:\n{{options}}{{after-help}}"
    ))
}

/// The commit of `--version`'s `(abc1234 2026-11-29)`, when the build knew it.
pub(crate) fn build_commit() -> Option<String> {
    env!("SELF_REPAIR_BUILD_SUFFIX")
        .trim()
        .trim_start_matches('(')
        .split_whitespace()
        .next()
        .map(str::to_owned)
}

/// `completions SHELL`: the script `clap_complete` writes for the whole command line.
pub(crate) fn completions(shell: clap_complete::Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "self-repair", &mut script);
    String::from_utf8_lossy(&script).into_owned()
}

/// `man`: the man page, rendered from the same definitions (`self_repair_app::man_page`).
pub(crate) fn man_page() -> String {
    self_repair_app::man_page(&Cli::command())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_in_one_group_of_the_help() {
        let listed: Vec<&str> = GROUPS
            .iter()
            .flat_map(|(_, names)| names.iter().copied())
            .collect();
        let mut commands: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|sub| sub.get_name().to_owned())
            .collect();
        commands.sort();
        let mut sorted: Vec<String> = listed.iter().map(|name| (*name).to_owned()).collect();
        sorted.sort();
        assert_eq!(
            sorted, commands,
            "a command missing from GROUPS, or listed twice"
        );
    }
}
