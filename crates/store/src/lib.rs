//! The on-disk store: project and run folders, the run lock, the append-only journal, atomic
//! state writes, and recovery.

#[cfg(test)]
mod commit_protocol_tests;
mod journal;
mod new_run;
mod partition_results;
mod project;
mod result_commit;
mod run_dir;
#[cfg(test)]
mod run_dir_tests;
mod run_id;
mod run_lock;
mod state_check;
#[cfg(test)]
mod state_check_tests;
mod state_format;
mod state_head;
#[cfg(test)]
mod state_layout_tests;
mod store_error;
mod team_files;
mod versioned_state;
mod write_atomic;

pub use journal::{Journal, JournalLine, JournalTail};
pub use new_run::{NewRun, STAGING_PREFIX, remove_abandoned_staging};
pub use partition_results::copy_partition_results;
pub use project::{Project, STORE_DIR};
pub use result_commit::{CommitError, Committed, NewResult};
pub use run_dir::{
    FoldReport, LOCK_TIMEOUT, Manifest, RunDir, RunKind, write_json, write_json_rows,
};
pub use run_id::{check_run_id, is_safe_item_id};
pub use run_lock::{RunLock, lock_registry};
pub use state_format::ShallowPretty;
pub use state_head::HEAD_SCHEMA_VERSION;
pub use store_error::StoreError;
pub use team_files::{GITATTRIBUTES, GITIGNORE, TeamFiles, TeamFilesLeft};
pub use versioned_state::VersionedState;
pub use write_atomic::{replace_rebuildable, write_atomic, write_atomic_with};
