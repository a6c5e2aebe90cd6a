//! Protocol fidelity: how closely the main session followed the dispatches. The app counts it
//! from the run's journal (each stop's dispatch, and the launches the session's transcripts
//! show at the next stops); this crate only carries and says it.

use serde::{Deserialize, Serialize};

/// What the dispatches asked for against what the main session launched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protocol {
    /// Whether any launch was read from the session's transcripts: false for a run driven
    /// through the hook alone (a harness), whose launch figures are then unknown.
    pub launches_read: bool,
    /// Stops the hook decided, and of them those with no result submitted (and no task shown)
    /// since the stop before.
    pub stops: u32,
    pub stops_without_progress: u32,
    /// Stops that dispatched, and the launches they asked for in all.
    pub dispatches: u32,
    pub entries: u32,
    /// Launched as asked, with the `model` asked for.
    pub verbatim: u32,
    /// Launched with another `model`.
    pub model_changed: u32,
    /// Launched without `model` (the agent definition's default tier ran).
    pub model_dropped: u32,
    /// Never launched before the item was dispatched again or the run ended.
    pub not_launched: u32,
    /// Refused by the user or a permission rule at the launch.
    pub refused_by_user: u32,
    /// Launches of an item with no dispatch of it open: the same entry launched twice.
    pub launched_twice: u32,
    /// Launches the client altered (reference/eval.md, "Protocol fidelity"): calls with no
    /// `subagent_type` (the client runs a fork of the main session, never taken as the item's
    /// agent), agents whose own transcript ran a model no dispatch of their item asked for,
    /// and launches the client ran in the background in a foreground run.
    #[serde(default)]
    pub forks: u32,
    #[serde(default)]
    pub ran_other_model: u32,
    #[serde(default)]
    pub background_in_foreground: u32,
    /// Each session's dispatch channel, why, and what it did with the dispatches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<String>,
}

impl Protocol {
    /// One line: `12 dispatches, 40 launches asked: 38 verbatim, ...; 2 of 15 stops without
    /// progress`.
    pub fn summary(&self) -> String {
        let asked = format!(
            "{} dispatches, {} launches asked",
            self.dispatches, self.entries
        );
        let stops = format!(
            "{} of {} stops without progress",
            self.stops_without_progress, self.stops
        );
        if !self.launches_read {
            return format!(
                "{asked}; launches not read (no transcripts: a run driven through the hook \
                 alone); {stops}{}",
                self.channels_said()
            );
        }
        let mut line = format!(
            "{asked}: {} verbatim, {} with another model, {} without model, {} never launched, \
             {} refused at the launch, {} launched twice; altered by the client: {} fork(s) \
             without subagent_type, {} ran on another model, {} in the background in a \
             foreground run; {stops}",
            self.verbatim,
            self.model_changed,
            self.model_dropped,
            self.not_launched,
            self.refused_by_user,
            self.launched_twice,
            self.forks,
            self.ran_other_model,
            self.background_in_foreground
        );
        line.push_str(&self.channels_said());
        line
    }

    /// `; channel: session 1a2b3c4d block (...)`, one per session; empty when none is known.
    fn channels_said(&self) -> String {
        if self.channels.is_empty() {
            return String::new();
        }
        format!("; channel: {}", self.channels.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::Protocol;

    #[test]
    fn the_summary_says_each_count_and_each_channel() {
        let mut protocol = Protocol {
            launches_read: true,
            stops: 15,
            stops_without_progress: 2,
            dispatches: 12,
            entries: 40,
            verbatim: 30,
            model_changed: 1,
            model_dropped: 2,
            not_launched: 3,
            refused_by_user: 4,
            launched_twice: 5,
            forks: 6,
            ran_other_model: 7,
            background_in_foreground: 8,
            channels: Vec::new(),
        };
        assert_eq!(
            protocol.summary(),
            "12 dispatches, 40 launches asked: 30 verbatim, 1 with another model, 2 without \
             model, 3 never launched, 4 refused at the launch, 5 launched twice; altered by the \
             client: 6 fork(s) without subagent_type, 7 ran on another model, 8 in the \
             background in a foreground run; 2 of 15 stops without progress"
        );
        protocol.channels = vec![
            "session 1a2b block".to_owned(),
            "session 3c4d tool".to_owned(),
        ];
        assert!(
            protocol.summary().ends_with(
                "; 2 of 15 stops without progress; channel: session 1a2b block; session 3c4d tool"
            ),
            "{}",
            protocol.summary()
        );
        protocol.launches_read = false;
        assert_eq!(
            protocol.summary(),
            "12 dispatches, 40 launches asked; launches not read (no transcripts: a run driven \
             through the hook alone); 2 of 15 stops without progress; channel: session 1a2b \
             block; session 3c4d tool"
        );
    }
}
