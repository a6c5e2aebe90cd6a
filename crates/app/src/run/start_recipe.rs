//! `start.json`: how `start` read the run's input (the files as given and the folder they were
//! given in, the format, `--base`, `--relative-to`, the config file, the scope flags), and the
//! texts it read from no file (standard input, detector reports) kept beside it under
//! `start-inputs/`. `drive --partitions N` reads the same input again from it, N times with
//! `--partition hash:K/N`, to split a run nothing has been dispatched for (design note 56).
//! With it, what makes a run and is not `start`'s alone: its options ([`StartOptions`]), the
//! next free run id, and the line saying who drives a run just made (`start`, `merge`).

use std::path::{Path, PathBuf};

use self_repair_engine::{Phase, timestamp};
use self_repair_ingest::Format;
use self_repair_store::{Project, RunDir};
use serde::{Deserialize, Serialize};

use crate::app_error::AppError;
use crate::run::input_scope::InputScope;
use crate::run::inputs::InputSpec;

/// The file in the run folder.
const FILE: &str = "start.json";
/// The folder of the texts read from no file.
const TEXTS: &str = "start-inputs";

/// One input read from memory: its name, how it was read, and its text's file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct KeptText {
    source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    relative_to: Option<String>,
    /// Under the run folder.
    file: String,
}

/// What `start` was given, enough to read the same input again.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StartRecipe {
    schema_version: u32,
    /// The folder `start` ran in: the files are as given, relative to it.
    cwd: PathBuf,
    files: Vec<PathBuf>,
    /// Standard input's text, when a file was `-` (or none was given).
    #[serde(skip_serializing_if = "Option::is_none")]
    stdin: Option<String>,
    /// Inputs read from memory (`--detect`'s reports).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    prepared: Vec<KeptText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    config: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    relative_to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changed_since: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    new_only: bool,
}

const VERSION: u32 = 1;

fn write_text(dir: &RunDir, name: &str, text: &str) -> Result<String, AppError> {
    let folder = dir.path().join(TEXTS);
    std::fs::create_dir_all(&folder).map_err(AppError::io("create", &folder))?;
    let path = folder.join(name);
    std::fs::write(&path, text).map_err(AppError::io("write", &path))?;
    Ok(format!("{TEXTS}/{name}"))
}

/// Writes `start.json` (and `start-inputs/`) for the run in `dir`, made from `options` in `cwd`.
pub(crate) fn record(dir: &RunDir, options: &StartOptions, cwd: &Path) -> Result<(), AppError> {
    let stdin = match &options.stdin {
        Some(text) => Some(write_text(dir, "stdin", text)?),
        None => None,
    };
    let mut prepared = Vec::with_capacity(options.prepared.len());
    for (n, spec) in options.prepared.iter().enumerate() {
        prepared.push(KeptText {
            source: spec.source.clone(),
            format: spec.format.map(|f| f.as_str().to_owned()),
            relative_to: spec.relative_to.clone(),
            file: write_text(dir, &format!("prepared-{}", n + 1), &spec.text)?,
        });
    }
    let recipe = StartRecipe {
        schema_version: VERSION,
        cwd: cwd.to_path_buf(),
        files: options.files.clone(),
        stdin,
        prepared,
        format: options.format.map(|f| f.as_str().to_owned()),
        config: options
            .config
            .as_ref()
            .map(|c| std::path::absolute(cwd.join(c)).unwrap_or_else(|_| cwd.join(c))),
        base: options.base.clone(),
        relative_to: options.relative_to.clone(),
        changed_since: options.scope.changed_since.clone(),
        new_only: options.scope.new_only,
    };
    let path = dir.path().join(FILE);
    let text = serde_json::to_string_pretty(&recipe).map_err(|e| AppError::Usage(e.to_string()))?;
    self_repair_store::write_atomic(&path, format!("{text}\n").as_bytes()).map_err(AppError::from)
}

/// The recipe of the run in `dir`; what to do when it has none (a run made before `start.json`
/// existed, or by `merge`).
pub(crate) fn read(dir: &RunDir) -> Result<StartRecipe, AppError> {
    let path = dir.path().join(FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        AppError::Usage(format!(
            "run {} has no {FILE} ({e}): it was not made by this version's `self-repair start`, so \
             its input cannot be read again to split it; start it again (`self-repair start FILE... \
             --replace`), then `self-repair drive --partitions N`",
            dir.id()
        ))
    })?;
    serde_json::from_str(&text)
        .map_err(|e| AppError::Usage(format!("{}: {e}; start the run again", path.display())))
}

fn read_text(dir: &RunDir, file: &str) -> Result<String, AppError> {
    let path = dir.path().join(file);
    std::fs::read_to_string(&path).map_err(AppError::io("read", &path))
}

fn format_of(name: Option<&str>) -> Result<Option<Format>, AppError> {
    name.map(|n| {
        n.parse::<Format>()
            .map_err(|e| AppError::Usage(format!("start.json: format {n}: {e}")))
    })
    .transpose()
}

impl StartRecipe {
    /// The folder `start` ran in.
    pub(crate) fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// `start`'s options for the same input, the texts read from the run in `dir`; the caller
    /// sets the scope's partition, the run id and what else differs.
    pub(crate) fn options(&self, dir: &RunDir) -> Result<StartOptions, AppError> {
        let stdin = match &self.stdin {
            Some(file) => Some(read_text(dir, file)?),
            None => None,
        };
        let mut prepared = Vec::with_capacity(self.prepared.len());
        for kept in &self.prepared {
            prepared.push(InputSpec {
                source: kept.source.clone(),
                text: read_text(dir, &kept.file)?,
                format: format_of(kept.format.as_deref())?,
                relative_to: kept.relative_to.clone(),
            });
        }
        let mut options = StartOptions {
            files: self.files.clone(),
            stdin,
            format: format_of(self.format.as_deref())?,
            config: self.config.clone(),
            base: self.base.clone(),
            relative_to: self.relative_to.clone(),
            prepared,
            ..StartOptions::default()
        };
        options.scope.changed_since.clone_from(&self.changed_since);
        options.scope.new_only = self.new_only;
        Ok(options)
    }
}

/// What `start` reads and how.
#[derive(Debug, Clone, Default)]
pub struct StartOptions {
    /// Findings files; `-` is standard input.
    pub files: Vec<PathBuf>,
    /// Standard input's text, when a file is `-` (or no file was given).
    pub stdin: Option<String>,
    pub format: Option<Format>,
    pub run_id: Option<String>,
    pub config: Option<PathBuf>,
    /// Prefix to strip from absolute paths the analyzer wrote on another machine.
    pub base: Option<PathBuf>,
    /// Project folder the analyzer ran in: its relative paths are under it.
    pub relative_to: Option<String>,
    /// Inputs already in memory (detector outputs, the demo's bundled files).
    pub prepared: Vec<InputSpec>,
    /// Also run the detectors of `.self-repair/config.json` and ingest their output.
    pub detect: bool,
    /// Cancel the active run if it is still in progress (else `start` refuses).
    pub replace: bool,
    /// `--budget USD`: over the config's `budget_usd`.
    pub budget_usd: Option<f64>,
    /// `--dry-run`: print the estimate, create nothing.
    pub dry_run: bool,
    /// `--changed-since`, `--new-only`, `--partition`: the part of the input the run takes.
    pub scope: InputScope,
    /// `--until triage`: the run ends after triage.
    pub until: Option<Phase>,
    /// A share made by `drive --partitions`: not made active, bound to no session, and the
    /// run in progress (the one split) left as it is.
    pub detached: bool,
}

/// Who drives a run just created (by `start` or `merge`), in one line: the session it is bound
/// to (with the standing protocol, when it is told here), or how a session takes it.
pub(crate) fn who_drives(
    session: Option<&str>,
    phase: Phase,
    protocol: Option<&'static str>,
) -> String {
    match (session, phase) {
        (_, Phase::Finalize) => {
            "nothing needs an agent: the next stop of a Claude Code session finalizes the run (or run `self-repair finalize`)\n".to_owned()
        }
        (Some(s), _) => {
            let mut out =
                format!("bound to session {s}: end your turn; the Stop hook dispatches the agents.");
            if let Some(protocol) = protocol {
                out.push(' ');
                out.push_str(protocol);
            }
            out.push('\n');
            out
        }
        (None, _) => "started outside Claude Code, so no session drives it yet: in the Claude Code session that should, ask Claude to continue the self-repair run (or run `self-repair adopt` there), then end your turn\n".to_owned(),
    }
}

/// `r-YYYYMMDD-HHMM`, with `-2`, `-3`, ... when taken.
pub(crate) fn free_run_id(project: &Project, now: u64) -> Result<String, AppError> {
    let base = format!("r-{}", timestamp::compact(now));
    let taken = project.run_ids()?;
    if !taken.contains(&base) {
        return Ok(base);
    }
    Ok((2..=taken.len() + 2)
        .map(|n| format!("{base}-{n}"))
        .find(|id| !taken.contains(id))
        .unwrap_or(base))
}
