//! `apply-fixes` against clippy itself: the edits kept from clippy's real JSON on a small crate,
//! applied by self-repair, give the very file `cargo clippy --fix` gave
//! (tests/fixtures/clippy-fix/README.md).

use std::path::Path;

use self_repair_engine::FindingRecord;
use self_repair_ingest::{Format, IngestOptions, parse};

use crate::edit_application::{FixOutcome, apply_analyzer_edits};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/clippy-fix");
    std::fs::read_to_string(path.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn clippy_s_machine_applicable_edits_applied_by_self_repair_match_cargo_clippy_fix() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(root.path().join("src")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.path().join("src/main.rs"), fixture("main.rs"))
        .unwrap_or_else(|e| panic!("{e}"));
    let options = IngestOptions::new("clippy.jsonl", root.path()).with_fix_edits();
    let parsed = parse(&fixture("clippy-1.95.jsonl"), Format::Clippy, &options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.findings.len(), 6);
    let records: Vec<FindingRecord> = parsed
        .findings
        .into_iter()
        .map(|finding| FindingRecord {
            fingerprint: String::new(),
            occurrences: Vec::new(),
            item: None,
            predecided: None,
            finding,
        })
        .collect();
    let applied = apply_analyzer_edits(root.path(), &records);
    let outcomes: Vec<&FixOutcome> = applied.fixes.iter().map(|f| &f.outcome).collect();
    assert_eq!(
        outcomes,
        [
            &FixOutcome::Applied(1),
            &FixOutcome::Applied(1),
            &FixOutcome::Applied(2),
            &FixOutcome::Applied(1),
            &FixOutcome::Applied(1),
            &FixOutcome::Applied(1),
        ]
    );
    let fixed = std::fs::read_to_string(root.path().join("src/main.rs")).unwrap_or_default();
    assert_eq!(fixed, fixture("main.clippy-fixed.rs"));
}
