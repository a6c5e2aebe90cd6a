//! Assertions that collect failures instead of stopping, so one run reports every broken one.

use std::fmt::Debug;

/// The failed assertions of one scenario.
#[derive(Debug, Default)]
pub struct Checks {
    failures: Vec<String>,
}

impl Checks {
    /// No failures yet.
    pub fn new() -> Checks {
        Checks::default()
    }

    /// Records `what` as failed unless `ok`.
    pub fn that(&mut self, ok: bool, what: impl FnOnce() -> String) -> bool {
        if !ok {
            self.failures.push(what());
        }
        ok
    }

    /// Records a failure unless `got == want`.
    pub fn equal<T: PartialEq + Debug>(&mut self, what: &str, got: &T, want: &T) -> bool {
        self.that(got == want, || {
            format!("{what}: got {got:?}, expected {want:?}")
        })
    }

    /// Records a failure outright.
    pub fn fail(&mut self, what: impl Into<String>) {
        self.failures.push(what.into());
    }

    /// The failures so far.
    pub fn failures(&self) -> &[String] {
        &self.failures
    }

    /// Takes the failures.
    pub fn into_failures(self) -> Vec<String> {
        self.failures
    }
}
