//! The scenarios of issue 4, one file each, and the list `just e2e` runs.

mod budget;
mod channel_habits;
mod ci_recipe_alerts;
mod ci_recipe_install;
mod ci_recipes;
mod compaction;
mod confirm_go;
mod corrupt_state;
mod doctor_setup;
mod drive;
mod drive_fix_queue;
mod drive_partitions;
mod eval_drive;
mod fix_loop;
mod foreign_session;
mod full_pipeline;
mod interactive;
mod invalid_results;
mod killed_and_adopted;
mod low_confidence_reals;
mod model_habits;
mod pipeline_checks;
mod plugin_checks;
mod provider_refusal;
mod rate_limited;
mod refused_launch;
mod repair_check;
mod scale_corpus;
mod scenario_context;
mod security_second_looks;
mod security_two_looks;
mod shop_triage;
mod verified;
mod wheel_installed;

use std::time::Instant;

use crate::e2e::scenario_outcome::ScenarioOutcome;
use crate::e2e::tools::Tools;
pub(crate) use scenario_context::ScenarioContext;

type ScenarioFn = fn(&mut ScenarioContext) -> Result<(), crate::e2e::E2eError>;

/// Every scenario, in the order `just e2e` runs them.
pub(crate) const SCENARIOS: [(&str, ScenarioFn); 59] = [
    ("full-pipeline-background", full_pipeline::background),
    ("full-pipeline-foreground", full_pipeline::foreground),
    (
        "full-pipeline-background-install",
        full_pipeline::background_installed,
    ),
    (
        "full-pipeline-foreground-plugin",
        full_pipeline::foreground_plugin,
    ),
    ("killed-then-adopted", killed_and_adopted::run),
    (
        "invalid-results-and-escalation",
        invalid_results::background,
    ),
    (
        "invalid-results-and-escalation-foreground",
        invalid_results::foreground,
    ),
    ("corrupt-state", corrupt_state::run),
    ("foreign-session", foreign_session::run),
    ("rate-limited-main-thread", rate_limited::run),
    ("repair-check", repair_check::run),
    ("fix-loop-verified", fix_loop::verified),
    ("fix-loop-refused", fix_loop::refused),
    ("habit-split-launch", model_habits::split_launch),
    ("habit-paraphrase", model_habits::paraphrase),
    ("habit-launch-twice", model_habits::launch_twice),
    ("habit-skip-part", model_habits::skip_part),
    ("habit-forbidden-command", model_habits::forbidden_command),
    ("habit-fenced-json", model_habits::fenced_json),
    (
        "habit-claims-without-submit",
        model_habits::claims_without_submit,
    ),
    ("habit-unsure-reroute", model_habits::unsure_reroute),
    ("habit-drop-model", model_habits::drop_model),
    ("habit-drop-model-always", model_habits::drop_model_always),
    ("habit-ignore-context", channel_habits::ignore_context),
    ("habit-ignore-dispatches", channel_habits::ignore_dispatches),
    ("habit-fork-launch", channel_habits::fork_launch),
    ("habit-other-model", channel_habits::other_model),
    ("refused-launch", refused_launch::run),
    ("provider-refusal", provider_refusal::run),
    ("compaction-mid-run", compaction::run),
    ("scale-corpus", scale_corpus::run),
    ("drive-rate-limit-reset", drive::rate_limit_reset),
    ("drive-killed-session", drive::killed_session),
    ("drive-auth-401", drive::auth_refused),
    ("drive-no-progress-circuit", drive::no_progress_circuit),
    ("drive-fix-queue", drive_fix_queue::killed_then_adopted),
    ("budget-mid-triage", budget::run),
    ("cancel-keeps-verdicts", budget::cancel_then_start),
    ("confirm-go", confirm_go::run),
    ("verified-dismissals", verified::run),
    ("security-second-looks", security_second_looks::run),
    ("security-two-looks", security_two_looks::run),
    ("low-confidence-reals", low_confidence_reals::run),
    ("eval-drive", eval_drive::run),
    ("plugin-without-binary", plugin_checks::without_binary),
    ("plugin-version-mismatch", plugin_checks::version_mismatch),
    ("doctor-plugin-setup", doctor_setup::healthy_plugin),
    ("interactive-manual", interactive::manual),
    ("interactive-auto", interactive::auto),
    (
        "interactive-refused-continue",
        interactive::refused_then_continue,
    ),
    ("interactive-confirm", interactive::confirm),
    (
        "interactive-ignore-dispatches",
        interactive::ignore_dispatches,
    ),
    ("ci-recipe-triage", ci_recipes::triage),
    ("ci-recipe-pull-request", ci_recipes::pull_request),
    (
        "ci-recipe-pull-request-clean",
        ci_recipes::pull_request_clean,
    ),
    ("ci-recipe-fix", ci_recipes::fix),
    ("ci-recipe-partitions", ci_recipes::partitions),
    ("ci-recipe-alerts", ci_recipe_alerts::run),
    ("ci-recipe-install", ci_recipe_install::run),
];

/// The representative subset CI also runs on the oldest supported client (`e2e --subset`,
/// scripts/e2e.sh): the full pipeline as a plugin and installed, with foreground and background
/// agents, a compaction (the standing protocol comes back from `SessionStart`), a `drive`, the
/// fix loop, the interactive UI in manual mode, and a main session that drops `model` from
/// every launch (issue 32: the bound on a second look set aside), the two-look rule against an
/// adversarial first look, and the sessions that follow one dispatch channel, neither, fork
/// their launches or run on another model (note 63).
pub const OLDEST_CLIENT_SUBSET: [&str; 15] = [
    "full-pipeline-background",
    "full-pipeline-foreground",
    "full-pipeline-background-install",
    "full-pipeline-foreground-plugin",
    "compaction-mid-run",
    "drive-killed-session",
    "fix-loop-verified",
    "interactive-manual",
    "habit-drop-model-always",
    "security-two-looks",
    "habit-ignore-context",
    "habit-ignore-dispatches",
    "habit-fork-launch",
    "habit-other-model",
    "interactive-ignore-dispatches",
];

/// The scenario that checks the binary `pip install` put into a fresh venv (issue 23): listed
/// only when the scenarios run that binary (`e2e --wheel-venv`, `E2E_WHEEL` in scripts/e2e.sh).
const WHEEL_SCENARIO: (&str, ScenarioFn) = ("wheel-installed", wheel_installed::run);

/// The scenarios that run only when asked for (`--only NAME`, `E2E_LARGE=1`, `just e2e-large`),
/// so the default list stays quick: the larger corpus (pyparsing, 2,936 unique findings; about
/// 3 minutes of a debug build on the shared 2-core machine), and `drive --partitions` measured
/// against one session (about 2.5 minutes; its bound on the triage time's ratio holds only
/// where four clients are not short of CPU, reference/benchmarks.md, "Partitions on one
/// machine").
pub const LARGE_SCENARIOS: [&str; 2] = [LARGE[0].0, LARGE[1].0];
const LARGE: [(&str, ScenarioFn); 2] = [
    ("scale-corpus-large", scale_corpus::large),
    ("drive-partitions", drive_partitions::run),
];

/// The scenario names, in the order `just e2e` runs them; with `wheel`, `wheel-installed` comes
/// first (it measures the time from the install to the first dispatch); with `large`, the
/// [`LARGE_SCENARIOS`] come last.
pub fn scenario_names(wheel: bool, large: bool) -> Vec<&'static str> {
    let wheel_scenario = wheel.then_some(WHEEL_SCENARIO.0);
    wheel_scenario
        .into_iter()
        .chain(SCENARIOS.iter().map(|(name, _)| *name))
        .chain(LARGE.iter().filter(|_| large).map(|(name, _)| *name))
        .collect()
}

/// Runs the scenario `name` (`None` when there is no such scenario).
pub fn run_scenario(tools: &Tools, name: &str) -> Option<ScenarioOutcome> {
    let (name, run) = SCENARIOS
        .iter()
        .chain([&WHEEL_SCENARIO])
        .chain(&LARGE)
        .find(|(n, _)| *n == name)?;
    let started = Instant::now();
    let mut context = ScenarioContext::new(tools);
    if let Err(e) = run(&mut context) {
        context.checks.fail(format!("stopped early: {e}"));
    }
    Some(ScenarioOutcome {
        name,
        failures: context.checks.into_failures(),
        figures: context.figures,
        wall: started.elapsed(),
        notes: context.notes,
    })
}

#[cfg(test)]
mod tests {
    use super::{LARGE_SCENARIOS, OLDEST_CLIENT_SUBSET, scenario_names};

    #[test]
    fn every_scenario_of_the_oldest_client_subset_exists() {
        let names = scenario_names(false, false);
        for name in OLDEST_CLIENT_SUBSET {
            assert!(names.contains(&name), "{name} is not a scenario");
        }
    }

    #[test]
    fn the_large_corpus_runs_only_when_asked_for() {
        for large in LARGE_SCENARIOS {
            assert!(!scenario_names(false, false).contains(&large));
        }
        assert!(scenario_names(true, true).ends_with(&LARGE_SCENARIOS));
    }
}
