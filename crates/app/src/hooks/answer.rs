//! The run a hook input points at. What a hook prints is the one answer type of the Stop
//! frame, [`StopAnswer`]: a hook never fails, every problem becomes an allow, with a line on
//! stderr and, when the user must act, a `systemMessage`.

use self_repair_store::{Project, RunDir};

use crate::command_env::CommandEnv;
use crate::hooks::input::HookInput;

pub use self_repair_stop::StopAnswer;

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
