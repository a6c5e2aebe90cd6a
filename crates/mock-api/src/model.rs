//! The scripted model: judges a request's thread and picks the reply its policy gives.

use serde_json::Value;

use crate::conversation::Conversation;
use crate::main_thread::main_reply;
use crate::reply::Reply;
use crate::scenario::Scenario;
use crate::sub_agent::sub_agent_reply;
use crate::thread::Thread;

/// The thread of a request body and the scripted answer to it.
pub fn respond(body: &Value, scenario: &Scenario) -> (Thread, Reply) {
    let conversation = Conversation::new(body);
    let thread = Thread::judge(&conversation, &scenario.sub_agent_marker);
    let reply = match &thread {
        Thread::Main => main_reply(&conversation, scenario),
        Thread::SubAgent { item } => sub_agent_reply(&conversation, scenario, item.as_deref()),
        Thread::Aux => Reply::text("Scripted session"),
    };
    (thread, reply)
}
