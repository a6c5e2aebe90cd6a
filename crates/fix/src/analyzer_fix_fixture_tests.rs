//! `apply-fixes` against the analyzers themselves: the edits kept from their real output on a
//! small project of ours, applied by self-repair, give the very file the analyzer's own fix
//! command gave (clippy: tests/fixtures/clippy-fix/README.md; `ESLint`:
//! tests/fixtures/eslint-fix/README.md).

use std::path::Path;

use self_repair_engine::FindingRecord;
use self_repair_ingest::{Format, IngestOptions, parse};

use crate::edit_application::{FixOutcome, apply_analyzer_edits};

fn fixture(folder: &str, name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(folder);
    std::fs::read_to_string(path.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Writes `input` at `path` in a new project, keeps the edits of `output` (made there, or
/// under `base`), applies them all and returns each finding's outcome and the file after.
fn apply(
    folder: &str,
    (path, input): (&str, &str),
    (output, format, base): (&str, Format, Option<&str>),
) -> (Vec<FixOutcome>, String) {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = root.path().join(path);
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(&file, fixture(folder, input)).unwrap_or_else(|e| panic!("{e}"));
    let mut options = IngestOptions::new(output, root.path()).with_fix_edits();
    if let Some(base) = base {
        options = options.with_base(base);
    }
    let parsed =
        parse(&fixture(folder, output), format, &options).unwrap_or_else(|e| panic!("{e}"));
    let records: Vec<FindingRecord> = parsed
        .findings
        .into_iter()
        .map(|finding| FindingRecord::new("", finding))
        .collect();
    let applied = apply_analyzer_edits(root.path(), &records);
    let outcomes = applied.fixes.into_iter().map(|f| f.outcome).collect();
    (outcomes, std::fs::read_to_string(&file).unwrap_or_default())
}

#[test]
fn clippy_s_machine_applicable_edits_applied_by_self_repair_match_cargo_clippy_fix() {
    let (outcomes, fixed) = apply(
        "clippy-fix",
        ("src/main.rs", "main.rs"),
        ("clippy-1.95.jsonl", Format::Clippy, None),
    );
    assert_eq!(
        outcomes,
        [
            FixOutcome::Applied(1),
            FixOutcome::Applied(1),
            FixOutcome::Applied(2),
            FixOutcome::Applied(1),
            FixOutcome::Applied(1),
            FixOutcome::Applied(1),
        ]
    );
    assert_eq!(fixed, fixture("clippy-fix", "main.clippy-fixed.rs"));
}

#[test]
fn eslint_s_fixes_applied_by_self_repair_match_eslint_fix_past_non_ascii_text() {
    // Eight fixes of seven rules; ranges in UTF-16 code units past "é𝒳ü" and "日本語 𝒳"
    // (𝒳 is two units), the last one on a line whose earlier text holds 𝒳 too.
    let (outcomes, fixed) = apply(
        "eslint-fix",
        ("src/greet.js", "greet.js"),
        (
            "eslint-10.15.json",
            Format::Eslint,
            Some("/tmp/eslint-try/proj"),
        ),
    );
    assert_eq!(outcomes, vec![FixOutcome::Applied(1); 8]);
    assert_eq!(fixed, fixture("eslint-fix", "greet.eslint-fixed.js"));
}
