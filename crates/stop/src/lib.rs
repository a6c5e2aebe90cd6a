//! The one Stop frame both pipelines answer a stop through (issue 33): the hook adapter in
//! `app` reads the input and picks the run; [`answer_stop`] locks, loads, checks the binding,
//! lets the pipeline decide, saves and answers with the one [`StopAnswer`] type. A triage run's
//! rules are the engine's (`decide_stop`, driven by [`TriageStop`]); a repair run's are crate
//! `repair`'s. What the frame reads on the way: the agents the main session launched since the
//! last stop ([`session_agents`]) and the cost its transcripts grew by ([`stop_cost`]).

pub mod session_agents;
pub mod stop_answer;
pub mod stop_cost;
pub mod stop_frame;
pub mod stop_input;

pub use session_agents::{SessionAgents, agents_since_last_stop};
pub use stop_answer::StopAnswer;
pub use stop_cost::{account_stop, part_of, spend, with_cost_and_duration};
pub use stop_frame::{
    StopPipeline, TriageHost, TriageRun, TriageStop, answer_stop, load_or_answer,
};
pub use stop_input::StopInput;
