//! self-repair report (placeholder until built).
