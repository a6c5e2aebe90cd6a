//! `self-repair check`: creates a repair run, runs the baseline (and the autofix) at once, and
//! leaves the fix attempts to the Stop hook (or `self-repair tick`).

use self_repair_engine::timestamp;
use self_repair_install::agents_installed_by_command;
use self_repair_store::{Manifest, Project, RunKind, check_run_id, write_json};

use crate::repair_run::{Budget, Pause, RepairRun};
use crate::tick::RepairReply;
use crate::{
    CheckRequest, GitBaseline, ProjectChecks, REPAIR_SCHEMA_VERSION, RepairEnv, RepairError,
    RepairEvent, RepairState, resolve_spec,
};

/// Creates the run, makes it active, runs the code-only steps, and says what happens next.
/// `settings` is what the project's `config.json` says to the repair pipeline.
pub fn start_check(
    project: &Project,
    env: &RepairEnv,
    request: &CheckRequest,
    settings: &ProjectChecks,
) -> Result<RepairReply, RepairError> {
    let config = match &request.name {
        Some(name) => {
            let found = settings.get(name).cloned();
            if found.is_none() && request.command.is_empty() {
                return Err(RepairError::NotFound(format!(
                    "no check `{name}` in {}: add `checks.{name}` there, or give the command after `--`",
                    settings.path.display()
                )));
            }
            found
        }
        None => None,
    };
    let prefix = settings.agent_prefix.clone().unwrap_or_else(|| {
        if agents_installed_by_command(project.root(), env.user_install.as_ref()) {
            String::new()
        } else {
            "self-repair:".to_owned()
        }
    });
    let spec = resolve_spec(request, config.as_ref(), prefix)?;
    let run_id = request
        .run_id
        .clone()
        .unwrap_or_else(|| format!("check-{}", timestamp::compact(env.now)));
    check_run_id(&run_id)?;
    // Built where no reader lists it, then made `runs/<id>` in one rename.
    let new_run = project.begin_run(&run_id)?;
    let staged = new_run.dir();
    write_json(
        &staged.manifest_path(),
        &Manifest {
            schema_version: REPAIR_SCHEMA_VERSION,
            run: run_id.clone(),
            created_at: env.now,
            kind: RunKind::Repair,
            triage_items: 0,
        },
    )?;
    let state = RepairState::new(
        run_id.clone(),
        env.now,
        env.session.clone(),
        GitBaseline::record(project.root()),
        spec,
    );
    write_json(&staged.initial_path(), &state)?;
    write_json(&staged.state_path(), &state)?;
    let dir = new_run.publish()?;
    project.set_active(&run_id)?;
    let _lock = dir.lock()?;
    let mut run = RepairRun::load(project.root(), dir, env.now)?;
    run.record(&RepairEvent::Started {
        command: run.state.spec.command.clone(),
    })?;
    let pause = run.advance(Budget::Unbounded)?;
    if pause == Pause::Finished {
        // The person who ran `check` reads the outcome now; the hook need not repeat it.
        run.record(&RepairEvent::Announced)?;
    }
    run.save()?;
    Ok(crate::tick::describe(&run, pause))
}
