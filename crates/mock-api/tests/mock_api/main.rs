//! Tests of the mock Messages API: SSE encoding, the schema-driven result generator, the
//! scripted policies on hand-made conversations, the HTTP server over real sockets, and one
//! probe against the real Claude Code client (`real_client`).

mod generator;
mod measurement;
mod policy;
mod real_client;
mod server;
mod sse;
