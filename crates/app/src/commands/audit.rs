//! `self-repair audit`: a person checks a sample of a run's closed findings (and a few kept),
//! in the terminal or as a Markdown checklist; the answers become the project's labels
//! (`.self-repair/audit.jsonl`), a disagreement reopens the finding, and the figure bounds the
//! unsafe-closure rate (crates/audit, reference/audit.md). Refused inside a coding agent.

use std::path::{Path, PathBuf};

use clap::Args;
use self_repair_audit::{
    Answer, AuditCandidate, AuditError, AuditLabel, AuditLabels, AuditRecord, SessionEnd,
    ask_in_terminal, parse_checklist, render_checklist,
};
use self_repair_engine::StableHash;
use self_repair_engine::timestamp::rfc3339;
use self_repair_store::{RunDir, write_atomic};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::audit_candidates::{audit_candidates, with_excerpt};
use crate::run::audit_store::{
    audit_figure, audit_policy, load_labels, reopen_in_known, save_labels,
};
use crate::run::finalize::{build_report_as_decided, read_findings, write_reports};
use crate::run::load::load_folded;

/// `self-repair audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Run id (default: the project's active run).
    #[arg(value_name = "RUN")]
    pub run: Option<String>,
    /// Closed findings to audit (default: `audit.size` in config.json, else 29: with none
    /// wrong, the unsafe-closure rate is then below 10 % at 95 % confidence). A larger size
    /// later keeps the findings already drawn and adds more.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub size: Option<u64>,
    /// The sample's seed (default: drawn once and stored in the run's audit.json, so the audit
    /// resumes on the same findings).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Write the findings still to answer as a Markdown checklist to FILE, to fill in an editor
    /// or a pull request's review; read it back with `--read`.
    #[arg(long, value_name = "FILE", conflicts_with = "read")]
    pub write: Option<PathBuf>,
    /// Record the answers of a filled checklist (written by `--write`).
    #[arg(long, value_name = "FILE")]
    pub read: Option<PathBuf>,
    /// Who answers, kept with each answer (default: `USER`).
    #[arg(long, value_name = "NAME")]
    pub by: Option<String>,
    /// Print the figures only (this run's and every run's), asking nothing.
    #[arg(long, conflicts_with_all = ["write", "read"])]
    pub figures: bool,
}

/// One audit being worked on.
struct Audit {
    dir: RunDir,
    root: PathBuf,
    store: PathBuf,
    run: String,
    record: AuditRecord,
    candidates: Vec<AuditCandidate>,
    labels: AuditLabels,
    state: self_repair_engine::RunState,
    findings: Vec<self_repair_engine::FindingRecord>,
    /// Findings two investigators disagreed on (a low-confidence `real` a second look did not
    /// share, issue 48): `unsure`, never sampled as a closure; a person decides each.
    disputed: usize,
}

/// Runs `audit`.
pub fn run(env: &CommandEnv, args: &AuditArgs) -> Result<Output, AppError> {
    let mut audit = open(env, args)?;
    if args.figures {
        return figures(&audit);
    }
    if let Some(file) = &args.write {
        return write_checklist(env, &audit, file);
    }
    refuse_inside_an_agent(env)?;
    let by = args
        .by
        .clone()
        .or_else(|| env.user.clone())
        .unwrap_or_else(|| "unknown".to_owned());
    let at = rfc3339(env.now);
    let text = match &args.read {
        Some(file) => read_checklist(env, &mut audit, file, &by, &at)?,
        None => in_terminal(&mut audit, &by, &at)?,
    };
    let reopened = reopen_in_known(&audit.store, env.now)?;
    if audit.dir.path().join("report.json").is_file() {
        // A finished run's reports show the answers and the reopened findings.
        write_reports(&audit.root, &audit.dir, &audit.state, &audit.findings)?;
    }
    let figure = audit_figure(&audit.store, Some(&audit.run))?;
    let mut text = text;
    if reopened > 0 {
        text.push_str(&format!(
            "{reopened} finding(s) reopened in .self-repair/known.json as real, with your reason.\n"
        ));
    }
    text.push_str(&format!("{}\n", figure.headline()));
    text.push_str(&disputed_line(audit.disputed));
    Ok(Output::text(text).with_notes(team_file_notes(&audit.store)))
}

/// What a store made before `audit.jsonl` existed lacks to share it: its `.gitignore` ignores
/// the file and its `.gitattributes` does not union-merge it. Those files are the team's, so
/// `audit` says what to add instead of editing them.
fn team_file_notes(store: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let lacks = |name: &str, line: &str| {
        std::fs::read_to_string(store.join(name))
            .is_ok_and(|text| !text.lines().any(|l| l.trim() == line))
    };
    if lacks(".gitignore", "!audit.jsonl") {
        notes.push(
            ".self-repair/.gitignore ignores audit.jsonl: add the line `!audit.jsonl` to it so \
             the team commits the answers"
                .to_owned(),
        );
    }
    if lacks(".gitattributes", "audit.jsonl merge=union") {
        notes.push(
            ".self-repair/.gitattributes does not merge audit.jsonl by union: add the line \
             `audit.jsonl merge=union` so two branches' answers merge"
                .to_owned(),
        );
    }
    notes
}

/// The run, its candidates, its audit record (drawn now the first time) and the answers.
fn open(env: &CommandEnv, args: &AuditArgs) -> Result<Audit, AppError> {
    let (project, dir) = RunArg {
        run: args.run.clone(),
    }
    .open_triage(env, "`audit`")?;
    let state = load_folded(&dir, false)?;
    let findings = read_findings(&dir)?;
    let answers = crate::run::finalize::triage_answers(&dir, &state);
    let report = build_report_as_decided(&dir, &state, &findings, answers);
    let candidates = audit_candidates(&dir, &state, &report, &findings);
    let disputed = report
        .findings
        .iter()
        .filter(|f| {
            f.verification
                .as_ref()
                .is_some_and(|v| v.outcome == Some(self_repair_engine::VerifyOutcome::Disputed))
        })
        .count();
    let store = project.store_dir();
    let policy = audit_policy(&store)?;
    let size = args.size.map_or_else(|| policy.size(), |n| n as usize);
    let path = AuditRecord::path(dir.path());
    let record = match std::fs::read_to_string(&path) {
        Ok(text) => {
            let mut record = AuditRecord::parse(&text, &path).map_err(audit_error)?;
            if let Some(seed) = args.seed.filter(|s| *s != record.seed) {
                return Err(AppError::Usage(format!(
                    "run {} is audited with seed {} (its audit.json): --seed {seed} would draw \
                     another sample; leave --seed out to go on, or remove {} to start over",
                    state.run,
                    record.seed,
                    path.display()
                )));
            }
            if args.size.is_some() {
                record.grow(&candidates, size);
            }
            record
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let seed = args.seed.unwrap_or_else(|| {
                let mut hash = StableHash::new();
                hash.write(format!("{}:{}", state.run, env.now).as_bytes());
                hash.finish()
            });
            AuditRecord::draw(&state.run, &candidates, seed, size)
        }
        Err(e) => return Err(AppError::io("read", &path)(e)),
    };
    Ok(Audit {
        labels: load_labels(&store)?,
        run: state.run.clone(),
        root: project.root().to_path_buf(),
        dir,
        store,
        record,
        candidates,
        state,
        findings,
        disputed,
    })
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "used as `map_err(audit_error)`"
)]
fn audit_error(e: AuditError) -> AppError {
    AppError::Usage(e.to_string())
}

impl Audit {
    /// The sample's findings not answered yet in this run, in order, with their code.
    fn pending(&self) -> Vec<AuditCandidate> {
        self.record
            .sample
            .iter()
            .filter(|f| !self.labels.answered(f, &self.run))
            .filter_map(|f| self.candidates.iter().find(|c| &c.fingerprint == f))
            .map(|c| with_excerpt(&self.root, c))
            .collect()
    }

    fn save_record(&self) -> Result<(), AppError> {
        let path = AuditRecord::path(self.dir.path());
        let text = serde_json::to_string_pretty(&self.record)
            .map_err(|e| AppError::io("write", &path)(std::io::Error::other(e)))?;
        write_atomic(&path, format!("{text}\n").as_bytes())?;
        Ok(())
    }

    /// Records one answer: a label in the project's file (saved at once), or a skip.
    fn answer(
        &mut self,
        c: &AuditCandidate,
        answer: &Answer,
        by: &str,
        at: &str,
    ) -> Result<(), AppError> {
        if let Some(label) = AuditLabel::of(c, &self.run, answer, by, at) {
            self.labels.put(label);
            save_labels(&self.store, &self.labels)
        } else {
            self.record.skip(&c.fingerprint);
            self.save_record()
        }
    }
}

/// The model cannot audit for the person.
fn refuse_inside_an_agent(env: &CommandEnv) -> Result<(), AppError> {
    match &env.agent_marker {
        Some(marker) => Err(AppError::Usage(format!(
            "`self-repair audit` records a person's answers, and this shell belongs to a coding \
             agent ({marker} is set): run it yourself in a terminal outside Claude Code (or \
             `--write FILE` here, then fill the file in and `--read FILE` in your own terminal)"
        ))),
        None => Ok(()),
    }
}

/// `--figures`.
fn figures(audit: &Audit) -> Result<Output, AppError> {
    let run = audit_figure(&audit.store, Some(&audit.run))?;
    let all = audit_figure(&audit.store, None)?;
    Ok(Output::text(format!(
        "run {}: {}\n{}\nevery run: {}\n{}",
        audit.run,
        run.headline(),
        run.render_text(),
        all.headline(),
        disputed_line(audit.disputed)
    )))
}

/// The findings two investigators disagreed on, which no sample holds: each waits for a person.
fn disputed_line(disputed: usize) -> String {
    if disputed == 0 {
        return String::new();
    }
    format!(
        "{disputed} finding(s) two investigators disagreed on are unsure, not in the sample: a \
         person decides each (`self-repair status --findings` shows both answers, `-> disputed`; \
         `self-repair known add` records the decision)\n"
    )
}

/// `--write FILE`.
fn write_checklist(env: &CommandEnv, audit: &Audit, file: &Path) -> Result<Output, AppError> {
    audit.save_record()?;
    let pending = audit.pending();
    let refs: Vec<&AuditCandidate> = pending.iter().collect();
    let path = env.cwd.join(file);
    write_atomic(
        &path,
        render_checklist(&audit.run, audit.record.seed, &refs).as_bytes(),
    )?;
    Ok(Output::text(format!(
        "wrote {}: {} findings of run {} to audit. Tick one box per finding, then run \
         `self-repair audit {} --read {}` in your own terminal.\n",
        file.display(),
        pending.len(),
        audit.run,
        audit.run,
        file.display()
    )))
}

/// `--read FILE`.
fn read_checklist(
    env: &CommandEnv,
    audit: &mut Audit,
    file: &Path,
    by: &str,
    at: &str,
) -> Result<String, AppError> {
    let path = env.cwd.join(file);
    let text = std::fs::read_to_string(&path).map_err(AppError::io("read", &path))?;
    let answers = parse_checklist(&file.display().to_string(), &text).map_err(audit_error)?;
    let mut counts = [0usize; 3];
    let mut unanswered = 0;
    // Checked first, recorded after: a checklist naming a finding not in the sample changes
    // nothing.
    let mut chosen = Vec::new();
    for read in answers {
        let Some(candidate) = audit
            .record
            .sample
            .contains(&read.fingerprint)
            .then(|| {
                audit
                    .candidates
                    .iter()
                    .find(|c| c.fingerprint == read.fingerprint)
            })
            .flatten()
        else {
            return Err(AppError::Usage(format!(
                "{}: finding {} is not in run {}'s audit sample: was the checklist written for \
                 another run? (`self-repair audit RUN --write FILE` writes one)",
                file.display(),
                read.fingerprint,
                audit.run
            )));
        };
        match read.answer {
            Some(answer) => chosen.push((candidate.clone(), answer)),
            None => unanswered += 1,
        }
    }
    for (candidate, answer) in &chosen {
        counts[match answer {
            Answer::Agree => 0,
            Answer::Disagree(_) => 1,
            Answer::Skip => 2,
        }] += 1;
        audit.answer(candidate, answer, by, at)?;
    }
    Ok(format!(
        "recorded from {}: {} agreed, {} disagreed, {} skipped, {} left blank; {} of run {}'s \
         sample still to answer.\n",
        file.display(),
        counts[0],
        counts[1],
        counts[2],
        unanswered,
        audit.pending().len(),
        audit.run
    ))
}

/// The terminal session on standard input and output.
fn in_terminal(audit: &mut Audit, by: &str, at: &str) -> Result<String, AppError> {
    audit.save_record()?;
    let pending = audit.pending();
    if pending.is_empty() {
        return Ok(format!(
            "every finding of run {}'s sample is answered (`--size N` asks for more).\n",
            audit.run
        ));
    }
    let refs: Vec<&AuditCandidate> = pending.iter().collect();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = std::io::stdout().lock();
    let mut failed: Option<AppError> = None;
    let result = ask_in_terminal(&refs, &mut input, &mut output, &mut |c, answer| {
        audit.answer(c, answer, by, at).map_err(|e| {
            let text = e.to_string();
            failed = Some(e);
            AuditError::Record(text)
        })
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let (end, answered) = result.map_err(audit_error)?;
    let how = match end {
        SessionEnd::Done => "the sample is done",
        SessionEnd::Quit => "stopped; `self-repair audit` goes on where you left off",
        SessionEnd::EndOfInput => "input ended; `self-repair audit` goes on where you left off",
    };
    Ok(format!("\n{answered} answered: {how}.\n"))
}
