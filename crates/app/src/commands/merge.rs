//! `self-repair merge DIR...`: the runs of one job's partitions (`start --partition hash:K/N
//! --until triage`, each folder a CI artifact), checked to be the job's N finished shares and
//! combined into one new run of this project that goes on from aggregation (design note 54).

use std::collections::HashMap;
use std::path::PathBuf;

use clap::Args;
use self_repair_cost::{CostLedger, PartCost, PriceTable, copy_records};
use self_repair_engine::{
    Event, JournalEntry, PartitionRun, Phase, Verdict, job_problems, merge_partitions,
};
use self_repair_store::{Project, RunDir, copy_partition_results, write_json_rows};
use serde::Serialize;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::finalize::read_findings;
use crate::run::in_progress::{cancel_replaced, run_to_replace};
use crate::run::partitions::MergedShareReport;

/// `self-repair merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Each partition's run folder (`.self-repair/runs/<id>`, as its CI job uploaded it).
    #[arg(required = true, value_name = "DIR")]
    pub folders: Vec<PathBuf>,
    /// Run id of the merged run (default `r-YYYYMMDD-HHMM`).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Cancel the active run if it is still in progress (without it, `merge` refuses).
    #[arg(long)]
    pub replace: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `merge` did.
#[derive(Debug, Clone, Serialize)]
pub struct MergeReport {
    pub run: String,
    pub project: PathBuf,
    /// The digest of the job's input (every share's `scope.partition.input_digest`).
    pub job: String,
    pub shares: Vec<MergedShareReport>,
    pub intake: self_repair_engine::Intake,
    /// Verdicts by name (`real`, `false_positive`, ...), over the findings agents decided.
    pub verdicts: Vec<(String, u32)>,
    pub phase: Phase,
    /// Aggregators the merged run starts with.
    pub aggregators: u32,
    /// What the partitions spent in all (the merged run's ledger starts from it).
    pub spent_usd: f64,
    pub session: Option<String>,
    /// The run in progress this one replaced (`--replace`), in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<&'static str>,
}

impl MergeReport {
    /// The text `merge` prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(replaced) = &self.replaced {
            out.push_str(replaced);
            out.push('\n');
        }
        let i = &self.intake;
        out.push_str(&format!(
            "merged {} partitions of job {} into run {}: {} unique findings, decided by the \
             known registry {}, by rules {}, by the partitions' agents {} (none is triaged \
             again)\n",
            self.shares.len(),
            &self.job[..self.job.len().min(12)],
            self.run,
            i.unique,
            i.known,
            i.rules,
            i.routed
        ));
        for s in &self.shares {
            let cost = s.cost.map_or_else(
                || "no cost ledger".to_owned(),
                |c| format!("${:.4}, {} agents", c.usd, c.agents),
            );
            out.push_str(&format!(
                "  share {}/{} run {} ({}): {} unique, {} triaged; {cost}\n",
                s.share.share,
                s.share.shares,
                s.share.run,
                s.share.folder,
                s.share.unique,
                s.share.routed
            ));
        }
        if !self.verdicts.is_empty() {
            let verdicts: Vec<String> = self
                .verdicts
                .iter()
                .map(|(v, n)| format!("{n} {v}"))
                .collect();
            out.push_str(&format!("verdicts: {}\n", verdicts.join(", ")));
        }
        out.push_str(&format!(
            "cost so far: ${:.4} spent by the partitions (the merged run's ledger starts from it; \
             `self-repair status` shows it per partition)\n",
            self.spent_usd
        ));
        match self.phase {
            Phase::Aggregate => out.push_str(&format!(
                "phase aggregate: {} aggregator(s) group the real findings of every share at once, then plans and tasks\n",
                self.aggregators
            )),
            Phase::Finalize => {}
            phase => out.push_str(&format!(
                "phase {}: the real findings of every share are grouped; then plans and tasks\n",
                phase.as_str()
            )),
        }
        out.push_str(&crate::run::start_recipe::who_drives(
            self.session.as_deref(),
            self.phase,
            self.protocol,
        ));
        out
    }
}

/// Runs `merge`.
pub fn run(env: &CommandEnv, args: &MergeArgs) -> Result<Output, AppError> {
    let json = args.json;
    let report = merge(env, args)?;
    Output::json_or(json, &report, MergeReport::render)
}

/// Reads the partitions, checks they are one job's, and creates the merged run.
pub fn merge(env: &CommandEnv, args: &MergeArgs) -> Result<MergeReport, AppError> {
    let folders: Vec<PathBuf> = args.folders.iter().map(|f| env.cwd.join(f)).collect();
    let shares = read_shares(&args.folders, &folders)?;
    refuse_unless_one_job(&shares)?;
    let project = match &env.project {
        Some(root) => Project::at(root.clone()),
        None => Project::find_or_choose(env.start_dir()),
    };
    let replaced = run_to_replace(&project, args.replace, &merge_again(args))?;
    let run_id = match &args.run_id {
        Some(id) => id.clone(),
        None => crate::run::start_recipe::free_run_id(&project, env.now)?,
    };
    let merged = merge_partitions(run_id.clone(), env.now, env.session.clone(), &shares);
    let mut state = merged.state;
    state.protocol_told.clone_from(&env.session);
    // Built where no reader lists it, then made `runs/<id>` in one rename.
    let new_run = project.begin_run(&run_id)?;
    let dir = new_run.dir().clone();
    write_json_rows(&dir.findings_path(), &merged.findings)?;
    dir.create(&state)?;
    for (share, renamed) in folders.iter().zip(&merged.renamed) {
        copy_partition_results(&RunDir::at(share.clone()), &dir, renamed)?;
    }
    let items_before = state.items.len();
    let runs = state.merged_from.iter().map(|m| m.run.clone()).collect();
    dir.record(
        &mut state,
        &[JournalEntry {
            at: env.now,
            event: Event::Merged { runs },
        }],
    )?;
    dir.save_state(&state, items_before)?;
    let costs = merge_ledgers(&dir, &shares, &folders, &merged.renamed)?;
    merge_kept_inputs(&dir, &shares, &folders, &merged.findings)?;
    crate::run::inputs::merge_rule_texts(&dir, &folders)?;
    new_run.publish()?;
    project.set_active(&run_id)?;
    let replaced = replaced
        .map(|old| cancel_replaced(&project, old, env.now))
        .transpose()?;
    self_repair_store::TeamFiles::ensure(&project.store_dir())?;
    let job = shares
        .iter()
        .find_map(|s| s.state.scope.as_ref()?.partition.as_ref())
        .map(|p| p.input_digest.clone())
        .unwrap_or_default();
    let spent_usd = costs.values().map(|c| c.usd).sum();
    Ok(MergeReport {
        run: run_id,
        project: project.root().to_path_buf(),
        job,
        shares: state
            .merged_from
            .iter()
            .map(|share| MergedShareReport {
                share: share.clone(),
                cost: costs.get(&share.run).copied(),
            })
            .collect(),
        intake: state.intake.clone(),
        verdicts: verdict_counts(&state),
        phase: state.phase,
        aggregators: state
            .items
            .iter()
            .filter(|i| i.kind == self_repair_engine::ItemKind::Aggregate)
            .count() as u32,
        spent_usd,
        session: env.session.clone(),
        replaced,
        protocol: state
            .protocol_told
            .as_ref()
            .map(|_| self_repair_engine::PROTOCOL),
    })
}

/// Exit 9 with one line per problem when the shares are not one job's N finished partitions.
fn refuse_unless_one_job(shares: &[PartitionRun]) -> Result<(), AppError> {
    let problems = job_problems(shares);
    if problems.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
    Err(AppError::NotOneJob(format!(
        "these folders are not one job's {} finished partitions; nothing was created:\n{}",
        shares
            .iter()
            .find_map(|s| s.state.scope.as_ref()?.partition.as_ref())
            .map_or_else(|| "N".to_owned(), |p| p.shares.to_string()),
        lines.join("\n")
    )))
}

/// Each folder's run: its state with its journal folded in (read only), and its findings.
fn read_shares(given: &[PathBuf], folders: &[PathBuf]) -> Result<Vec<PartitionRun>, AppError> {
    let mut shares = Vec::with_capacity(folders.len());
    for (given, folder) in given.iter().zip(folders) {
        let name = given.display().to_string();
        if !folder.is_dir() {
            return Err(AppError::NotFound(format!(
                "{name}: no such folder. Give each partition's run folder \
                 (`.self-repair/runs/<id>` of the project it ran in, or its CI artifact \
                 unpacked); nothing was created."
            )));
        }
        let dir = RunDir::at(folder.clone());
        if !dir.state_path().is_file() {
            return Err(AppError::NotOneJob(format!(
                "{name} holds no run (no state.json): give the run folder itself, \
                 `.self-repair/runs/<id>` inside the artifact, not the folder above it; nothing \
                 was created."
            )));
        }
        let mut state = dir.load_state()?;
        dir.fold(&mut state)?;
        let findings = read_findings(&dir)?;
        shares.push(PartitionRun {
            folder: name,
            state,
            findings,
        });
    }
    Ok(shares)
}

/// The merged run's ledger: the partitions' spend summed and kept per partition, their records
/// under the merged run's item ids. Returns what each partition's run spent, by run id.
fn merge_ledgers(
    dir: &RunDir,
    shares: &[PartitionRun],
    folders: &[PathBuf],
    renamed: &[HashMap<String, String>],
) -> Result<HashMap<String, PartCost>, AppError> {
    let ledgers: Vec<(String, CostLedger)> = shares
        .iter()
        .zip(folders)
        .filter_map(|(share, folder)| Some((share.state.run.clone(), CostLedger::load(folder)?)))
        .collect();
    let prices = ledgers
        .first()
        .map_or_else(PriceTable::default, |(_, l)| l.prices.clone());
    let mut ledger = CostLedger::merged(prices, &ledgers);
    ledger.save(dir.path(), &self_repair_cost::Accounted::default())?;
    for (folder, renamed) in folders.iter().zip(renamed) {
        copy_records(folder, dir.path(), &|id| renamed.get(id).cloned())?;
    }
    Ok(ledger.partitions.into_iter().collect())
}

/// The kept SARIF inputs and `inputs/index.json` of the merged run, from the partitions'
/// (reference/export.md): `export sarif` of the merged run writes every result back.
fn merge_kept_inputs(
    dir: &RunDir,
    shares: &[PartitionRun],
    folders: &[PathBuf],
    findings: &[self_repair_engine::FindingRecord],
) -> Result<(), AppError> {
    let merged_index: HashMap<&str, u32> = findings
        .iter()
        .enumerate()
        .map(|(n, r)| (r.fingerprint.as_str(), n as u32))
        .collect();
    let numbering: Vec<Vec<Option<u32>>> = shares
        .iter()
        .map(|share| {
            share
                .findings
                .iter()
                .map(|r| merged_index.get(r.fingerprint.as_str()).copied())
                .collect()
        })
        .collect();
    let record_of: Vec<_> = numbering
        .iter()
        .map(|n| move |record: u32| n.get(record as usize).copied().flatten())
        .collect();
    let parts: Vec<self_repair_export::ShareInputs<'_>> = folders
        .iter()
        .zip(&record_of)
        .map(|(folder, f)| (folder.as_path(), f as &dyn Fn(u32) -> Option<u32>))
        .collect();
    self_repair_export::merge_inputs(dir.path(), &parts).map_err(|e| AppError::Io {
        action: "write",
        path: dir.path().join(self_repair_export::INDEX_FILE),
        source: std::io::Error::other(e.to_string()),
    })
}

/// How many findings agents decided each way, in [`Verdict::ALL`]'s order.
fn verdict_counts(state: &self_repair_engine::RunState) -> Vec<(String, u32)> {
    Verdict::ALL
        .iter()
        .filter_map(|verdict| {
            let n = state.items[..state.triage_items as usize]
                .iter()
                .filter(|i| i.verdict == Some(*verdict))
                .count() as u32;
            (n > 0).then(|| (verdict.as_str().to_owned(), n))
        })
        .collect()
}

/// The `merge` command line again, with `--replace`.
fn merge_again(args: &MergeArgs) -> String {
    let mut words = vec!["self-repair merge".to_owned()];
    words.extend(args.folders.iter().map(|f| f.display().to_string()));
    if let Some(id) = &args.run_id {
        words.push(format!("--run-id {id}"));
    }
    words.push("--replace".to_owned());
    words.join(" ")
}
