//! A person's answer on one finding.

/// What the person said about the run's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The verdict stands.
    Agree,
    /// The verdict is wrong, and why (required: it becomes the finding's reason).
    Disagree(String),
    /// Not answered now; asked again on the next session.
    Skip,
}

impl Answer {
    /// `agree`, `disagree`, `skip`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Answer::Agree => "agree",
            Answer::Disagree(_) => "disagree",
            Answer::Skip => "skip",
        }
    }
}
