//! What a finding's first look said when a second look checked it (reference/eval.md): the
//! `checked` rows of the table show those findings apart, so the second looks of a `real`
//! (issue 48) are seen beside those of a dismissal.

use serde::{Deserialize, Serialize};

/// The first look's answer a second look checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Checked {
    /// A `real` below `verify_below`: blind second look; a disagreement makes it `unsure`.
    Real,
    /// A `false_positive` or `intended` (below `verify_below`, or any on the security route).
    Dismissal,
    /// An `unsure` without a re-route: a deeper look.
    Unsure,
}

impl Checked {
    /// The row's name: `real`, `dismissal`, `unsure`.
    pub fn as_str(self) -> &'static str {
        match self {
            Checked::Real => "real",
            Checked::Dismissal => "dismissal",
            Checked::Unsure => "unsure",
        }
    }
}
