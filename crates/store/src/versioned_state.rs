//! What a run kind's `state.json` type tells the store's one loader: the layout version it
//! reads and what a file that parses must also satisfy.

use serde::de::DeserializeOwned;

use self_repair_engine::{RunState, STATE_SCHEMA_VERSION};

use crate::state_check::check_state;

/// The state of one kind of run, as [`crate::RunDir::load_state_as`] reads it: a file that does
/// not parse or [`VersionedState::check`] rejects is kept aside as `state.json.corrupt`; one of
/// another layout version is refused.
pub trait VersionedState: DeserializeOwned {
    /// The layout version this self-repair reads.
    const SCHEMA_VERSION: u32;

    /// The oldest layout version this self-repair still reads (and upgrades in memory, so the
    /// next save writes [`VersionedState::SCHEMA_VERSION`]).
    const OLDEST_READ: u32 = Self::SCHEMA_VERSION;

    /// The layout version the file says it has.
    fn schema_version(&self) -> u32;

    /// Whether this self-repair reads a file of layout `version`.
    fn reads(version: u32) -> bool {
        (Self::OLDEST_READ..=Self::SCHEMA_VERSION).contains(&version)
    }

    /// Marks a state read from an older layout as of this one (nothing else changes in
    /// memory: the older layouts differ only in how the file writes the same state).
    fn upgrade(&mut self) {}

    /// The first way a state that parses contradicts itself, if any.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

impl VersionedState for RunState {
    const SCHEMA_VERSION: u32 = STATE_SCHEMA_VERSION;
    /// Layout 1 wrote the triage batches as objects in `items.work`; 2 as columns
    /// (`items.batches`). A run started by a self-repair of layout 1 resumes.
    const OLDEST_READ: u32 = 1;

    fn schema_version(&self) -> u32 {
        self.schema_version
    }

    fn check(&self) -> Result<(), String> {
        check_state(self)
    }

    fn upgrade(&mut self) {
        self.schema_version = STATE_SCHEMA_VERSION;
    }
}
