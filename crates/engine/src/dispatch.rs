//! The dispatch instruction (ARCHITECTURE §7): one line of JSON that lists the `Agent` calls to
//! make, and the standing protocol said once per session (reference/design-notes.md, note 45).

use serde::{Deserialize, Serialize};

/// Version of the dispatch JSON contract (`self_repair` field). 2: one line, the launches only
/// (and `then` when the block must say it); the run is in every `prompt`, the protocol said once.
pub const DISPATCH_VERSION: u32 = 2;

/// The longest text Claude Code takes from a hook as it is: a longer `additionalContext`,
/// block `reason` or `systemMessage` is saved to a file and replaced with a preview (measured on
/// 2.1.330 and 2.1.332), which a dispatch must never be.
pub const HOOK_TEXT_LIMIT: usize = 10_000;

/// What a dispatch's launches, protocol and model insistences may take: a wave that would pass
/// it is split (the rest goes out at the next stop), and the margin holds the progress note
/// added after the launches are chosen.
pub const DISPATCH_BUDGET: usize = HOOK_TEXT_LIMIT - 500;

/// What a text cut to fit [`HOOK_TEXT_LIMIT`] ends with.
const CUT_NOTE: &str =
    " … (cut to fit the client's hook text limit; `self-repair status` shows it all)";

/// `text` as a hook may write it: unchanged when it fits [`HOOK_TEXT_LIMIT`] (in characters),
/// else cut at a character boundary and ended with a note naming `self-repair status`. A
/// dispatch never needs it (its waves split); it bounds the run summaries and lines whose
/// parts (ids, counts, paths) are each bounded but not together.
pub fn fit_hook_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().count() <= HOOK_TEXT_LIMIT {
        return std::borrow::Cow::Borrowed(text);
    }
    let keep = HOOK_TEXT_LIMIT - CUT_NOTE.chars().count();
    let cut: String = text.chars().take(keep).collect();
    std::borrow::Cow::Owned(cut + CUT_NOTE)
}

/// How the JSON of a block reason starts.
pub const DISPATCH_START: &str = "{\"self_repair\":";

/// What the main session must do after launching (said in a dispatch that stands alone: a repair
/// run's fixer launch; a triage run says it once, in [`PROTOCOL`]).
pub const THEN: &str = "end your turn; do not read or relay the agents' results";

/// How the main session answers every dispatch of a triage run, said once to each session that
/// drives it (`start`'s output, or its first block, and the `SessionStart` context after a
/// compaction or a resume), so that each block is little more than its JSON: the client shows a
/// block reason twice, and Claude Code 2.1.332 adds about 440 bytes of its own around it.
pub const PROTOCOL: &str = "For each JSON dispatch of the Stop hook, launch every entry of \
`launch` with the Agent tool, all in one message, each entry verbatim as the call's input, then \
end your turn; never read or relay the agents' results.";

/// What follows the one line that says how a run ended, paused or stalled, in the one block
/// that carries it: a hook's `systemMessage` reaches neither the model nor `claude -p` output,
/// the session's last message does (reference/design-notes.md, note 15).
pub const RELAY_INSTRUCTION: &str =
    "Reply with exactly the line above as your whole message, then end your turn. Do nothing else.";

/// The block reason that relays `line`.
pub fn relay_reason(line: &str) -> String {
    format!("{line}\n{RELAY_INSTRUCTION}")
}

/// The run's progress in a dispatch, in a few words: the agents that ended of the likely total
/// over every phase (the figures of `status` and `statusline`) and the dollars the hook's ledger
/// shows spent, of the budget: `12 of ~75 agents, $0.42/$5.00`. `waiting` is what live
/// batches and surveys hold ([`crate::held_items::HeldItems::waiting`]), walked once a stop.
pub(crate) fn progress_note(
    state: &crate::RunState,
    waiting: &crate::held_items::HeldItems,
    spend: Option<&crate::Spend>,
) -> String {
    let behind = crate::agents_behind(state);
    let ahead = crate::agent_estimate::agents_ahead_of(state, waiting);
    let (_, ahead, _) = crate::total_agents(&ahead);
    let mut note = format!("{behind} of ~{} agents", behind + ahead);
    if let Some(spend) = spend {
        note.push_str(&format!(", ${:.2}", spend.spent_micros as f64 / 1e6));
        if let Some(budget) = state.config.budget_usd {
            note.push_str(&format!("/${budget:.2}"));
        }
    }
    note
}

/// One `Agent` tool call, field for field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    pub subagent_type: String,
    pub model: String,
    pub description: String,
    pub prompt: String,
    /// `false` in foreground launch mode; absent (the client's default, background) otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_in_background: Option<bool>,
    /// The item it launches (not part of the `Agent` tool's input).
    #[serde(skip)]
    pub item: String,
}

impl Launch {
    /// The entry as the dispatch writes it, on one line.
    pub fn render_json(&self) -> String {
        let quote = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
        format!(
            "{{\"subagent_type\":{},\"model\":{},\"description\":{},\"prompt\":{}{}}}",
            quote(&self.subagent_type),
            quote(&self.model),
            quote(&self.description),
            quote(&self.prompt),
            self.run_in_background
                .map_or_else(String::new, |b| format!(",\"run_in_background\":{b}"))
        )
    }
}

/// The JSON of a block reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dispatch {
    pub self_repair: u32,
    /// The whole run's progress, for the user who sees the block: agents done of the likely
    /// total and dollars spent of the budget ([`progress_note`]); a triage run's only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<String>,
    pub launch: Vec<Launch>,
    /// What to do after launching, when the session has not been told it once ([`THEN`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<String>,
    /// The text that precedes the JSON block (empty for most blocks of a triage run).
    #[serde(skip)]
    pub summary: String,
}

impl Dispatch {
    /// The JSON, on one line: `{"self_repair":2,"launch":[{...},...]}`.
    pub fn render_json(&self) -> String {
        let quote = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
        let launches: Vec<String> = self.launch.iter().map(Launch::render_json).collect();
        let then = self
            .then
            .as_deref()
            .map_or_else(String::new, |then| format!(",\"then\":{}", quote(then)));
        let progress = self
            .progress
            .as_deref()
            .map_or_else(String::new, |p| format!(",\"progress\":{}", quote(p)));
        format!(
            "{{\"self_repair\":{}{progress},\"launch\":[{}]{then}}}",
            self.self_repair,
            launches.join(","),
        )
    }

    /// The block `reason` the model reads: the summary, if any, then the JSON.
    pub fn render_reason(&self) -> String {
        if self.summary.is_empty() {
            self.render_json()
        } else {
            format!("{}\n{}", self.summary, self.render_json())
        }
    }

    /// Extracts the dispatch from a block reason (what tools and tests use).
    pub fn parse_reason(reason: &str) -> Option<Dispatch> {
        let start = reason.find(DISPATCH_START)?;
        let mut dispatch: Dispatch = serde_json::Deserializer::from_str(&reason[start..])
            .into_iter()
            .next()?
            .ok()?;
        reason[..start]
            .strip_suffix('\n')
            .unwrap_or(&reason[..start])
            .clone_into(&mut dispatch.summary);
        for launch in &mut dispatch.launch {
            // `self-repair item <id> --run <run>`
            launch.item = launch
                .prompt
                .split_whitespace()
                .nth(2)
                .unwrap_or_default()
                .to_owned();
        }
        Some(dispatch)
    }
}
