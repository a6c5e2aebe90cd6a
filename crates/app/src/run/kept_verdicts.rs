//! Every decided verdict outlives its run: what a triage run decided goes into `known.json`
//! however the run ends. Finalize (complete) and `cancel` (also a `--replace`) keep it at once,
//! `finalize --partial` too; what a run that ended without a word decided (stalled, waiting
//! and left, a killed `drive`, a share) the next `start` keeps before it routes. Each entry
//! says who decided (the run, its item), at which tier and when (design note 69).

use std::collections::HashMap;
use std::path::Path;

use self_repair_classify::{DecisionTime, KnownEntry, KnownRegistry};
use self_repair_engine::{
    FindingRecord, ItemStatus, Registered, RunState, RunStatus, SurveyRecord, TriageResult,
    Verdict, VerifyOutcome, registered,
};
use self_repair_store::{Project, RunDir};

use crate::app_error::AppError;
use crate::run::handle::RunHandle;
use crate::run::load::load_folded;
use crate::run::settled_answers::{read_findings, triage_answers, verification_chains};

/// `kept.json` in a run folder: how much of the run's journal its verdicts were kept from, so
/// the next `start` reads again only a run that decided more since.
const KEPT_MARK: &str = "kept.json";

/// What one verdict of a run counts as in later runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// It decides the finding in every later run, without an agent.
    Decided,
    /// It decides nothing until a person runs `self-repair known accept`.
    Proposal,
}

/// THE rule of what counts as decided, in one place: the engine's [`registered`] (the security
/// two-look rule, reference/routes.md). `unsure`, and a `duplicate` whose chain does not end on
/// a dismissed finding, are kept nowhere; a closing verdict of a finding under the two-look
/// rule, or one whose two agents disagreed (`outcome` `kept_real`), is a proposal a person
/// accepts; any other verdict decides.
pub fn standing(state: &RunState, item: &str, outcome: Option<VerifyOutcome>) -> Option<Standing> {
    match registered(state, item, outcome) {
        Registered::Skip => None,
        Registered::Decided => Some(Standing::Decided),
        Registered::Proposed => Some(Standing::Proposal),
    }
}

/// The `known.json` entries of every triage item `state` has settled (`done` with a verdict),
/// by fingerprint.
pub fn decided_entries<S: std::hash::BuildHasher>(
    root: &Path,
    dir: &RunDir,
    state: &RunState,
    findings: &[FindingRecord],
    recorded: &HashMap<String, TriageResult, S>,
) -> Vec<(String, KnownEntry)> {
    let decided = settled_triage(state, findings);
    let survey_of = self_repair_engine::survey_of(state);
    // The answers that stood: a verified finding's is its second agent's (only those are
    // copied, to be settled; every other stands as recorded).
    let mut settled: HashMap<String, TriageResult> = self_repair_engine::verifier_of(state)
        .into_keys()
        .filter_map(|item| Some((item.to_owned(), recorded.get(item)?.clone())))
        .collect();
    let chains = verification_chains(dir, state, &mut settled);
    let mut codes = crate::prompts::decided_code::DecidedCodes::new(root);
    let mut entries = Vec::with_capacity(decided.len());
    for (item, record, verdict) in decided {
        let chain = chains.get(item);
        let Some(standing) = standing(state, item, chain.and_then(|c| c.outcome)) else {
            continue;
        };
        let result = settled.get(item).or_else(|| recorded.get(item));
        let reason = match result {
            Some(r) => r.reason.clone(),
            None => survey_reason(survey_of.get(item).copied()),
        };
        let f = &record.finding;
        let code = codes.of(&f.path, f.line);
        // The tier the transcript showed running, else the one it was dispatched at; a finding
        // its rule's survey decided was decided by the survey's agent.
        let decided_by = match (result, survey_of.get(item), chain) {
            (None, Some(survey), _) => survey.id.as_str(),
            (_, _, Some(chain)) if chain.second.is_some() => chain.item.as_str(),
            _ => item,
        };
        let ran = state
            .item(decided_by)
            .map(|i| i.ran.unwrap_or(i.tier).as_str().to_owned());
        entries.push((
            record.fingerprint.clone(),
            KnownEntry {
                verdict,
                reason,
                source: state.run.clone(),
                summary: self_repair_classify::summary(f),
                proposed: standing == Standing::Proposal,
                item: Some(item.to_owned()),
                model: ran,
                confidence: result.and_then(|r| r.confidence),
                lines: code.as_ref().map(|c| c.lines.clone()),
                code: code.map(|c| c.code),
                fixed: None,
            },
        ));
    }
    entries
}

/// The triage items `state` has settled (`done` with a verdict), each with its finding and
/// verdict.
pub fn settled_triage<'a>(
    state: &'a RunState,
    findings: &'a [FindingRecord],
) -> Vec<(&'a str, &'a FindingRecord, Verdict)> {
    state.items[..(state.triage_items as usize).min(state.items.len())]
        .iter()
        .filter(|i| i.status == ItemStatus::Done)
        .filter_map(|i| {
            let record = findings.get(i.finding? as usize)?;
            Some((i.id.as_str(), record, i.verdict?))
        })
        .collect()
}

/// Why a finding its rule's survey decided was decided: the survey's policy reason.
fn survey_reason(survey: Option<&SurveyRecord>) -> String {
    survey
        .and_then(|survey| {
            Some(format!(
                "{} policy: {}",
                survey.id,
                survey.answer.as_ref()?.reason
            ))
        })
        .unwrap_or_default()
}

/// How `entries` of run `run` (created at `created_at`) go into `known`: at the end of the run
/// itself (`finalize`) each replaces what is there; kept later, an entry never replaces one a
/// later run decided (decided after this run began, by another run). Returns how many changed.
/// The entries are one run's (one `source`), so whether one was decided elsewhere since is
/// the same before and after the others go in: they go in together.
pub fn put_entries(
    known: &mut KnownRegistry,
    mut entries: Vec<(String, KnownEntry)>,
    created_at: u64,
    now: u64,
    finalizing: bool,
) -> usize {
    let began = self_repair_engine::timestamp::rfc3339(created_at);
    if !finalizing {
        entries.retain(|(fingerprint, entry)| {
            let newer_elsewhere = known.get(fingerprint).is_some_and(|there| {
                there.source != entry.source
                    && known
                        .decided_at(fingerprint)
                        .is_some_and(|at| at > began.as_str())
            });
            !newer_elsewhere
        });
    }
    known.insert_all_decided(entries, &DecisionTime::at(now))
}

/// Keeps the decided verdicts of the run in `dir` in `known.json` (under the registry's lock)
/// and marks the run kept; returns how many of its verdicts `known.json` now holds from it
/// (new or kept before). For a run that ends without
/// finalizing: `cancel`, `--replace`, `finalize --partial`.
pub fn keep_run_verdicts(
    root: &Path,
    dir: &RunDir,
    state: &RunState,
    now: u64,
) -> Result<usize, AppError> {
    let store_dir = root.join(self_repair_store::STORE_DIR);
    let _registry = self_repair_store::lock_registry(&store_dir)?;
    let mut known = KnownRegistry::load(&store_dir).map_err(|e| AppError::Usage(e.to_string()))?;
    let findings = read_findings(dir)?;
    let answers = triage_answers(dir, state);
    let entries = decided_entries(root, dir, state, &findings, &answers);
    let fingerprints: Vec<String> = entries.iter().map(|(f, _)| f.clone()).collect();
    let changed = put_entries(&mut known, entries, state.created_at, now, false);
    if changed > 0 {
        known
            .save(&store_dir)
            .map_err(|e| AppError::Usage(e.to_string()))?;
    }
    mark_kept(dir, state.journal_offset);
    Ok(fingerprints
        .iter()
        .filter(|f| known.get(f).is_some_and(|e| e.source == state.run))
        .count())
}

/// Records that the verdicts of the run in `dir` were kept up to journal offset `offset`. Not an
/// error when it fails: the next `start` only reads the run again.
pub fn mark_kept(dir: &RunDir, offset: u64) {
    let _ = self_repair_store::write_json(
        &dir.path().join(KEPT_MARK),
        &serde_json::json!({"schema_version": 1, "journal_offset": offset}),
    );
}

/// Whether the run in `dir` decided nothing since its verdicts were last kept.
fn kept_already(dir: &RunDir) -> bool {
    let Some(offset) = std::fs::read(dir.path().join(KEPT_MARK))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v["journal_offset"].as_u64())
    else {
        return false;
    };
    dir.journal().byte_len().is_ok_and(|len| len == offset)
}

/// Before `start` routes: the registry, with the decided verdicts of every triage run of the
/// project that did not finalize and decided something since it was last kept (a stalled run,
/// one waiting and left, one a killed `drive` left) put in; saved unless `dry_run`. Also
/// returns the runs that added to it and how many entries each changed. A run that does not
/// read is skipped: it never stops a `start`.
pub fn keep_unfinished_runs(
    project: &Project,
    now: u64,
    dry_run: bool,
) -> Result<(KnownRegistry, Vec<(String, usize)>), AppError> {
    let store_dir = project.store_dir();
    // Each run's state first, under its own lock only: the registry's lock is always taken
    // after a run's (as finalize does), never before.
    let mut unfinished = Vec::new();
    for id in project.run_ids()? {
        let Ok(dir) = project.run(&id) else { continue };
        let RunHandle::Triage(dir) = RunHandle::open(dir) else {
            continue;
        };
        if kept_already(&dir) {
            continue;
        }
        let Ok(state) = load_folded(&dir, false) else {
            continue;
        };
        unfinished.push((dir, state));
    }
    let load = || KnownRegistry::load(&store_dir).map_err(|e| AppError::Usage(e.to_string()));
    if unfinished.is_empty() {
        return Ok((load()?, Vec::new()));
    }
    let _registry = self_repair_store::lock_registry(&store_dir)?;
    let mut known = load()?;
    let mut kept = Vec::new();
    for (dir, state) in &unfinished {
        // A complete run kept everything when it finalized.
        if state.status == RunStatus::Complete {
            continue;
        }
        let Ok(findings) = read_findings(dir) else {
            continue;
        };
        let answers = triage_answers(dir, state);
        let entries = decided_entries(project.root(), dir, state, &findings, &answers);
        let changed = put_entries(&mut known, entries, state.created_at, now, false);
        if changed > 0 {
            kept.push((state.run.clone(), changed));
        }
    }
    if dry_run {
        return Ok((known, kept));
    }
    if !kept.is_empty() {
        known
            .save(&store_dir)
            .map_err(|e| AppError::Usage(e.to_string()))?;
    }
    for (dir, state) in &unfinished {
        mark_kept(dir, state.journal_offset);
    }
    Ok((known, kept))
}

#[cfg(test)]
mod tests {
    use self_repair_classify::{KnownEntry, KnownRegistry};
    use self_repair_engine::Verdict;

    use super::put_entries;

    fn entry(verdict: Verdict, source: &str) -> KnownEntry {
        KnownEntry::without_agent(
            verdict,
            "why".to_owned(),
            source.to_owned(),
            "ruff F401 src/a.py: unused".to_owned(),
        )
    }

    /// Kept late (a cancel, a replace, the next `start`), a run's verdicts never replace one
    /// another run decided after it began; at its own finalize they do. With enough entries to
    /// go in by one merge, as a large run's do.
    #[test]
    fn a_run_kept_late_leaves_what_another_run_decided_since_it_began() {
        // Run r-1 began at 1,000.
        let mut known = KnownRegistry::default();
        known.insert_at("fp-later".to_owned(), entry(Verdict::Real, "r-2"), 2_000);
        known.insert_at("fp-earlier".to_owned(), entry(Verdict::Real, "r-0"), 500);
        known.insert_at("fp-own".to_owned(), entry(Verdict::Real, "r-1"), 2_000);
        let ours = |fingerprint: String| (fingerprint, entry(Verdict::FalsePositive, "r-1"));
        let entries: Vec<(String, KnownEntry)> = ["fp-later", "fp-earlier", "fp-own"]
            .into_iter()
            .map(str::to_owned)
            .chain((0..100).map(|n| format!("fp-new-{n:03}")))
            .map(ours)
            .collect();
        let mut late = known.clone();
        assert_eq!(
            put_entries(&mut late, entries.clone(), 1_000, 3_000, false),
            102
        );
        assert_eq!(late.get("fp-later").map(|e| e.source.as_str()), Some("r-2"));
        for fingerprint in ["fp-earlier", "fp-own", "fp-new-000", "fp-new-099"] {
            assert_eq!(
                late.get(fingerprint).map(|e| e.verdict),
                Some(Verdict::FalsePositive),
                "{fingerprint}"
            );
        }
        let mut finalized = known;
        assert_eq!(
            put_entries(&mut finalized, entries, 1_000, 3_000, true),
            103
        );
        assert_eq!(
            finalized.get("fp-later").map(|e| e.source.as_str()),
            Some("r-1")
        );
    }
}
