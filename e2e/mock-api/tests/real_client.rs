//! PROBE against the real Claude Code client (2.1.330, installed by scripts/install-tools.sh):
//! runs scripts/e2e-probe.sh, which drives `claude -p` against this crate's `mock-api` binary
//! with a stub `self-repair` CLI and a stub Stop hook that dispatches three items. Never
//! skipped: if the client cannot be installed, the test fails with the installer's message.

use std::path::Path;
use std::process::Command;

use self_repair_mock_api::RecordedRequest;

#[test]
fn real_client_runs_a_stub_pipeline_end_to_end() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = crate_dir.join("../..");
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("scenario.json");
    std::fs::write(
        &scenario,
        r#"{"items":[{"item":"t-2","behaviour":"invalid_first"}]}"#,
    )
    .unwrap();
    let output = Command::new(repo.join("scripts/e2e-probe.sh"))
        .args(["--items", "3", "--timeout", "240", "--scenario"])
        .arg(&scenario)
        .env("PROBE_DIR", dir.path().join("probe"))
        .env("PROBE_MODELS", "haiku,sonnet,opus")
        .env("MOCK_API_BIN", env!("CARGO_BIN_EXE_mock-api"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "probe failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("claude exit=0"), "{stdout}\n{stderr}");

    let probe = dir.path().join("probe");
    let text = std::fs::read_to_string(probe.join("requests.jsonl")).unwrap();
    let records = RecordedRequest::read_jsonl(&text).unwrap();
    let calls: Vec<&RecordedRequest> = records.iter().filter(|r| r.is_model_call()).collect();
    // Exactly one message launched agents, with one Agent call per dispatched item.
    let launches: Vec<&&RecordedRequest> = calls
        .iter()
        .filter(|r| r.answer.contains("Agent"))
        .collect();
    assert_eq!(launches.len(), 1, "{stdout}");
    assert_eq!(launches[0].answer, "tool_use Agent,Agent,Agent");
    // Each tier ran on its model id.
    for (item, model) in [
        ("t-1", "claude-haiku-5-5"),
        ("t-2", "claude-sonnet-5-5"),
        ("t-3", "claude-opus-5-5"),
    ] {
        let thread = format!("item:{item}");
        let models: Vec<_> = calls
            .iter()
            .filter(|r| r.thread == thread)
            .map(|r| r.model.as_deref())
            .collect();
        assert!(
            !models.is_empty() && models.iter().all(|m| *m == Some(model)),
            "{thread}: {models:?}"
        );
    }
    // Every item submitted; t-2 needed a second submission after its rejection.
    for item in ["t-1", "t-2", "t-3"] {
        assert!(
            probe.join(format!("state/submit-{item}.json")).exists(),
            "{item} not submitted:\n{stdout}"
        );
    }
    let cli_log = std::fs::read_to_string(probe.join("state/cli.log")).unwrap();
    assert_eq!(cli_log.matches("submit t-2").count(), 2, "{cli_log}");
    assert_eq!(cli_log.matches("submit t-1").count(), 1, "{cli_log}");
    // Nothing but model calls and count_tokens reached the server.
    assert!(records.iter().all(|r| r.status != 404), "{stdout}");
}
