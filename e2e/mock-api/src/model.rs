//! The scripted model: judges a request's thread and picks the reply its policy gives.

use serde_json::Value;

use crate::conversation::Conversation;
use crate::main_thread::main_reply;
use crate::reply::Reply;
use crate::scenario::Scenario;
use crate::sub_agent::sub_agent_reply;
use crate::thread::Thread;

/// The scripted model's summary when the client compacts the main session: what a model would
/// keep, and nothing that looks like an instruction to run (the run goes on from the
/// `SessionStart` hook's context and the next Stop hook).
pub(crate) const COMPACTION_SUMMARY: &str = "<summary>\nThe user asked to start a self-repair run. \
The run was started; its Stop hook has been dispatching sub-agents, each launched with the \
Agent tool as the hook asked. Nothing else was requested.\n</summary>";

/// How every agent definition of the plugin starts its body (`You are a self-repair triage
/// investigator.`): a sub-agent's system prompt without it is no agent of ours.
const OUR_AGENT: &str = "You are a self-repair";

/// The thread of a request body and the scripted answer to it.
pub fn respond(body: &Value, scenario: &Scenario) -> (Thread, Reply) {
    let conversation = Conversation::new(body);
    let thread = Thread::judge(&conversation, &scenario.sub_agent_marker);
    let reply = match &thread {
        Thread::Main => main_reply(&conversation, scenario),
        // Launched without `subagent_type` ([`MainHabit::ForkFirst`]): no agent definition of
        // ours in its system prompt; the scripted fork does nothing of the item.
        Thread::SubAgent { .. }
            if scenario.has(crate::scenario::MainHabit::ForkFirst)
                && !conversation.system_text().contains(OUR_AGENT) =>
        {
            Reply::text("A fork of the main session: nothing done for this item.")
        }
        Thread::SubAgent { item } => sub_agent_reply(&conversation, scenario, item.as_deref()),
        Thread::Compaction => Reply::text(COMPACTION_SUMMARY),
        Thread::Aux => Reply::text("Scripted session"),
    };
    (thread, reply)
}
