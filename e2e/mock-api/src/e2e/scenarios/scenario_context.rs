//! What a scenario works with: the tools, its checks, its figures and notes.

use std::thread;
use std::time::{Duration, Instant};

use crate::e2e::checks::Checks;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::figures::Figures;
use crate::e2e::tools::Tools;

/// A running scenario's state.
#[derive(Debug)]
pub(crate) struct ScenarioContext {
    pub(crate) tools: Tools,
    pub(crate) checks: Checks,
    pub(crate) figures: Vec<Figures>,
    pub(crate) notes: Vec<String>,
}

impl ScenarioContext {
    pub(crate) fn new(tools: &Tools) -> ScenarioContext {
        ScenarioContext {
            tools: tools.clone(),
            checks: Checks::new(),
            figures: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The deadline of one `claude -p`.
    pub(crate) fn claude_timeout(&self) -> Duration {
        Duration::from_secs(self.tools.claude_timeout)
    }
}

/// Polls `ready` every 100 ms until it holds or `seconds` pass.
pub(crate) fn wait_for(
    what: &str,
    seconds: u64,
    mut ready: impl FnMut() -> Result<bool, E2eError>,
) -> Result<(), E2eError> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(seconds) {
        if ready()? {
            return Ok(());
        }
        thread::sleep(Duration::from_millis(100));
    }
    Err(E2eError::Timeout {
        what: what.to_owned(),
        seconds,
    })
}
