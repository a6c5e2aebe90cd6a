//! Tests of the mock Messages API: SSE encoding, the schema-driven result generator, the
//! scripted policies on hand-made conversations and the HTTP server over real sockets (the
//! probe against the real Claude Code client is its own target, `real-client`, run by `just e2e`).

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test support outside #[test] functions: a failed setup step is a failed test"
)]

mod generator;
mod measurement;
mod policy;
mod server;
mod sse;
