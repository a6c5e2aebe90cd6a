//! A person audits a sample of a run's closed findings: the stratified, seeded sample, the
//! answers kept as labels `eval` reads (`.self-repair/audit.jsonl`, one line a finding, sorted,
//! so branches merge), the exact (Clopper-Pearson) bound on the unsafe-closure rate, the gate a
//! team sets, the Markdown checklist and the terminal prompts (reference/audit.md). The app
//! fills the candidates from a run folder and does the file I/O; nothing here reads the store.

mod agent_guard;
mod audit_answer;
mod audit_candidate;
mod audit_error;
mod audit_figure;
mod audit_gate;
mod audit_label;
mod audit_record;
mod audit_sample;
mod binomial_bound;
mod checklist;
mod terminal_session;

#[cfg(test)]
mod edge_case_tests;
#[cfg(test)]
mod known_answer_tests;

pub use agent_guard::{AGENT_VARIABLES, agent_marker};
pub use audit_answer::Answer;
pub use audit_candidate::{AgentAnswer, AuditCandidate};
pub use audit_error::AuditError;
pub use audit_figure::{AuditFigure, AuditRow};
pub use audit_gate::{AuditPolicy, GateStatus};
pub use audit_label::{AUDIT_FILE, AuditLabel, AuditLabels};
pub use audit_record::AuditRecord;
pub use audit_sample::draw_sample;
pub use binomial_bound::{sample_size_for, upper_bound};
pub use checklist::{ChecklistAnswer, parse_checklist, render_checklist};
pub use terminal_session::{SessionEnd, ask_in_terminal};
