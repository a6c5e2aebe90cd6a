//! The pure phase engine: run state + event + time in, run state + decision out. No I/O here:
//! no clock, no file system, no environment; the caller passes the time in.

mod advance;
mod agent_estimate;
mod apply;
mod batch_table;
mod budget;
#[cfg(test)]
mod budget_tests;
mod config;
mod confirm;
mod create_run;
mod decide_stop;
mod dispatch;
#[cfg(test)]
mod dispatch_size_tests;
#[cfg(test)]
mod doc_tables_tests;
mod duplicate_chain;
mod event;
mod finding;
mod group_label;
mod held_items;
mod item;
mod item_table;
mod launch_bound;
#[cfg(test)]
mod launch_bound_tests;
mod lenient_json;
mod member_list;
mod merge_partitions;
mod phase;
mod plan_depth;
mod review_asks;
#[cfg(test)]
mod revise_tests;
mod route;
mod rule_survey;
mod run_head;
mod run_scope;
mod run_state;
mod schema;
mod schema_line;
#[cfg(test)]
mod schema_sampler;
mod session_channel;
mod shown_status;
mod stable_hash;
mod stop_answer;
mod submission;
#[cfg(test)]
mod submission_contract_tests;
mod template;
mod test_paths;
#[cfg(test)]
mod test_support;
mod tier;
pub mod timestamp;
mod triage_batch;
mod two_looks;
#[cfg(test)]
mod two_looks_tests;
mod verification;

pub use agent_estimate::{KindAgents, agents_ahead, agents_behind, likely, total_agents};
pub use apply::{apply, item_input};
pub use budget::{Spend, default_micros, estimate_micros, to_micros};
pub use config::{
    CLIENT_AGENT_LIMIT, CLIENT_CONTINUATION_CAP, Config, ConfigError, DEFAULT_CONFIRM_ABOVE_USD,
    DispatchAs, KindTiers, LaunchMode, MAX_AGENT_PREFIX, MAX_STALL_BLOCKS, SecurityScope,
};
pub use confirm::{wait_for_go, waiting_line};
pub use create_run::{RoutedFinding, create_run, triage_id};
pub use decide_stop::{Decision, Outcome, REFUSED_BY_PROVIDER, decide_stop, settle, summary};
pub use dispatch::{
    DISPATCH_BUDGET, DISPATCH_START, DISPATCH_VERSION, Dispatch, HOOK_TEXT_LIMIT, Launch, PROTOCOL,
    RELAY_INSTRUCTION, THEN, fit_hook_text, relay_reason,
};
pub use duplicate_chain::{ChainEnd, chain_end};
pub use event::{AgentLaunch, Event, JournalEntry, StopEvent};
pub use finding::{
    AnalyzerFix, Finding, FindingRecord, FixApplicability, FixEdit, Level, Occurrence, Predecided,
};
pub use group_label::label_key;
pub use item::{
    ItemExtra, ItemKind, ItemStatus, MAX_LAUNCHES_PER_ITEM, MAX_RESENDS, Verdict, WorkItem,
};
pub use launch_bound::{CEILING_FACTOR, CEILING_FLOOR, LaunchCeiling, launch_bound, launched};
pub use lenient_json::{LenientJson, lenient_json};
pub use member_list::{MemberList, id_number};
pub use merge_partitions::{
    ForeignWhy, JobProblem, MergedRun, MergedShare, PartitionRun, job_problems, merge_partitions,
};
pub use phase::Phase;
pub use plan_depth::PlanDepth;
pub use review_asks::{
    MOST_POINTS, ReviewAsks, ReviewVerdict, ask_review, is_rework, review_section,
};
pub use route::{ROUTES, Route, default_route, route, route_names};
pub use rule_survey::{
    SurveyPolicy, SurveyRecord, SurveyResult, SurveyStage, survey_members_held, survey_of,
};
pub use run_head::RunHead;
pub use run_scope::{PartitionScope, RunScope};
pub use run_state::{
    FailureStreak, Group, Intake, PauseReason, PhaseCounts, PhaseIds, ProposedGroup, RunState,
    RunStatus, STATE_SCHEMA_VERSION, TaskRecord,
};
pub use schema::{EachOnce, Field, Pattern, Rule, Schema, trim_markdown};
pub use session_channel::{
    Channel, ChannelReason, FIRST_CONTEXT_CLIENT, SessionChannel, current_channel,
    dispatch_channel, rejects_context,
};
pub use shown_status::ShownStatus;
pub use stable_hash::StableHash;
pub use stop_answer::{Audience, continuation, continue_with, dispatch_answer, say_line};
pub use submission::{
    AggregateGroup, AggregateResult, BatchVerdict, ItemInput, LabelMerge, LabelMergeResult,
    PointOutcome, Rejection, ReviseResult, RevisedPoint, Submission, TaskDraft, TriageBatchResult,
    TriageResult, output_schema, parse_submission, parse_value,
};
pub use template::{
    COMMON_PLACEHOLDERS, REPAIR_COMMON_PLACEHOLDERS, TEMPLATE_PLACEHOLDERS,
    debug_assert_placeholders, render_template, template_placeholders,
};
pub use test_paths::{DEFAULT_TEST_PATHS, MOST_TEST_PATHS, claims_test_code, test_code_pattern};
pub use tier::Tier;
pub use triage_batch::{batch_members_held, batch_of};
pub use two_looks::{Registered, closes, registered};
pub use verification::{
    VerifyOutcome, VerifyReason, holds_second_looks, needs_verification, settle_verdict,
    triage_id_of_verify, verification_held, verifier_of, verify_id,
};
