//! The key that says "the same finding" across a fix: the fingerprint without the source line.

use self_repair_engine::Finding;

/// The finding's fingerprint computed without its line text (tool, rule, path, symbol or
/// normalized message). The full fingerprint hashes the flagged line, so an edit to that line
/// that leaves the finding in place (a renamed variable, a reformatted call) would give a new
/// fingerprint and look fixed; this key does not move with the line's text.
pub fn finding_key(finding: &Finding) -> String {
    self_repair_ingest::fingerprint(finding, None)
}
