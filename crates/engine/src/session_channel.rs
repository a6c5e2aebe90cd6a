//! The channel a session's dispatches go by (reference/design-notes.md, note 63): the Stop
//! event's `additionalContext` or `decision: block`, chosen per session and adapted to what the
//! session follows. A stop that reads the transcript after a dispatch and finds nothing of it
//! launched moves the session to the other channel; a client known to reject Stop
//! `additionalContext` gets `block` from its first dispatch; `dispatch_as` overrides both. Pure:
//! the stop's own fields (`launches_read`, `launched`, `client`) decide, so a rebuild from the
//! journal chooses the same.

use serde::{Deserialize, Serialize};

use crate::{DispatchAs, RunState, StopEvent};

/// The first client version whose Stop event accepts `hookSpecificOutput.additionalContext`:
/// older ones reject it ("JSON validation failed") and the dispatch never reaches the model.
pub const FIRST_CONTEXT_CLIENT: (u32, u32, u32) = (2, 1, 163);

/// Sessions whose channel a run keeps; an older one is forgotten (a run is driven by one
/// session at a time, each `adopt` adds one).
const KEPT_SESSIONS: usize = 32;

/// How a dispatch continues the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The Stop event's `hookSpecificOutput.additionalContext` (a system reminder).
    #[default]
    Context,
    /// `decision: "block"` with the dispatch as its `reason` (hook feedback).
    Block,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Context => "context",
            Channel::Block => "block",
        }
    }

    fn other(self) -> Channel {
        match self {
            Channel::Context => Channel::Block,
            Channel::Block => Channel::Context,
        }
    }
}

/// Why a session's dispatches go by their channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelReason {
    /// `dispatch_as: auto` and nothing known against it: `additionalContext`.
    #[default]
    Default,
    /// `dispatch_as` in the run's config names the channel: never adapted.
    Config,
    /// The session's client is older than [`FIRST_CONTEXT_CLIENT`]: `block`, never adapted.
    OldClient,
    /// A dispatch on the other channel was not launched at all.
    Ignored,
}

impl ChannelReason {
    /// In words, for `status`, the timeline and `eval` (`channel`: the one chosen).
    pub fn words(self, channel: Channel, client: Option<&str>) -> String {
        match self {
            ChannelReason::Default => "the default".to_owned(),
            ChannelReason::Config => "dispatch_as in config.json".to_owned(),
            ChannelReason::OldClient => format!(
                "client {} rejects Stop additionalContext",
                client.unwrap_or("older than 2.1.163")
            ),
            ChannelReason::Ignored => format!(
                "{} dispatch was never launched",
                match channel.other() {
                    Channel::Context => "an additionalContext",
                    Channel::Block => "a block",
                }
            ),
        }
    }
}

/// One session's channel and what it did with the dispatches.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SessionChannel {
    pub session: String,
    pub channel: Channel,
    #[serde(default)]
    pub reason: ChannelReason,
    /// The client version its transcript shows (`version` of its rows), once read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// Dispatches sent on each channel.
    #[serde(default, skip_serializing_if = "crate::item::is_zero")]
    pub by_context: u32,
    #[serde(default, skip_serializing_if = "crate::item::is_zero")]
    pub by_block: u32,
    /// Dispatches of which the next stop's read found nothing launched.
    #[serde(default, skip_serializing_if = "crate::item::is_zero")]
    pub ignored: u32,
    /// Times the channel changed because a dispatch was ignored.
    #[serde(default, skip_serializing_if = "crate::item::is_zero")]
    pub switches: u32,
    /// The items of its last dispatch, until the next stop reads whether any was launched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub awaiting: Vec<String>,
}

impl SessionChannel {
    /// The session's first 8 characters: enough to tell sessions apart in one line.
    pub fn short_session(&self) -> String {
        self.session.chars().take(8).collect()
    }

    /// One line: `block (an additionalContext dispatch was never launched), client 2.1.330; 1
    /// by additionalContext, 4 by block, 1 never launched, 1 switch(es)`.
    pub fn describe(&self) -> String {
        let mut line = format!(
            "{} ({})",
            self.channel.as_str(),
            self.reason.words(self.channel, self.client.as_deref())
        );
        if let Some(client) = &self.client {
            line.push_str(&format!(", client {client}"));
        }
        line.push_str(&format!(
            "; {} by additionalContext, {} by block, {} never launched, {} switch(es)",
            self.by_context, self.by_block, self.ignored, self.switches
        ));
        line
    }
}

/// Whether a client version (`2.1.120`) is known to reject Stop `additionalContext`; a version
/// that does not parse is not known to.
pub fn rejects_context(version: &str) -> bool {
    let mut parts = version.trim().split('.').map(str::parse::<u32>);
    let (Some(Ok(major)), Some(Ok(minor)), Some(Ok(patch))) =
        (parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    (major, minor, patch) < FIRST_CONTEXT_CLIENT
}

/// Reads what this stop shows about the bound session's channel: the client version, and
/// whether the last dispatch was acted on at all (nothing of it launched, shown or answered:
/// the other channel from the next dispatch on, unless config or the client fixes the
/// channel). Called before the stop reconciles the items in flight. Returns true when the
/// state changed.
pub(crate) fn observe(state: &mut RunState, stop: &StopEvent) -> bool {
    let Some(session) = stop.session.as_deref() else {
        return false;
    };
    let fixed = fixed_by_config(state.config.dispatch_as);
    let followed = followed(state, session, stop);
    let Some(entry) = state.channels.iter_mut().find(|c| c.session == session) else {
        if stop.client.is_none() {
            return false;
        }
        let mut entry = new_entry(session, fixed);
        note_client(&mut entry, stop.client.as_deref(), fixed);
        push(state, entry);
        return true;
    };
    let mut changed = note_client(entry, stop.client.as_deref(), fixed);
    if entry.awaiting.is_empty() || !stop.launches_read {
        return changed;
    }
    entry.awaiting.clear();
    changed = true;
    if !followed {
        entry.ignored += 1;
        if entry.reason != ChannelReason::Config && entry.reason != ChannelReason::OldClient {
            entry.channel = entry.channel.other();
            entry.reason = ChannelReason::Ignored;
            entry.switches += 1;
        }
    }
    changed
}

/// Counts the bound session's next dispatch, of `items`, on its channel: the next stop reads
/// whether any of them was launched.
pub(crate) fn for_dispatch(state: &mut RunState, items: Vec<String>) {
    let Some(session) = state.session.clone() else {
        return;
    };
    let fixed = fixed_by_config(state.config.dispatch_as);
    if !state.channels.iter().any(|c| c.session == session) {
        push(state, new_entry(&session, fixed));
    }
    let Some(entry) = state.channels.iter_mut().find(|c| c.session == session) else {
        return;
    };
    match entry.channel {
        Channel::Context => entry.by_context += 1,
        Channel::Block => entry.by_block += 1,
    }
    entry.awaiting = items;
}

/// Whether anything shows the session acted on its last dispatch: a launch of one of its items
/// read at this stop, one of them running, or one of them answered or its task shown since (folded before the stop
/// is decided; a harness that submits without a transcript launch still followed it).
fn followed(state: &RunState, session: &str, stop: &StopEvent) -> bool {
    let Some(entry) = state.channels.iter().find(|c| c.session == session) else {
        return true;
    };
    entry.awaiting.iter().any(|id| {
        stop.launched.iter().any(|l| &l.item == id)
            || stop.running.as_ref().is_some_and(|r| r.contains(id))
            || state.item(id).is_some_and(|item| {
                item.status != crate::ItemStatus::Dispatched || item.seen_running
            })
    })
}

/// The channel of the dispatch the bound session was just sent, and, when it is the session's
/// first by this channel, why it goes by it (for the journal's `dispatched` line).
pub fn dispatch_channel(state: &RunState) -> (Channel, Option<String>) {
    let Some(entry) = state
        .session
        .as_deref()
        .and_then(|s| state.channels.iter().find(|c| c.session == s))
    else {
        return (current_channel(state), None);
    };
    let first = match entry.channel {
        Channel::Context => entry.by_context == 1,
        Channel::Block => entry.by_block == 1,
    };
    let why = first.then(|| entry.reason.words(entry.channel, entry.client.as_deref()));
    (entry.channel, why)
}

/// The channel the bound session's dispatches go by now (what a line relayed to it must use
/// too): the default for a session with none recorded.
pub fn current_channel(state: &RunState) -> Channel {
    state
        .session
        .as_deref()
        .and_then(|s| state.channels.iter().find(|c| c.session == s))
        .map_or_else(
            || fixed_by_config(state.config.dispatch_as).unwrap_or_default(),
            |c| c.channel,
        )
}

fn fixed_by_config(dispatch_as: DispatchAs) -> Option<Channel> {
    match dispatch_as {
        DispatchAs::Auto => None,
        DispatchAs::Context => Some(Channel::Context),
        DispatchAs::Block => Some(Channel::Block),
    }
}

fn new_entry(session: &str, fixed: Option<Channel>) -> SessionChannel {
    SessionChannel {
        session: session.to_owned(),
        channel: fixed.unwrap_or_default(),
        reason: if fixed.is_some() {
            ChannelReason::Config
        } else {
            ChannelReason::Default
        },
        ..SessionChannel::default()
    }
}

/// Records the client version a stop read; an old client moves the session to `block` unless
/// config fixed its channel.
fn note_client(entry: &mut SessionChannel, client: Option<&str>, fixed: Option<Channel>) -> bool {
    let Some(client) = client else {
        return false;
    };
    if entry.client.as_deref() == Some(client) {
        return false;
    }
    entry.client = Some(client.to_owned());
    if fixed.is_none() && rejects_context(client) {
        entry.channel = Channel::Block;
        entry.reason = ChannelReason::OldClient;
    } else if entry.reason == ChannelReason::OldClient {
        // The session moved to a newer client (a resumed session): the default again.
        entry.channel = Channel::Context;
        entry.reason = ChannelReason::Default;
    }
    true
}

fn push(state: &mut RunState, entry: SessionChannel) {
    if state.channels.len() >= KEPT_SESSIONS {
        state.channels.remove(0);
    }
    state.channels.push(entry);
}

#[cfg(test)]
#[path = "session_channel_tests.rs"]
mod tests;
