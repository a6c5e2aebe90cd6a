//! Finalize: write one backlog task per planned group, then `report.json` and `report.md`.
//! Idempotent: a task whose group fingerprint is already in the backlog is not written again.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use self_repair_classify::{
    AgentVerdict, CompiledRule, KnownRegistry, Rule, RuleBook, RuleStatus, When, measure,
};
use self_repair_engine::{
    Event, FindingRecord, ItemStatus, JournalEntry, PlanDepth, RunState, StableHash, TaskDraft,
    TriageResult, Verdict,
};
use self_repair_report::{
    AnalyzerFixTask, Backlog, NextSteps, RunComparison, RunFindings, RunReport, SincePrevious,
    TaskToWrite,
};
use self_repair_store::{Project, RunDir, write_atomic, write_atomic_with};

use crate::app_error::AppError;
use crate::run::proposals::{RunProposals, run_proposals};
use crate::run::run_history::{is_share, previous_run, triage_runs};
pub use crate::run::settled_answers::read_findings;
pub(crate) use crate::run::settled_answers::{triage_answers, verification_chains};

/// Most findings listed in a task's description; the rest are counted.
const LISTED_FINDINGS: usize = 20;

/// Writes tasks, records `Finalized` in the journal and the state, writes the reports; returns
/// the run's next steps (for the closing line). `known.json` is read once, for the merge of the
/// run's verdicts, the report's proposals and the next steps alike.
pub fn finalize_run(
    root: &Path,
    dir: &RunDir,
    state: &mut RunState,
    now: u64,
) -> Result<NextSteps, AppError> {
    let findings = read_findings(dir)?;
    let tasks = tasks_to_write(dir, state, &findings)?;
    let records = Backlog::new(root).write(&tasks, now)?;
    let store_dir = root.join(self_repair_store::STORE_DIR);
    // Every answer read once, for known.json and the report alike.
    let mut answers = triage_answers(dir, state);
    let (proposals, known) = learn(root, &store_dir, dir, state, (&findings, &answers), now)?;
    dir.record(
        state,
        &[JournalEntry {
            at: now,
            event: Event::Finalized { tasks: records },
        }],
    )?;
    let steps = crate::run::proposals::next_steps_of(state, &proposals);
    let report = write_reports_with(root, dir, state, &findings, (&mut answers, proposals))?;
    left_to_exit(report);
    left_to_exit((findings, answers, known));
    Ok(steps)
}

/// Lets go of a finalize's large values without freeing them. Finalize runs in a process that
/// ends right after it (the Stop hook, `self-repair finalize`), and at 100,000 findings its
/// findings, answers, registry and report are millions of small allocations: freeing them one
/// by one took more than a tenth of the finalizing stop's CPU time (reference/benchmarks.md,
/// "The finalize under 1 s"), where the system takes the whole heap back at once at exit. A
/// caller that lives on (a test calling `finalize_run` in-process) keeps that memory until
/// it exits.
fn left_to_exit<T>(values: T) {
    std::mem::forget(values);
}

/// The tasks of the planned groups whose plan is finished (written by their task writer, or by
/// code from the analyzer's fixes).
fn tasks_to_write(
    dir: &RunDir,
    state: &RunState,
    findings: &[FindingRecord],
) -> Result<Vec<TaskToWrite>, AppError> {
    let by_item: HashMap<&str, &FindingRecord> = findings
        .iter()
        .filter_map(|r| r.item.as_deref().map(|i| (i, r)))
        .collect();
    let mut tasks = Vec::new();
    for group in state.groups.iter().filter(|g| g.planned) {
        let members: Vec<&FindingRecord> = group
            .members
            .iter()
            .filter_map(|m| by_item.get(m.as_str()).copied())
            .collect();
        let draft = if group.depth == PlanDepth::AnalyzerFix {
            // No agent planned it: the task is written here, from the analyzer's own fixes.
            AnalyzerFixTask {
                group,
                members: &members,
                all: findings,
            }
            .draft()
        } else {
            match written_draft(dir, state, &group.id)? {
                Some(draft) => draft,
                None => continue,
            }
        };
        let mut draft = draft;
        let plan = crate::prompts::task_sections::plan_section(dir, state, group);
        if group.depth != PlanDepth::AnalyzerFix
            && let Some(command) = crate::prompts::task_sections::verify_command(&members)
            && !draft
                .acceptance_criteria
                .iter()
                .any(|c| c.contains(&command))
        {
            // The criterion code can check: the analyzer's own re-run.
            draft
                .acceptance_criteria
                .push(crate::prompts::task_sections::verify_criterion(
                    &command,
                    members.len(),
                ));
        }
        let reasons = crate::prompts::task_sections::triage_reasons(dir, group);
        let mut fingerprints: Vec<&str> = members.iter().map(|r| r.fingerprint.as_str()).collect();
        fingerprints.sort_unstable();
        tasks.push(TaskToWrite {
            group: group.id.clone(),
            draft,
            fingerprint: StableHash::of_fields(fingerprints),
            footer: footer(&state.run, &group.id, &members, &reasons),
            plan,
        });
    }
    Ok(tasks)
}

/// `finalize --partial`: what a run that did not finish has produced so far (a run paused at
/// its budget): the tasks of the groups whose plan is finished (idempotent, as at the end),
/// and the reports with the verdicts so far, and its decided verdicts kept in `known.json`. The
/// run itself is left as it is (nothing is journaled): what continues it is what `status` names as its next step
/// (`resume` only for a paused or stalled run), and its own finalize later writes the rest.
pub fn finalize_partial(
    root: &Path,
    dir: &RunDir,
    state: &RunState,
    now: u64,
) -> Result<String, AppError> {
    let findings = read_findings(dir)?;
    let tasks = tasks_to_write(dir, state, &findings)?;
    let records = Backlog::new(root).write(&tasks, now)?;
    // The verdicts so far outlive the run whatever becomes of it.
    let kept = crate::run::kept_verdicts::keep_run_verdicts(root, dir, state, now)?;
    let planned = state.groups.iter().filter(|g| g.planned).count();
    let mut reported = state.clone();
    reported.tasks.clone_from(&records);
    write_reports(root, dir, &reported, &findings)?;
    let triage = state.counts(self_repair_engine::Phase::Triage);
    let written = records.iter().filter(|t| !t.existing).count();
    Ok(format!(
        "run {} ({}, phase {}): partial results written: {written} tasks for finished groups \
         ({} already existed; {} of {planned} planned groups finished), report.md with {} of {} \
         findings triaged so far; {kept} decided verdict(s) kept in known.json for the next \
         run. The run is unchanged; next: {}",
        state.run,
        state.shown_status(),
        state.phase.as_str(),
        records.len() - written,
        tasks.len(),
        triage.done,
        triage.total(),
        crate::run::next_step::next_step(state)
    ))
}

/// The task writer's draft for a group, `None` when its writer did not finish.
fn written_draft(
    dir: &RunDir,
    state: &RunState,
    group: &str,
) -> Result<Option<TaskDraft>, AppError> {
    let writer = format!("tw-{group}");
    if state
        .item(&writer)
        .is_none_or(|i| i.status != ItemStatus::Done)
    {
        return Ok(None);
    }
    let Some(path) = dir.item_file(&writer, "json") else {
        return Ok(None);
    };
    let text = dir.read_result(&writer, "json").ok_or_else(|| {
        AppError::io("read", &path)(std::io::Error::other(
            "the task writer's result is missing; run `self-repair doctor`",
        ))
    })?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| AppError::Io {
            action: "parse",
            path: path.clone(),
            source: std::io::Error::other(e),
        })
}

/// Rewrites `report.json` and `report.md` from the state (also `self-repair finalize` on a
/// complete run), with the counts against the project's previous triage run.
pub fn write_reports(
    root: &Path,
    dir: &RunDir,
    state: &RunState,
    findings: &[FindingRecord],
) -> Result<(), AppError> {
    let proposals = run_proposals(dir, &state.run);
    write_reports_with(
        root,
        dir,
        state,
        findings,
        (&mut triage_answers(dir, state), proposals),
    )
    .map(drop)
}

/// [`write_reports`] from the triage answers ([`triage_answers`]) and the run's proposals
/// already read. `report.json` is streamed to its file (28 MB at 50,000 findings), not built in
/// memory first. Returns the report written.
fn write_reports_with<'a>(
    root: &Path,
    dir: &RunDir,
    state: &'a RunState,
    findings: &'a [FindingRecord],
    (answers, proposals): (&'a mut HashMap<String, TriageResult>, RunProposals),
) -> Result<RunReport<'a>, AppError> {
    let mut report = report_of(dir, state, findings, answers, proposals)
        .with_since_previous(since_previous(root, state, findings));
    crate::run::audit_store::reopen_in_report(dir, &mut report);
    write_atomic_with(&dir.path().join("report.json"), |out| {
        // Buffered here, in a writer of a known type: the pretty printer's many small writes
        // (each quote, colon and indent) are copies into this buffer, not a call through
        // `dyn Write` each (millions at 100,000 findings).
        let mut out = std::io::BufWriter::new(out);
        // Indented at the top two levels, one finding (group, task) a line below: a quarter
        // fewer bytes and a fifth less work than indenting every level at 100,000 findings,
        // still read by hand (reference/state-file.md).
        let mut json = serde_json::Serializer::with_formatter(
            &mut out,
            self_repair_store::ShallowPretty::new(2),
        );
        serde::Serialize::serialize(&report, &mut json).map_err(std::io::Error::other)?;
        out.write_all(b"\n")?;
        out.flush()
    })?;
    // Bounded whatever the run's size: a large run's report.md summarizes and points to
    // report.json for every finding (reference/state-file.md, "report.md").
    let mut markdown = report.render_markdown();
    markdown.push_str(&crate::run::audit_store::audit_section(root, &state.run));
    write_atomic(&dir.path().join("report.md"), markdown.as_bytes())?;
    Ok(report)
}

/// The run's report as of now: every finding's verdict so far, groups, tasks, cost, proposals
/// (what `report.json` holds; `export` reads verdicts from it). `answers` are the run's
/// [`triage_answers`], which the report's rows borrow from, as they do from `state` and
/// `findings`.
pub(crate) fn build_report<'a>(
    dir: &RunDir,
    state: &'a RunState,
    findings: &'a [FindingRecord],
    answers: &'a mut HashMap<String, TriageResult>,
) -> RunReport<'a> {
    let mut report = report_of(
        dir,
        state,
        findings,
        answers,
        run_proposals(dir, &state.run),
    );
    crate::run::audit_store::reopen_in_report(dir, &mut report);
    report
}

/// [`build_report`] with the verdicts as the run decided them, before a person's audit
/// reopened any (what `audit` asks about).
pub(crate) fn build_report_as_decided(
    dir: &RunDir,
    state: &RunState,
    findings: &[FindingRecord],
    mut triage: HashMap<String, TriageResult>,
) -> RunReport<'static> {
    report_of(
        dir,
        state,
        findings,
        &mut triage,
        run_proposals(dir, &state.run),
    )
    .into_owned()
}

/// [`build_report_as_decided`] with the run's proposals already read.
fn report_of<'a>(
    dir: &RunDir,
    state: &'a RunState,
    findings: &'a [FindingRecord],
    triage: &'a mut HashMap<String, TriageResult>,
    proposals: RunProposals,
) -> RunReport<'a> {
    let mut rerouted = HashMap::new();
    for item in state.items[..state.triage_items as usize]
        .iter()
        .filter(|i| i.reroutes > 0)
    {
        let Some(path) = dir.item_file(&item.id, "reroute.json") else {
            continue;
        };
        if let Some(result) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<TriageResult>(&t).ok())
        {
            rerouted.insert(item.id.to_string(), result);
        }
    }
    let chains = verification_chains(dir, state, triage);
    let triage: &'a HashMap<String, TriageResult> = triage;
    let mut report = RunReport::build(state, findings, triage)
        .with_rerouted_answers(&rerouted)
        .with_verifications(&chains)
        .with_spend(crate::run::cost::run_cost(dir, state));
    report = report.with_proposals(proposals.rules, proposals.known);
    if state.phase != self_repair_engine::Phase::Complete {
        // `finalize --partial`: the run goes on; say so instead of "complete".
        let triage = state.counts(self_repair_engine::Phase::Triage);
        report.summary = format!(
            "self-repair run {} is {} in phase {}: a partial report ({} of {} findings triaged \
             so far, {} tasks written for finished groups); next: {}.",
            state.run,
            state.shown_status(),
            state.phase.as_str(),
            triage.done,
            triage.total(),
            state.tasks.len(),
            crate::run::next_step::next_step(state)
        );
    }
    report
}

/// How many of `findings` are new, persisting, resolved and reappeared against the project's
/// previous triage run (`runs --compare`'s counts; a share has none, and a share is never the
/// previous run). `None` for the first run, or when the previous run's findings do not read.
fn since_previous(
    root: &Path,
    state: &RunState,
    findings: &[FindingRecord],
) -> Option<SincePrevious> {
    if is_share(state) {
        return None;
    }
    let project = Project::at(root.to_path_buf());
    let runs = triage_runs(&project).ok()?;
    let (previous, older) = previous_run(&runs, state)?;
    let seen =
        |run: &str| -> Option<Vec<FindingRecord>> { read_findings(&project.run(run).ok()?).ok() };
    let earlier = RunFindings::unjudged(&previous.id, &seen(&previous.id)?);
    let later = RunFindings::unjudged(&state.run, findings);
    let seen_before: HashSet<String> = older
        .iter()
        .filter_map(|r| seen(&r.id))
        .flatten()
        .map(|r| r.fingerprint)
        .collect();
    Some(RunComparison::compare(&earlier, &later, &seen_before).since_previous())
}

/// What a finalized run teaches the next one: agent verdicts go to `known.json`, and the rule
/// reviewer's proposals are measured against those verdicts and stored in `rules.json` as
/// `proposed` (they apply once a user accepts them). Returns the run's proposals as the store
/// now holds them, and `known.json`'s registry as saved.
fn learn(
    root: &Path,
    store_dir: &Path,
    dir: &RunDir,
    state: &RunState,
    (findings, answers): (&[FindingRecord], &HashMap<String, TriageResult>),
    now: u64,
) -> Result<(RunProposals, KnownRegistry), AppError> {
    // Shares of `drive --partitions` finalize at once in one project.
    let _registry = self_repair_store::lock_registry(store_dir)?;
    let decided = crate::run::kept_verdicts::settled_triage(state, findings);
    let known = remember_verdicts(root, store_dir, dir, state, (findings, answers), now)?;
    propose_rules(store_dir, dir, state, &decided)?;
    let proposals = crate::run::proposals::run_proposals_in(store_dir, &known, &state.run);
    Ok((proposals, known))
}

/// Agent verdicts into `known.json` (`crate::run::kept_verdicts`: a dismissal on the security
/// route, or one two agents disputed, goes in as a proposal a person accepts), then a person's
/// audit over them (`crate::run::audit_store::reopen_in`); returns the registry as saved.
fn remember_verdicts(
    root: &Path,
    store_dir: &Path,
    dir: &RunDir,
    state: &RunState,
    (findings, answers): (&[FindingRecord], &HashMap<String, TriageResult>),
    now: u64,
) -> Result<KnownRegistry, AppError> {
    let entries = crate::run::kept_verdicts::decided_entries(root, dir, state, findings, answers);
    let mut known = KnownRegistry::load(store_dir).map_err(|e| AppError::Usage(e.to_string()))?;
    let mut changed =
        crate::run::kept_verdicts::put_entries(&mut known, entries, state.created_at, now, true);
    changed += crate::run::audit_store::reopen_in(store_dir, &mut known, now)?;
    if changed > 0 {
        known
            .save(store_dir)
            .map_err(|e| AppError::Usage(e.to_string()))?;
    }
    Ok(known)
}

/// The rule reviewer's proposals, measured against this run's agent verdicts, into
/// `rules.json` as `proposed`.
fn propose_rules(
    store_dir: &Path,
    dir: &RunDir,
    state: &RunState,
    decided: &[(&str, &FindingRecord, Verdict)],
) -> Result<(), AppError> {
    let Some(proposals) = dir
        .read_result("rr-1", "json")
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    else {
        return Ok(());
    };
    let agent_verdicts: Vec<AgentVerdict<'_>> = decided
        .iter()
        .map(|(item, record, verdict)| AgentVerdict {
            item,
            finding: &record.finding,
            verdict: *verdict,
        })
        .collect();
    let mut rules = Vec::new();
    for (n, proposal) in proposals["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Ok(when) = serde_json::from_value::<When>(proposal["when"].clone()) else {
            continue;
        };
        let mut rule = Rule {
            id: format!("{}-p{}", state.run, n + 1),
            name: proposal["name"].as_str().unwrap_or_default().to_owned(),
            when,
            verdict: proposal["verdict"].as_str().and_then(Verdict::parse),
            route: None,
            reason: proposal["reason"].as_str().unwrap_or_default().to_owned(),
            status: RuleStatus::Proposed,
            source: state.run.clone(),
            measured: None,
        };
        // A proposal whose patterns do not compile is dropped: it could never be accepted.
        let Ok(compiled) = CompiledRule::compile(&rule) else {
            continue;
        };
        let measured = measure(&state.run, &compiled, &agent_verdicts);
        rule.measured = Some(measured);
        rules.push(rule);
    }
    if rules.is_empty() {
        return Ok(());
    }
    let mut book = RuleBook::load(store_dir).map_err(|e| AppError::Usage(e.to_string()))?;
    book.add_proposals(rules);
    book.save(store_dir)
        .map_err(|e| AppError::Usage(e.to_string()))?;
    Ok(())
}

fn footer(run: &str, group: &str, members: &[&FindingRecord], reasons: &[String]) -> String {
    let mut lines = Vec::new();
    for record in members.iter().take(LISTED_FINDINGS) {
        let f = &record.finding;
        let at = f
            .line
            .map_or_else(|| f.path.clone(), |l| format!("{}:{l}", f.path));
        let extra = match record.occurrences.len() {
            0 | 1 => String::new(),
            n => format!(" (+{} more)", n - 1),
        };
        let message: String = f.message.split_whitespace().collect::<Vec<_>>().join(" ");
        lines.push(format!("{at} {} {}: {message}{extra}", f.tool, f.rule_id));
    }
    if members.len() > LISTED_FINDINGS {
        lines.push(format!("... and {} more", members.len() - LISTED_FINDINGS));
    }
    let body = lines.join("\n");
    let fence = "`".repeat(longest_backticks(&body).max(2) + 1);
    let mut text = format!(
        "Findings ({}), from self-repair run {run}, group {group}:\n\n{fence}text\n{body}\n{fence}",
        members.len()
    );
    if !reasons.is_empty() {
        let quoted: Vec<String> = reasons.iter().map(|r| format!("- {r}")).collect();
        text.push_str(&format!(
            "\n\nWhy the triage agents judged them real:\n\n{}",
            quoted.join("\n")
        ));
    }
    text.push_str(&format!(
        "\n\nEvery verdict and who decided it: `.self-repair/runs/{run}/report.md`."
    ));
    text
}

fn longest_backticks(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `self-repair finalize`: write tasks and reports now if every phase is done; on a complete
/// run, rewrite the reports.
pub fn finalize_now(project: &Project, dir: &RunDir, now: u64) -> Result<String, AppError> {
    let _lock = dir.lock()?;
    let mut state = dir.load_state()?;
    let items_before = state.items.len();
    dir.fold(&mut state)?;
    self_repair_engine::settle(&mut state);
    match state.phase {
        self_repair_engine::Phase::Finalize => {
            let steps = finalize_run(project.root(), dir, &mut state, now)?;
            dir.save_state(&state, items_before)?;
            Ok(crate::run::proposals::with_steps(
                &steps,
                &self_repair_engine::summary(&state),
            ))
        }
        self_repair_engine::Phase::Complete => {
            write_reports(project.root(), dir, &state, &read_findings(dir)?)?;
            Ok(format!("run {} was complete; reports rewritten", state.run))
        }
        phase => Err(AppError::Usage(format!(
            "run {} is in phase {}: finalize runs when every phase is done (`self-repair status`); \
             `self-repair finalize --partial --run {}` writes what it has done so far",
            state.run,
            phase.as_str(),
            state.run
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The footer's fence is one backtick longer than the longest run of backticks in the
    /// findings it quotes, so a message holding a fence cannot close it.
    #[test]
    fn the_longest_run_of_backticks_is_counted_wherever_it_is() {
        for (text, longest) in [
            ("", 0),
            ("no ticks", 0),
            ("one ` tick", 1),
            ("```", 3),
            ("a `` b ```` c ` d", 4),
            ("ends with `````", 5),
        ] {
            assert_eq!(longest_backticks(text), longest, "{text:?}");
        }
    }
}
