//! The Stop hook's part in the fix loop: once the repair run of a queued task is over, the task
//! is recorded and the next one started, and the session is told to go on with it.

use self_repair_engine::{continuation, continue_with, say_line};
use self_repair_repair::RepairEnv;
use self_repair_store::{Project, RunDir};

use crate::command_env::CommandEnv;
use crate::hooks::answer::StopAnswer;
use crate::run::fix_queue::continue_fix;
use crate::run::in_progress::run_in_progress;

/// `answer` (the repair run's own answer to this stop), with the fix loop's step added when the
/// run fixes a queued task and is over: while the next task's run is under way, a note for the
/// user (and the session kept going when the stop would be allowed: its first instruction
/// comes at the next stop); once the queue is over, the fix loop's line said once: at a
/// terminal as the hook's message, unattended as the session's last message.
pub(crate) fn after_repair_stop(
    project: &Project,
    env: &CommandEnv,
    repair: &RunDir,
    session: &str,
    mut answer: StopAnswer,
) -> StopAnswer {
    let repair_env = RepairEnv {
        now: env.now,
        session: env.session.clone(),
        user_install: env.user_install_root(),
    };
    let Some(line) = continue_fix(project, &repair_env, repair, Some(session)) else {
        return answer;
    };
    let line = format!("self-repair fix: {line}");
    if run_in_progress(project).is_none() {
        // The queue is over (or paused after a cancel): its line, which repeats the last task's
        // outcome, is what the session says last. A `systemMessage` never reaches `claude -p`
        // output, the session's last message does (reference/design-notes.md, note 34).
        let one_line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut said = say_line(
            &one_line,
            env.installation.audience,
            self_repair_engine::Channel::Context,
        );
        said["systemMessage"] = line.into();
        return StopAnswer {
            stdout: Some(said.to_string()),
            stderr: answer.stderr,
        };
    }
    let continues = answer
        .stdout
        .as_deref()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
        .is_some_and(|v| continuation(&v).is_some());
    if !continues {
        // The session must stop once more for the next task's first instruction: kept going
        // as a dispatch is (design note 48), never as a block the client calls a problem.
        let mut going = continue_with(&format!(
            "{line}\n\nEnd your turn now: the Stop hook gives the next task's instruction."
        ));
        going["systemMessage"] = line.into();
        return StopAnswer {
            stdout: Some(going.to_string()),
            stderr: answer.stderr,
        };
    }
    answer.announce(&line);
    answer
}
