//! One SARIF result on its way out: its JSON text and how much it matters when a run must be
//! cut to GitHub's limit.

use std::borrow::Cow;

use self_repair_engine::Level;

/// A result's JSON and its rank (0 is kept first).
#[derive(Debug, Clone)]
pub(crate) struct ResultEntry<'a> {
    pub(crate) json: Cow<'a, str>,
    pub(crate) rank: u8,
    pub(crate) suppressed: bool,
    /// Dismissed by this run (a suppression of ours).
    pub(crate) dismissed: bool,
    /// Real, with its task named.
    pub(crate) linked: bool,
}

impl<'a> ResultEntry<'a> {
    /// A result still open (not dismissed): ranked by level, errors first.
    pub(crate) fn open(json: impl Into<Cow<'a, str>>, level: Level) -> ResultEntry<'a> {
        let rank = match level {
            Level::Error => 0,
            Level::Warning => 1,
            Level::Note => 2,
            Level::None => 3,
        };
        ResultEntry {
            json: json.into(),
            rank,
            suppressed: false,
            dismissed: false,
            linked: false,
        }
    }

    /// A result dismissed here, or one the analyzer itself did not report as a problem
    /// (suppressed in source, `pass`, `absent`): the first to leave a run that is too big.
    pub(crate) fn closed(json: impl Into<Cow<'a, str>>) -> ResultEntry<'a> {
        ResultEntry {
            json: json.into(),
            rank: 4,
            suppressed: true,
            dismissed: false,
            linked: false,
        }
    }

    /// The entry of a result carrying `disposition`.
    pub(crate) fn decided(
        json: impl Into<Cow<'a, str>>,
        level: Level,
        disposition: &crate::disposition::Disposition,
    ) -> ResultEntry<'a> {
        let mut entry = if disposition.suppresses() {
            ResultEntry::closed(json)
        } else {
            ResultEntry::open(json, level)
        };
        entry.dismissed = disposition.suppresses();
        entry.linked = disposition.links_a_task();
        entry
    }
}
