//! `self-repair known list|add|accept|reject|remove`: the registry of findings already decided
//! (`known.json`), which decides them again at every `start` without an agent; the team's
//! subcommands (baseline, prune, merge-driver) are in [`team`].

pub mod team;

use std::path::PathBuf;

use clap::Subcommand;
use self_repair_classify::{KnownEntry, KnownRegistry};
use self_repair_engine::Verdict;
use self_repair_store::Project;
use serde::Serialize;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::finalize::read_findings;

/// `known` subcommands.
#[derive(Debug, Subcommand)]
pub enum KnownAction {
    /// Every decided finding.
    List {
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Record a decision: a fingerprint (16 hex digits) or a triage item id of the run.
    Add {
        /// A fingerprint (16 hex digits) or a triage item id of the run.
        target: String,
        /// One of `real`, `false_positive`, `intended`, `duplicate`, `unsure`.
        #[arg(long)]
        verdict: String,
        /// Why, in a sentence: kept with the decision and shown where it decides.
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        run: RunArg,
    },
    /// Let a proposed security dismissal decide from the next `start`.
    Accept {
        /// A fingerprint (16 hex digits) or a triage item id of the run.
        target: String,
        #[command(flatten)]
        run: RunArg,
    },
    /// Refuse a proposed dismissal (the same as `remove`): the finding is triaged again.
    Reject {
        /// A fingerprint (16 hex digits) or a triage item id of the run.
        target: String,
        #[command(flatten)]
        run: RunArg,
    },
    /// Forget a decision: the finding goes to triage again from the next `start`.
    Remove {
        /// A fingerprint (16 hex digits) or a triage item id of the run.
        target: String,
        #[command(flatten)]
        run: RunArg,
    },
    /// Record every finding of one or more reports, without any agent (accept today's
    /// findings; the next `start` triages only new ones).
    Baseline(team::BaselineArgs),
    /// Drop the entries whose finding none of the last N triage runs read.
    Prune {
        /// How many of the latest triage runs must have missed a finding.
        #[arg(long, value_name = "N")]
        runs: usize,
        /// Print what would be dropped; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// What git runs as the `self-repair-known` merge driver (`install` registers it):
    /// merges known.json or rules.json by key into OURS.
    MergeDriver {
        /// The common ancestor's version (git's %O).
        base: PathBuf,
        /// Ours (%A): the merge is written here.
        ours: PathBuf,
        /// Theirs (%B).
        theirs: PathBuf,
        /// The file's path in the repository (%P).
        path: Option<String>,
    },
}

/// Runs a `known` subcommand.
pub fn run(env: &CommandEnv, action: KnownAction) -> Result<Output, AppError> {
    let text = match action {
        KnownAction::List { json } => {
            let lines = known_list(&env.find_project()?)?;
            return Output::json_or(json, &lines, |l| render_known(l));
        }
        KnownAction::Add {
            target,
            verdict,
            reason,
            run,
        } => known_add(
            &env.find_project()?,
            run.run.as_deref(),
            &target,
            &verdict,
            &reason,
            env.now,
        )?,
        KnownAction::Accept { target, run } => {
            known_accept(&env.find_project()?, run.run.as_deref(), &target)?
        }
        KnownAction::Remove { target, run } | KnownAction::Reject { target, run } => {
            known_remove(&env.find_project()?, run.run.as_deref(), &target)?
        }
        KnownAction::Baseline(args) => return team::baseline(env, &args),
        KnownAction::Prune { runs, dry_run } => return team::prune(env, runs, dry_run),
        // git runs it at the top of the work tree, with no project needed.
        KnownAction::MergeDriver {
            base,
            ours,
            theirs,
            path,
        } => {
            return team::merge_driver(
                &env.cwd.join(base),
                &env.cwd.join(ours),
                &env.cwd.join(theirs),
                path.as_deref(),
            );
        }
    };
    Ok(Output::text(text))
}

/// One registry entry, for `known list`.
#[derive(Debug, Clone, Serialize)]
pub struct KnownLine {
    pub fingerprint: String,
    #[serde(flatten)]
    pub entry: KnownEntry,
}

/// Every entry of `known.json`.
pub fn known_list(project: &Project) -> Result<Vec<KnownLine>, AppError> {
    let known = KnownRegistry::load(&project.store_dir())?;
    Ok(known
        .entries
        .into_iter()
        .map(|(fingerprint, entry)| KnownLine { fingerprint, entry })
        .collect())
}

/// The text of `known list`.
pub fn render_known(lines: &[KnownLine]) -> String {
    if lines.is_empty() {
        return "known.json is empty: a finalized run or `self-repair known add` fills it\n"
            .to_owned();
    }
    let mut out = String::new();
    for l in lines {
        let proposed = if l.entry.proposed {
            " [proposed: `self-repair known accept` or `reject`]"
        } else {
            ""
        };
        let e = &l.entry;
        let mut by = vec![e.source.clone()];
        by.extend(e.item.clone());
        by.extend(e.model.clone());
        by.extend(e.confidence.map(|c| format!("confidence {c:.2}")));
        by.extend(e.lines.as_ref().map(|lines| format!("on {lines}")));
        out.push_str(&format!(
            "{} {}{proposed} ({}): {} — {}\n",
            l.fingerprint,
            e.verdict.as_str(),
            by.join(", "),
            e.summary,
            e.reason
        ));
    }
    out
}

/// Records a decision by hand: `target` is a fingerprint, or a triage item id of the active
/// (or given) run.
pub fn known_add(
    project: &Project,
    run: Option<&str>,
    target: &str,
    verdict: &str,
    reason: &str,
    now: u64,
) -> Result<String, AppError> {
    let verdict = Verdict::parse(verdict).ok_or_else(|| {
        AppError::Usage(format!(
            "--verdict {verdict}: use one of {}",
            Verdict::ALL.map(Verdict::as_str).join(", ")
        ))
    })?;
    if reason.trim().is_empty() {
        return Err(AppError::Usage(
            "--reason: say why, for the next reader".to_owned(),
        ));
    }
    let (fingerprint, summary) = resolve_target(project, run, target)?;
    let store = project.store_dir();
    let _registry = self_repair_store::lock_registry(&store)?;
    let mut known = KnownRegistry::load(&store)?;
    known.insert_at(
        fingerprint.clone(),
        // A person's decision holds until they remove it: no code hash to lapse on.
        KnownEntry::without_agent(
            verdict,
            reason.trim().to_owned(),
            "manual".to_owned(),
            summary,
        ),
        now,
    );
    known.save(&store)?;
    Ok(format!(
        "known: {fingerprint} is {} from the next `self-repair start`",
        verdict.as_str()
    ))
}

/// `known accept`: a proposed security dismissal decides from the next `start`.
pub fn known_accept(
    project: &Project,
    run: Option<&str>,
    target: &str,
) -> Result<String, AppError> {
    change_known(project, run, target, |known, fingerprint| {
        let entry = known.redecide(fingerprint)?;
        let verdict = entry.verdict.as_str();
        if !entry.proposed {
            return Some(format!("known: {fingerprint} already decides ({verdict})"));
        }
        entry.proposed = false;
        Some(format!(
            "known: {fingerprint} is {verdict} from the next `self-repair start` (accepted)"
        ))
    })
}

/// `known remove` (and `reject`): forgets a decision, so the finding is triaged again from the
/// next `start`.
pub fn known_remove(
    project: &Project,
    run: Option<&str>,
    target: &str,
) -> Result<String, AppError> {
    change_known(project, run, target, |known, fingerprint| {
        let entry = known.remove(fingerprint)?;
        Some(format!(
            "known: {fingerprint} forgotten (it was {} by {}); the next `self-repair start` \
             triages it again",
            entry.verdict.as_str(),
            entry.source
        ))
    })
}

/// Applies `change` to the entry of `target` and saves; `change` answers `None` when there is
/// no entry (exit 4, nothing written).
fn change_known(
    project: &Project,
    run: Option<&str>,
    target: &str,
    change: impl FnOnce(&mut KnownRegistry, &str) -> Option<String>,
) -> Result<String, AppError> {
    let (fingerprint, _) = resolve_target(project, run, target)?;
    let store = project.store_dir();
    let _registry = self_repair_store::lock_registry(&store)?;
    let mut known = KnownRegistry::load(&store)?;
    let Some(said) = change(&mut known, &fingerprint) else {
        return Err(AppError::NotFound(format!(
            "known.json has no decision for {fingerprint}; `self-repair known list` shows what it has"
        )));
    };
    known.save(&store)?;
    Ok(said)
}

fn resolve_target(
    project: &Project,
    run: Option<&str>,
    target: &str,
) -> Result<(String, String), AppError> {
    let is_fingerprint = target.len() == 16 && target.bytes().all(|b| b.is_ascii_hexdigit());
    if is_fingerprint {
        return Ok((target.to_ascii_lowercase(), String::new()));
    }
    let dir = project.run_or_active(run)?;
    let findings = read_findings(&dir)?;
    let record = findings
        .iter()
        .find(|r| r.item.as_deref() == Some(target))
        .ok_or_else(|| {
            AppError::NotFound(format!(
                "`{target}` is neither a fingerprint (16 hex digits) nor a triage item of run {}",
                dir.id()
            ))
        })?;
    let f = &record.finding;
    Ok((
        record.fingerprint.clone(),
        format!("{} {} {}: {}", f.tool, f.rule_id, f.path, f.message),
    ))
}
