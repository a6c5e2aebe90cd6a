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

    /// The layout version the file says it has.
    fn schema_version(&self) -> u32;

    /// The first way a state that parses contradicts itself, if any.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

impl VersionedState for RunState {
    const SCHEMA_VERSION: u32 = STATE_SCHEMA_VERSION;

    fn schema_version(&self) -> u32 {
        self.schema_version
    }

    fn check(&self) -> Result<(), String> {
        check_state(self)
    }
}
