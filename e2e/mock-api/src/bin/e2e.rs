//! `e2e`: runs the end-to-end scenarios on the real Claude Code client (scripts/e2e.sh).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use clap::Parser;
use self_repair_mock_api::e2e::{
    LARGE_SCENARIOS, OLDEST_CLIENT_SUBSET, Tools, WheelInstall, render_table, run_scenario,
    scenario_names,
};

/// End-to-end scenarios: real `claude -p` sessions against the scripted Messages API.
#[derive(Debug, Parser)]
#[command(name = "e2e")]
struct Args {
    /// The `self-repair` binary under test.
    #[arg(long)]
    self_repair: PathBuf,
    /// The Claude Code CLI.
    #[arg(long)]
    claude: PathBuf,
    /// The backlog CLI.
    #[arg(long)]
    backlog: PathBuf,
    /// The venv bin folder with Ruff, pytest and vulture (scripts/install-py-tools.sh); the
    /// fix-loop scenarios fail without it.
    #[arg(long)]
    py_tools: Option<PathBuf>,
    /// Microsoft's SARIF Multitool (`SARIF_MULTITOOL_BIN` of scripts/install-tools.sh): the CI
    /// recipe scenarios validate the SARIF they upload with it, and fail without it.
    #[arg(long)]
    sarif_multitool: Option<PathBuf>,
    /// The plugin directory (the repository's `plugin/`).
    #[arg(long)]
    plugin_dir: PathBuf,
    /// The repository root, whose fixtures, corpora and recipes the scenarios read (default:
    /// the checkout this runner was built from).
    #[arg(long)]
    repo: Option<PathBuf>,
    /// An empty folder for the scenarios' projects.
    #[arg(long)]
    work: PathBuf,
    /// Seconds one `claude -p` may run before it is killed.
    #[arg(long, default_value_t = 180)]
    timeout: u64,
    /// Run only these scenarios (repeatable); default: all.
    #[arg(long)]
    only: Vec<String>,
    /// Run only the representative subset CI runs on the oldest supported client (with
    /// `--only`: the scenarios named there that are in it, possibly none).
    #[arg(long)]
    subset: bool,
    /// Also write the measured table (Markdown) to this file.
    #[arg(long)]
    table: Option<PathBuf>,
    /// The venv the repo's wheel was installed into (`--self-repair` is its `bin/self-repair`):
    /// adds the `wheel-installed` scenario, run first.
    #[arg(long, requires = "wheel_installed_at_ms")]
    wheel_venv: Option<PathBuf>,
    /// When `pip install` of the wheel finished, in milliseconds since the Unix epoch.
    #[arg(long, requires = "wheel_venv")]
    wheel_installed_at_ms: Option<u64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let tools = Tools {
        self_repair: args.self_repair,
        claude: args.claude,
        backlog: args.backlog,
        python_bin: args.py_tools,
        sarif_multitool: args.sarif_multitool,
        plugin_dir: args.plugin_dir,
        repo: args
            .repo
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")),
        work: args.work,
        claude_timeout: args.timeout,
        wheel: args.wheel_venv.map(|venv| WheelInstall {
            venv,
            installed_at: SystemTime::UNIX_EPOCH
                + Duration::from_millis(args.wheel_installed_at_ms.unwrap_or(0)),
        }),
    };
    let started = Instant::now();
    let (mut passed, mut failed, mut rows) = (0, 0, Vec::new());
    // The large scenarios run only when asked for: `E2E_LARGE=1` or `--only` one of them.
    let large = std::env::var("E2E_LARGE").is_ok_and(|v| v == "1")
        || args
            .only
            .iter()
            .any(|o| LARGE_SCENARIOS.contains(&o.as_str()));
    let chosen: Vec<&str> = scenario_names(tools.wheel.is_some(), large)
        .into_iter()
        .filter(|name| args.only.is_empty() || args.only.iter().any(|o| o == name))
        .filter(|name| !args.subset || OLDEST_CLIENT_SUBSET.contains(name))
        .collect();
    if chosen.is_empty() && args.subset {
        // `--only` named scenarios outside the subset: nothing to run on this client.
        println!("e2e: none of the scenarios named by --only is in the subset");
        println!("e2e: 0 passed, 0 failed");
        return ExitCode::SUCCESS;
    }
    for name in chosen {
        let Some(outcome) = run_scenario(&tools, name) else {
            continue;
        };
        if outcome.passed() {
            passed += 1;
            println!("PASS {name} ({:.1} s)", outcome.wall.as_secs_f64());
        } else {
            failed += 1;
            println!("FAIL {name} ({:.1} s)", outcome.wall.as_secs_f64());
            for failure in &outcome.failures {
                println!("  - {name}: {failure}");
            }
        }
        for note in &outcome.notes {
            println!("  . {note}");
        }
        rows.extend(outcome.figures);
    }
    let table = render_table(&rows);
    println!(
        "\nMeasured (main-context bytes are message content the main thread receives):\n{table}\
         e2e wall time: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = &args.table
        && let Err(e) = std::fs::write(path, &table)
    {
        eprintln!("e2e: cannot write {}: {e}", path.display());
    }
    println!("e2e: {passed} passed, {failed} failed");
    if failed == 0 && passed > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
