//! One adapter per analyzer output format, each producing `Finding`s.

pub(crate) mod bandit;
pub(crate) mod borrowed_text;
pub(crate) mod clippy;
pub(crate) mod eslint;
pub(crate) mod github_alerts;
pub(crate) mod jsonl;
pub(crate) mod knip;
pub(crate) mod ruff;
pub(crate) mod sarif;
pub(crate) mod sarif_log;
pub(crate) mod sarif_stream;
pub(crate) mod text_location;
pub(crate) mod ts_prune;
pub(crate) mod vulture;
