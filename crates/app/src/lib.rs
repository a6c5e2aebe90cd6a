//! The commands of `self-repair`, as library functions the binary calls: each takes a
//! [`CommandEnv`] (folder, time, session, process facts) so outputs are reproducible in tests.
//!
//! - [`commands`]: one module per command (`start`, `status`, `show`, `fix`, ...), each with a
//!   `run` the binary calls and returning an [`Output`].
//! - [`hooks`]: the Claude Code hook entry points (stop, stop-failure, session-start,
//!   pre- and post-tool-use).
//! - `prompts`: what `show` renders for an item (triage, survey, plans, reviews).
//! - `run`: what several commands share about one run (configuration, cost, progress, reports).

mod app_error;
mod command_env;
pub mod commands;
pub mod hooks;
mod man_page;
mod output;
mod prompts;
pub mod run;

pub use app_error::{AppError, ExitStatus};
pub use command_env::CommandEnv;
pub use man_page::man_page;
pub use output::Output;
