//! The pure phase engine: run state + event + time in, run state + decision out. No I/O here.

mod finding;

pub use finding::{Finding, Level};
