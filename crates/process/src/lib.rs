//! The one way self-repair runs another program: argv (never a shell string), a working
//! folder, stdin closed or fed given bytes, an optional timeout that kills the whole process group (a `sh -c`
//! wrapper's children too), and one exit-code mapping; `git` is built on it.

mod git;
mod process_run;

pub use git::{Git, GitError};
pub use process_run::{Captured, ProcessOutcome, ProcessRequest, SpawnError, run_process};
