//! `self-repair init`: writes `.self-repair/config.json`'s detectors and test command from what
//! the project has (crates/setup), merged into an existing config without losing a key; prints
//! what it wrote and why.

use std::fmt::Write as _;
use std::path::Path;

use clap::Args;
use self_repair_process::Git;
use self_repair_setup::{
    ConfigChange, MergedConfig, ProjectSetup, config_text, find_program, install_hint,
    merge_into_config,
};
use self_repair_store::{Project, write_atomic};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::project_config::load_project_config;

/// `self-repair init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Print the config it would write; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace a detector of the same name and the test command already in the config (every
    /// other key is kept).
    #[arg(long)]
    pub force: bool,
    /// Print what was proposed and written as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `init`: what it found, the config it wrote (or would write), and what to run next.
/// Nothing found: exit 2, nothing written.
pub fn run(env: &CommandEnv, args: &InitArgs) -> Result<Output, AppError> {
    let project = Project::find_or_choose(env.start_dir());
    let root = project.root();
    let mut setup = ProjectSetup::detect(root);
    let missing = missing_programs(&setup, env.path_var.as_deref());
    setup.notes.extend(missing);
    if setup.is_empty() {
        // A manifest was read but gave nothing (a package.json without ESLint or a real test
        // script): its notes say why, and "found no package.json" would be wrong.
        let found = if setup.notes.is_empty() {
            "found no pyproject.toml, ruff.toml, setup.cfg, package.json or Cargo.toml"
        } else {
            "found no detector or test command to propose"
        };
        let mut message = format!(
            "{found} in {} or the folders one and two levels below: nothing written; run init in the project's root (`-C DIR`), or write the detectors by hand (reference/config.md, \"Detectors\")",
            root.display()
        );
        for note in &setup.notes {
            let _ = write!(message, "\nnote: {note}");
        }
        return Err(AppError::Usage(message));
    }
    let path = project.store_dir().join("config.json");
    let existing = read_existing(&project.store_dir(), &path)?;
    let existed = existing.is_some();
    let merged = merge_into_config(existing, &setup, args.force).map_err(|e| AppError::Config {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let json = config_text(&merged.config);
    let write = merged.changed() && !args.dry_run;
    if write {
        std::fs::create_dir_all(project.store_dir())
            .map_err(AppError::io("create", project.store_dir()))?;
        write_atomic(&path, json.as_bytes())?;
    }
    let has_commit = has_commit(root);
    if args.json {
        let mut value = init_json(&setup, &merged);
        value["written"] = write.into();
        value["dry_run"] = args.dry_run.into();
        value["existed"] = existed.into();
        value["git_commit"] = has_commit.into();
        return Output::json_or(true, &value, |_| String::new());
    }
    Ok(Output::text(render(
        &setup,
        &merged,
        &json,
        existed,
        args.dry_run,
        has_commit,
    )))
}

/// `init --json`: the proposals with why, what the merge did, and the config (the caller adds
/// whether the file was written).
fn init_json(setup: &ProjectSetup, merged: &MergedConfig) -> serde_json::Value {
    let detectors: Vec<serde_json::Value> = setup
        .detectors
        .iter()
        .map(|d| serde_json::json!({"name": d.name, "argv": d.argv, "ok_exit_codes": d.ok_exit_codes, "reason": d.reason}))
        .collect();
    let tests: Vec<serde_json::Value> = setup
        .tests
        .iter()
        .map(|t| serde_json::json!({"command": t.command, "reason": t.reason}))
        .collect();
    let changes: Vec<serde_json::Value> = merged
        .changes
        .iter()
        .map(|change| match change {
            ConfigChange::Added(what) => serde_json::json!({"change": "added", "entry": what}),
            ConfigChange::Kept(what) => serde_json::json!({"change": "kept", "entry": what}),
            ConfigChange::Replaced(what) => {
                serde_json::json!({"change": "replaced", "entry": what})
            }
        })
        .collect();
    serde_json::json!({
        "schema_version": 1,
        "file": ".self-repair/config.json",
        "detectors": detectors,
        "tests": tests,
        "changes": changes,
        "notes": setup.notes,
        "config": merged.config,
    })
}

/// The config already there, checked the way every command reads it: a file that does not
/// load is refused, never overwritten.
fn read_existing(store_dir: &Path, path: &Path) -> Result<Option<serde_json::Value>, AppError> {
    if !path.is_file() {
        return Ok(None);
    }
    load_project_config(store_dir, None)?;
    let text = std::fs::read_to_string(path).map_err(AppError::io("read config", path))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| AppError::Config {
            path: path.to_path_buf(),
            message: format!("not valid JSON ({e}); fix the file or remove it"),
        })
}

/// True when the project is a git work tree with a commit (what `fix` and `apply-fixes` need).
fn has_commit(root: &Path) -> bool {
    Git::at(root)
        .text(&["rev-parse", "--verify", "HEAD"])
        .is_ok()
}

/// What the merge did, one line per entry (`would add` under `--dry-run`); returns the
/// entries kept as the file has them.
fn render_changes<'a>(out: &mut String, merged: &'a MergedConfig, dry_run: bool) -> Vec<&'a str> {
    let (added, replaced) = if dry_run {
        ("would add", "would replace (--force)")
    } else {
        ("added", "replaced (--force)")
    };
    let mut kept = Vec::new();
    for change in &merged.changes {
        match change {
            ConfigChange::Added(what) => {
                let _ = writeln!(out, "{added}: {what}");
            }
            ConfigChange::Replaced(what) => {
                let _ = writeln!(out, "{replaced}: {what}");
            }
            ConfigChange::Kept(what) => {
                let _ = writeln!(out, "kept: {what}, as the file has it");
                kept.push(what.as_str());
            }
        }
    }
    kept
}

/// The report: each proposal with why, the notes, what the merge did, the file, what next.
fn render(
    setup: &ProjectSetup,
    merged: &MergedConfig,
    json: &str,
    existed: bool,
    dry_run: bool,
    has_commit: bool,
) -> String {
    let mut out = String::new();
    for d in &setup.detectors {
        let _ = writeln!(out, "detector {}: {}", d.name, d.command_line());
        let _ = writeln!(out, "  why: {}", d.reason);
        let _ = writeln!(
            out,
            "  ok_exit_codes {:?}: {}",
            d.ok_exit_codes, d.exit_codes_meaning
        );
    }
    for (i, t) in setup.tests.iter().enumerate() {
        let chosen = if i == 0 { "" } else { " (not written)" };
        let _ = writeln!(out, "test command{chosen}: {}", t.command_line());
        let _ = writeln!(out, "  why: {}", t.reason);
    }
    for note in &setup.notes {
        let _ = writeln!(out, "note: {note}");
    }
    if !has_commit {
        let _ = writeln!(
            out,
            "note: not a git work tree with a commit: `fix` and `apply-fixes` need one (`git init`, `git commit`)"
        );
    }
    let kept = render_changes(&mut out, merged, dry_run);
    let file = ".self-repair/config.json";
    if !merged.changed() {
        let _ = writeln!(
            out,
            "nothing written: {file} already has every entry above; `self-repair init --force` replaces them with the proposals"
        );
        return out;
    }
    let how = if existed {
        "merged into the existing file, every other key kept"
    } else {
        "a new file"
    };
    if dry_run {
        let _ = writeln!(out, "--dry-run: nothing written; {file} would be ({how}):");
    } else {
        let _ = writeln!(out, "wrote {file} ({how}):");
    }
    out.push_str(json);
    if !kept.is_empty() {
        let _ = writeln!(
            out,
            "`self-repair init --force` replaces what was kept ({}) with the proposals",
            kept.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "next: `self-repair detect` runs the detectors; `self-repair start --detect` triages what they find; `self-repair fix` then re-runs the same detectors and the test command to check each fix (findings made some other way, with another rule selection, give tasks the detectors do not report: `fix` marks those not reproduced)"
    );
    out
}

/// A note for each program the proposals run that is not on `PATH` (the detectors' and the
/// test command's first word; a subfolder's `sh -c "cd ... && CMD"` is read as CMD), with the
/// command that installs it when it is one we know.
fn missing_programs(setup: &ProjectSetup, path_var: Option<&std::ffi::OsStr>) -> Vec<String> {
    let mut programs: Vec<String> = setup
        .detectors
        .iter()
        .filter_map(|d| d.argv.first().cloned())
        .collect();
    if let Some(test) = setup.test() {
        let program = match test.command.as_slice() {
            [sh, c, line] if sh == "sh" && c == "-c" => line
                .split("&& ")
                .nth(1)
                .and_then(|cmd| cmd.split_whitespace().next())
                .map(str::to_owned),
            command => command.first().cloned(),
        };
        programs.extend(program);
    }
    let mut seen = Vec::new();
    programs
        .into_iter()
        .filter(|p| {
            let new = !seen.contains(p);
            seen.push(p.clone());
            new
        })
        .filter(|p| find_program(path_var, p).is_none())
        .map(|p| match install_hint(&p) {
            Some(hint) => format!(
                "`{p}` is not on PATH: install it ({hint}) before `self-repair detect`"
            ),
            None => format!(
                "`{p}` is not on PATH: install it, or put its folder on PATH, before `self-repair detect`"
            ),
        })
        .collect()
}
