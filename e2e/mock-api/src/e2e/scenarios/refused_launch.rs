//! A refused launch (issue 24): the project's `PreToolUse` hook denies every `Agent` call of the
//! first session, as a deny rule (or a user's "No" at the permission prompt) would. The hook
//! charges nothing, pauses the run and says so once; the user's next prompt in the same session
//! ("continue") goes on at the same tiers, and the run completes.

use serde_json::{Value, json};

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::launched_items;
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::full_pipeline::PER_ITEM_FOREGROUND_CONFIG;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, check_must_keep_claims, check_ran_model_recorded, pipeline_scenario,
    start_and_wait,
};
use crate::mock_server::MockServer;

const RUN: &str = "r-refused";
const FINDINGS: usize = 4;
/// While this file exists in the project, the `PreToolUse` hook denies every `Agent` call.
const DENY_MARKER: &str = ".deny-agents";

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "refused-launch", InstallMode::Project, FINDINGS)?;
    let (path, config) = PER_ITEM_FOREGROUND_CONFIG;
    project.write(path, config)?;
    deny_agents_while_marked(&project)?;
    project.write(DENY_MARKER, "")?;

    let (server1, first) = start_and_wait(ctx, &project, pipeline_scenario(), RUN)?;
    let result = first
        .json
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or("");
    ctx.checks.that(
        result.contains(
            "were denied by a permission rule or PreToolUse hook; no attempt was charged",
        ),
        || format!("session 1 did not end with the refusal line: {result:?}"),
    );
    let launched1 = launched_items(&server1.requests());
    ctx.checks.that(!launched1.is_empty(), || {
        "the main session launched nothing in session 1".to_owned()
    });
    let state = project.run(RUN).state()?;
    ctx.checks.equal(
        "status after the refusal",
        &field(&state, "/status"),
        &"paused",
    );
    ctx.checks
        .equal("paused by", &field(&state, "/pause/by"), &"refused");
    check_nothing_charged(ctx, &state, "after the refusal");

    // The user allows the agents and says "continue" in the same session.
    std::fs::remove_file(project.path().join(DENY_MARKER))
        .map_err(E2eError::io(&project.path().join(DENY_MARKER)))?;
    let server2 = MockServer::start_recording(pipeline_scenario(), &project.records_path(2))?;
    let second = project
        .claude(
            &server2.base_url(),
            "continue",
            &ClaudeOptions {
                resume: first.session_id(),
                ..ClaudeOptions::default()
            },
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(second.succeeded(), || {
        format!("claude -p (session 1, resumed): {}", second.describe())
    });
    let state = check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    check_nothing_charged(ctx, &state, "at the end");
    let mut records = server1.requests();
    records.extend(server2.requests());
    let claims = check_must_keep_claims(ctx, &records);
    ctx.checks.equal("MUST-keep claims", &claims, &0);
    let ran = check_ran_model_recorded(ctx, &project, RUN)?;
    let above: Vec<&(String, String)> = ran.iter().filter(|(_, m)| m != "haiku").collect();
    ctx.checks.that(above.is_empty(), || {
        format!("findings escalated though no agent failed: {above:?}")
    });
    ctx.notes.push(format!(
        "session 1: {} launches refused; session 2: {} launched",
        launched1.len(),
        launched_items(&server2.requests()).len()
    ));
    Ok(())
}

/// No item was charged a failed attempt (also the interactive refused-launch scenario's check).
pub(super) fn check_nothing_charged(ctx: &mut ScenarioContext, state: &Value, when: &str) {
    let charged: Vec<String> =
        match serde_json::from_value::<self_repair_engine::RunState>(state.clone()) {
            Ok(s) => s
                .items
                .iter()
                .filter(|i| i.attempts > 0)
                .map(|i| i.id.to_string())
                .collect(),
            Err(e) => vec![format!("state.json unreadable: {e}")],
        };
    ctx.checks.that(charged.is_empty(), || {
        format!("{when}: items charged a failed attempt for a refused launch: {charged:?}")
    });
}

/// Adds a `PreToolUse` hook on `Agent` to the project's `.claude/settings.json` (written by
/// `install --project`) that denies the call while [`DENY_MARKER`] exists.
fn deny_agents_while_marked(project: &E2eProject) -> Result<(), E2eError> {
    let path = project.path().join(".claude/settings.json");
    let text = std::fs::read_to_string(&path).map_err(E2eError::io(&path))?;
    let mut settings: Value = serde_json::from_str(&text).map_err(|e| E2eError::Unexpected {
        path: path.clone(),
        message: format!("not JSON: {e}"),
    })?;
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "agents declined for this test"}});
    let command =
        format!("test -e \"$CLAUDE_PROJECT_DIR/{DENY_MARKER}\" && printf '%s' '{deny}' || true");
    let entry = json!({"matcher": "Agent", "hooks": [{"type": "command", "command": command}]});
    let hooks = settings
        .as_object_mut()
        .map(|s| s.entry("hooks").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
        .map(|h| h.entry("PreToolUse").or_insert_with(|| json!([])));
    match hooks.and_then(Value::as_array_mut) {
        Some(list) => list.push(entry),
        None => {
            return Err(E2eError::Unexpected {
                path,
                message: "no hooks object to add the PreToolUse hook to".to_owned(),
            });
        }
    }
    let text = serde_json::to_string_pretty(&settings).map_err(|e| E2eError::Unexpected {
        path: path.clone(),
        message: e.to_string(),
    })?;
    std::fs::write(&path, text).map_err(E2eError::io(&path))
}
