//! What a command prints (standard output, and notes on standard error) and the exit status it
//! ends with: every command returns one, and the binary prints it in one place.

use serde::Serialize;

use crate::app_error::{AppError, ExitStatus};

/// A command's standard output, its notes and exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The text to print (a newline is added when it lacks one).
    pub text: String,
    /// Lines for standard error, each printed as `self-repair: note: LINE`: what the user
    /// should know when standard output is the product (a SARIF log piped to a file).
    pub notes: Vec<String>,
    /// The exit status.
    pub status: ExitStatus,
}

impl Output {
    /// Text, exit 0.
    pub fn text(text: impl Into<String>) -> Output {
        Output::with_status(text, ExitStatus::Success)
    }

    /// Text and the status it ends with.
    pub fn with_status(text: impl Into<String>, status: ExitStatus) -> Output {
        Output {
            text: text.into(),
            notes: Vec::new(),
            status,
        }
    }

    /// The same output with `notes` for standard error.
    #[must_use]
    pub fn with_notes(mut self, notes: Vec<String>) -> Output {
        self.notes = notes;
        self
    }

    /// Text, exit 0 when `succeeded`, else exit 6 (the report says what did not work).
    pub fn gave_up_unless(text: impl Into<String>, succeeded: bool) -> Output {
        let status = if succeeded {
            ExitStatus::Success
        } else {
            ExitStatus::GaveUp
        };
        Output::with_status(text, status)
    }

    /// `value` as pretty JSON when `json`, else its text rendering; exit 0.
    pub fn json_or<T: Serialize>(
        json: bool,
        value: &T,
        render: impl FnOnce(&T) -> String,
    ) -> Result<Output, AppError> {
        if !json {
            return Ok(Output::text(render(value)));
        }
        serde_json::to_string_pretty(value)
            .map(Output::text)
            .map_err(|e| AppError::io("write JSON to", "standard output")(std::io::Error::other(e)))
    }
}
