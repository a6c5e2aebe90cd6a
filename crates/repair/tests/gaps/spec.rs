//! The check's settings: cases the crate's mutation run found untested.

use self_repair_repair::{CheckConfig, CheckRequest, ProjectChecks, resolve_spec};

fn request(timeout: Option<f64>) -> CheckRequest {
    CheckRequest {
        command: vec!["cargo".into(), "test".into(), "a b".into(), "it's".into()],
        timeout_secs: timeout,
        ..CheckRequest::default()
    }
}

#[test]
fn seconds_outside_0_to_86400_or_not_finite_are_refused() {
    for bad in [f64::NAN, f64::INFINITY, -1.0, 86_400.5] {
        let error = resolve_spec(&request(Some(bad)), None, String::new())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("use 0 to 86400 seconds"), "{bad}: {error}");
    }
    let spec = resolve_spec(&request(Some(86_400.0)), None, String::new()).unwrap();
    assert_eq!(spec.timeout_ms, 86_400_000);
    assert_eq!(spec.command_line(), r"cargo test 'a b' 'it'\''s'");
}

#[test]
fn a_named_check_is_found_in_the_project_s_checks() {
    let mut checks = ProjectChecks::default();
    let config = CheckConfig {
        command: vec!["make".into(), "test".into()],
        ..CheckConfig::default()
    };
    checks.checks.insert("unit".into(), config.clone());
    assert_eq!(
        checks.get("unit").map(|c| c.command.clone()),
        Some(config.command)
    );
    assert!(checks.get("lint").is_none());
}
