//! Tests of the mock Messages API: SSE encoding, the schema-driven result generator, the
//! scripted policies on hand-made conversations and the HTTP server over real sockets (the
//! probe against the real Claude Code client is its own target, `real-client`, run by `just e2e`).

mod generator;
mod measurement;
mod policy;
mod server;
mod sse;
