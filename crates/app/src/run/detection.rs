//! Running the configured analyzers (argv, working folder, timeout, accepted exit codes) and
//! capturing their output: what `detect`, `start --detect` and the fix loop's verification share.

use std::path::Path;
use std::time::Duration;

use self_repair_engine::Finding;
use self_repair_ingest::Format;
use self_repair_ingest::IngestOptions;
use self_repair_process::{Captured, ProcessRequest, SpawnError, run_process};
use self_repair_store::Project;

use crate::app_error::AppError;
use crate::run::inputs::InputSpec;
use crate::run::project_config::Detector;
use crate::run::project_config::load_project_config;

/// What one detector produced.
#[derive(Debug, Clone)]
pub struct Detection {
    pub name: String,
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
    pub input: InputSpec,
}

/// Runs every detector (or the one named `only`) in the project at `root`.
pub fn run_detectors(
    root: &Path,
    detectors: &[Detector],
    only: Option<&str>,
) -> Result<Vec<Detection>, AppError> {
    let chosen: Vec<&Detector> = detectors
        .iter()
        .filter(|d| only.is_none_or(|o| o == d.name))
        .collect();
    if chosen.is_empty() {
        return Err(AppError::Usage(match only {
            Some(name) => format!("no detector `{name}` in .self-repair/config.json"),
            None => "no detectors in .self-repair/config.json: `self-repair init` writes them (and the test command) from the project's files; `self-repair init --dry-run` shows them first. Or add {\"detectors\": [{\"name\": ..., \"argv\": [...]}]} by hand (reference/config.md)".to_owned(),
        }));
    }
    chosen.into_iter().map(|d| run_one(root, d)).collect()
}

fn run_one(root: &Path, detector: &Detector) -> Result<Detection, AppError> {
    let format: Option<Format> = detector
        .format
        .as_deref()
        .map(|f| {
            f.parse()
                .map_err(|e| AppError::Usage(format!("detector `{}`: format: {e}", detector.name)))
        })
        .transpose()?;
    let dir = root.join(detector.cwd.as_deref().unwrap_or("."));
    let outcome = run_process(&ProcessRequest {
        argv: &detector.argv,
        cwd: &dir,
        stdin: None,
        timeout: Some(Duration::from_secs(detector.timeout_secs)),
        output: Captured::Separately,
    })
    .map_err(|e| {
        let place = detector
            .cwd
            .as_deref()
            .map(|cwd| format!(" (in {cwd}/)"))
            .unwrap_or_default();
        match &e {
            SpawnError::Log { .. } => {
                AppError::Tool(format!("detector `{}`: {e}", detector.name))
            }
            SpawnError::NotFound { program } => {
                let install = self_repair_setup::install_hint(program)
                    .map(|hint| format!(": install it ({hint})"))
                    .unwrap_or_default();
                AppError::Usage(format!(
                    "detector `{}`{place}: {e}{install}, or put its folder on PATH; or fix its argv in .self-repair/config.json (reference/config.md)",
                    detector.name
                ))
            }
            _ => AppError::Usage(format!(
                "detector `{}`{place}: {e}; fix its argv in .self-repair/config.json (reference/config.md)",
                detector.name
            )),
        }
    })?;
    if outcome.timed_out {
        return Err(AppError::Tool(format!(
            "detector `{}` timed out after {} s and was stopped with every process it started; raise its timeout_secs in .self-repair/config.json",
            detector.name, detector.timeout_secs
        )));
    }
    let stdout = outcome.stdout_text();
    let stderr = outcome.stderr_text();
    let exit_code = outcome.exit_code;
    if !detector.ok_exit_codes.contains(&exit_code) {
        let tail: Vec<&str> = stderr.lines().rev().take(10).collect();
        return Err(AppError::Tool(format!(
            "detector `{}` exited {exit_code} (accepted: {:?}); its stderr ends:\n{}\nRun it by hand to see why, or add the code to its ok_exit_codes in .self-repair/config.json",
            detector.name,
            detector.ok_exit_codes,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )));
    }
    Ok(Detection {
        name: detector.name.clone(),
        exit_code,
        input: InputSpec {
            source: format!("detector {}", detector.name),
            text: stdout.clone(),
            format,
            relative_to: detector.cwd.clone(),
        },
        stdout,
        stderr,
        seconds: outcome.duration.as_secs_f64(),
    })
}

/// Saves each detector's output as `<dir>/<name>.out` and `.err`.
pub fn save_detections(dir: &Path, detections: &[Detection]) -> Result<(), AppError> {
    std::fs::create_dir_all(dir).map_err(AppError::io("create", dir))?;
    for d in detections {
        let safe: String = d
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        for (ext, text) in [("out", &d.stdout), ("err", &d.stderr)] {
            let path = dir.join(format!("{safe}.{ext}"));
            std::fs::write(&path, text).map_err(AppError::io("write", &path))?;
        }
    }
    Ok(())
}

/// The findings the configured detectors (or the one named) report now, and their names.
pub(crate) fn analyzer_findings(
    project: &Project,
    detector: Option<&str>,
) -> Result<(Vec<Finding>, Vec<String>), AppError> {
    let root = project.root().to_path_buf();
    let config = load_project_config(&project.store_dir(), None)?;
    let detections = run_detectors(&root, &config.detectors, detector)?;
    let mut current = Vec::new();
    for detection in &detections {
        let mut options = IngestOptions::new(detection.input.source.clone(), root.clone());
        if let Some(dir) = &detection.input.relative_to {
            options = options.with_relative_to(dir.clone());
        }
        let parsed = self_repair_ingest::parse(
            &detection.input.text,
            detection.input.format.unwrap_or(Format::Auto),
            &options,
        );
        match parsed {
            Ok(parsed) => current.extend(parsed.findings),
            // An analyzer that finds nothing may print nothing: no finding is its answer.
            Err(_) if detection.input.text.trim().is_empty() => {}
            Err(e) => {
                return Err(AppError::Usage(format!(
                    "detector `{}`: its output cannot be read: {e}",
                    detection.name
                )));
            }
        }
    }
    Ok((current, detections.iter().map(|d| d.name.clone()).collect()))
}
