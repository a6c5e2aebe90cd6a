//! One run's proposals in `known.json` without decoding the whole registry: `status` on a
//! finished run names the dismissals waiting for `known accept`, and at 100,000 entries
//! (34 MB) decoding every line cost it 450 ms. Only the lines that can matter are decoded: a
//! line that can be a proposal (it names `proposed`), every other line of the same fingerprint
//! (one fingerprint on two lines keeps the later decision), and any line whose fingerprint a
//! plain look cannot read.

use std::collections::HashSet;
use std::path::Path;

use crate::ClassifyError;
use crate::known_registry::{KnownEntry, KnownLineIn, KnownRegistry};
use crate::registry_text::{RegistryText, bad_line, read_registry, split};

impl KnownRegistry {
    /// The proposals (`proposed`) of run `run` in the registry file at `path`, by fingerprint:
    /// what [`KnownRegistry::load_file`] then a filter on `proposed` and `source` gives, decoding
    /// only the lines that can be one of them or another line of one's fingerprint. A line that
    /// does not decode is an error only when it is one of those (the whole file's check is
    /// `known list`'s).
    pub fn proposals_of(
        path: &Path,
        run: &str,
    ) -> Result<Vec<(String, KnownEntry)>, ClassifyError> {
        let Some(text) = read_registry(path)? else {
            return Ok(Vec::new());
        };
        let lines = match split(&text, path, &["entries"])? {
            RegistryText::Lines(lines) => lines,
            // A single document (older versions, or by hand): decoded whole.
            RegistryText::Document(_) => {
                let known = KnownRegistry::parse(&text, path)?;
                return Ok(proposals_in(known, run));
            }
        };
        let decode = |number: usize, line: &str| {
            serde_json::from_str::<KnownLineIn>(line)
                .map(|read| (number, read))
                .map_err(|e| bad_line(path, number, &e.to_string()))
        };
        // The lines that can be a proposal: `proposed` written plainly, or a `\u` escape that
        // could spell it.
        let mut decoded = Vec::new();
        let mut rest = Vec::new();
        for &(number, line) in &lines {
            if line.contains("proposed") || line.contains("\\u") {
                decoded.push(decode(number, line)?);
            } else {
                rest.push((number, line));
            }
        }
        let wanted: HashSet<String> = decoded
            .iter()
            .filter(|(_, read)| read.entry.proposed && read.entry.source == run)
            .map(|(_, read)| read.fingerprint.clone())
            .collect();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        // Every other line of those fingerprints, found by the fingerprint each line starts
        // with (as self-repair writes them); a line that does not start so is decoded.
        for (number, line) in rest {
            match plain_fingerprint(line) {
                Some(fingerprint) if !wanted.contains(fingerprint) => {}
                _ => decoded.push(decode(number, line)?),
            }
        }
        decoded.sort_unstable_by_key(|(number, _)| *number);
        let mut known = KnownRegistry::default();
        for (_, read) in decoded {
            if wanted.contains(&read.fingerprint) {
                known.keep_later(read.fingerprint, read.entry, read.decided_at);
            }
        }
        Ok(proposals_in(known, run))
    }
}

/// The fingerprint a line starts with, `{"fingerprint":"…"`, when it holds no escape (then the
/// text between the quotes is the fingerprint itself).
fn plain_fingerprint(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("{\"fingerprint\":\"")?;
    let end = rest.find(['"', '\\'])?;
    (rest.as_bytes()[end] == b'"').then(|| &rest[..end])
}

/// The proposals of run `run` in `known`.
fn proposals_in(known: KnownRegistry, run: &str) -> Vec<(String, KnownEntry)> {
    known
        .entries
        .into_iter()
        .filter(|(_, e)| e.proposed && e.source == run)
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use self_repair_engine::Verdict;

    use crate::KnownRegistry;
    use crate::registry_file_tests::entry;

    /// What `status` asked before: the whole file decoded, then filtered.
    fn by_full_read(path: &Path, run: &str) -> Vec<(String, crate::KnownEntry)> {
        KnownRegistry::load_file(path)
            .unwrap()
            .entries
            .into_iter()
            .filter(|(_, e)| e.proposed && e.source == run)
            .collect()
    }

    fn line(fingerprint: &str, source: &str, proposed: bool, decided_at: &str) -> String {
        let mut value = serde_json::to_value(entry(Verdict::FalsePositive, source)).unwrap();
        value["proposed"] = serde_json::json!(proposed);
        let mut text = format!("{{\"fingerprint\":\"{fingerprint}\",");
        let fields = serde_json::to_string(&value).unwrap();
        text.push_str(&fields[1..fields.len() - 1]);
        text.push_str(&format!(",\"decided_at\":\"{decided_at}\"}}"));
        text
    }

    #[test]
    fn a_runs_proposals_read_from_the_lines_that_can_hold_them_agree_with_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("known.json");
        let lines = [
            "{\"schema_version\":2,\"about\":\"x\"}".to_owned(),
            // A proposal of the run, alone.
            line("fp-1", "r-1", true, "2026-01-01T00:00:00Z"),
            // Another run's proposal, and a decision of the run.
            line("fp-2", "r-2", true, "2026-01-01T00:00:00Z"),
            line("fp-3", "r-1", false, "2026-01-01T00:00:00Z"),
            // Decided later on another line (a union merge): no longer a proposal...
            line("fp-4", "r-1", true, "2026-01-01T00:00:00Z"),
            line("fp-5", "r-1", true, "2026-01-01T00:00:00Z"),
            // ...unless the other line is older: the proposal stands.
            line("fp-6", "r-1", true, "2026-03-01T00:00:00Z"),
            // Written by hand: spaces, and a key spelled with an escape.
            "{ \"fingerprint\": \"fp-7\", \"verdict\": \"false_positive\", \"reason\": \"r\", \
             \"source\": \"r-1\", \"propos\\u0065d\": true }"
                .to_owned(),
            line("fp-4", "manual", false, "2026-02-01T00:00:00Z"),
            line("fp-6", "manual", false, "2026-02-01T00:00:00Z"),
            // Equally old: the later line is kept.
            line("fp-5", "r-1", false, "2026-01-01T00:00:00Z"),
            // A decision the run made before the proposal it became, written by hand.
            "{\"verdict\":\"real\",\"reason\":\"r\",\"source\":\"r-1\",\"fingerprint\":\"fp-8\"}"
                .to_owned(),
            line("fp-8", "r-1", true, "2026-01-01T00:00:00Z"),
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let cheap = KnownRegistry::proposals_of(&path, "r-1").unwrap();
        assert_eq!(cheap, by_full_read(&path, "r-1"));
        let names: Vec<&str> = cheap.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(names, ["fp-1", "fp-6", "fp-7", "fp-8"]);
        assert_eq!(
            KnownRegistry::proposals_of(&path, "r-2").unwrap(),
            by_full_read(&path, "r-2")
        );
        assert!(
            KnownRegistry::proposals_of(&path, "r-9")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn the_single_document_form_and_a_missing_file_read_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("known.json");
        assert!(
            KnownRegistry::proposals_of(&path, "r-1")
                .unwrap()
                .is_empty()
        );
        let mut proposal = serde_json::to_value(entry(Verdict::FalsePositive, "r-1")).unwrap();
        proposal["proposed"] = serde_json::json!(true);
        let document = serde_json::json!({"schema_version": 1, "entries": {"fp-1": proposal,
            "fp-2": entry(Verdict::Real, "r-1")}});
        std::fs::write(&path, serde_json::to_string_pretty(&document).unwrap()).unwrap();
        let cheap = KnownRegistry::proposals_of(&path, "r-1").unwrap();
        assert_eq!(cheap, by_full_read(&path, "r-1"));
        assert_eq!(cheap.len(), 1);
    }

    #[test]
    fn a_damaged_line_that_could_be_a_proposal_is_an_error_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("known.json");
        let text = format!(
            "{{\"schema_version\":2}}\n{}\n{{\"fingerprint\":\"fp-2\",\"proposed\":tru\n",
            line("fp-1", "r-1", true, "2026-01-01T00:00:00Z")
        );
        std::fs::write(&path, text).unwrap();
        let err = KnownRegistry::proposals_of(&path, "r-1").unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
    }

    #[test]
    fn a_damaged_line_of_a_fingerprint_no_proposal_of_the_run_names_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("known.json");
        // fp-2 is another run's proposal and fp-3 the run's own decision: neither is wanted,
        // so their damaged second lines are left to `known list`.
        let text = format!(
            "{{\"schema_version\":2}}\n{}\n{}\n{}\n{{\"fingerprint\":\"fp-2\",broken\n{{\"fingerprint\":\"fp-3\",broken\n",
            line("fp-1", "r-1", true, "2026-01-01T00:00:00Z"),
            line("fp-2", "r-2", true, "2026-01-01T00:00:00Z"),
            line("fp-3", "r-1", false, "2026-01-01T00:00:00Z"),
        );
        std::fs::write(&path, text).unwrap();
        let names: Vec<String> = KnownRegistry::proposals_of(&path, "r-1")
            .unwrap()
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(names, ["fp-1"]);
    }

    #[test]
    fn a_later_decision_on_a_line_without_proposed_still_ends_the_proposal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("known.json");
        let text = format!(
            "{{\"schema_version\":2}}\n{}\n{}\n{}\n",
            line("fp-1", "r-1", true, "2026-01-01T00:00:00Z"),
            line("fp-9", "r-1", true, "2026-01-01T00:00:00Z"),
            "{\"fingerprint\":\"fp-9\",\"verdict\":\"real\",\"reason\":\"r\",\"source\":\"manual\",\"decided_at\":\"2026-02-01T00:00:00Z\"}",
        );
        std::fs::write(&path, text).unwrap();
        let cheap = KnownRegistry::proposals_of(&path, "r-1").unwrap();
        assert_eq!(cheap, by_full_read(&path, "r-1"));
        let names: Vec<&str> = cheap.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(names, ["fp-1"]);
    }
}
