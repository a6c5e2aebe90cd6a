//! The wheel route of issue 23: the venv `pip install <wheel>` put `self-repair` into, and when.

use std::path::PathBuf;
use std::time::SystemTime;

/// A `self-repair` installed from the repo's wheel into a fresh venv (`scripts/e2e.sh` with
/// `E2E_WHEEL`): the scenarios run that venv's binary, with no Rust toolchain on their PATH.
#[derive(Debug, Clone)]
pub struct WheelInstall {
    /// The venv (`python3 -m venv`) the wheel was installed into.
    pub venv: PathBuf,
    /// When `pip install` finished.
    pub installed_at: SystemTime,
}

impl WheelInstall {
    /// The venv's `self-repair` (the one file the wheel puts on PATH).
    pub fn binary(&self) -> PathBuf {
        self.venv.join("bin/self-repair")
    }

    /// The venv's Python.
    pub fn python(&self) -> PathBuf {
        self.venv.join("bin/python")
    }
}
