//! `self-repair start`: read findings, fingerprint, merge identical ones, route, create the run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use clap::Args;
use self_repair_classify::{Classified, Classifier, KnownEntry, KnownRegistry, RuleBook};
use self_repair_engine::{
    Finding, FindingRecord, FixEdit, Intake, Occurrence, Phase, RoutedFinding, RunScope,
    create_run, default_route, triage_id, wait_for_go,
};
use self_repair_export::{InputToSave, save_inputs};
use self_repair_ingest::{
    Format, IngestOptions, MAX_FIX_EDIT_BYTES, MAX_FIX_EDITS, RuleText, fingerprint_all, parse,
};
use self_repair_store::{Project, RunDir, write_json_rows};
use serde::Serialize;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::piped_stdin;
use crate::output::Output;
use crate::prompts::decided_code::decided_code;
use crate::run::detection::{Detection, run_detectors, save_detections};
use crate::run::in_progress::{cancel_replaced, run_to_replace};
use crate::run::input_scope::InputScope;
use crate::run::kept_verdicts::keep_unfinished_runs;
use crate::run::project_config::load_config;
use crate::run::project_config::load_project_config;
use crate::run::start_recipe::{free_run_id, who_drives};

pub use crate::run::inputs::InputSpec;
pub use crate::run::start_recipe::StartOptions;

/// `self-repair start`.
#[derive(Debug, Args)]
pub struct StartArgs {
    /// Findings files; `-` or none reads standard input.
    pub files: Vec<PathBuf>,
    /// Input format: auto, jsonl, sarif, clippy, ruff, eslint, knip, vulture, bandit, ts-prune,
    /// github-alerts.
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Run id (default `r-YYYYMMDD-HHMM`).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Config file (default `.self-repair/config.json` when present).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Absolute prefix to strip from paths an analyzer wrote on another machine (default:
    /// inferred from the project's files when they lie outside the project).
    #[arg(long, value_name = "DIR")]
    pub base: Option<PathBuf>,
    /// Project folder the analyzer ran in: relative paths in its output are under it.
    #[arg(long, value_name = "DIR")]
    pub relative_to: Option<String>,
    /// Also run the detectors of `.self-repair/config.json` and ingest their output.
    #[arg(long)]
    pub detect: bool,
    /// Cancel the active run if it is still in progress (without it, `start` refuses).
    #[arg(long)]
    pub replace: bool,
    /// Dollars the run may spend in all (over the config's `budget_usd`).
    #[arg(
        long,
        value_name = "USD",
        allow_negative_numbers = true,
        value_parser = crate::commands::dollars_above_zero
    )]
    pub budget: Option<f64>,
    /// Print the agents, tokens and dollars the run is expected to take; create nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Keep only the findings on lines changed since REF (`git diff REF`, e.g. `origin/main...`
    /// for what a pull request changed); the others are counted as out of scope.
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,
    /// Keep only SARIF results whose `baselineState` is `new`.
    #[arg(long)]
    pub new_only: bool,
    /// Take share K of N of the findings (`hash:K/N`), the same on every machine.
    #[arg(long, value_name = "hash:K/N")]
    pub partition: Option<String>,
    /// End the run after this phase (only `triage`: verdicts, no groups or plans).
    #[arg(long, value_name = "PHASE")]
    pub until: Option<String>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `start`: standard input is read when a file is `-` or none is given.
pub fn run(env: &CommandEnv, args: StartArgs) -> Result<Output, AppError> {
    let format: Format = args
        .format
        .parse()
        .map_err(|e| AppError::Usage(format!("--format: {e}")))?;
    let needs_stdin = args.files.is_empty() || args.files.iter().any(|f| f.as_os_str() == "-");
    let stdin = if needs_stdin { piped_stdin()? } else { None };
    let until = match args.until.as_deref() {
        None => None,
        Some("triage") => Some(Phase::Triage),
        Some(other) => {
            return Err(AppError::Usage(format!(
                "--until {other}: only `--until triage` exists (the run ends once every finding has its verdict)"
            )));
        }
    };
    let options = StartOptions {
        files: args.files,
        stdin,
        format: Some(format),
        run_id: args.run_id,
        config: args.config,
        base: args.base,
        relative_to: args.relative_to,
        prepared: Vec::new(),
        detect: args.detect,
        replace: args.replace,
        budget_usd: args.budget,
        dry_run: args.dry_run,
        scope: InputScope {
            changed_since: args.changed_since,
            new_only: args.new_only,
            partition: args.partition,
        },
        until,
        detached: false,
    };
    let report = start(env, &options)?;
    Output::json_or(args.json, &report, StartReport::render)
}

/// One input and the format it was read as.
#[derive(Debug, Clone, Serialize)]
pub struct InputSummary {
    pub source: String,
    pub format: String,
    pub findings: usize,
    /// The folder the analyzer ran in on another machine, inferred from the project's files
    /// because its absolute paths lay outside the project and no `--base` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferred_base: Option<String>,
    /// GitHub code scanning alerts left out because they are not open (dismissed or fixed).
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub not_open: usize,
    /// The input held nothing but white space: no analyzer writes that for a clean project.
    #[serde(skip)]
    pub blank: bool,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_zero_usize(n: &usize) -> bool {
    *n == 0
}

/// What `start` did.
#[derive(Debug, Clone, Serialize)]
pub struct StartReport {
    pub run: String,
    pub project: PathBuf,
    pub inputs: Vec<InputSummary>,
    pub intake: Intake,
    /// What part of the input the run takes; absent when all of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<RunScope>,
    pub phase: Phase,
    /// Routed findings per route.
    pub routes: Vec<(String, u32)>,
    pub session: Option<String>,
    /// The run in progress this one replaced (`--replace`), in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
    /// The id of the run `replaced` names: its kept verdicts are said in that line, not again.
    #[serde(skip)]
    pub replaced_run: Option<String>,
    /// Known decisions that no longer apply: the code they were decided on changed.
    #[serde(skip_serializing_if = "is_zero")]
    pub stale_known: u32,
    /// The findings the known registry decided, by the run (or `manual`, `baseline`) whose
    /// verdict it holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub known_from: Vec<(String, u32)>,
    /// Runs that ended without finalizing whose decided verdicts `start` kept in `known.json`
    /// first, and how many entries each added or changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_from: Vec<(String, usize)>,
    /// Agents, tokens and dollars expected, before any dispatch (reference/cost.md).
    pub estimate: crate::run::preflight::Preflight,
    /// `--dry-run`: nothing was created.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// How the session the run is bound to answers the hook's blocks, said here once
    /// ([`self_repair_engine::PROTOCOL`]); its first block then carries only its dispatch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<&'static str>,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl StartReport {
    /// The text `start` prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(replaced) = &self.replaced {
            out.push_str(replaced);
            out.push('\n');
        }
        self.render_inputs(&mut out);
        let i = &self.intake;
        let created = if self.dry_run {
            "dry run, nothing created: run"
        } else {
            "run"
        };
        out.push_str(&format!(
            "{created} {} {}: {} findings, {} unique{}; known registry decided {}, rules decided {}, {} go to triage agents",
            self.run,
            if self.dry_run { "would be" } else { "created" },
            i.findings,
            i.unique,
            if self.scope.is_some() { " in scope" } else { "" },
            i.known,
            i.rules,
            i.routed
        ));
        if !self.routes.is_empty() {
            let routes: Vec<String> = self
                .routes
                .iter()
                .map(|(r, n)| format!("{r} {n}"))
                .collect();
            out.push_str(&format!(" ({})", routes.join(", ")));
        }
        out.push('\n');
        if let Some(scope) = &self.scope {
            out.push_str(&format!("scope: {}\n", scope.summary()));
        }
        self.render_known(&mut out);
        if self.stale_known > 0 {
            out.push_str(&format!(
                "{} known decision(s) no longer apply: the code they were decided on changed, so those findings are triaged again\n",
                self.stale_known
            ));
        }
        out.push_str(&self.estimate.render());
        out.push_str(&self.what_next());
        out
    }

    /// One line per input read: its findings, its format, the alerts left out and the base its
    /// paths were written under.
    fn render_inputs(&self, out: &mut String) {
        for input in &self.inputs {
            out.push_str(&format!(
                "read {} finding(s) from {} as {}",
                input.findings, input.source, input.format
            ));
            if input.not_open > 0 {
                out.push_str(&format!(
                    " ({} alert(s) not open, dismissed or fixed, left out: only open alerts are \
                     triaged)",
                    input.not_open
                ));
            }
            out.push('\n');
            if let Some(base) = &input.inferred_base {
                out.push_str(&format!(
                    "  its paths were written under {base} (inferred from the project's files; pass --base DIR to choose another)\n"
                ));
            }
        }
    }

    /// Where the registry's decisions came from: verdicts kept from runs that ended without
    /// finalizing, and the findings known.json decided, by who decided them.
    fn render_known(&self, out: &mut String) {
        let said_by_replace = |run: &str| self.replaced_run.as_deref() == Some(run);
        for (run, n) in self
            .kept_from
            .iter()
            .filter(|(run, _)| !said_by_replace(run))
        {
            out.push_str(&format!(
                "kept {n} decided verdict(s) of run {run}, which ended without finalizing, in \
                 known.json\n"
            ));
        }
        if !self.known_from.is_empty() {
            let from: Vec<String> = self
                .known_from
                .iter()
                .map(|(source, n)| match source.as_str() {
                    "manual" | "" => format!("{n} added by hand (`known add`)"),
                    "baseline" => format!("{n} from the baseline (`known baseline`)"),
                    run => format!("{n} from run {run}"),
                })
                .collect();
            out.push_str(&format!(
                "decided without an agent by known.json: {}\n",
                from.join(", ")
            ));
        }
    }

    /// Why a run has nothing to triage: a clean report, or nothing in scope.
    fn clean_reason(&self) -> String {
        if self.intake.findings == 0 {
            "the analyzer's report holds no finding (a clean project)".to_owned()
        } else {
            format!(
                "none of the {} finding(s) read is in the run's scope",
                self.intake.findings
            )
        }
    }

    /// What happens next: the dry run's word, the wait for the user's go, or who drives it.
    fn what_next(&self) -> String {
        let mut out = String::new();
        if self.dry_run {
            if self.estimate.waits_for_go {
                out.push_str(&format!(
                    "above confirm_above_usd ${:.2}: the run would wait for your go \
                     (`self-repair resume --confirm`) before any dispatch\n",
                    self.estimate.confirm_above_usd.unwrap_or(0.0)
                ));
            }
            out.push_str("start it without --dry-run to create the run\n");
            return out;
        }
        if self.phase == Phase::Complete {
            out.push_str(&format!(
                "nothing to triage: {}; run {} is complete (report: \
                 .self-repair/runs/{}/report.md). `self-repair drive` and `self-repair export` \
                 succeed on it with nothing to do\n",
                self.clean_reason(),
                self.run,
                self.run
            ));
            return out;
        }
        if self.estimate.waits_for_go {
            out.push_str(&format!(
                "the run waits for your go: its likely cost is above confirm_above_usd ${:.2} \
                 (reference/config.md), so nothing is dispatched until `self-repair resume \
                 --confirm` (add `--budget USD` to cap it); \
                 `self-repair cancel` drops it\n",
                self.estimate.confirm_above_usd.unwrap_or(0.0)
            ));
            return out;
        }
        out.push_str(&who_drives(
            self.session.as_deref(),
            self.phase,
            self.protocol,
        ));
        out
    }
}

/// Reads every input, then creates the run. Nothing is created when any input is bad.
pub fn start(env: &CommandEnv, options: &StartOptions) -> Result<StartReport, AppError> {
    let read = read_and_route(env, options)?;
    // An input of white space is no analyzer's report; a report without a finding (Ruff's
    // `[]`, a SARIF log with no result) is a clean project: a run with nothing to triage.
    if read.intake.findings == 0 && read.inputs.iter().any(|i| i.blank) {
        return Err(no_findings(&read.inputs));
    }
    if options.dry_run {
        return Ok(dry_run_report(env, read));
    }
    create_started_run(env, read)
}

/// A run with nothing in it (a clean report, or nothing in scope) is finalized at once: it is
/// complete, with its report, before `start` returns.
fn finalize_if_empty(project: &Project, dir: &RunDir, now: u64) -> Result<Phase, AppError> {
    let state = crate::run::load::load_folded(dir, false)?;
    if state.intake.unique > 0 || state.phase != Phase::Finalize {
        return Ok(state.phase);
    }
    crate::run::finalize::finalize_now(project, dir, now)?;
    Ok(Phase::Complete)
}

/// What `start` read and decided before it writes anything: the inputs narrowed to the run's
/// scope, what the registry and the rules decided, and the items the rest is routed to.
struct ReadAndRouted {
    project: Project,
    /// The run in progress this one replaces (`--replace`), cancelled once this one exists.
    to_replace: Option<(self_repair_store::RunDir, String)>,
    /// The runs whose verdicts were kept in `known.json` just now, and how many each.
    kept_from: Vec<(String, usize)>,
    /// The options, with the detectors' reports (`--detect`) among the prepared inputs.
    options: StartOptions,
    config: self_repair_engine::Config,
    detections: Vec<Detection>,
    inputs: Vec<InputSummary>,
    rule_texts: Vec<RuleText>,
    kept: Vec<KeptInput>,
    placed: Vec<[u32; 2]>,
    records: Vec<FindingRecord>,
    scope: Option<self_repair_engine::RunScope>,
    routing: Routing,
    intake: Intake,
}

/// Runs the detectors (`--detect`), reads every input in scope and routes its findings.
fn read_and_route(env: &CommandEnv, options: &StartOptions) -> Result<ReadAndRouted, AppError> {
    let project = match &env.project {
        Some(root) => Project::at(root.clone()),
        None => Project::find_or_choose(env.start_dir()),
    };
    let root = project.root().to_path_buf();
    let config = run_config(&project, env, options)?;
    let store_dir = project.store_dir();
    // Refused before anything is written: a run in progress is replaced only when told.
    let to_replace = if options.detached || options.dry_run {
        None
    } else {
        run_to_replace(&project, options.replace, &start_again(options))?
    };
    // What the runs that ended without finalizing decided (the run replaced here among them)
    // decides these findings without an agent.
    let (known, kept_from) = keep_unfinished_runs(&project, env.now, options.dry_run)?;
    let book = RuleBook::load(&store_dir).map_err(classify_error)?;
    let classifier = Classifier::new(&known, book.accepted());
    let detections = if options.detect {
        let config = load_project_config(&store_dir, options.config.as_deref())?;
        run_detectors(&root, &config.detectors, None)?
    } else {
        Vec::new()
    };
    let mut options = options.clone();
    options
        .prepared
        .extend(detections.iter().map(|d| d.input.clone()));
    let InScope {
        inputs,
        rule_texts,
        kept,
        placed,
        mut records,
        scope,
    } = read_in_scope(&root, &options, config.survey_min)?;
    let routing = route_records(&root, &classifier, &known, &config, &mut records)?;
    let intake = Intake {
        findings: inputs.iter().map(|i| i.findings as u32).sum(),
        unique: records.len() as u32,
        known: routing.by_known,
        rules: routing.by_rules,
        routed: routing.routed.len() as u32,
    };
    Ok(ReadAndRouted {
        project,
        to_replace,
        kept_from,
        options,
        config,
        detections,
        inputs,
        rule_texts,
        kept,
        placed,
        records,
        scope,
        routing,
        intake,
    })
}

/// Writes the run: its folder, findings, state, cost ledger and kept inputs; makes it active.
fn create_started_run(env: &CommandEnv, read: ReadAndRouted) -> Result<StartReport, AppError> {
    let ReadAndRouted {
        project,
        to_replace,
        kept_from,
        options,
        config,
        detections,
        inputs,
        rule_texts,
        kept,
        placed,
        records,
        scope,
        routing,
        intake,
    } = read;
    let (root, store_dir) = (project.root().to_path_buf(), project.store_dir());
    let session = env.session.clone().filter(|_| !options.detached);
    let given = options.run_id.clone();
    let run_id = given.map_or_else(|| free_run_id(&project, env.now), Ok)?;
    // Built where no reader lists it; `runs/<id>` appears in one rename, whole (design note 68).
    let new_run = project.begin_run(&run_id)?;
    let dir = new_run.dir().clone();
    if !detections.is_empty() {
        save_detections(&dir.path().join("detect"), &detections)?;
    }
    write_json_rows(&dir.findings_path(), &records)?;
    let mut state = create_run(
        run_id.clone(),
        env.now,
        config,
        intake.clone(),
        session.clone(),
        &routing.routed,
    );
    state.scope.clone_from(&scope);
    state.until = options.until;
    let mut estimate = crate::run::preflight::preflight(&project, &state);
    estimate.waits_for_go = wait_for_go(&mut state, estimate.agents_likely, estimate.usd_likely);
    // The session `start` runs in reads the standing protocol in its output (`render`).
    state.protocol_told.clone_from(&session);
    dir.create(&state)?;
    let prices = load_project_config(&store_dir, options.config.as_deref())?.prices;
    crate::run::cost::open_ledger(&project, &dir, &run_id, &prices)?;
    let sources: Vec<String> = inputs.iter().map(|i| i.source.clone()).collect();
    crate::run::inputs::record_inputs(&root, &env.cwd, &dir, &sources)?;
    crate::run::inputs::record_rule_texts(&dir, rule_texts, &records)?;
    keep_inputs(&dir, &inputs, &kept, &placed)?;
    crate::run::start_recipe::record(&dir, &options, &env.cwd)?;
    let (replaced_run, replaced) =
        publish(&project, new_run, options.detached, to_replace, env.now)?.unzip();
    // What a team commits and what stays here (README.md, "Team and CI").
    self_repair_store::TeamFiles::ensure(&store_dir)?;
    // The run now lives under `runs/<id>`, not where it was built.
    let dir = project.run(&run_id)?;
    state.phase = finalize_if_empty(&project, &dir, env.now)?;
    Ok(StartReport {
        run: run_id,
        project: root,
        inputs,
        intake,
        scope,
        phase: state.phase,
        routes: routing.route_counts,
        session,
        replaced,
        replaced_run,
        stale_known: routing.stale_known,
        known_from: routing.known_from,
        kept_from,
        estimate,
        dry_run: false,
        protocol: state
            .protocol_told
            .as_ref()
            .map(|_| self_repair_engine::PROTOCOL),
    })
}

/// Makes the run built in `new_run` visible, then active (unless `detached`), and only then
/// cancels the run it replaces; returns that run's id and the line that says so.
fn publish(
    project: &Project,
    new_run: self_repair_store::NewRun,
    detached: bool,
    to_replace: Option<(self_repair_store::RunDir, String)>,
    now: u64,
) -> Result<Option<(String, String)>, AppError> {
    let id = new_run.id().to_owned();
    new_run.publish()?;
    if !detached {
        project.set_active(&id)?;
    }
    to_replace
        .map(|old| {
            let id = old.0.id().clone();
            cancel_replaced(project, old, now).map(|line| (id, line))
        })
        .transpose()
}

/// The run's settings: the config file's, `--budget` over them, and no agent prefix for agents
/// `install` copied into `.claude/agents` (they are not the plugin's).
fn run_config(
    project: &Project,
    env: &CommandEnv,
    options: &StartOptions,
) -> Result<self_repair_engine::Config, AppError> {
    let (mut config, sets_prefix) = load_config(&project.store_dir(), options.config.as_deref())?;
    if !sets_prefix
        && self_repair_install::agents_installed_by_command(
            project.root(),
            env.user_install_root().as_ref(),
        )
    {
        config.agent_prefix = String::new();
    }
    if let Some(budget) = options.budget_usd {
        config.budget_usd = Some(budget);
        config
            .validate()
            .map_err(|e| AppError::Usage(format!("--budget: {e}")))?;
    }
    Ok(config)
}

/// Everything the inputs hold that the run takes: read, merged into records, narrowed to the
/// scope (`--changed-since`, `--new-only`, `--partition`).
struct InScope {
    inputs: Vec<InputSummary>,
    rule_texts: Vec<RuleText>,
    kept: Vec<KeptInput>,
    /// Where each finding of the inputs went, out-of-scope ones marked: what `export` reads.
    placed: Vec<[u32; 2]>,
    records: Vec<FindingRecord>,
    scope: Option<self_repair_engine::RunScope>,
}

fn read_in_scope(
    root: &Path,
    options: &StartOptions,
    survey_min: u32,
) -> Result<InScope, AppError> {
    let mut scope = options.scope.begin(root)?;
    let ReadInputs {
        inputs,
        mut findings,
        rule_texts,
        kept,
        not_new,
    } = read_inputs(root, options)?;
    scope.count_not_new(not_new);
    let changed = scope.keep_changed(&mut findings);
    let (mut records, placed) = merge_identical(root, findings);
    let shared = scope.keep_share(&mut records, survey_min);
    let placed = in_scope_placements(placed, changed.as_deref(), shared.as_deref());
    let scope = scope.finish();
    Ok(InScope {
        inputs,
        rule_texts,
        kept,
        placed,
        records,
        scope,
    })
}

/// What the registry, the rules and the routes made of the records.
struct Routing {
    /// Findings the registry decided, by the run (or `manual`, `baseline`) that decided them.
    known_from: Vec<(String, u32)>,
    routed: Vec<RoutedFinding>,
    route_counts: Vec<(String, u32)>,
    by_known: u32,
    by_rules: u32,
    stale_known: u32,
}

/// One more for `key` in a count kept in first-seen order.
fn count_into(counts: &mut Vec<(String, u32)>, key: &str) {
    match counts.iter_mut().find(|(k, _)| k == key) {
        Some(entry) => entry.1 += 1,
        None => counts.push((key.to_owned(), 1)),
    }
}

/// Decides what `known.json` and the accepted rules decide; routes the rest to triage items.
fn route_records(
    root: &Path,
    classifier: &Classifier<'_>,
    known: &KnownRegistry,
    config: &self_repair_engine::Config,
    records: &mut [FindingRecord],
) -> Result<Routing, AppError> {
    let mut known_from: Vec<(String, u32)> = Vec::new();
    let mut routed = Vec::new();
    let mut route_counts: Vec<(String, u32)> = Vec::new();
    let (mut by_known, mut by_rules, mut stale_known) = (0, 0, 0);
    for (index, record) in records.iter_mut().enumerate() {
        let code_unchanged = |entry: &KnownEntry| {
            let Some(code) = &entry.code else {
                return true;
            };
            let now = decided_code(root, &record.finding.path, record.finding.line);
            let same = now.is_some_and(|now| now.code == *code);
            if !same {
                stale_known += 1;
            }
            same
        };
        let route = match classifier.classify(&record.fingerprint, &record.finding, code_unchanged) {
            Classified::Decided(decided) => {
                if decided.by == "known" {
                    by_known += 1;
                    let source = known
                        .decision(&record.fingerprint)
                        .map_or("", |e| e.source.as_str());
                    count_into(&mut known_from, source);
                } else {
                    by_rules += 1;
                }
                record.predecided = Some(decided);
                continue;
            }
            Classified::Route { route, rule } => self_repair_engine::route(&route).ok_or_else(|| {
                AppError::Usage(format!(
                    "rules.json: rule {rule} routes to `{route}`, which is not a route; routes: {}",
                    self_repair_engine::route_names().join(", ")
                ))
            })?,
            Classified::Default => default_route(&record.finding),
        };
        if let Some(decided) = out_of_scope_test_code(config, route.name, &record.finding.path) {
            // The test_paths rule, applied in code: no agent looks (reference/routes.md).
            by_rules += 1;
            record.predecided = Some(decided);
            continue;
        }
        routed.push(RoutedFinding {
            finding: index as u32,
            route: route.name.to_owned(),
            tier: route.tier.max(config.tiers.triage),
            rule: format!("{} {}", record.finding.tool, record.finding.rule_id),
            path: record.finding.path.clone(),
            safe_fix: record.finding.has_safe_fix(),
            // Tagged security by its analyzer: under the two-look rule whatever route
            // rules.json gave it (issue 40).
            security: default_route(&record.finding).name == "security",
            severe: record.finding.level == self_repair_engine::Level::Error,
        });
        record.item = Some(triage_id(routed.len()));
        count_into(&mut route_counts, route.name);
    }
    Ok(Routing {
        known_from,
        routed,
        route_counts,
        by_known,
        by_rules,
        stale_known,
    })
}

/// A security finding in a file `test_paths` names, while `security_in_scope` leaves tests out:
/// `intended`, out of scope, decided by the rule (`test_paths`), never by an agent's reading of
/// the path. Any other finding: `None`.
fn out_of_scope_test_code(
    config: &self_repair_engine::Config,
    route: &str,
    path: &str,
) -> Option<self_repair_engine::Predecided> {
    if route != "security"
        || config
            .security_in_scope
            .contains(&self_repair_engine::SecurityScope::Tests)
    {
        return None;
    }
    let pattern = self_repair_engine::test_code_pattern(&config.test_paths, path)?;
    Some(self_repair_engine::Predecided {
        verdict: self_repair_engine::Verdict::Intended,
        by: "test_paths".to_owned(),
        reason: format!("out of scope: test code (`{path}` matches `{pattern}` of test_paths)"),
    })
}

/// `start --dry-run`: the estimate of the run `start` would create; nothing is written.
fn dry_run_report(env: &CommandEnv, read: ReadAndRouted) -> StartReport {
    let ReadAndRouted {
        project,
        options,
        config,
        inputs,
        scope,
        routing,
        intake,
        kept_from,
        ..
    } = read;
    let run = options.run_id.clone().unwrap_or_else(|| "(new)".to_owned());
    let mut state = create_run(
        run.clone(),
        env.now,
        config,
        intake.clone(),
        env.session.clone(),
        &routing.routed,
    );
    state.until = options.until;
    let mut estimate = crate::run::preflight::preflight(&project, &state);
    estimate.waits_for_go = wait_for_go(&mut state, estimate.agents_likely, estimate.usd_likely);
    StartReport {
        run,
        project: project.root().to_path_buf(),
        inputs,
        intake,
        scope,
        phase: state.phase,
        routes: routing.route_counts,
        session: env.session.clone(),
        replaced: None,
        replaced_run: None,
        stale_known: routing.stale_known,
        known_from: routing.known_from,
        kept_from,
        estimate,
        dry_run: true,
        protocol: None,
    }
}

/// The `start` command line again, with `--replace` (as far as the options tell it).
fn start_again(options: &StartOptions) -> String {
    let mut words = vec!["self-repair start".to_owned()];
    words.extend(options.files.iter().map(|f| f.display().to_string()));
    if options.detect {
        words.push("--detect".to_owned());
    }
    if let Some(id) = &options.run_id {
        words.push(format!("--run-id {id}"));
    }
    if let Some(reference) = &options.scope.changed_since {
        words.push(format!("--changed-since {reference}"));
    }
    if options.scope.new_only {
        words.push("--new-only".to_owned());
    }
    if let Some(partition) = &options.scope.partition {
        words.push(format!("--partition {partition}"));
    }
    if options.until.is_some() {
        words.push("--until triage".to_owned());
    }
    words.push("--replace".to_owned());
    words.join(" ")
}

/// No run is created from an input that is empty (white space only): no analyzer writes that,
/// even for a clean project, so it is almost always a slip. The advice depends on where the
/// input came from: a detector's argv (`--detect`) or a file the user gave.
fn no_findings(inputs: &[InputSummary]) -> AppError {
    let blank: Vec<&InputSummary> = inputs.iter().filter(|i| i.blank).collect();
    let named: Vec<&str> = blank.iter().map(|i| i.source.as_str()).collect();
    let advice = if blank.iter().all(|i| i.source.starts_with("detector ")) {
        "Make the detector's `argv` print the analyzer's report on stdout (e.g. `ruff check \
         --output-format json .`, which prints `[]` for a clean project), or, for an analyzer \
         that prints nothing when it finds nothing, name its `format`, in \
         .self-repair/config.json (reference/config.md, \"Detectors\")"
    } else {
        "Give the analyzer's report, e.g. `ruff check --output-format json . > \
         .self-repair/ruff.json` then `self-repair start .self-repair/ruff.json`; for an \
         analyzer that prints nothing when it finds nothing (vulture, ts-prune), pass \
         `--format NAME` (formats: `self-repair start --help`)"
    };
    AppError::Usage(format!(
        "{} is empty, not an analyzer's report (a clean project's report still holds one, \
         e.g. Ruff's `[]`): no run was created and the active run, if any, is untouched. \
         {advice}.",
        if named.is_empty() {
            "the input".to_owned()
        } else {
            named.join(", ")
        }
    ))
}

/// `classify` errors are about the user's `known.json` / `rules.json`: usage errors.
#[expect(clippy::needless_pass_by_value, reason = "used with map_err")]
fn classify_error(e: self_repair_classify::ClassifyError) -> AppError {
    AppError::Usage(e.to_string())
}

/// What the inputs of `start` held.
struct ReadInputs {
    inputs: Vec<InputSummary>,
    findings: Vec<Finding>,
    rule_texts: Vec<RuleText>,
    /// What `export sarif` needs of each input, in the same order as `inputs`.
    kept: Vec<KeptInput>,
    /// SARIF results set aside by `--new-only`.
    not_new: usize,
}

/// An input as the run keeps it for `export` (reference/export.md): a SARIF log's text and
/// where each of its findings sat in it, or the GitHub alert number of each finding.
struct KeptInput {
    sarif_text: Option<String>,
    positions: Vec<[u32; 2]>,
    alerts: Vec<u64>,
    findings: usize,
}

/// The findings files `start` was given (or stdin) as inputs to parse.
fn input_specs(options: &StartOptions) -> Result<Vec<InputSpec>, AppError> {
    let stdin_only = [PathBuf::from("-")];
    let files: &[PathBuf] = if options.files.is_empty() && options.prepared.is_empty() {
        &stdin_only
    } else {
        &options.files
    };
    let mut specs = Vec::new();
    for file in files {
        let (source, text) = if file.as_os_str() == "-" {
            let text = options.stdin.clone().ok_or_else(|| {
                AppError::Usage(
                    "no findings: give findings files (`self-repair start FILE...`) or pipe them on stdin"
                        .to_owned(),
                )
            })?;
            ("stdin".to_owned(), text)
        } else {
            (file.display().to_string(), read_findings_file(file)?)
        };
        specs.push(InputSpec {
            source,
            text,
            format: options.format,
            relative_to: options.relative_to.clone(),
        });
    }
    Ok(specs)
}

/// A findings file's text; a missing one says how to make it.
fn read_findings_file(file: &Path) -> Result<String, AppError> {
    std::fs::read_to_string(file).map_err(|e| {
        let next = if e.kind() == std::io::ErrorKind::NotFound {
            let here = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
            format!(
                " ({} does not exist). Run the analyzer with JSON output first, e.g. \
                 `mkdir -p .self-repair && ruff check --output-format json . > \
                 .self-repair/ruff.json`, then `self-repair start .self-repair/ruff.json` (under \
                 .self-repair/ the report is none of your sources); `self-repair start --help` \
                 lists the formats",
                here.display()
            )
        } else {
            String::new()
        };
        AppError::Usage(format!(
            "cannot read findings file {}: {e}{next}",
            file.display()
        ))
    })
}

fn read_inputs(root: &Path, options: &StartOptions) -> Result<ReadInputs, AppError> {
    let specs = input_specs(options)?;
    let mut inputs = Vec::new();
    let mut findings = Vec::new();
    let mut rule_texts = Vec::new();
    let mut kept = Vec::new();
    let mut not_new = 0;
    for spec in specs.iter().chain(&options.prepared) {
        // Nothing but white space from a named analyzer (`--format`, a detector's `format`) is
        // its answer for a clean project (vulture and ts-prune print nothing then).
        if let Some(format) = spec.format.filter(|f| *f != Format::Auto)
            && spec.text.trim().is_empty()
        {
            inputs.push(InputSummary {
                source: spec.source.clone(),
                format: format.as_str().to_owned(),
                findings: 0,
                inferred_base: None,
                not_open: 0,
                blank: false,
            });
            kept.push(KeptInput {
                sarif_text: None,
                positions: Vec::new(),
                alerts: Vec::new(),
                findings: 0,
            });
            continue;
        }
        let mut ingest = IngestOptions::new(spec.source.clone(), root).with_fix_edits();
        if options.scope.new_only {
            ingest = ingest.with_new_only();
        }
        if let Some(base) = &options.base {
            ingest = ingest.with_base(base.clone());
        }
        if let Some(dir) = &spec.relative_to {
            ingest = ingest.with_relative_to(dir.clone());
        }
        let parsed = parse(&spec.text, spec.format.unwrap_or(Format::Auto), &ingest)
            .map_err(|e| AppError::Ingest(Box::new(e)))?;
        inputs.push(InputSummary {
            source: spec.source.clone(),
            format: parsed.format.as_str().to_owned(),
            findings: parsed.findings.len() + parsed.not_new,
            inferred_base: parsed.inferred_base.clone(),
            not_open: parsed.not_open,
            blank: spec.text.trim().is_empty(),
        });
        let sarif = parsed.format == Format::Sarif;
        kept.push(KeptInput {
            sarif_text: sarif.then(|| spec.text.clone()),
            positions: parsed.positions.iter().map(|p| [p.run, p.result]).collect(),
            alerts: parsed.alerts.clone(),
            findings: parsed.findings.len(),
        });
        not_new += parsed.not_new;
        findings.extend(parsed.findings);
        rule_texts.extend(parsed.rule_texts);
    }
    Ok(ReadInputs {
        inputs,
        findings,
        rule_texts,
        kept,
        not_new,
    })
}

/// Keeps each SARIF input's text, every finding's place and each alert's number for `export`
/// (`inputs/index.json`, reference/export.md).
fn keep_inputs(
    dir: &RunDir,
    inputs: &[InputSummary],
    kept: &[KeptInput],
    placed: &[[u32; 2]],
) -> Result<(), AppError> {
    let mut first = 0;
    let mut in_scope = Vec::with_capacity(kept.len());
    for keep in kept {
        let last = (first + keep.findings).min(placed.len());
        let mut positions = Vec::new();
        let mut findings = Vec::new();
        let mut alerts = Vec::new();
        for (n, at) in placed[first..last].iter().enumerate() {
            if *at == OUT_OF_SCOPE {
                continue;
            }
            findings.push(*at);
            if let Some(position) = keep.positions.get(n) {
                positions.push(*position);
            }
            if let Some(alert) = keep.alerts.get(n) {
                alerts.push(*alert);
            }
        }
        in_scope.push((positions, findings, alerts));
        first = last;
    }
    let saved: Vec<InputToSave<'_>> = inputs
        .iter()
        .zip(kept)
        .zip(&in_scope)
        .map(
            |((input, keep), (positions, findings, alerts))| InputToSave {
                source: &input.source,
                format: &input.format,
                sarif_text: keep.sarif_text.as_deref(),
                positions,
                findings,
                alerts,
            },
        )
        .collect();
    let path = dir.path().join(self_repair_export::INDEX_FILE);
    save_inputs(dir.path(), &saved).map_err(AppError::io("write", &path))
}

/// The placement of a finding `--changed-since` or `--partition` left out of the run: `export`
/// copies its result through as the analyzer wrote it.
const OUT_OF_SCOPE: [u32; 2] = [u32::MAX, u32::MAX];

/// `placed` (one `[record, occurrence]` per finding kept by `--changed-since`) widened back to
/// every finding of the inputs, and renumbered for the records `--partition` kept.
fn in_scope_placements(
    placed: Vec<[u32; 2]>,
    changed: Option<&[bool]>,
    shared: Option<&[bool]>,
) -> Vec<[u32; 2]> {
    let placed = match changed {
        None => placed,
        Some(kept) => {
            let mut kept_placed = placed.into_iter();
            kept.iter()
                .map(|&kept| {
                    if kept {
                        kept_placed.next().unwrap_or(OUT_OF_SCOPE)
                    } else {
                        OUT_OF_SCOPE
                    }
                })
                .collect()
        }
    };
    let Some(shared) = shared else {
        return placed;
    };
    let mut renumbered = Vec::with_capacity(shared.len());
    let mut next = 0u32;
    for &in_share in shared {
        renumbered.push(in_share.then_some(next));
        next += u32::from(in_share);
    }
    placed
        .into_iter()
        .map(
            |[record, occurrence]| match renumbered.get(record as usize).copied().flatten() {
                Some(record) => [record, occurrence],
                None => OUT_OF_SCOPE,
            },
        )
        .collect()
}

/// One record per fingerprint, in first-seen order, with every occurrence listed; and for each
/// finding, in input order, `[record, occurrence]`: where it went.
fn merge_identical(root: &Path, findings: Vec<Finding>) -> (Vec<FindingRecord>, Vec<[u32; 2]>) {
    let fingerprints = fingerprint_all(&findings, root);
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut records: Vec<FindingRecord> = Vec::new();
    let mut placed = Vec::with_capacity(findings.len());
    for (finding, fingerprint) in findings.into_iter().zip(fingerprints) {
        let occurrence = Occurrence {
            path: finding.path.clone(),
            line: finding.line,
            column: finding.column,
        };
        if let Some(&at) = index.get(&fingerprint) {
            placed.push([at as u32, records[at].occurrences.len() as u32]);
            records[at].occurrences.push(occurrence);
            keep_occurrence_edits(&mut records[at].finding, &finding);
            continue;
        }
        index.insert(fingerprint.clone(), records.len());
        placed.push([records.len() as u32, 0]);
        records.push(FindingRecord {
            fingerprint,
            finding,
            occurrences: vec![occurrence],
            item: None,
            predecided: None,
            job_index: None,
        });
    }
    (records, placed)
}

/// Adds the edits of a repeated finding's safe fix to the first one's, so `apply-fixes` fixes
/// every occurrence; a record whose occurrences are not all covered within the bound of one
/// finding's edits keeps none (its group is not left half fixed by the autofix).
fn keep_occurrence_edits(first: &mut Finding, repeat: &Finding) {
    let Some(fix) = first.fix.as_mut() else {
        return;
    };
    let more: &[FixEdit] = repeat.fix.as_ref().map_or(&[], |f| f.edits.as_slice());
    let bytes = |edits: &[FixEdit]| -> usize {
        edits
            .iter()
            .map(|e| e.lines.len() + e.replacement.len())
            .sum()
    };
    if !more.is_empty()
        && fix.edits.len() + more.len() <= MAX_FIX_EDITS
        && bytes(&fix.edits) + bytes(more) <= MAX_FIX_EDIT_BYTES
    {
        fix.edits.extend_from_slice(more);
    } else {
        fix.edits.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--changed-since` kept findings 0, 2 and 3 of four; merging put 2 and 3 in one record;
    /// `--partition` then kept record 1 only: finding 0's record went to another share and
    /// finding 1 was never in the run, so both are out of scope, and record 1 is renumbered 0.
    #[test]
    fn placements_of_findings_left_out_by_the_scope_are_marked_and_the_rest_renumbered() {
        let placed = vec![[0, 0], [1, 0], [1, 1]];
        let changed = [true, false, true, true];
        let shared = [false, true];
        assert_eq!(
            in_scope_placements(placed, Some(&changed), Some(&shared)),
            vec![OUT_OF_SCOPE, OUT_OF_SCOPE, [0, 0], [0, 1]]
        );
    }

    #[test]
    fn without_a_scope_placements_are_unchanged() {
        let placed = vec![[0, 0], [0, 1], [1, 0]];
        assert_eq!(in_scope_placements(placed.clone(), None, None), placed);
    }
}
