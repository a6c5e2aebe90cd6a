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

#[test]
fn the_circuit_breaker_is_2_or_more_and_an_autofix_needs_a_command() {
    for (breaker, ok) in [(0, false), (1, false), (2, true), (3, true)] {
        let request = CheckRequest {
            circuit_breaker: Some(breaker),
            ..request(None)
        };
        assert_eq!(
            resolve_spec(&request, None, String::new()).is_ok(),
            ok,
            "{breaker}"
        );
    }
    for autofix in [
        vec![],
        vec![String::new()],
        vec![String::new(), "fmt".into()],
    ] {
        let request = CheckRequest {
            autofix: Some(autofix.clone()),
            ..request(None)
        };
        let error = resolve_spec(&request, None, String::new())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            error.contains("--autofix needs a command"),
            "{autofix:?}: {error}"
        );
    }
}

#[test]
fn a_root_of_one_character_is_not_replaced_in_the_output() {
    assert_eq!(
        self_repair_repair::normalize_output("src/a.py failed", "/"),
        "src/a.py failed"
    );
    assert_eq!(
        self_repair_repair::normalize_output("/p/src/a.py failed", "/p"),
        "<root>/src/a.py failed"
    );
}
