//! The fix loop's composite check: a task of a triage run counts as fixed only when the analyzer
//! that found its group no longer reports it (and reports nothing new in the files the fix
//! touched), the project's tests pass, and neither the tests nor the analyzer's configuration
//! were weakened to get there. The repair engine runs it as its check (`self-repair verify-task`).

mod analyzer_verdict;
mod changed_file;
mod edit_application;
mod edit_preview;
mod finding_key;
mod fix_error;
mod fix_queue;
mod task_check;
mod task_commit_replay;
mod task_pull_request;
mod task_target;
mod task_update;
mod test_run;
mod tree_changes;
mod weakening;

#[cfg(test)]
mod analyzer_fix_fixture_tests;
#[cfg(test)]
mod corpus_edit_tests;
#[cfg(test)]
mod ruff_fixture_tests;

pub use analyzer_verdict::AnalyzerVerdict;
pub use changed_file::{ChangeKind, ChangedFile, parse_unified_diff};
pub use edit_application::{
    EditApplication, FindingFix, FixOutcome, apply_analyzer_edits, apply_to_text,
    preview_analyzer_edits,
};
pub use edit_preview::{EditPreview, EditedFile};
pub use finding_key::finding_key;
pub use fix_error::FixError;
pub use fix_queue::{
    FIX_QUEUE_FILE, FIX_QUEUE_SCHEMA_VERSION, FIX_TASK_FILE, FixQueue, FixStatus, FixTaskLink,
    QueuedTask,
};
pub use task_check::{TASK_CHECK_FAILED_EXIT, TaskCheck};
pub use task_commit_replay::replay_task_commit;
pub use task_pull_request::{
    ClosedFinding, OpenPullRequest, PULL_REQUEST_BODY_LIMIT, PullRequestEvidence, TaskPullRequest,
    pull_request_branch, render_pull_request_body,
};
pub use task_target::TaskTarget;
pub use task_update::{FixRecord, mark_task_done};
pub use test_run::{TestRun, run_test_command};
pub use tree_changes::tree_changes;
pub use weakening::{Weakening, find_weakenings, is_analyzer_config, is_test_file};
