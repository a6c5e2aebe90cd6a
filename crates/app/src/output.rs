//! What a command prints on standard output and the exit status it ends with: every command
//! returns one, and the binary prints it in one place.

use serde::Serialize;

use crate::app_error::{AppError, ExitStatus};

/// A command's standard output and exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The text to print (a newline is added when it lacks one).
    pub text: String,
    /// The exit status.
    pub status: ExitStatus,
}

impl Output {
    /// Text, exit 0.
    pub fn text(text: impl Into<String>) -> Output {
        Output {
            text: text.into(),
            status: ExitStatus::Success,
        }
    }

    /// Text and the status it ends with.
    pub fn with_status(text: impl Into<String>, status: ExitStatus) -> Output {
        Output {
            text: text.into(),
            status,
        }
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
