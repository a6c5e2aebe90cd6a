//! Code scanning alerts from `tests/fixtures/github-alerts/`: GitHub's documented example and
//! two pages of a Ruff upload, read and fingerprinted like the analyzer's own SARIF.

use std::path::{Path, PathBuf};

use crate::{Format, IngestOptions, Parsed, fingerprint_all, parse};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn read(relative: &str) -> String {
    let path = fixtures().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// `relative` read from stdin (so by content alone), as the auto format.
fn parse_stdin(relative: &str, root: &Path) -> Parsed {
    parse(
        &read(relative),
        Format::Auto,
        &IngestOptions::new("stdin", root),
    )
    .unwrap_or_else(|error| panic!("{relative}: {error}"))
}

#[test]
fn githubs_documented_example_gives_its_open_alert() {
    let parsed = parse_stdin(
        "github-alerts/list-alerts-docs-example.json",
        Path::new("/project"),
    );
    assert_eq!(parsed.format, Format::GithubAlerts);
    // Alert 3 is dismissed: not a finding.
    assert_eq!(parsed.alerts, [4]);
    insta::assert_json_snapshot!("github-alerts-docs-example", parsed.findings);
}

#[test]
fn two_pages_back_to_back_give_the_open_alerts_of_both() {
    let parsed = parse_stdin("github-alerts/ruff-two-pages.json", Path::new("/project"));
    assert_eq!(parsed.format, Format::GithubAlerts);
    // 11 is dismissed and 9 fixed.
    assert_eq!(parsed.alerts, [12, 10]);
    let rules: Vec<&str> = parsed.findings.iter().map(|f| f.rule_id.as_str()).collect();
    assert_eq!(rules, ["F401", "E711"]);
}

#[test]
fn an_alert_fingerprints_as_the_same_finding_from_the_analyzers_sarif() -> std::io::Result<()> {
    let project = tempfile::tempdir()?;
    std::fs::write(
        project.path().join("mod.py"),
        read("formats/python-input-mod.py"),
    )?;
    let sarif = parse(
        &read("formats/ruff-0.17.6.sarif"),
        Format::Sarif,
        &IngestOptions::new("ruff.sarif", project.path()).with_base("/home/dev/samples/py"),
    )
    .map_err(std::io::Error::other)?;
    let alerts = parse_stdin("github-alerts/ruff-two-pages.json", project.path());
    let from_sarif = fingerprint_all(&sarif.findings, project.path());
    let from_alerts = fingerprint_all(&alerts.findings, project.path());
    assert_eq!(from_alerts.len(), 2);
    assert_eq!(from_alerts, from_sarif);
    // And the same as Ruff's own JSON of that run (pinned in fixture_tests).
    assert_eq!(from_alerts, ["cc0c8de6972cb88e", "a75e3dbbfeb8f67e"]);
    Ok(())
}
