//! self-repair ingest (placeholder until built).
