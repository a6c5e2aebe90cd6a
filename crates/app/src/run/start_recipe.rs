//! `start.json`: how `start` read the run's input (the files as given and the folder they were
//! given in, the format, `--base`, `--relative-to`, the config file, the scope flags), and the
//! texts it read from no file (standard input, detector reports) kept beside it under
//! `start-inputs/`. `drive --partitions N` reads the same input again from it, N times with
//! `--partition hash:K/N`, to split a run nothing has been dispatched for (design note 56).

use std::path::{Path, PathBuf};

use self_repair_ingest::Format;
use self_repair_store::RunDir;
use serde::{Deserialize, Serialize};

use crate::app_error::AppError;
use crate::commands::start::{InputSpec, StartOptions};

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
