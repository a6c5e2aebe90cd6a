//! One module per command. Each defines its arguments (a clap `Args` type, which is also its
//! request) and `run(env, args) -> Result<Output, AppError>`, the only thing the binary calls;
//! the functions beside it are what tests and other commands reuse.

pub mod audit;
pub mod check;
pub mod demo;
pub mod detect;
pub mod doctor;
pub mod drive;
pub mod eval;
pub mod export;
pub mod finalize;
pub mod fix;
pub mod init;
pub mod install;
pub mod known;
pub mod merge;
pub mod next;
pub mod refs;
pub mod rules;
pub mod runs;
pub mod show;
pub mod start;
pub mod status;
pub mod statusline;
pub mod steer;
pub mod submit;

use std::io::{IsTerminal, Read};

use clap::Args;
use self_repair_store::{Project, RunDir};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::run::handle::RunHandle;

/// Which run a command acts on.
#[derive(Debug, Clone, Default, Args)]
pub struct RunArg {
    /// Run id (default: the project's active run).
    #[arg(long, value_name = "ID")]
    pub run: Option<String>,
}

impl RunArg {
    /// The project and the run this argument names (the active run by default).
    pub fn open(&self, env: &CommandEnv) -> Result<(Project, RunHandle), AppError> {
        let project = env.find_project()?;
        let dir = project.run_or_active(self.run.as_deref())?;
        Ok((project, RunHandle::open(dir)))
    }

    /// The project and the triage run this argument names; a repair run is refused, saying
    /// that `what` is for triage runs.
    pub fn open_triage(&self, env: &CommandEnv, what: &str) -> Result<(Project, RunDir), AppError> {
        let (project, handle) = self.open(env)?;
        Ok((project, handle.triage(what)?))
    }
}

/// Standard input as text when it is piped, `None` at a terminal.
pub(crate) fn piped_stdin() -> Result<Option<String>, AppError> {
    if std::io::stdin().is_terminal() {
        return Ok(None);
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| AppError::Usage(format!("cannot read standard input: {e}")))?;
    Ok(Some(text))
}

/// Reads a `--budget USD`: a number of dollars above 0. Negative numbers reach it (the flags
/// that use it allow them), so `--budget -5` says what is wrong instead of clap's tip to write
/// `-- -5`, which would make `-5` a findings file or a `claude` argument.
pub(crate) fn dollars_above_zero(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd > 0.0 => Ok(usd),
        Ok(_) => Err(format!(
            "{text} dollars: give an amount above 0, e.g. --budget 20"
        )),
        Err(_) => Err(format!(
            "`{text}` is not a number of dollars: write e.g. --budget 20"
        )),
    }
}
