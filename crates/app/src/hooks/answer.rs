//! What a hook prints, and the run a hook input points at. A hook never fails: every problem
//! becomes an allow, with a line on stderr and, when the user must act, a `systemMessage`.

use self_repair_store::{Project, RunDir, StoreError};
use serde_json::json;

use crate::command_env::CommandEnv;
use crate::hooks::input::HookInput;

/// What a hook prints: at most one JSON object on stdout, diagnostics on stderr; exit 0.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookAnswer {
    pub stdout: Option<String>,
    pub stderr: Vec<String>,
}

impl HookAnswer {
    pub(crate) fn allow() -> HookAnswer {
        HookAnswer::default()
    }

    /// Adds `message` for the user to whatever this answer prints.
    pub fn announce(&mut self, message: &str) {
        let mut object = self
            .stdout
            .as_deref()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
            .and_then(|value| value.as_object().cloned())
            .unwrap_or_default();
        let text = match object.get("systemMessage").and_then(|v| v.as_str()) {
            Some(existing) => format!("{message}\n{existing}"),
            None => message.to_owned(),
        };
        object.insert("systemMessage".to_owned(), text.into());
        self.stdout = Some(serde_json::Value::Object(object).to_string());
    }

    pub(crate) fn note(line: String) -> HookAnswer {
        HookAnswer {
            stdout: None,
            stderr: vec![line],
        }
    }

    /// Allows the stop and tells the user, not only stderr: the run cannot go on until they run
    /// `self-repair doctor` (the error says so).
    pub(crate) fn needs_doctor(e: &StoreError) -> HookAnswer {
        HookAnswer {
            stdout: Some(json!({ "systemMessage": format!("self-repair: {e}") }).to_string()),
            stderr: vec![format!("self-repair hook stop: {e}")],
        }
    }
}

/// The project and active run a hook input points at, if any (cheap: a few file checks): the
/// run `SELF_REPAIR_RUN` pins, when the session was started with it (`drive`).
pub(crate) fn active_run(env: &CommandEnv, input: &HookInput) -> Option<(Project, RunDir)> {
    let start = env
        .project
        .as_deref()
        .or(env.project_dir.as_deref())
        .or(input.cwd.as_deref())
        .unwrap_or(&env.cwd);
    let project = env.pin(Project::find(start)?);
    let id = project.active_run_id()?;
    let dir = project.run(&id).ok()?;
    Some((project, dir))
}
