//! Runs one job of a workflow file in a scenario's project, the way GitHub's runner runs it:
//! each `run:` step in order as `bash --noprofile --norc -eo pipefail` in the checkout, with the
//! env the workflow, the job and the step set, its `${{ ... }}` expressions substituted from the
//! scenario's documented values, and the `if:` conditions `success()` (the default),
//! `always()`, `failure()` and an input the scenario gives (`${{ inputs.dismiss }}`). What a
//! hosted runner has and the test cannot reach is served locally, and only that
//! (reference/e2e.md, "The CI recipes"):
//!
//! - the runner's environment: a fresh `HOME`, `CI=true`, `GITHUB_ACTIONS=true`,
//!   `GITHUB_WORKSPACE`, `RUNNER_TEMP`, and `ANTHROPIC_BASE_URL` pointing at the scripted
//!   Messages API on 127.0.0.1 (with the client's update check and telemetry off);
//!   `PATH` is `ci-bin`, the package shims, then `/usr/local/bin:/usr/bin:/bin`;
//! - `pip install` and `npm install -g` are shims that put the copy under test of each package
//!   the recipes install (`self-repair`, `ruff`, `vulture`, `pytest`,
//!   `@anthropic-ai/claude-code`) into `ci-bin`, and fail on any other package; `cargo
//!   install --git URL self-repair` (the build from source a runner does today) puts the
//!   `self-repair` under test there, and fails on anything else;
//! - `uses:` steps: `actions/checkout` is the scenario's clone (already checked out),
//!   `actions/setup-python` and `actions/setup-node` add nothing (the shims serve the packages,
//!   the client is a native binary), `github/codeql-action/upload-sarif` validates `sarif_file`
//!   with the SARIF Multitool (0 errors), `actions/upload-artifact` copies `path` (which must
//!   hold something, and be outside a dot-folder unless `include-hidden-files: true`, as
//!   upload-artifact v4.4 on skips hidden files) to `ARTIFACTS/<name>/`, and `actions/download-artifact` copies the
//!   artifact `name`, or each artifact matching `pattern` into its own `<name>/` folder, back
//!   under `path`, as GitHub's do: `ARTIFACTS` is a folder the scenario shares between the
//!   clones that stand for a workflow run's machines; any other action fails the step.

use std::fs::{self, File};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::e2e::claude_run::own_group;
use self_repair_test_support::{kill_group, wait_at_most};

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::E2eProject;
use crate::e2e::workflow::{Workflow, WorkflowStep, job_condition_holds, substitute};

/// How one step went.
#[derive(Debug, Clone)]
pub struct StepRun {
    pub name: String,
    /// Exit code (`None`: skipped by its `if:`, or killed at the deadline: see `skipped`).
    pub code: Option<i32>,
    pub skipped: bool,
    /// What it printed (stdout then stderr), or why a `uses:` step failed.
    pub output: String,
    pub wall: Duration,
}

impl StepRun {
    /// A step of a job whose `if:` does not hold.
    fn skipped(step: &WorkflowStep) -> StepRun {
        StepRun {
            name: step.name.clone(),
            code: None,
            skipped: true,
            output: String::new(),
            wall: Duration::ZERO,
        }
    }

    /// A `uses:` step that ran here: exit 0 with what it did, or 1 with why not.
    fn of_action(
        step: &WorkflowStep,
        outcome: Result<String, String>,
        started: Instant,
    ) -> StepRun {
        let (code, output) = match outcome {
            Ok(text) => (0, text),
            Err(text) => (1, text),
        };
        StepRun {
            name: step.name.clone(),
            code: Some(code),
            skipped: false,
            output,
            wall: started.elapsed(),
        }
    }

    /// Ran and exited 0.
    pub fn passed(&self) -> bool {
        !self.skipped && self.code == Some(0)
    }

    /// One line for failure messages.
    pub fn describe(&self) -> String {
        let tail: String = {
            let chars: Vec<char> = self.output.chars().collect();
            chars[chars.len().saturating_sub(1500)..].iter().collect()
        };
        format!(
            "step {:?}: exit {:?}{} after {:.1} s; output ends: {tail}",
            self.name,
            self.code,
            if self.skipped { " (skipped)" } else { "" },
            self.wall.as_secs_f64()
        )
    }
}

/// A job runner for one scenario project.
#[derive(Debug)]
pub struct WorkflowJobRun<'a> {
    pub project: &'a E2eProject,
    /// The scripted Messages API.
    pub base_url: String,
    /// The `${{ ... }}` expressions the recipes may use and their values.
    pub context: Vec<(String, String)>,
    /// Where `upload-artifact` puts an artifact and `download-artifact` finds it: shared by
    /// the jobs of one workflow run.
    pub artifacts: PathBuf,
    /// How long one step may run.
    pub step_timeout: Duration,
    /// The local release server's URL: the value of the recipes' `SELF_REPAIR_RELEASES` (where
    /// a hosted runner downloads the pinned release from GitHub).
    pub releases: String,
    /// Where `actions/cache` keeps what it saves, one folder per key: shared by the runs a
    /// scenario means as one repository's successive workflow runs.
    pub cache: PathBuf,
}

/// A shim script for `pip` or `npm`: `packages` maps a package name to the file linked into
/// `ci-bin` under `program`, and, when it gives one, the only version that may be asked for
/// (`name@VERSION`: the recipes pin it; an unpinned or other version fails).
fn shim(
    tool: &str,
    verb: &str,
    packages: &[(&str, &str, PathBuf, Option<&str>)],
    ci_bin: &Path,
) -> String {
    let mut cases = String::new();
    for (package, program, source, pinned) in packages {
        let source = std::path::absolute(source).unwrap_or_else(|_| source.clone());
        let check = pinned.map_or(String::new(), |version| {
            format!(
                "[[ \"$arg\" == '{package}@{version}' ]] || {{ echo \"{tool} (recipe test): $arg is not {package}@{version}, the tested version: pin it\" >&2; exit 1; }}; "
            )
        });
        cases.push_str(&format!(
            "    {package}) {check}ln -sf '{}' '{}/{program}' ;;\n",
            source.display(),
            ci_bin.display()
        ));
    }
    format!(
        "#!/bin/bash\n# The CI recipes' `{tool}` (e2e/mock-api/src/e2e/workflow_job.rs): serves the copies under test, never the network.\nset -e\n[[ \"$1\" == {verb} ]] || {{ echo \"{tool} (recipe test): only '{tool} {verb}' is served\" >&2; exit 2; }}\nshift\nfor arg in \"$@\"; do\n  [[ \"$arg\" == -* ]] && continue\n  name=\"${{arg%%[=<>~!]*}}\"\n  [[ \"$name\" == @*@* ]] && name=\"${{name%@*}}\"\n  case \"$name\" in\n{cases}    *) echo \"{tool} (recipe test): no local copy of $name\" >&2; exit 1 ;;\n  esac\n  echo \"{tool} (recipe test): $name installed\"\ndone\n"
    )
}

/// The shim for `cargo install [--locked] [--root DIR] --git URL --rev SHA|--tag TAG
/// self-repair`: links `self_repair` into `DIR/bin` (else `ci-bin`) and records its arguments
/// in `ci-cargo.log` beside `ci-bin`; a build of a moving HEAD (`--git` without `--rev` or
/// `--tag`), any other cargo command or crate fails.
fn cargo_shim(self_repair: &Path, ci_bin: &Path) -> String {
    let source = std::path::absolute(self_repair).unwrap_or_else(|_| self_repair.to_path_buf());
    format!(
        "#!/bin/bash\n# The CI recipes' `cargo` (e2e/mock-api/src/e2e/workflow_job.rs): serves the copy under test, never the network.\nset -e\necho \"cargo $*\" >> '{bin}/../ci-cargo.log'\n[[ \"$1\" == install ]] || {{ echo \"cargo (recipe test): only 'cargo install' is served\" >&2; exit 2; }}\nshift\ncrates=()\nroot='{bin}/..'\nbin='{bin}'\ngit=''\npinned=''\nwhile [[ $# -gt 0 ]]; do\n  case \"$1\" in\n    --git) git=\"$2\"; shift 2 ;;\n    --rev|--tag) pinned=\"$2\"; shift 2 ;;\n    --root) bin=\"$2/bin\"; shift 2 ;;\n    -*) shift ;;\n    *) crates+=(\"$1\"); shift ;;\n  esac\ndone\n[[ \"${{crates[*]}}\" == self-repair ]] || {{ echo \"cargo (recipe test): no local copy of ${{crates[*]}}\" >&2; exit 1; }}\n[[ -z \"$git\" || -n \"$pinned\" ]] || {{ echo \"cargo (recipe test): --git $git without --rev or --tag builds a moving HEAD: pin it\" >&2; exit 1; }}\nmkdir -p \"$bin\"\nln -sf '{source}' \"$bin/self-repair\"\necho \"cargo (recipe test): self-repair installed\"\n",
        source = source.display(),
        bin = ci_bin.display()
    )
}

impl WorkflowJobRun<'_> {
    fn root(&self) -> &Path {
        self.project.root()
    }

    fn ci_bin(&self) -> PathBuf {
        self.root().join("ci-bin")
    }

    /// The file a step appends folders to, each put in front of `PATH` for the steps after
    /// it (GitHub's `$GITHUB_PATH`).
    fn github_path(&self) -> PathBuf {
        self.root().join("ci-github-path")
    }

    /// `PATH` as `$GITHUB_PATH` left it: its folders, the last added first, then `base`.
    fn path_with_added(&self, base: &str) -> String {
        let added = fs::read_to_string(self.github_path()).unwrap_or_default();
        let mut dirs: Vec<&str> = added.lines().filter(|l| !l.trim().is_empty()).collect();
        dirs.reverse();
        dirs.push(base);
        dirs.join(":")
    }

    /// The shims and the empty `ci-bin` and `HOME` of a fresh runner.
    fn prepare(&self) -> Result<(), E2eError> {
        let tools = self.project.tools();
        let shims = self.root().join("ci-shims");
        for dir in [
            self.ci_bin(),
            shims.clone(),
            self.root().join("ci-home"),
            self.root().join("ci-temp"),
            self.cache.clone(),
        ] {
            fs::create_dir_all(&dir).map_err(E2eError::io(&dir))?;
        }
        let python = tools.python_bin.clone().unwrap_or_default();
        let pip = [
            (
                "self-repair",
                "self-repair",
                tools.self_repair.clone(),
                None,
            ),
            ("ruff", "ruff", python.join("ruff"), None),
            ("vulture", "vulture", python.join("vulture"), None),
            ("pytest", "pytest", python.join("pytest"), None),
        ];
        let newest = newest_client(&tools.repo)?;
        let npm = [(
            "@anthropic-ai/claude-code",
            "claude",
            tools.claude.clone(),
            Some(newest.as_str()),
        )];
        let ci_bin = self.ci_bin();
        for (name, text) in [
            ("pip", shim("pip", "install", &pip, &ci_bin)),
            ("pip3", shim("pip", "install", &pip, &ci_bin)),
            ("npm", shim("npm", "install", &npm, &ci_bin)),
            ("cargo", cargo_shim(&tools.self_repair, &ci_bin)),
        ] {
            let path = shims.join(name);
            fs::write(&path, text).map_err(E2eError::io(&path))?;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
                .map_err(E2eError::io(&path))?;
        }
        Ok(())
    }

    /// The environment of every step, before the workflow's own.
    fn runner_env(&self) -> Vec<(String, String)> {
        let root = self.root();
        vec![
            (
                "PATH".to_owned(),
                format!(
                    "{}:{}:/usr/local/bin:/usr/bin:/bin",
                    self.ci_bin().display(),
                    root.join("ci-shims").display()
                ),
            ),
            (
                "HOME".to_owned(),
                root.join("ci-home").display().to_string(),
            ),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
            ("CI".to_owned(), "true".to_owned()),
            ("GITHUB_ACTIONS".to_owned(), "true".to_owned()),
            (
                "GITHUB_WORKSPACE".to_owned(),
                self.project.path().display().to_string(),
            ),
            (
                "RUNNER_TEMP".to_owned(),
                root.join("ci-temp").display().to_string(),
            ),
            (
                "TMPDIR".to_owned(),
                root.join("ci-temp").display().to_string(),
            ),
            ("GIT_CONFIG_NOSYSTEM".to_owned(), "1".to_owned()),
            (
                "GITHUB_PATH".to_owned(),
                self.github_path().display().to_string(),
            ),
            ("ANTHROPIC_BASE_URL".to_owned(), self.base_url.clone()),
            ("DISABLE_AUTOUPDATER".to_owned(), "1".to_owned()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".to_owned(),
                "1".to_owned(),
            ),
        ]
    }

    /// `pairs` with their values' expressions substituted from `context`.
    fn substituted(
        pairs: &[(String, String)],
        context: &[(String, String)],
    ) -> Result<Vec<(String, String)>, String> {
        pairs
            .iter()
            .map(|(k, v)| Ok((k.clone(), substitute(v, context)?)))
            .collect()
    }

    /// Runs job `job_id` of `workflow`; every step's outcome, in order (every step skipped when
    /// the job's own `if:` does not hold). An error of the file itself (no such job, an
    /// expression without a value, an `if:` it cannot read) is a failed step, so the scenario
    /// reports it.
    pub fn run(&self, workflow: &Workflow, job_id: &str) -> Result<Vec<StepRun>, E2eError> {
        self.prepare()?;
        let Some(job) = workflow.job(job_id) else {
            return Ok(vec![refused(
                "(job)",
                format!("no job {job_id:?} in the workflow"),
            )]);
        };
        let holds = job
            .condition
            .as_deref()
            .map_or(Ok(true), |c| job_condition_holds(c, &self.context));
        match holds {
            Ok(true) => {}
            Ok(false) => return Ok(job.steps.iter().map(StepRun::skipped).collect()),
            Err(e) => return Ok(vec![refused("(job if)", e)]),
        }
        let mut env = self.runner_env();
        for pairs in [&workflow.env, &job.env] {
            match Self::substituted(pairs, &self.context) {
                Ok(pairs) => env.extend(pairs),
                Err(e) => return Ok(vec![refused("(env)", e)]),
            }
        }
        // The recipes' release URL is the local server; `${{ env.NAME }}` reads the workflow's
        // and the job's env as the steps see it.
        for (name, value) in &mut env {
            if name == "SELF_REPAIR_RELEASES" {
                value.clone_from(&self.releases);
            }
        }
        let context: Vec<(String, String)> = self
            .context
            .iter()
            .cloned()
            .chain(
                env.iter()
                    .skip(self.runner_env().len())
                    .map(|(k, v)| (format!("env.{k}"), v.clone())),
            )
            .collect();
        let mut runs: Vec<StepRun> = Vec::new();
        let mut saves: Vec<(PathBuf, String)> = Vec::new();
        for (i, step) in job.steps.iter().enumerate() {
            let failed = runs.iter().any(|r| !r.skipped && !r.passed());
            let go = match condition_holds(step.condition.as_deref(), failed, &context) {
                Ok(go) => go,
                Err(why) => {
                    runs.push(refused(&step.name, why));
                    continue;
                }
            };
            if !go {
                runs.push(StepRun::skipped(step));
                continue;
            }
            let run = match (&step.run, &step.uses) {
                (Some(script), _) => self.run_step(i + 1, step, script, &env, &context)?,
                (None, Some(action)) if action.starts_with("actions/cache@") => {
                    self.cache_step(step, &context, &mut saves)
                }
                (None, Some(action)) => self.uses_step(step, action, &context),
                (None, None) => refused(&step.name, "neither run nor uses".to_owned()),
            };
            runs.push(run);
        }
        // actions/cache saves in its post step, when the job succeeded.
        if runs.iter().all(|r| r.skipped || r.passed()) {
            for (path, key) in saves {
                let target = self.cache.join(key_folder(&key));
                if path.exists() && !target.exists() {
                    fs::create_dir_all(&target).map_err(E2eError::io(&target))?;
                    copy(&path.join("."), &target).map_err(|message| E2eError::Unexpected {
                        path: target.clone(),
                        message,
                    })?;
                }
            }
        }
        Ok(runs)
    }

    /// `actions/cache`: `path` (`~` is `HOME`) restored from the folder of `key` when it was
    /// saved before (a hit), else noted to be saved when the job succeeds (a miss). `path` and
    /// `key` are required; a key must name the version it holds (the recipes' pins).
    fn cache_step(
        &self,
        step: &WorkflowStep,
        context: &[(String, String)],
        saves: &mut Vec<(PathBuf, String)>,
    ) -> StepRun {
        let started = Instant::now();
        let with = |key: &str| {
            step.with
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| substitute(v, context))
        };
        let outcome = match (with("path"), with("key")) {
            (Some(Ok(path)), Some(Ok(key))) => {
                let home = self.root().join("ci-home");
                let path = match path.strip_prefix("~/") {
                    Some(rest) => home.join(rest),
                    None => self.project.path().join(&path),
                };
                let kept = self.cache.join(key_folder(&key));
                if kept.is_dir() {
                    fs::create_dir_all(&path)
                        .map_err(|e| format!("{}: {e}", path.display()))
                        .and_then(|()| copy(&kept.join("."), &path))
                        .map(|()| format!("cache hit: {key} restored to {}", path.display()))
                } else {
                    saves.push((path, key.clone()));
                    Ok(format!("cache miss: {key} (saved when the job succeeds)"))
                }
            }
            (Some(Err(e)), _) | (_, Some(Err(e))) => Err(e),
            _ => Err("actions/cache without `path` and `key`".to_owned()),
        };
        StepRun::of_action(step, outcome, started)
    }

    fn run_step(
        &self,
        number: usize,
        step: &WorkflowStep,
        script: &str,
        env: &[(String, String)],
        context: &[(String, String)],
    ) -> Result<StepRun, E2eError> {
        let (script, step_env) = match (
            substitute(script, context),
            Self::substituted(&step.env, context),
        ) {
            (Ok(script), Ok(step_env)) => (script, step_env),
            (Err(e), _) | (_, Err(e)) => return Ok(refused(&step.name, e)),
        };
        let log = self.root().join(format!("ci-step-{number}.log"));
        let out = File::create(&log).map_err(E2eError::io(&log))?;
        let err = out.try_clone().map_err(E2eError::io(&log))?;
        let mut command = Command::new("/bin/bash");
        own_group(&mut command);
        command
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
            .current_dir(self.project.path())
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("PATH", self.path_with_added(&self.runner_env()[0].1))
            .envs(step_env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        let started = Instant::now();
        let mut child = command.spawn().map_err(|source| E2eError::Spawn {
            program: "bash".to_owned(),
            source,
        })?;
        let status = wait_at_most(&mut child, self.step_timeout).map_err(E2eError::io(&log))?;
        if status.is_none() {
            kill_group(child.id());
            let _ = child.wait();
        }
        Ok(StepRun {
            name: step.name.clone(),
            code: status.and_then(|s| s.code()),
            skipped: false,
            output: fs::read_to_string(&log).unwrap_or_default(),
            wall: started.elapsed(),
        })
    }

    /// The local equivalent of a `uses:` step.
    fn uses_step(
        &self,
        step: &WorkflowStep,
        action: &str,
        context: &[(String, String)],
    ) -> StepRun {
        let started = Instant::now();
        let name = action.split('@').next().unwrap_or(action);
        let with = |key: &str| {
            step.with
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| substitute(v, context))
        };
        let outcome: Result<String, String> = match name {
            "actions/checkout" | "actions/setup-python" | "actions/setup-node" => Ok(format!(
                "{name}: the scenario's clone and the shims stand for it"
            )),
            "github/codeql-action/upload-sarif" => match with("sarif_file") {
                Some(Ok(file)) => self.validate_sarif(&self.project.path().join(file)),
                Some(Err(e)) => Err(e),
                None => Err("upload-sarif without `sarif_file`".to_owned()),
            },
            "actions/upload-artifact" => match (with("path"), with("name")) {
                (Some(Ok(path)), None | Some(Ok(_))) => {
                    let name = with("name")
                        .and_then(Result::ok)
                        .unwrap_or_else(|| "artifact".to_owned());
                    let hidden_too = with("include-hidden-files")
                        .and_then(Result::ok)
                        .is_some_and(|v| v == "true");
                    if !hidden_too && in_hidden_folder(&path) {
                        Err(format!(
                            "upload-artifact: {path} is in a hidden folder, from which upload-artifact (v4.4 on) uploads nothing without `include-hidden-files: true`"
                        ))
                    } else {
                        self.upload(&path, &name)
                    }
                }
                (Some(Err(e)), _) | (_, Some(Err(e))) => Err(e),
                (None, _) => Err("upload-artifact without `path`".to_owned()),
            },
            "actions/download-artifact" => {
                let path = with("path").unwrap_or_else(|| Ok(".".to_owned()));
                match (path, with("name"), with("pattern")) {
                    (Ok(path), Some(Ok(name)), None) => self.download(&path, &name, false),
                    (Ok(path), None, Some(Ok(pattern))) => self.download(&path, &pattern, true),
                    (Err(e), _, _) | (_, Some(Err(e)), _) | (_, _, Some(Err(e))) => Err(e),
                    _ => Err("download-artifact: give `name` or `pattern` (the recipe test reads one of them)".to_owned()),
                }
            }
            other => Err(format!(
                "no local equivalent of `uses: {other}` in the recipe test"
            )),
        };
        StepRun::of_action(step, outcome, started)
    }

    /// `upload-artifact`: the file or the folder's contents under `ARTIFACTS/<name>/`.
    fn upload(&self, path: &str, name: &str) -> Result<String, String> {
        let full = self.project.path().join(path);
        let holds = fs::read_dir(&full).map_or(full.is_file(), |mut d| d.next().is_some());
        if !holds {
            return Err(format!("upload-artifact: {path} is missing or empty"));
        }
        let target = self.artifacts.join(name);
        if target.exists() {
            return Err(format!(
                "upload-artifact: an artifact named {name} exists already"
            ));
        }
        fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        let source = if full.is_dir() {
            full.join(".")
        } else {
            full.clone()
        };
        copy(&source, &target)?;
        Ok(format!("{path} uploaded as artifact {name}"))
    }

    /// `download-artifact`: the artifact `name` into `path`, or (`pattern`) each artifact
    /// whose name matches into `path/<name>/`; no artifact at all fails, as GitHub's does.
    fn download(&self, path: &str, wanted: &str, pattern: bool) -> Result<String, String> {
        let mut names: Vec<String> = fs::read_dir(&self.artifacts)
            .map_err(|e| format!("download-artifact: no artifact was uploaded: {e}"))?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| {
                if pattern {
                    wildcard_match(wanted, name)
                } else {
                    name == wanted
                }
            })
            .collect();
        names.sort();
        if names.is_empty() {
            return Err(format!("download-artifact: no artifact matches {wanted}"));
        }
        let root = self.project.path().join(path);
        for name in &names {
            let target = if pattern {
                root.join(name)
            } else {
                root.clone()
            };
            fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
            copy(&self.artifacts.join(name).join("."), &target)?;
        }
        Ok(format!("downloaded {} into {path}", names.join(", ")))
    }

    /// `Sarif.Multitool validate FILE`: 0 errors, as code scanning needs a valid log.
    fn validate_sarif(&self, file: &Path) -> Result<String, String> {
        let Some(multitool) = &self.project.tools().sarif_multitool else {
            return Err(
                "upload-sarif: no SARIF Multitool was given (--sarif-multitool)".to_owned(),
            );
        };
        if !file.is_file() {
            return Err(format!("upload-sarif: {} does not exist", file.display()));
        }
        let log = self.root().join("ci-temp/validation.sarif");
        let _ = fs::remove_file(&log);
        let out = Command::new(multitool)
            .arg("validate")
            .arg(file)
            .arg("--output")
            .arg(&log)
            .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
            .output()
            .map_err(|e| format!("upload-sarif: the Multitool did not start: {e}"))?;
        let text = fs::read_to_string(&log).map_err(|_| {
            format!(
                "upload-sarif: the Multitool wrote no log (exit {:?}): {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout)
            )
        })?;
        let log: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("upload-sarif: the Multitool's log: {e}"))?;
        let errors: Vec<String> = log["runs"][0]["results"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["level"] == "error")
            .map(|r| r["message"].to_string())
            .collect();
        if errors.is_empty() {
            Ok(format!(
                "{}: SARIF Multitool validate, 0 errors",
                file.display()
            ))
        } else {
            Err(format!(
                "upload-sarif: {} error(s): {}",
                errors.len(),
                errors.join("; ")
            ))
        }
    }
}

/// The cache folder of a key: its characters other than letters, digits, `.`, `-` and `_` as `_`.
fn key_folder(key: &str) -> String {
    key.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The latest Claude Code CLI the project tests (`CLAUDE_NEWEST_VERSION` in
/// scripts/install-tools.sh): the one version the recipes may pin.
pub(crate) fn newest_client(repo: &Path) -> Result<String, E2eError> {
    quoted_value(
        &repo.join("scripts/install-tools.sh"),
        "readonly CLAUDE_NEWEST_VERSION=\"",
    )
}

/// The rest of the first line of `path` that starts with `prefix` (which ends with `"`), up
/// to its closing `"`.
pub(crate) fn quoted_value(path: &Path, prefix: &str) -> Result<String, E2eError> {
    let text = fs::read_to_string(path).map_err(E2eError::io(path))?;
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_owned)
        .ok_or_else(|| E2eError::Unexpected {
            path: path.to_path_buf(),
            message: format!("no line `{prefix}...\"`"),
        })
}

/// `cp -a SOURCE TARGET`: a run folder's files as they are, modes and times kept.
fn copy(source: &Path, target: &Path) -> Result<(), String> {
    let status = Command::new("cp")
        .arg("-a")
        .arg(source)
        .arg(target)
        .status()
        .map_err(|e| format!("cp did not start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "cp -a {} {} failed ({status})",
            source.display(),
            target.display()
        ))
    }
}

/// Whether a relative `path` names a hidden file or folder or one inside such a folder
/// (a component starting with `.`, other than `.` and `..`).
fn in_hidden_folder(path: &str) -> bool {
    path.split('/')
        .any(|part| part.starts_with('.') && part != "." && part != "..")
}

/// Whether `name` matches `pattern`, whose `*` matches any run of characters (an artifact
/// name pattern; `?` and classes are not read).
fn wildcard_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == name;
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Whether a step with `if: condition` runs, `failed` telling whether a step before it
/// failed: the status functions `success()` (also no `if:`), `always()` and `failure()`, each
/// bare or inside `${{ }}`, or one expression of `context` (an input of `workflow_dispatch`:
/// `inputs.dismiss`), which runs the step when no step failed (GitHub adds `success()` to a
/// condition without a status function) and the value is truthy (`false`, `0`, `null` and the
/// empty string are not). Anything else is an error naming it.
fn condition_holds(
    condition: Option<&str>,
    failed: bool,
    context: &[(String, String)],
) -> Result<bool, String> {
    let Some(text) = condition.map(str::trim) else {
        return Ok(!failed);
    };
    let expression = text
        .strip_prefix("${{")
        .and_then(|rest| rest.strip_suffix("}}"))
        .map_or(text, str::trim);
    match expression {
        "success()" => Ok(!failed),
        "always()" => Ok(true),
        "failure()" => Ok(failed),
        name => match context.iter().find(|(key, _)| key == name) {
            Some((_, value)) => {
                Ok(!failed && !matches!(value.as_str(), "false" | "0" | "null" | ""))
            }
            None => Err(format!(
                "`if: {text}` is not one the recipe test reads (a status function, or an expression it has a value for)"
            )),
        },
    }
}

/// A step the test could not run as written: it fails, saying why.
fn refused(name: &str, why: String) -> StepRun {
    StepRun {
        name: name.to_owned(),
        code: Some(1),
        skipped: false,
        output: why,
        wall: Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::{condition_holds, in_hidden_folder, wildcard_match};

    #[test]
    fn a_step_runs_on_its_status_function_or_a_true_input_after_no_failure() {
        let context = [
            ("inputs.dismiss".to_owned(), "true".to_owned()),
            ("inputs.dry".to_owned(), "false".to_owned()),
        ];
        assert_eq!(condition_holds(None, false, &context), Ok(true));
        assert_eq!(condition_holds(None, true, &context), Ok(false));
        assert_eq!(
            condition_holds(Some("${{ always() }}"), true, &context),
            Ok(true)
        );
        assert_eq!(condition_holds(Some("failure()"), true, &context), Ok(true));
        assert_eq!(
            condition_holds(Some("${{ inputs.dismiss }}"), false, &context),
            Ok(true)
        );
        // success() is implied: a failed step before it skips it.
        assert_eq!(
            condition_holds(Some("${{ inputs.dismiss }}"), true, &context),
            Ok(false)
        );
        assert_eq!(
            condition_holds(Some("inputs.dry"), false, &context),
            Ok(false)
        );
        let unknown = condition_holds(Some("${{ inputs.other }}"), false, &context).unwrap_err();
        assert!(unknown.contains("inputs.other"), "{unknown}");
    }

    #[test]
    fn a_path_under_a_dot_folder_is_hidden_from_upload_artifact() {
        assert!(in_hidden_folder(".self-repair/runs/"));
        assert!(in_hidden_folder("out/.cache"));
        assert!(!in_hidden_folder("./triaged.sarif"));
        assert!(!in_hidden_folder("../shares/x"));
    }

    #[test]
    fn an_artifact_pattern_matches_names_as_download_artifact_does() {
        assert!(wildcard_match("self-repair-share-*", "self-repair-share-2"));
        assert!(wildcard_match("*-share-*", "self-repair-share-10"));
        assert!(wildcard_match("exact", "exact"));
        assert!(!wildcard_match("self-repair-share-*", "self-repair-triage"));
        assert!(!wildcard_match("a*a", "a"));
    }
}
