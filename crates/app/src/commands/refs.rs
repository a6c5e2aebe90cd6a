//! `self-repair refs SYMBOL`: references to a symbol in the project (word boundaries,
//! `.gitignore` honoured), the active run's own inputs left out.

use clap::Args;
use self_repair_context::RefOptions;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::inputs::run_input_paths;

/// `self-repair refs`.
#[derive(Debug, Args)]
pub struct RefsArgs {
    /// The identifier to look for, e.g. a function or variable name.
    pub symbol: String,
    /// Most hits shown.
    #[arg(long, default_value_t = 50)]
    pub max: usize,
    /// Print the hits as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `refs`.
pub fn run(env: &CommandEnv, args: &RefsArgs) -> Result<Output, AppError> {
    let project = env.find_project().ok();
    let root = project
        .as_ref()
        .map_or_else(|| env.start_dir().to_path_buf(), |p| p.root().to_path_buf());
    // The active run's own inputs are never references (an analyzer report names the symbols
    // it flags).
    let active = project.as_ref().and_then(|p| p.run_or_active(None).ok());
    let mut options = RefOptions {
        max_results: args.max,
        ..RefOptions::default()
    };
    options.skip_paths.extend(run_input_paths(active.as_ref()));
    let report = self_repair_context::references(&root, &args.symbol, &options)
        .map_err(|e| AppError::Usage(e.to_string()))?;
    if args.json {
        let hits: Vec<serde_json::Value> = report
            .hits
            .iter()
            .map(|hit| serde_json::json!({"path": hit.path, "line": hit.line, "text": hit.text}))
            .collect();
        let value = serde_json::json!({
            "schema_version": 1,
            "symbol": report.symbol,
            "hits": hits,
            "total_hits": report.total_hits,
            "files_with_hits": report.files_with_hits,
            "truncated": report.is_truncated() || report.stopped_by.is_some(),
            "summary": report.summary(),
        });
        return Output::json_or(true, &value, |_| String::new());
    }
    Ok(Output::text(format!(
        "{}{}",
        report.render(),
        report.summary()
    )))
}
