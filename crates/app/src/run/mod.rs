//! What several commands and hooks share about one run: the project's configuration, the run's
//! inputs, its cost and progress, the bill and its confirmation, the registry proposals, and the
//! reports written when it ends.

pub mod confirm;
pub mod cost;
pub mod finalize;
pub mod in_progress;
pub mod inputs;
pub mod load;
pub mod preflight;
pub mod progress;
pub mod project_config;
pub mod proposals;
pub mod status_line;
