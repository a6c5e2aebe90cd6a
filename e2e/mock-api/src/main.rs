//! `mock-api`: runs the scripted Messages API until killed, for shell probes.

use std::path::PathBuf;
use std::process::ExitCode;
use std::{fs, thread};

use clap::Parser;
use self_repair_mock_api::{Measurement, MockError, MockServer, RecordedRequest, Scenario};

/// Scripted Messages API on 127.0.0.1 (free port) for driving Claude Code offline.
#[derive(Debug, Parser)]
#[command(name = "mock-api")]
struct Args {
    /// Scenario JSON (fields of `Scenario`); default: every item valid, no faults.
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Append every request as one JSON line here.
    #[arg(long)]
    record: Option<PathBuf>,
    /// Write the base URL (`http://127.0.0.1:PORT`) to this file once listening.
    #[arg(long)]
    url_file: Option<PathBuf>,
    /// Do not serve: print the measurement of a record file as one JSON line and exit.
    #[arg(long, conflicts_with_all = ["scenario", "record", "url_file"])]
    measure: Option<PathBuf>,
}

fn measure(path: &PathBuf) -> Result<(), MockError> {
    let invalid = |message: String| MockError::Scenario {
        path: path.clone(),
        message,
    };
    let text = fs::read_to_string(path).map_err(|e| invalid(e.to_string()))?;
    let records = RecordedRequest::read_jsonl(&text).map_err(|e| invalid(e.to_string()))?;
    let measurement = Measurement::from_records(&records);
    println!(
        "{}",
        serde_json::to_string(&measurement).map_err(|e| invalid(e.to_string()))?
    );
    Ok(())
}

fn run(args: &Args) -> Result<(), MockError> {
    if let Some(path) = &args.measure {
        return measure(path);
    }
    let scenario = match &args.scenario {
        None => Scenario::default(),
        Some(path) => {
            let invalid = |message: String| MockError::Scenario {
                path: path.clone(),
                message,
            };
            let text = fs::read_to_string(path).map_err(|e| invalid(e.to_string()))?;
            serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?
        }
    };
    let server = match &args.record {
        Some(path) => MockServer::start_recording(scenario, path)?,
        None => MockServer::start(scenario)?,
    };
    if let Some(path) = &args.url_file {
        fs::write(path, server.base_url()).map_err(|source| MockError::Record {
            path: path.clone(),
            source,
        })?;
    }
    println!("{}", server.base_url());
    loop {
        thread::park();
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mock-api: {e}");
            ExitCode::FAILURE
        }
    }
}
