//! What a Stop hook's input says, reduced to what either pipeline decides on.

use std::path::PathBuf;

use self_repair_engine::Audience;

/// One stop of a session, as the frame and both pipelines read it.
#[derive(Debug, Clone, Default)]
pub struct StopInput {
    /// The session that stopped.
    pub session: String,
    /// Descriptions of the background tasks the client lists as running; `None` when it sent
    /// no `background_tasks` (older clients: leases decide then).
    pub running: Option<Vec<String>>,
    /// The main session's transcript: the `Agent` calls it really made, and what it cost.
    pub transcript: Option<PathBuf>,
    /// The first stop of a turn (`stop_hook_active: false`): someone asked the session to go on.
    pub new_turn: bool,
    /// The text of the session's last message.
    pub last_message: Option<String>,
    /// Whether a user watches the terminal (`CLAUDE_CODE_SESSION_ATTENDED`).
    pub audience: Audience,
    /// Unix seconds.
    pub now: u64,
}

impl StopInput {
    /// Item ids named in the running tasks' descriptions (`triage t-00042` names `t-00042`).
    #[must_use]
    pub fn running_items(&self) -> Option<Vec<String>> {
        let running = self.running.as_ref()?;
        Some(
            running
                .iter()
                .flat_map(|d| d.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')))
                .filter(|token| {
                    self_repair_store::is_safe_item_id(token)
                        && self_repair_engine::ItemKind::of_id(token).is_some()
                })
                .map(str::to_owned)
                .collect(),
        )
    }

    /// Whether a running task's description names `item` (`fix-3`).
    #[must_use]
    pub fn names_running(&self, item: &str) -> bool {
        self.running.as_deref().unwrap_or(&[]).iter().any(|d| {
            d.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .any(|token| token == item)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(running: Option<&[&str]>) -> StopInput {
        StopInput {
            running: running.map(|r| r.iter().map(|d| (*d).to_owned()).collect()),
            ..StopInput::default()
        }
    }

    #[test]
    fn running_items_are_the_item_ids_the_descriptions_name() {
        // (the running tasks' descriptions, the item ids they name)
        type Case<'a> = (Option<&'a [&'a str]>, Option<&'a [&'a str]>);
        let long = format!("t-{}", "0".repeat(70));
        let too_long = format!("triage {long}");
        let cases: [Case; 5] = [
            (None, None),
            (Some(&[]), Some(&[])),
            // Words that are no item (`triage`, `run`), a prefix no kind has (`x-1`).
            (
                Some(&["triage t-00042", "write task tw-g1; run r-1", "x-1"]),
                Some(&["t-00042", "tw-g1"]),
            ),
            // Cut at anything but letters, digits and `-`: `(t-00001)` and `t-00002,`.
            (
                Some(&["(t-00001) and t-00002,"]),
                Some(&["t-00001", "t-00002"]),
            ),
            // An id of a known kind that is no safe id (over 64 bytes) is not one.
            (Some(&[too_long.as_str()]), Some(&[])),
        ];
        for (running, expected) in cases {
            let got = input(running).running_items();
            let expected = expected.map(|e| e.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
            assert_eq!(got, expected, "{running:?}");
        }
    }

    #[test]
    fn a_running_task_names_an_item_only_as_a_whole_word() {
        let cases: [(Option<&[&str]>, &str, bool); 7] = [
            (None, "fix-3", false),
            (Some(&[]), "fix-3", false),
            (Some(&["fix fix-3"]), "fix-3", true),
            (Some(&["other", "repair (fix-3)."]), "fix-3", true),
            (Some(&["fix fix-30"]), "fix-3", false),
            (Some(&["fix-3x fix"]), "fix-3", false),
            (Some(&["triage t-00001"]), "fix-3", false),
        ];
        for (running, item, expected) in cases {
            assert_eq!(
                input(running).names_running(item),
                expected,
                "{running:?} {item}"
            );
        }
    }
}
