//! The edits of safe fixes, read from the verbatim analyzer outputs in `tests/fixtures/formats/`
//! against the very inputs those analyzers ran on (copied into a temporary project).

use std::path::Path;

use self_repair_engine::{Finding, FixEdit};

use crate::{Format, IngestOptions, parse};

fn fixtures() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/formats"
    ))
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A project holding `input` at `path`, and the fixture parsed with edits kept.
fn parsed_with_edits(
    fixture: &str,
    format: Format,
    base: Option<&str>,
    files: &[(&str, &str)],
) -> (tempfile::TempDir, Vec<Finding>) {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for (path, input) in files {
        let full = root.path().join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&full, read(input)).unwrap_or_else(|e| panic!("{e}"));
    }
    let mut options = IngestOptions::new(fixture, root.path()).with_fix_edits();
    if let Some(base) = base {
        options = options.with_base(base);
    }
    let text = read(fixture);
    let parsed = parse(&text, format, &options).unwrap_or_else(|e| panic!("{fixture}: {e}"));
    (root, parsed.findings)
}

fn edits_of<'f>(findings: &'f [Finding], rule: &str) -> &'f [FixEdit] {
    findings
        .iter()
        .find(|f| f.rule_id == rule)
        .and_then(|f| f.fix.as_ref())
        .map_or(&[], |fix| fix.edits.as_slice())
}

/// The text an edit replaces.
fn replaced(edit: &FixEdit) -> &str {
    &edit.lines[edit.start as usize..edit.end as usize]
}

#[test]
fn ruff_json_keeps_the_safe_fix_s_edits_and_not_the_unsafe_one_s() {
    let (_root, findings) = parsed_with_edits(
        "ruff-0.17.6.json",
        Format::Ruff,
        Some("/home/dev/samples/py"),
        &[("mod.py", "python-input-mod.py")],
    );
    let f401 = edits_of(&findings, "F401");
    assert_eq!(f401.len(), 1);
    assert_eq!((f401[0].line, f401[0].lines.as_str()), (1, "import os\n"));
    assert_eq!(
        (replaced(&f401[0]), f401[0].replacement.as_str()),
        ("import os\n", "")
    );
    // E711's fix is unsafe: applied only on request, so its edits are not kept.
    assert!(edits_of(&findings, "E711").is_empty());
}

#[test]
fn ruff_sarif_keeps_edits_only_where_the_fix_is_marked_safe() {
    let files = [("mod.py", "python-input-mod.py")];
    let base = Some("/home/dev/samples/py");
    let (_root, findings) = parsed_with_edits("ruff-0.17.6.sarif", Format::Sarif, base, &files);
    assert!(
        findings
            .iter()
            .all(|f| f.fix.iter().all(|fix| fix.edits.is_empty()))
    );

    // The same log with F401's fix marked safe in its property bag.
    let mut log: serde_json::Value =
        serde_json::from_str(&read("ruff-0.17.6.sarif")).unwrap_or_else(|e| panic!("{e}"));
    for result in log["runs"][0]["results"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        if result["ruleId"] == "F401" {
            result["fixes"][0]["properties"] = serde_json::json!({"applicability": "safe"});
        }
    }
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.path().join("mod.py"), read("python-input-mod.py"))
        .unwrap_or_else(|e| panic!("{e}"));
    let options = IngestOptions::new("safe.sarif", root.path())
        .with_base("/home/dev/samples/py")
        .with_fix_edits();
    let parsed = parse(&log.to_string(), Format::Sarif, &options).unwrap_or_else(|e| panic!("{e}"));
    let f401 = edits_of(&parsed.findings, "F401");
    assert_eq!(f401.len(), 1);
    // The deletion has no insertedContent: the replacement is empty.
    assert_eq!(
        (replaced(&f401[0]), f401[0].replacement.as_str()),
        ("import os\n", "")
    );
    assert!(edits_of(&parsed.findings, "E711").is_empty());
}

#[test]
fn clippy_keeps_machine_applicable_suggestions() {
    let (_root, findings) = parsed_with_edits(
        "cargo-clippy-1.95.jsonl",
        Format::Clippy,
        None,
        &[("src/main.rs", "rust-input-main.rs")],
    );
    let vec = edits_of(&findings, "clippy::useless_vec");
    assert_eq!(vec.len(), 1);
    assert_eq!(
        (replaced(&vec[0]), vec[0].replacement.as_str(), vec[0].line),
        ("vec![1, 2, 3]", "[1, 2, 3]", 4)
    );
    let len = edits_of(&findings, "clippy::len_zero");
    assert_eq!(
        len.iter()
            .map(|e| (replaced(e), e.replacement.as_str()))
            .collect::<Vec<_>>(),
        [("v.len() == 0", "v.is_empty()")]
    );
    // dead_code has no suggestion at all.
    assert!(edits_of(&findings, "dead_code").is_empty());
}

#[test]
fn eslint_keeps_a_fix_s_range_and_text() {
    let (_root, findings) = parsed_with_edits(
        "eslint-10.15.json",
        Format::Eslint,
        Some("/home/dev/samples/js"),
        &[("src/bad.js", "js-input/src/bad.js")],
    );
    let var = edits_of(&findings, "no-var");
    assert_eq!(var.len(), 1);
    assert_eq!(
        (replaced(&var[0]), var[0].replacement.as_str()),
        ("var x = 1;", "let x = 1;")
    );
}

/// The real fixture's shape with the range moved past non-ASCII text, as `ESLint` counts it
/// (UTF-16 code units); real `ESLint` output past such text is in tests/fixtures/eslint-fix.
#[test]
fn eslint_ranges_count_utf16_code_units() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let source = "const s = \"é𝒳\";\nvar x = 1;\n";
    std::fs::create_dir_all(root.path().join("src")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.path().join("src/bad.js"), source).unwrap_or_else(|e| panic!("{e}"));
    // "const s = \"é𝒳\";\n" is 17 UTF-16 units (𝒳 is two), 16 chars, 20 bytes.
    let output = r#"[{"filePath":"src/bad.js","messages":[{"ruleId":"no-var","severity":2,"message":"Unexpected var, use let or const instead.","line":2,"column":1,"endLine":2,"endColumn":11,"fix":{"range":[17,27],"text":"let x = 1;"}}]}]"#;
    let options = IngestOptions::new("eslint.json", root.path()).with_fix_edits();
    let parsed = parse(output, Format::Eslint, &options).unwrap_or_else(|e| panic!("{e}"));
    let var = edits_of(&parsed.findings, "no-var");
    assert_eq!(var.len(), 1);
    assert_eq!((replaced(&var[0]), var[0].line), ("var x = 1;", 2));
}

#[test]
fn edits_are_not_kept_without_the_option_or_when_the_file_is_missing() {
    let options = IngestOptions::new("ruff.json", "/nonexistent").with_base("/home/dev/samples/py");
    let text = read("ruff-0.17.6.json");
    let without = parse(&text, Format::Ruff, &options).unwrap_or_else(|e| panic!("{e}"));
    let missing =
        parse(&text, Format::Ruff, &options.with_fix_edits()).unwrap_or_else(|e| panic!("{e}"));
    for parsed in [without, missing] {
        assert!(
            parsed
                .findings
                .iter()
                .all(|f| f.fix.iter().all(|x| x.edits.is_empty()))
        );
        assert!(parsed.findings.iter().any(Finding::has_safe_fix));
    }
}
