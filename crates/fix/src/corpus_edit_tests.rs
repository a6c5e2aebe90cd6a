//! `apply-fixes` on a large real corpus: Ruff 0.17.6's 701 safe fixes on Jinja2 3.1.6
//! (tests/fixtures/corpus/README.md), kept at ingest and applied in one pass. Measured by hand
//! on the result: Ruff 0.17.6 (`ruff check --select ALL --isolated`) then reports 69 safe fixes
//! (40 UP006, 15 UP007, 14 UP045), where `ruff check --fix` itself leaves 1.

use std::path::{Path, PathBuf};

use self_repair_engine::FindingRecord;
use self_repair_ingest::{Format, IngestOptions, parse};

use crate::edit_application::{FixOutcome, apply_analyzer_edits};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/corpus/jinja2-3.1.6")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{e}"));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{e}")) {
        let entry = entry.unwrap_or_else(|e| panic!("{e}"));
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// One pass applies what does not overlap: 69 fixes nest in another's edit (`Optional[List[X]]`
/// gets UP045 and UP006, each rewriting its part), and Ruff itself needs a second pass for them
/// (`ruff check --fix` re-checks; one pass of ours leaves exactly 69 safe fixes for a re-run).
#[test]
fn ruff_s_safe_fixes_on_jinja2_apply_in_one_pass_but_for_the_nested_ones() {
    let text = std::fs::read_to_string(corpus().join("ruff-0.17.6-select-all-isolated.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    let options = IngestOptions::new("ruff.json", corpus())
        .with_base("/tmp/corpus/jinja2-3.1.6")
        .with_fix_edits();
    let parsed = parse(&text, Format::Ruff, &options).unwrap_or_else(|e| panic!("{e}"));
    let safe = parsed.findings.iter().filter(|f| f.has_safe_fix()).count();
    let records: Vec<FindingRecord> = parsed
        .findings
        .into_iter()
        .filter(|f| f.fix.as_ref().is_some_and(|x| !x.edits.is_empty()))
        .map(|finding| FindingRecord::new("", finding))
        .collect();
    assert_eq!((safe, records.len()), (701, 701));
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    copy_tree(&corpus().join("src"), &root.path().join("src"));
    let applied = apply_analyzer_edits(root.path(), &records);
    let count = |f: fn(&FixOutcome) -> bool| applied.fixes.iter().filter(|x| f(&x.outcome)).count();
    let applied_count = count(|o| matches!(o, FixOutcome::Applied(_)));
    let overlaps = count(|o| matches!(o, FixOutcome::Overlaps(_)));
    assert_eq!((applied_count, overlaps), (632, 69));
    assert_eq!(applied.files_written.len(), 22);
}
