//! Parse tests on the verbatim analyzer outputs in `tests/fixtures/formats/`.

use std::path::{Path, PathBuf};

use self_repair_engine::Finding;

use crate::{Format, IngestError, IngestOptions, Parsed, fingerprint, fingerprint_all, parse};

/// Where the project root is said to be in parse snapshots (nothing is read from it).
const SNAPSHOT_ROOT: &str = "/project";

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/formats")
}

fn fixture(name: &str) -> String {
    let path = fixture_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The base each fixture needs: the directory the tool ran in, when it printed absolute paths.
fn base_for(name: &str) -> Option<&'static str> {
    if name.starts_with("ruff") {
        Some("/home/dev/samples/py")
    } else if name.starts_with("eslint") {
        Some("/home/dev/samples/js")
    } else {
        None
    }
}

fn options_for(name: &str, root: &Path) -> IngestOptions {
    let options = IngestOptions::new(name, root);
    match base_for(name) {
        Some(base) => options.with_base(base),
        None => options,
    }
}

fn parse_fixture(name: &str, format: Format, root: &Path) -> Parsed {
    parse(&fixture(name), format, &options_for(name, root))
        .unwrap_or_else(|error| panic!("{name}: {error}"))
}

/// Every fixture with the format it is in.
const FIXTURES: &[(&str, Format)] = &[
    ("ruff-0.17.6.json", Format::Ruff),
    ("ruff-0.17.6.sarif", Format::Sarif),
    ("eslint-10.15.json", Format::Eslint),
    ("knip-6.44.2.json", Format::Knip),
    ("knip-6.44.2.sarif", Format::Sarif),
    ("cargo-clippy-1.95.jsonl", Format::Clippy),
    ("vulture-2.16.txt", Format::Vulture),
    ("ts-prune-0.10.3.txt", Format::TsPrune),
    ("bandit-1.9.4.json", Format::Bandit),
];

#[test]
fn every_fixture_file_is_covered() -> std::io::Result<()> {
    let mut outputs: Vec<String> = std::fs::read_dir(fixture_dir())?
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            Path::new(name)
                .extension()
                .is_some_and(|ext| ["json", "sarif", "jsonl", "txt"].iter().any(|e| ext == *e))
        })
        .collect();
    outputs.sort();
    let mut covered: Vec<String> = FIXTURES
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .collect();
    covered.sort();
    assert_eq!(outputs, covered);
    Ok(())
}

#[test]
fn fixtures_parse_to_the_snapshotted_findings() {
    for (name, format) in FIXTURES {
        let parsed = parse_fixture(name, *format, Path::new(SNAPSHOT_ROOT));
        assert_eq!(parsed.format, *format);
        assert!(!parsed.findings.is_empty(), "{name} gave no findings");
        insta::assert_json_snapshot!(*name, parsed.findings);
    }
}

#[test]
fn auto_sniffing_picks_each_fixtures_format() {
    for (name, format) in FIXTURES {
        let by_name_and_content = parse_fixture(name, Format::Auto, Path::new(SNAPSHOT_ROOT));
        assert_eq!(by_name_and_content.format, *format, "{name}");
        // Content alone (stdin) must be enough too.
        let options = IngestOptions {
            source: "stdin".to_owned(),
            ..options_for(name, Path::new(SNAPSHOT_ROOT))
        };
        let by_content = parse(&fixture(name), Format::Auto, &options);
        assert_eq!(
            by_content.map(|p| p.format),
            Ok(*format),
            "{name} from stdin"
        );
    }
}

#[test]
fn auto_sniffing_recognises_generic_jsonl_and_empty_input() {
    let options = IngestOptions::new("stdin", SNAPSHOT_ROOT);
    let line = r#"{"tool":"t","rule_id":"r","message":"m","path":"a.py"}"#;
    assert_eq!(
        parse(line, Format::Auto, &options).map(|p| p.format),
        Ok(Format::Jsonl)
    );
    let empty = parse("\n\n", Format::Auto, &options);
    assert_eq!(
        empty.map(|p| (p.format, p.findings.len())),
        Ok((Format::Jsonl, 0))
    );
}

/// A temp project holding the Python sample as `mod.py` (where Ruff and Bandit saw it).
fn python_project(lines_above: usize) -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    let source = fixture("python-input-mod.py");
    std::fs::write(
        dir.path().join("mod.py"),
        format!("{}{source}", "# inserted\n".repeat(lines_above)),
    )?;
    Ok(dir)
}

/// A temp project holding the JS sample at the paths knip and `ESLint` reported.
fn js_project() -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir_all(dir.path().join("src"))?;
    for entry in std::fs::read_dir(fixture_dir().join("js-input/src"))? {
        let entry = entry?;
        std::fs::copy(entry.path(), dir.path().join("src").join(entry.file_name()))?;
    }
    std::fs::copy(
        fixture_dir().join("js-input/package.json"),
        dir.path().join("package.json"),
    )?;
    Ok(dir)
}

#[test]
fn ruff_sarif_and_json_of_one_run_fingerprint_alike() -> std::io::Result<()> {
    let project = python_project(0)?;
    let json = parse_fixture("ruff-0.17.6.json", Format::Ruff, project.path()).findings;
    let sarif = parse_fixture("ruff-0.17.6.sarif", Format::Sarif, project.path()).findings;
    assert_eq!(json.len(), 2);
    let json_prints = fingerprint_all(&json, project.path());
    assert_eq!(json_prints, fingerprint_all(&sarif, project.path()));
    // The source line really took part: without it the fingerprint differs.
    assert_ne!(json_prints[0], fingerprint(&json[0], None));
    assert_eq!(json_prints[0], fingerprint(&json[0], Some("import os")));
    Ok(())
}

#[test]
fn fingerprints_and_partition_shares_do_not_depend_on_the_checkout_path() -> std::io::Result<()> {
    // Two CI machines check the project out at different places and run Ruff there; a third
    // reads the first's SARIF with --base. Same fingerprints, so the same shares.
    let sarif = fixture("ruff-0.17.6.sarif");
    let machine = |checkout: &str, base: Option<&str>| -> std::io::Result<Vec<String>> {
        let project = python_project(0)?;
        let text = sarif.replace("file:///home/dev/samples/py", &format!("file://{checkout}"));
        let mut options = IngestOptions::new("ruff.sarif", project.path());
        if let Some(base) = base {
            options = options.with_base(base);
        }
        let parsed = parse(&text, Format::Auto, &options).map_err(std::io::Error::other)?;
        // Without --base the checkout is inferred from the project's files.
        assert_eq!(
            parsed.inferred_base.as_deref(),
            base.is_none().then_some(checkout)
        );
        Ok(fingerprint_all(&parsed.findings, project.path()))
    };
    let runner = machine("/home/runner/work/app/app", None)?;
    let gitlab = machine("/builds/team/app", Some("/builds/team/app"))?;
    let local = {
        let project = python_project(0)?;
        let own = project.path().display().to_string();
        let text = sarif.replace("file:///home/dev/samples/py", &format!("file://{own}"));
        let parsed = parse(
            &text,
            Format::Auto,
            &IngestOptions::new("ruff.sarif", project.path()),
        )
        .map_err(std::io::Error::other)?;
        fingerprint_all(&parsed.findings, project.path())
    };
    assert_eq!(runner.len(), 2);
    assert_eq!(runner, gitlab);
    assert_eq!(runner, local);
    let partition = crate::Partition::parse("hash:1/3").map_err(std::io::Error::other)?;
    let shares = |prints: &[String]| -> Vec<u32> {
        prints
            .iter()
            .map(|p| partition.share_of(&format!("f:{p}")))
            .collect()
    };
    assert_eq!(shares(&runner), shares(&gitlab));
    Ok(())
}

#[test]
fn knip_sarif_and_json_of_one_run_fingerprint_alike() -> std::io::Result<()> {
    let project = js_project()?;
    let json = parse_fixture("knip-6.44.2.json", Format::Knip, project.path()).findings;
    let sarif = parse_fixture("knip-6.44.2.sarif", Format::Sarif, project.path()).findings;
    assert_eq!(json.len(), 8);
    let mut json_prints = fingerprint_all(&json, project.path());
    let mut sarif_prints = fingerprint_all(&sarif, project.path());
    json_prints.sort();
    sarif_prints.sort();
    assert_eq!(json_prints, sarif_prints);
    Ok(())
}

fn shifted(findings: &[Finding], by: u32) -> Vec<Finding> {
    findings
        .iter()
        .cloned()
        .map(|mut finding| {
            finding.line = finding.line.map(|line| line + by);
            finding.end_line = finding.end_line.map(|line| line + by);
            finding
        })
        .collect()
}

#[test]
fn fingerprints_survive_lines_inserted_above() -> std::io::Result<()> {
    for name in [
        "ruff-0.17.6.json",
        "ruff-0.17.6.sarif",
        "bandit-1.9.4.json",
        "vulture-2.16.txt",
    ] {
        let before = python_project(0)?;
        let after = python_project(7)?;
        let mut findings = parse_fixture(name, Format::Auto, before.path()).findings;
        if name.starts_with("vulture") {
            // vulture ran one directory up; its paths are `py/mod.py`.
            for finding in &mut findings {
                finding.path = "mod.py".to_owned();
            }
        }
        let original = fingerprint_all(&findings, before.path());
        let moved = fingerprint_all(&shifted(&findings, 7), after.path());
        assert_eq!(original, moved, "{name}");
        // And the line text was read: shifting without moving the code changes them.
        let misread = fingerprint_all(&shifted(&findings, 1), before.path());
        assert_ne!(original, misread, "{name}");
    }
    Ok(())
}

#[test]
fn clippy_fingerprints_survive_lines_inserted_above() -> std::io::Result<()> {
    let write_project = |lines_above: usize| -> std::io::Result<tempfile::TempDir> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("src"))?;
        let source = fixture("rust-input-main.rs");
        std::fs::write(
            dir.path().join("src/main.rs"),
            format!("{}{source}", "// x\n".repeat(lines_above)),
        )?;
        Ok(dir)
    };
    let before = write_project(0)?;
    let after = write_project(3)?;
    let findings = parse_fixture("cargo-clippy-1.95.jsonl", Format::Clippy, before.path()).findings;
    assert_eq!(
        fingerprint_all(&findings, before.path()),
        fingerprint_all(&shifted(&findings, 3), after.path())
    );
    Ok(())
}

#[test]
fn fingerprints_are_pinned_for_the_ruff_fixture() -> std::io::Result<()> {
    // Stored known.json entries depend on these values never changing. They were checked
    // against an independent Python implementation of the algorithm in `fingerprint`'s docs.
    let project = python_project(0)?;
    let findings = parse_fixture("ruff-0.17.6.json", Format::Ruff, project.path()).findings;
    insta::assert_json_snapshot!(fingerprint_all(&findings, project.path()), @r#"
    [
      "cc0c8de6972cb88e",
      "a75e3dbbfeb8f67e"
    ]
    "#);
    Ok(())
}

fn error_text(input: &str, format: Format, options: &IngestOptions) -> String {
    match parse(input, format, options) {
        Ok(parsed) => panic!("expected an error, got {} findings", parsed.findings.len()),
        Err(error) => error.to_string(),
    }
}

#[test]
fn error_messages_name_the_place_and_the_expected_shape() {
    let options = IngestOptions::new("findings.jsonl", SNAPSHOT_ROOT);
    let good = r#"{"tool":"ruff","rule_id":"F401","message":"m","path":"a.py"}"#;
    let cases: Vec<(&str, String)> = vec![
        (
            "jsonl_bad_line",
            error_text(
                &format!("{good}\n\n{{\"tool\": \"ruff\",\n"),
                Format::Jsonl,
                &options,
            ),
        ),
        (
            "jsonl_missing_field",
            error_text(
                &format!("{good}\n{{\"tool\":\"ruff\",\"rule_id\":\"F401\",\"message\":\"m\"}}"),
                Format::Jsonl,
                &options,
            ),
        ),
        (
            "jsonl_unknown_level",
            error_text(
                r#"{"tool":"ruff","rule_id":"F401","message":"m","path":"a.py","level":"fatal"}"#,
                Format::Jsonl,
                &options,
            ),
        ),
        (
            "jsonl_unknown_keys",
            error_text(
                r#"{"tool":"ruff","rule":"F401","rule_id":"F401","message":"m","path":"a.py","lien":3}"#,
                Format::Jsonl,
                &options,
            ),
        ),
        (
            "jsonl_wrong_type",
            error_text(
                r#"{"tool":"ruff","rule_id":"F401","message":"m","path":"a.py","line":"3"}"#,
                Format::Jsonl,
                &options,
            ),
        ),
        (
            "jsonl_path_escaping_root",
            error_text(
                &format!("{good}\n{}", good.replace("a.py", "../../etc/passwd")),
                Format::Jsonl,
                &options,
            ),
        ),
        (
            "sarif_missing_runs",
            error_text(
                r#"{"version":"2.1.0","$schema":"x"}"#,
                Format::Sarif,
                &IngestOptions::new("out.sarif", SNAPSHOT_ROOT),
            ),
        ),
        (
            "sarif_bad_region",
            error_text(
                r#"{"runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"region":{"startLine":"one"}}}]}]}]}"#,
                Format::Sarif,
                &IngestOptions::new("out.sarif", SNAPSHOT_ROOT),
            ),
        ),
        (
            "ruff_absolute_path_without_base",
            error_text(
                &fixture("ruff-0.17.6.json"),
                Format::Ruff,
                &IngestOptions::new("ruff.json", SNAPSHOT_ROOT),
            ),
        ),
        (
            "sarif_absolute_uri_without_base",
            error_text(
                &fixture("ruff-0.17.6.sarif"),
                Format::Sarif,
                &IngestOptions::new("ruff.sarif", SNAPSHOT_ROOT),
            ),
        ),
        (
            "vulture_bad_line",
            error_text(
                "py/mod.py:1: unused import 'os' (90% confidence)\nTraceback (most recent call last):\n",
                Format::Vulture,
                &options,
            ),
        ),
        (
            "auto_unrecognized",
            error_text(
                "{\"hello\": 1}",
                Format::Auto,
                &IngestOptions::new("mystery.json", SNAPSHOT_ROOT),
            ),
        ),
    ];
    for (name, text) in cases {
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn errors_return_nothing_partial() {
    let options = IngestOptions::new("findings.jsonl", SNAPSHOT_ROOT);
    let good = r#"{"tool":"ruff","rule_id":"F401","message":"m","path":"a.py"}"#;
    let result = parse(
        &format!("{good}\n{good}\nnot json\n"),
        Format::Jsonl,
        &options,
    );
    assert!(matches!(result, Err(IngestError::BadLine { line: 3, .. })));
}

#[test]
fn truncated_inputs_give_errors_not_panics() {
    let options = IngestOptions::new("cut", SNAPSHOT_ROOT).with_base("/home/dev/samples");
    for (name, _) in FIXTURES {
        let text = fixture(name);
        let cuts = (0..text.len())
            .step_by(7)
            .filter(|&cut| text.is_char_boundary(cut));
        for cut in cuts {
            for format in Format::ALL {
                // Ok or Err are both fine; returning at all is the point.
                let _ = parse(&text[..cut], format, &options);
            }
        }
    }
}

/// `(rule, applicability, description)` of every finding that carries the analyzer's fix.
fn fixes_of(findings: &[Finding]) -> Vec<(String, &'static str, Option<String>)> {
    findings
        .iter()
        .filter_map(|f| {
            let fix = f.fix.as_ref()?;
            Some((
                f.rule_id.clone(),
                fix.applicability.as_str(),
                fix.description.clone(),
            ))
        })
        .collect()
}

#[test]
fn the_analyzers_own_fixes_are_read_with_their_applicability() {
    let ruff = parse_fixture("ruff-0.17.6.json", Format::Ruff, Path::new(SNAPSHOT_ROOT)).findings;
    assert_eq!(
        fixes_of(&ruff),
        [
            (
                "F401".to_owned(),
                "safe",
                Some("Remove unused import: `os`".to_owned())
            ),
            (
                "E711".to_owned(),
                "unsafe",
                Some("Replace with `cond is None`".to_owned())
            ),
        ]
    );
    assert!(ruff[0].has_safe_fix() && !ruff[1].has_safe_fix());
    // SARIF states no applicability: Ruff's SARIF lists the same safe and unsafe fixes alike.
    let sarif =
        parse_fixture("ruff-0.17.6.sarif", Format::Sarif, Path::new(SNAPSHOT_ROOT)).findings;
    assert_eq!(
        fixes_of(&sarif)
            .iter()
            .map(|(rule, applicability, _)| (rule.as_str(), *applicability))
            .collect::<Vec<_>>(),
        [("F401", "unspecified"), ("E711", "unspecified")]
    );
    let clippy = parse_fixture(
        "cargo-clippy-1.95.jsonl",
        Format::Clippy,
        Path::new(SNAPSHOT_ROOT),
    )
    .findings;
    assert_eq!(
        fixes_of(&clippy),
        [
            (
                "clippy::len_zero".to_owned(),
                "safe",
                Some("using `is_empty` is clearer and more explicit".to_owned())
            ),
            (
                "clippy::useless_vec".to_owned(),
                "safe",
                Some("you can use an array directly".to_owned())
            ),
        ]
    );
    let eslint = parse_fixture(
        "eslint-10.15.json",
        Format::Eslint,
        Path::new(SNAPSHOT_ROOT),
    )
    .findings;
    assert_eq!(
        fixes_of(&eslint),
        [
            ("no-var".to_owned(), "safe", None),
            (
                "no-unused-vars".to_owned(),
                "unsafe",
                Some("Remove unused variable 'x'.".to_owned())
            ),
            (
                "no-unused-vars".to_owned(),
                "unsafe",
                Some("Remove unused variable 'f'.".to_owned())
            ),
            (
                "eqeqeq".to_owned(),
                "unsafe",
                Some("Use '===' instead of '=='.".to_owned())
            ),
        ]
    );
    // Formats without fixes carry none.
    for (name, format) in [
        ("bandit-1.9.4.json", Format::Bandit),
        ("vulture-2.16.txt", Format::Vulture),
        ("knip-6.44.2.json", Format::Knip),
    ] {
        let findings = parse_fixture(name, format, Path::new(SNAPSHOT_ROOT)).findings;
        assert!(findings.iter().all(|f| f.fix.is_none()), "{name}");
    }
}

#[test]
fn a_sarif_fix_is_safe_only_when_its_property_bag_says_so() {
    let log = |properties: &str| {
        format!(
            r#"{{"version":"2.1.0","runs":[{{"tool":{{"driver":{{"name":"t"}}}},"results":[{{"ruleId":"R","message":{{"text":"m"}},"locations":[{{"physicalLocation":{{"artifactLocation":{{"uri":"a.py"}},"region":{{"startLine":1}}}}}}],"fixes":[{{"description":{{"text":"do it"}}{properties}}}]}}]}}]}}"#
        )
    };
    let options = IngestOptions::new("t.sarif", SNAPSHOT_ROOT);
    let read = |text: String| {
        let findings = parse(&text, Format::Sarif, &options)
            .unwrap_or_else(|e| panic!("{e}"))
            .findings;
        fixes_of(&findings)
    };
    assert_eq!(
        read(log("")),
        [("R".to_owned(), "unspecified", Some("do it".to_owned()))]
    );
    assert_eq!(
        read(log(r#","properties":{"applicability":"safe"}"#)),
        [("R".to_owned(), "safe", Some("do it".to_owned()))]
    );
}

#[test]
fn a_fix_in_a_jsonl_line_is_read_and_a_wrong_applicability_is_refused() {
    let options = IngestOptions::new("f.jsonl", SNAPSHOT_ROOT);
    let line = |applicability: &str| {
        format!(
            r#"{{"tool":"ruff","rule_id":"F401","message":"m","path":"a.py","fix":{{"applicability":"{applicability}","description":"Remove it"}}}}"#
        )
    };
    let parsed = parse(&line("safe"), Format::Jsonl, &options).unwrap_or_else(|e| panic!("{e}"));
    assert!(parsed.findings[0].has_safe_fix());
    assert!(parse(&line("sure"), Format::Jsonl, &options).is_err());
}

/// The committed corpus (tests/fixtures/corpus/README.md) holds no safe fix: Jinja2's own
/// `pyproject.toml` sets `fix = true`, so the run that made it applied Ruff's safe fixes to the
/// sources and reported what was left.
#[test]
fn the_corpus_ruff_output_has_unsafe_and_display_only_fixes_and_no_safe_one() {
    let path = fixture_dir().join("../corpus/jinja2-3.1.6/ruff-0.17.6-select-all.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let options =
        IngestOptions::new("corpus.json", SNAPSHOT_ROOT).with_base("/tmp/corpus/jinja2-3.1.6");
    let findings = parse(&text, Format::Ruff, &options)
        .unwrap_or_else(|e| panic!("{e}"))
        .findings;
    let count = |applicability: &str| {
        findings
            .iter()
            .filter(|f| f.fix.as_ref().map(|x| x.applicability.as_str()) == Some(applicability))
            .count()
    };
    assert_eq!(findings.len(), 2637);
    assert_eq!(
        (count("safe"), count("unsafe"), count("display_only")),
        (0, 803, 1)
    );
}
