//! self-repair store (placeholder until built).
