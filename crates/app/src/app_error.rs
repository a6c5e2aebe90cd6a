//! Errors of the commands and the exit code each maps to (reference/cli.md has the table).

use std::path::PathBuf;

use self_repair_report::ReportError;
use self_repair_store::StoreError;

/// Exit codes, one documented table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: done.
    Success,
    /// 1: something failed (I/O, a corrupt state, a failed write).
    Failure,
    /// 2: bad usage or bad input (arguments, findings files, config).
    Usage,
    /// 3: a submission did not validate; the message says what to fix.
    Rejected,
    /// 4: no such run or item.
    NotFound,
    /// 5: conflicts with what is recorded (a different result for a done item, a run id taken).
    Conflict,
    /// 6: a repair run ended and its check still fails (quarantined, escalated, infra failure).
    GaveUp,
    /// 7: `start`/`check` refused: another run is still in progress (`--replace` cancels it).
    RunInProgress,
    /// 8: a submission for an item its run has not dispatched (never launched, or already
    /// answered differently): most likely an agent of another run.
    NotDispatched,
    /// 9: `merge` refused: the folders are not one job's N finished partitions (a share
    /// missing, given twice, or foreign); the message names each and what to do.
    NotOneJob,
    /// 10: `doctor`: a check of the setup failed (a `✗` line, which says what to do); the runs,
    /// when there are any, are fine.
    SetupIncomplete,
    /// 20: `drive` stopped: the API refused the credentials (401/403); a human must act.
    AuthRequired,
    /// 21: `drive` stopped: the circuit opened (`--max-sessions`, or sessions without progress).
    CircuitOpen,
    /// 22: `drive` stopped at a limit the user set (`--budget`, `--until`, a user pause).
    LimitReached,
    /// 23: `drive` refused a run waiting for the user's go (its likely cost is above
    /// `confirm_above_usd`): pass `--yes` or `--budget USD`.
    NeedsGo,
    /// 24: `drive --fail-on-real`: the run completed and real findings remain (a pull-request
    /// job gates on it; report.md lists them).
    FoundReal,
    /// 130: `drive` was interrupted (SIGINT/SIGTERM); the run is kept.
    Interrupted,
}

impl ExitStatus {
    /// Every status, in the order of reference/cli.md's table (a test ties the two together).
    pub const ALL: [ExitStatus; 17] = [
        ExitStatus::Success,
        ExitStatus::Failure,
        ExitStatus::Usage,
        ExitStatus::Rejected,
        ExitStatus::NotFound,
        ExitStatus::Conflict,
        ExitStatus::GaveUp,
        ExitStatus::RunInProgress,
        ExitStatus::NotDispatched,
        ExitStatus::NotOneJob,
        ExitStatus::SetupIncomplete,
        ExitStatus::AuthRequired,
        ExitStatus::CircuitOpen,
        ExitStatus::LimitReached,
        ExitStatus::NeedsGo,
        ExitStatus::FoundReal,
        ExitStatus::Interrupted,
    ];

    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Usage => 2,
            ExitStatus::Rejected => 3,
            ExitStatus::NotFound => 4,
            ExitStatus::Conflict => 5,
            ExitStatus::GaveUp => 6,
            ExitStatus::RunInProgress => 7,
            ExitStatus::NotDispatched => 8,
            ExitStatus::NotOneJob => 9,
            ExitStatus::SetupIncomplete => 10,
            ExitStatus::AuthRequired => 20,
            ExitStatus::CircuitOpen => 21,
            ExitStatus::LimitReached => 22,
            ExitStatus::NeedsGo => 23,
            ExitStatus::FoundReal => 24,
            ExitStatus::Interrupted => 130,
        }
    }
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Report(#[from] ReportError),
    /// Every ingest error names its input (file name or `stdin`) itself.
    #[error(transparent)]
    Ingest(Box<self_repair_ingest::IngestError>),
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{item}: submission rejected:\n{problems}\nFix these and run `self-repair submit {item} --run {run}` again.", problems = .problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Rejected {
        item: String,
        run: String,
        problems: Vec<String>,
    },
    #[error("{0}")]
    NotFound(String),
    /// A program we ran for the user failed: git, or a detector that exited with a code it does
    /// not accept or ran past its timeout (exit 1; a detector that cannot start is bad
    /// configuration, exit 2).
    #[error("{0}")]
    Tool(String),
    #[error("{0}")]
    Conflict(String),
    /// `submit` for an item its run has not dispatched (exit 8).
    #[error("{0}")]
    NotDispatched(String),
    /// `drive` on a run waiting for the user's go (exit 23).
    #[error("{0}")]
    NeedsGo(String),
    /// `merge` of folders that are not one job's finished partitions (exit 9).
    #[error("{0}")]
    NotOneJob(String),
    /// `start`/`check` while another run is still in progress (exit 7).
    #[error("{0}")]
    RunInProgress(String),
    /// A valid result that did not reach the journal: it does not count.
    #[error(
        "{item}: the result was NOT recorded ({source}); it does not count. Free disk space or fix the disk, then run `self-repair submit {item}` again"
    )]
    NotRecorded { item: String, source: StoreError },
    #[error(transparent)]
    Install(#[from] self_repair_install::InstallError),
    #[error(transparent)]
    Drive(#[from] self_repair_drive::DriveError),
    #[error(transparent)]
    Cost(#[from] self_repair_cost::CostError),
    /// A labels file `eval` cannot read, parse or match to the run (exit 2).
    #[error(transparent)]
    Eval(#[from] self_repair_eval::EvalError),
}

impl AppError {
    /// The exit status for this error.
    pub fn exit_status(&self) -> ExitStatus {
        match self {
            AppError::Store(
                StoreError::NoProject(_)
                | StoreError::NoSuchFolder(_)
                | StoreError::NoActiveRun(_)
                | StoreError::NoSuchRun(_),
            )
            | AppError::NotFound(_) => ExitStatus::NotFound,
            AppError::Store(StoreError::RunExists(_))
            | AppError::Conflict(_)
            | AppError::Drive(self_repair_drive::DriveError::AlreadyDriving { .. }) => {
                ExitStatus::Conflict
            }
            AppError::Store(StoreError::BadRunId(_))
            | AppError::Ingest(_)
            | AppError::Usage(_)
            | AppError::Eval(_)
            | AppError::Config { .. }
            | AppError::Drive(
                self_repair_drive::DriveError::Usage(_)
                | self_repair_drive::DriveError::Spawn { .. },
            ) => ExitStatus::Usage,
            AppError::Rejected { .. } => ExitStatus::Rejected,
            AppError::RunInProgress(_) => ExitStatus::RunInProgress,
            AppError::NeedsGo(_) => ExitStatus::NeedsGo,
            AppError::NotDispatched(_) => ExitStatus::NotDispatched,
            AppError::NotOneJob(_) => ExitStatus::NotOneJob,
            AppError::Store(_)
            | AppError::Report(_)
            | AppError::Io { .. }
            | AppError::NotRecorded { .. }
            | AppError::Install(_)
            | AppError::Tool(_)
            | AppError::Drive(_)
            | AppError::Cost(_) => ExitStatus::Failure,
        }
    }

    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> AppError {
        let path = path.into();
        move |source| AppError::Io {
            action,
            path,
            source,
        }
    }
}

impl From<self_repair_repair::RepairError> for AppError {
    fn from(e: self_repair_repair::RepairError) -> AppError {
        use self_repair_repair::RepairError;
        match e {
            RepairError::Store(e) => AppError::Store(e),
            RepairError::Usage(m) => AppError::Usage(m),
            RepairError::Config { path, message } => AppError::Config { path, message },
            RepairError::NotFound(m) | RepairError::Template(m) => AppError::NotFound(m),
            RepairError::Io {
                action,
                path,
                source,
            } => AppError::Io {
                action,
                path,
                source,
            },
        }
    }
}

/// The registries' errors: a rule that is not there is not found; anything else (a file that
/// does not read, a bad request) is the user's to fix.
impl From<self_repair_classify::ClassifyError> for AppError {
    fn from(e: self_repair_classify::ClassifyError) -> AppError {
        match e {
            self_repair_classify::ClassifyError::NoSuchRule(_) => AppError::NotFound(e.to_string()),
            other => AppError::Usage(other.to_string()),
        }
    }
}

impl From<self_repair_fix::FixError> for AppError {
    fn from(e: self_repair_fix::FixError) -> AppError {
        match e {
            self_repair_fix::FixError::NotFound(m) => AppError::NotFound(m),
            self_repair_fix::FixError::Usage(m) => AppError::Usage(m),
            e @ self_repair_fix::FixError::Git(_) => AppError::Tool(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ExitStatus;

    /// The codes of reference/cli.md's "Exit codes" table, in its order.
    fn documented_codes() -> Vec<u8> {
        let cli_md = include_str!("../../../reference/cli.md");
        let table = cli_md
            .split("## Exit codes")
            .nth(1)
            .unwrap_or_else(|| panic!("reference/cli.md has no '## Exit codes' section"));
        table
            .lines()
            .skip_while(|line| !line.starts_with('|'))
            .take_while(|line| line.starts_with('|'))
            .filter_map(|line| line.trim_start_matches('|').split('|').next())
            .filter_map(|cell| cell.trim().parse::<u8>().ok())
            .collect()
    }

    #[test]
    fn exit_code_table_in_reference_cli_md_matches_the_enum() {
        let code_of = |status: ExitStatus| match status {
            // A new variant fails to compile here until it is added to ALL and to the table.
            ExitStatus::Success
            | ExitStatus::Failure
            | ExitStatus::Usage
            | ExitStatus::Rejected
            | ExitStatus::NotFound
            | ExitStatus::Conflict
            | ExitStatus::GaveUp
            | ExitStatus::RunInProgress
            | ExitStatus::NotDispatched
            | ExitStatus::NotOneJob
            | ExitStatus::SetupIncomplete
            | ExitStatus::AuthRequired
            | ExitStatus::CircuitOpen
            | ExitStatus::LimitReached
            | ExitStatus::NeedsGo
            | ExitStatus::FoundReal
            | ExitStatus::Interrupted => status.code(),
        };
        let enum_codes: Vec<u8> = ExitStatus::ALL.iter().map(|s| code_of(*s)).collect();
        assert_eq!(
            documented_codes(),
            enum_codes,
            "reference/cli.md's exit-code table and ExitStatus disagree: add the code to both"
        );
        let mut unique = enum_codes.clone();
        unique.dedup();
        assert_eq!(unique.len(), enum_codes.len(), "two statuses share a code");
    }
}
