//! `merge`: the runs of one job's partitions (`start --partition hash:K/N --until triage`),
//! each finished, checked to be one job's N shares and combined into one run that goes on
//! from aggregation, so groups and tasks are formed over every share at once (design note 54).
//!
//! The merged run numbers its items as a single run over the whole input would: the shares'
//! records are put back in the job's order ([`FindingRecord::job_index`]) and the triage items
//! take their ids in that order, so aggregation, grouping and planning see what they would
//! have seen in one run.

use compact_str::CompactString;
use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::advance::advance;
use crate::verification::verify_id;
use crate::{
    FindingRecord, Intake, ItemKind, PartitionScope, Phase, RunScope, RunState, RunStatus,
    SurveyRecord, WorkItem, triage_id,
};

/// One partition's run as `merge` read it.
#[derive(Debug, Clone)]
pub struct PartitionRun {
    /// The folder as the user named it (messages quote it).
    pub folder: String,
    pub state: RunState,
    pub findings: Vec<FindingRecord>,
}

/// Where a merged run came from: `state.json`'s `merged_from`, one entry a share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergedShare {
    /// The partition's run id.
    pub run: String,
    /// K of `hash:K/N`.
    pub share: u32,
    /// N.
    pub shares: u32,
    /// The folder it was read from, as given to `merge`.
    pub folder: String,
    /// Its distinct findings.
    pub unique: u32,
    /// Its findings that went to triage agents.
    pub routed: u32,
}

/// Why the folders given are not one job's complete set of finished shares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobProblem {
    /// No folder holds share K of N.
    Missing {
        share: u32,
        shares: u32,
        /// The digest of the job the other folders are shares of.
        digest: String,
    },
    /// Two folders hold share K.
    Duplicate {
        share: u32,
        shares: u32,
        first: String,
        second: String,
    },
    /// A folder that is not a share of this job, or not one `merge` can take.
    Foreign { folder: String, why: ForeignWhy },
}

/// Why a folder is foreign to the job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForeignWhy {
    /// Started without `--partition`.
    NotAPartition { run: String },
    /// A share of another split of the input (another N).
    OtherShares {
        run: String,
        spec: String,
        shares: u32,
        reference: String,
    },
    /// A share of another input (its fingerprints' digest differs).
    OtherDigest {
        run: String,
        spec: String,
        digest: String,
        expected: String,
        reference: String,
    },
    /// Not finished: still in progress, or cancelled.
    NotFinished {
        run: String,
        spec: String,
        status: RunStatus,
        phase: Phase,
    },
    /// Finished, but ran past triage (started without `--until triage`).
    PastTriage { run: String, spec: String },
}

/// The first twelve characters of a digest, as messages show it.
fn short(digest: &str) -> &str {
    &digest[..digest.len().min(12)]
}

impl std::fmt::Display for JobProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobProblem::Missing {
                share,
                shares,
                digest,
            } => write!(
                f,
                "share {share}/{shares} is missing: no folder given holds it (job {}). Add the \
                 run folder of the job that ran `start --partition hash:{share}/{shares} --until \
                 triage` (its `.self-repair/runs/<id>` artifact); if that job failed, run the \
                 share again, then merge all {shares} folders.",
                short(digest)
            ),
            JobProblem::Duplicate {
                share,
                shares,
                first,
                second,
            } => write!(
                f,
                "share {share}/{shares} is given twice: {first} and {second}. Give each share \
                 once: drop one of the two folders (two attempts of one CI job: keep the one \
                 that finished last)."
            ),
            JobProblem::Foreign { folder, why } => match why {
                ForeignWhy::NotAPartition { run } => write!(
                    f,
                    "{folder} (run {run}) is not a partition: it was started without \
                     `--partition`. Drop it: merge takes the runs of `start --partition \
                     hash:K/N --until triage` only."
                ),
                ForeignWhy::OtherShares {
                    run,
                    spec,
                    shares,
                    reference,
                } => write!(
                    f,
                    "{folder} (run {run}) is share {spec} of another split: the job of \
                     {reference} has {shares} shares. Drop it, or merge the shares of its own \
                     split on their own."
                ),
                ForeignWhy::OtherDigest {
                    run,
                    spec,
                    digest,
                    expected,
                    reference,
                } => write!(
                    f,
                    "{folder} (run {run}, share {spec}) belongs to another job: its input's \
                     findings have digest {}, those of {reference} have {} (another commit or \
                     another analyzer run). Drop it and give the shares of one job, all made \
                     from the same input.",
                    short(digest),
                    short(expected)
                ),
                ForeignWhy::NotFinished {
                    run,
                    spec,
                    status,
                    phase,
                } => write!(
                    f,
                    "{folder} (run {run}, share {spec}) has not finished: it is {} in phase {}. \
                     Drive it to the end first (`self-repair drive {run}` in its project), or \
                     take the artifact of a job that finished it.",
                    status.as_str(),
                    phase.as_str()
                ),
                ForeignWhy::PastTriage { run, spec } => write!(
                    f,
                    "{folder} (run {run}, share {spec}) ran past triage (started without \
                     `--until triage`): it grouped its share alone. Run the share again with \
                     `start --partition {spec} --until triage`."
                ),
            },
        }
    }
}

/// Every problem that keeps `runs` from being one job's N finished shares, each once; none
/// when they are. The first folder that is a partition decides which job (its N and input
/// digest) the others must belong to.
pub fn job_problems(runs: &[PartitionRun]) -> Vec<JobProblem> {
    let mut problems = Vec::new();
    let reference = runs.iter().find_map(|r| {
        r.state
            .scope
            .as_ref()
            .and_then(|s| s.partition.as_ref())
            .map(|p| (r.folder.as_str(), p))
    });
    let mut held: HashMap<u32, &str> = HashMap::new();
    for run in runs {
        let state = &run.state;
        let foreign = |why| JobProblem::Foreign {
            folder: run.folder.clone(),
            why,
        };
        let Some(partition) = state.scope.as_ref().and_then(|s| s.partition.as_ref()) else {
            problems.push(foreign(ForeignWhy::NotAPartition {
                run: state.run.clone(),
            }));
            continue;
        };
        let spec = partition.spec();
        if let Some((folder, job)) = reference {
            if partition.shares != job.shares {
                problems.push(foreign(ForeignWhy::OtherShares {
                    run: state.run.clone(),
                    spec,
                    shares: job.shares,
                    reference: folder.to_owned(),
                }));
                continue;
            }
            if partition.input_digest != job.input_digest {
                problems.push(foreign(ForeignWhy::OtherDigest {
                    run: state.run.clone(),
                    spec,
                    digest: partition.input_digest.clone(),
                    expected: job.input_digest.clone(),
                    reference: folder.to_owned(),
                }));
                continue;
            }
        }
        if state.status != RunStatus::Complete {
            problems.push(foreign(ForeignWhy::NotFinished {
                run: state.run.clone(),
                spec,
                status: state.status,
                phase: state.phase,
            }));
            continue;
        }
        if state.until != Some(Phase::Triage) {
            problems.push(foreign(ForeignWhy::PastTriage {
                run: state.run.clone(),
                spec,
            }));
            continue;
        }
        if let Some(first) = held.insert(partition.share, &run.folder) {
            problems.push(JobProblem::Duplicate {
                share: partition.share,
                shares: partition.shares,
                first: first.to_owned(),
                second: run.folder.clone(),
            });
        }
    }
    if let Some((_, job)) = reference {
        let seen: BTreeSet<u32> = runs
            .iter()
            .filter_map(|r| r.state.scope.as_ref()?.partition.as_ref())
            .filter(|p| p.shares == job.shares && p.input_digest == job.input_digest)
            .map(|p| p.share)
            .collect();
        for share in (1..=job.shares).filter(|k| !seen.contains(k)) {
            problems.push(JobProblem::Missing {
                share,
                shares: job.shares,
                digest: job.input_digest.clone(),
            });
        }
    }
    problems
}

/// The merged run and how each share's item ids were renamed in it.
#[derive(Debug, Clone)]
pub struct MergedRun {
    pub state: RunState,
    /// The whole job's records, in the job's order, pointing at the merged run's items.
    pub findings: Vec<FindingRecord>,
    /// For each share (in the order given), its item ids and their ids in the merged run.
    pub renamed: Vec<HashMap<String, String>>,
}

/// Combines the shares of one job (checked by [`job_problems`]) into the run `run`, created at
/// `created_at` and bound to `session`: every finding with its verdict, `decided_by` (the item
/// that decided it, renamed), second opinions and rule surveys, then advanced past triage, so
/// it stands at aggregation (or at finalize when nothing is real).
pub fn merge_partitions(
    run: String,
    created_at: u64,
    session: Option<String>,
    shares: &[PartitionRun],
) -> MergedRun {
    let mut order: Vec<(usize, usize)> = shares
        .iter()
        .enumerate()
        .flat_map(|(s, share)| (0..share.findings.len()).map(move |i| (s, i)))
        .collect();
    order.sort_by_key(|&(s, i)| {
        let job = shares[s].findings[i].job_index.unwrap_or(u32::MAX);
        (job, s, i)
    });
    let mut renamed: Vec<HashMap<String, String>> = vec![HashMap::new(); shares.len()];
    let mut finding_of: Vec<HashMap<u32, u32>> = vec![HashMap::new(); shares.len()];
    let mut findings = Vec::with_capacity(order.len());
    let mut items: Vec<WorkItem> = Vec::new();
    for &(s, i) in &order {
        let mut record = shares[s].findings[i].clone();
        let index = findings.len() as u32;
        finding_of[s].insert(i as u32, index);
        if let Some(old) = record.item.take()
            && let Some(item) = shares[s].state.item(&old)
        {
            let id = triage_id(items.len() + 1);
            let mut item = item.clone();
            item.id = id.as_str().into();
            item.finding = Some(index);
            items.push(item);
            renamed[s].insert(old, id.clone());
            record.item = Some(id);
        }
        record.job_index = None;
        findings.push(record);
    }
    let triage_items = items.len() as u32;
    let surveys = renumber_surveys(shares, &mut renamed);
    renumber_batches(shares, &mut renamed);
    for (s, share) in shares.iter().enumerate() {
        for item in share
            .state
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Verify)
        {
            let first = crate::verification::triage_id_of_verify(&item.id);
            if let Some(new) = renamed[s].get(&first).cloned() {
                renamed[s].insert(item.id.to_string(), verify_id(&new));
            }
        }
    }
    for kind in [
        ItemKind::RuleSurvey,
        ItemKind::TriageBatch,
        ItemKind::Verify,
    ] {
        let mut of_kind: Vec<WorkItem> = Vec::new();
        for (s, share) in shares.iter().enumerate() {
            for item in share.state.items.iter().filter(|i| i.kind == kind) {
                if let Some(new) = renamed[s].get(item.id.as_str()) {
                    let mut item = renamed_item(item, new, &renamed[s]);
                    item.finding = item.finding.and_then(|f| finding_of[s].get(&f).copied());
                    of_kind.push(item);
                }
            }
        }
        of_kind.sort_by(|a, b| a.id.cmp(&b.id));
        items.extend(of_kind);
    }
    let first = &shares[0].state;
    // A list of findings of each share's state, renumbered into the merged run, ascending.
    let merged_list = |list: fn(&RunState) -> &Vec<u32>| {
        let mut merged: Vec<u32> = shares
            .iter()
            .enumerate()
            .flat_map(|(s, share)| {
                let map = &finding_of[s];
                list(&share.state)
                    .iter()
                    .filter_map(|f| map.get(f).copied())
            })
            .collect();
        merged.sort_unstable();
        merged
    };
    let safe_fixes = merged_list(|state| &state.safe_fixes);
    let severe = merged_list(|state| &state.severe);
    let sum = |count: fn(&Intake) -> u32| shares.iter().map(|s| count(&s.state.intake)).sum();
    let intake = Intake {
        findings: first.intake.findings,
        unique: findings.len() as u32,
        known: sum(|i| i.known),
        rules: sum(|i| i.rules),
        routed: sum(|i| i.routed),
    };
    let merged_from = shares
        .iter()
        .map(|share| {
            let partition = share
                .state
                .scope
                .as_ref()
                .and_then(|s| s.partition.clone())
                .unwrap_or_else(|| PartitionScope {
                    share: 0,
                    shares: 0,
                    whole_rule_from: 0,
                    whole_rules: 0,
                    input_unique: 0,
                    input_digest: String::new(),
                    other_shares: 0,
                });
            MergedShare {
                run: share.state.run.clone(),
                share: partition.share,
                shares: partition.shares,
                folder: share.folder.clone(),
                unique: share.state.intake.unique,
                routed: share.state.intake.routed,
            }
        })
        .collect::<Vec<_>>();
    let mut merged_from = merged_from;
    merged_from.sort_by_key(|m| m.share);
    let mut state = RunState::new(
        run,
        created_at,
        session,
        first.config.clone(),
        intake,
        items,
    );
    state.schema_version = first.schema_version;
    state.scope = whole_job_scope(first.scope.as_ref());
    state.triage_items = triage_items;
    state.surveys = surveys;
    state.safe_fixes = safe_fixes;
    state.severe = severe;
    state.merged_from = merged_from;
    advance(&mut state);
    MergedRun {
        state,
        findings,
        renamed,
    }
}

/// The scope of the merged run: the shares' own (`--changed-since`, `--new-only`), without
/// the partition; none when that leaves the whole input.
fn whole_job_scope(scope: Option<&RunScope>) -> Option<RunScope> {
    let mut scope = scope?.clone();
    scope.partition = None;
    let whole = scope.changed_since.is_none() && !scope.new_only;
    (!whole).then_some(scope)
}

/// The shares' rule surveys, numbered `rs-00001`... in the order of their first member in the
/// merged run (as a single run numbers them), their members renamed.
fn renumber_surveys(
    shares: &[PartitionRun],
    renamed: &mut [HashMap<String, String>],
) -> Vec<SurveyRecord> {
    let mut surveys: Vec<(usize, SurveyRecord)> = Vec::new();
    for (s, share) in shares.iter().enumerate() {
        for survey in &share.state.surveys {
            let map = &renamed[s];
            let rename = |ids: &[String]| -> Vec<String> {
                ids.iter()
                    .map(|id| map.get(id).cloned().unwrap_or_else(|| id.clone()))
                    .collect()
            };
            let mut survey = survey.clone();
            survey.members = rename(&survey.members).into();
            survey.sample = rename(&survey.sample);
            survey.spot_checks = rename(&survey.spot_checks);
            surveys.push((s, survey));
        }
    }
    surveys.sort_by(|a, b| a.1.members.first().cmp(&b.1.members.first()));
    surveys
        .into_iter()
        .enumerate()
        .map(|(n, (s, mut survey))| {
            let id = format!("rs-{:05}", n + 1);
            renamed[s].insert(survey.id.clone(), id.clone());
            survey.id = id;
            survey
        })
        .collect()
}

/// The shares' triage batches, numbered `tb-00001`... share after share (batches are how each
/// share dispatched its triage; the merged run dispatches none).
fn renumber_batches(shares: &[PartitionRun], renamed: &mut [HashMap<String, String>]) {
    let mut n = 0;
    for (s, share) in shares.iter().enumerate() {
        for item in share
            .state
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::TriageBatch)
        {
            n += 1;
            renamed[s].insert(item.id.to_string(), format!("tb-{n:05}"));
        }
    }
}

/// `item` as `id`, with the ids it names (inputs, dependencies) renamed by `map`.
fn renamed_item(item: &WorkItem, id: &str, map: &HashMap<String, String>) -> WorkItem {
    let rename = |ids: &[String]| -> Vec<String> {
        ids.iter()
            .map(|i| map.get(i).cloned().unwrap_or_else(|| i.clone()))
            .collect()
    };
    let rename_inputs = |ids: &[CompactString]| -> Vec<CompactString> {
        ids.iter()
            .map(|i| {
                map.get(i.as_str())
                    .map_or_else(|| i.clone(), |to| to.as_str().into())
            })
            .collect()
    };
    let mut out = item.clone();
    out.id = id.into();
    out.set_extra(crate::ItemExtra {
        depends_on: rename(item.depends_on()),
        inputs: rename_inputs(item.inputs()),
        last_rejection: item.last_rejection().map(str::to_owned),
        errors: item.errors().to_vec(),
        rule: item.rule().map(str::to_owned),
        duplicate_of: item
            .duplicate_of()
            .map(|d| map.get(d).cloned().unwrap_or_else(|| d.to_owned())),
        security: item.security_sticky(),
        ..crate::ItemExtra::default()
    });
    out
}

#[cfg(test)]
#[path = "merge_partitions_tests.rs"]
mod tests;
