//! `self-repair detect` and `start --detect`: run the configured analyzers (argv, working
//! folder, timeout, accepted exit codes) and capture their output.

use clap::Args;
use self_repair_ingest::Format;
use self_repair_ingest::{IngestOptions, parse};
use self_repair_store::Project;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::detection::{run_detectors, save_detections};
use crate::run::project_config::load_project_config;

/// `self-repair detect`.
#[derive(Debug, Args)]
pub struct DetectArgs {
    /// Only this detector.
    #[arg(long, value_name = "NAME")]
    pub only: Option<String>,
    /// Print what each detector found as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `detect`: every detector (or `--only` one), their outputs saved for `start --detect`,
/// one line each with what it found.
pub fn run(env: &CommandEnv, args: &DetectArgs) -> Result<Output, AppError> {
    let project = Project::find_or_choose(env.start_dir());
    let config = load_project_config(&project.store_dir(), None)?;
    let detections = run_detectors(project.root(), &config.detectors, args.only.as_deref())?;
    save_detections(&project.store_dir().join("detect"), &detections)?;
    let mut out = String::new();
    let mut rows = Vec::new();
    for d in &detections {
        let mut options = IngestOptions::new(d.input.source.clone(), project.root());
        if let Some(dir) = &d.input.relative_to {
            options = options.with_relative_to(dir.clone());
        }
        let parsed = parse(
            &d.input.text,
            d.input.format.unwrap_or(Format::Auto),
            &options,
        )
        .map_err(|e| AppError::Ingest(Box::new(e)))?;
        rows.push(serde_json::json!({
            "name": d.name,
            "exit_code": d.exit_code,
            "seconds": d.seconds,
            "findings": parsed.findings.len(),
            "format": parsed.format.as_str(),
        }));
        out.push_str(&format!(
            "{}: exit {}, {:.1} s, {} finding(s) as {}\n",
            d.name,
            d.exit_code,
            d.seconds,
            parsed.findings.len(),
            parsed.format.as_str()
        ));
    }
    out.push_str("outputs saved in .self-repair/detect/; `self-repair start --detect` creates a run from them\n");
    let value = serde_json::json!({
        "schema_version": 1,
        "detectors": rows,
        "saved_in": ".self-repair/detect/",
    });
    Output::json_or(args.json, &value, |_| out)
}
