//! `self-repair eval`: a run's verdicts so far scored against a labels file, with what they
//! cost (crates/eval, reference/eval.md). Prints the table (or `--json`) and writes `eval.md`
//! and `eval.svg` into the run folder.

use std::path::{Path, PathBuf};

use clap::Args;
use self_repair_eval::{EvalError, EvalReport, LabelSet, ModelSource};
use self_repair_store::{RunDir, write_atomic};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::eval_outcome::{OutcomeInputs, default_corpus, main_session_model, run_outcome};
use crate::run::finalize::{build_report, read_findings};
use crate::run::load::load_folded;

/// `self-repair eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Run id (default: the project's active run); finished or not.
    #[arg(value_name = "RUN")]
    pub run: Option<String>,
    /// The labels: JSONL or CSV, per finding (fingerprint, or path, line and rule) or per test
    /// case (reference/eval.md, "Labels formats"). Default: the project's audit answers,
    /// `.self-repair/audit.jsonl` (`self-repair audit`).
    #[arg(long, value_name = "FILE")]
    pub labels: Option<PathBuf>,
    /// What the run read, named with every figure (default: its analyzers and the project's
    /// folder name).
    #[arg(long, value_name = "NAME")]
    pub corpus: Option<String>,
    /// Who gave the verdicts: `scripted` or `scripted:PLAN` for a scripted model (PLAN says how
    /// it answers), else the real model's id (default: the main session's model, from the cost
    /// ledger).
    #[arg(long, value_name = "scripted[:PLAN]|MODEL")]
    pub model: Option<String>,
    /// The report as JSON (`schema_version` 1) instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `eval`.
pub fn run(env: &CommandEnv, args: &EvalArgs) -> Result<Output, AppError> {
    let run = RunArg {
        run: args.run.clone(),
    };
    let (project, dir) = run.open_triage(env, "`eval`")?;
    let findings = read_findings(&dir)?;
    if findings.is_empty() {
        return Err(AppError::Usage(format!(
            "run {} has no findings, so there is nothing to score: give `eval` a run that read \
             some (`self-repair runs` lists them)",
            dir.id()
        )));
    }
    let labels = match &args.labels {
        Some(given) => read_labels(&env.cwd, given)?,
        None => audit_labels(&project.store_dir())?,
    };
    let model = model_source(args.model.as_deref(), &dir)?;
    let state = load_folded(&dir, false)?;
    let mut answers = crate::run::finalize::triage_answers(&dir, &state);
    let report = build_report(&dir, &state, &findings, &mut answers);
    let corpus = args
        .corpus
        .clone()
        .unwrap_or_else(|| default_corpus(&report, project.root()));
    let inputs = OutcomeInputs {
        dir: &dir,
        state: &state,
        report: &report,
        findings: &findings,
    };
    let eval = EvalReport::of(&run_outcome(&inputs, corpus, model), &labels)?;
    let audit = crate::run::audit_store::audit_section(project.root(), &dir.id());
    write_atomic(
        &dir.path().join("eval.md"),
        format!("{}{audit}", eval.render_markdown(Some("eval.svg"))).as_bytes(),
    )?;
    write_atomic(&dir.path().join("eval.svg"), eval.render_svg().as_bytes())?;
    let folder = dir
        .path()
        .strip_prefix(project.root())
        .unwrap_or(dir.path());
    let wrote = format!(
        "wrote {} and eval.svg beside it",
        folder.join("eval.md").display()
    );
    if args.json {
        return Ok(Output::json_or(true, &eval, |_| String::new())?.with_notes(vec![wrote]));
    }
    let pending = match eval.all.confusion.pending {
        0 => String::new(),
        n => format!(
            "{n} labelled findings have no verdict yet (the run goes on): they are in no score\n"
        ),
    };
    let audit = match crate::run::audit_store::audit_figure(&project.store_dir(), Some(&dir.id())) {
        Ok(figure) if figure.all.answered > 0 => format!("{}\n", figure.headline()),
        _ => String::new(),
    };
    Ok(Output::text(format!(
        "{}{pending}{audit}{wrote}\n",
        eval.render_text()
    )))
}

/// The project's audit answers as labels, when a person gave some.
fn audit_labels(store_dir: &Path) -> Result<LabelSet, AppError> {
    let path = crate::run::audit_store::labels_path(store_dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(AppError::Usage(
                "give the labels with --labels FILE, or audit the run first: `self-repair audit` \
                 in your own terminal records a person's answers in .self-repair/audit.jsonl, \
                 which eval reads by default"
                    .to_owned(),
            ));
        }
        Err(e) => return Err(AppError::io("read", &path)(e)),
    };
    Ok(LabelSet::parse(".self-repair/audit.jsonl", &text)?)
}

/// Reads the labels file, named in every figure as it was given.
fn read_labels(cwd: &Path, given: &Path) -> Result<LabelSet, AppError> {
    let path = cwd.join(given);
    let text = std::fs::read_to_string(&path).map_err(|source| EvalError::Read {
        path: given.to_path_buf(),
        source,
    })?;
    Ok(LabelSet::parse(&given.display().to_string(), &text)?)
}

/// `--model`, else the main session's model as the cost ledger read it.
fn model_source(given: Option<&str>, dir: &RunDir) -> Result<ModelSource, AppError> {
    match given.map(str::trim) {
        Some("scripted") => Ok(ModelSource::Scripted {
            name: "plan not given".to_owned(),
        }),
        Some(text) if text.starts_with("scripted:") => Ok(ModelSource::Scripted {
            name: text["scripted:".len()..].trim().to_owned(),
        }),
        Some("") => Err(AppError::Usage(
            "--model is empty: give `scripted[:PLAN]` or the real model's id".to_owned(),
        )),
        Some(name) => Ok(ModelSource::Real {
            name: name.to_owned(),
        }),
        None => main_session_model(dir)
            .map(|name| ModelSource::Real { name })
            .ok_or_else(|| {
                AppError::Usage(format!(
                    "run {} has no transcript the hook read, so which model gave its verdicts is \
                     unknown: pass `--model scripted:PLAN` for a scripted run or `--model \
                     MODEL-ID` for a real one",
                    dir.id()
                ))
            }),
    }
}
