//! self-repair install (placeholder until built).
