//! The one way self-repair runs another program: argv (never a shell string), a working
//! folder, stdin closed or fed given bytes, an optional timeout that kills the whole process group (a `sh -c`
//! wrapper's children too), and one exit-code mapping; `git` is built on it.

// Process groups and signals are Unix's: Linux and macOS; on Windows, build and run in WSL
// (README.md, "Install"). Said here once instead of as a page of errors from std::os::unix.
#[cfg(not(unix))]
compile_error!("self-repair builds on Linux and macOS; on Windows, use WSL");

mod git;
mod process_run;

pub use git::{Git, GitError};
pub use process_run::{Captured, ProcessOutcome, ProcessRequest, SpawnError, run_process};
