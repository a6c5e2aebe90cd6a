//! A temp project for one scenario: its own `HOME` and `CLAUDE_CONFIG_DIR`, a `bin/` with
//! `self-repair` first on PATH (the agents' Bash calls run it), findings, and self-repair
//! loaded as a plugin (`--plugin-dir`) or installed with `self-repair install --project`.

use std::cell::Cell;
use std::ffi::OsString;
use std::fs::{self, File};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

use crate::e2e::claude_run::{ClaudeOptions, ClaudeRun, own_group};
use crate::e2e::e2e_error::E2eError;
use crate::e2e::run_files::RunFiles;
use crate::e2e::terminal_session::TerminalSession;
use crate::e2e::tools::Tools;

/// How the project gets self-repair's hooks and agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstallMode {
    /// `claude --plugin-dir <repo>`.
    Plugin,
    /// `self-repair install --project` (hooks in `.claude/settings.json`, agents copied).
    Project,
}

impl InstallMode {
    /// `plugin` or `install --project`.
    pub fn label(self) -> &'static str {
        match self {
            InstallMode::Plugin => "plugin",
            InstallMode::Project => "install --project",
        }
    }
}

/// One scenario's folder: `project/`, `home/`, `config/`, `bin/`, logs.
#[derive(Debug)]
pub struct E2eProject {
    tools: Tools,
    root: PathBuf,
    mode: InstallMode,
    runs: Cell<usize>,
}

/// The API key every session gets (the mock accepts any).
const API_KEY: &str = "e2e-not-a-key";

/// The programs of the Python venv a fix-loop scenario puts on its PATH.
const PYTHON_TOOLS: [&str; 3] = ["ruff", "pytest", "vulture"];

/// Copies the folder `from` to `to`, recursively.
pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<(), E2eError> {
    fs::create_dir_all(to).map_err(E2eError::io(to))?;
    for entry in fs::read_dir(from).map_err(E2eError::io(from))? {
        let entry = entry.map_err(E2eError::io(from))?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        if source.is_dir() {
            copy_tree(&source, &target)?;
        } else {
            fs::copy(&source, &target).map_err(E2eError::io(&source))?;
        }
    }
    Ok(())
}

/// `count` distinct findings as JSONL (one item each after `start`), each line ended.
pub(crate) fn jsonl_findings(count: usize) -> String {
    let mut text = self_repair_test_support::jsonl_findings(count);
    if count > 0 {
        text.push('\n');
    }
    text
}

impl E2eProject {
    /// Creates `<work>/<name>/` with `count` findings in `project/findings.jsonl`.
    pub fn new(
        tools: &Tools,
        name: &str,
        mode: InstallMode,
        count: usize,
    ) -> Result<E2eProject, E2eError> {
        let root = tools.work.join(name);
        if root.exists() {
            fs::remove_dir_all(&root).map_err(E2eError::io(&root))?;
        }
        for dir in ["project", "home", "config", "bin"] {
            let path = root.join(dir);
            fs::create_dir_all(&path).map_err(E2eError::io(&path))?;
        }
        let link = root.join("bin/self-repair");
        symlink(&tools.self_repair, &link).map_err(E2eError::io(&link))?;
        let project = E2eProject {
            tools: tools.clone(),
            root,
            mode,
            runs: Cell::new(0),
        };
        project.write("findings.jsonl", &jsonl_findings(count))?;
        project.trust()?;
        if mode == InstallMode::Project {
            project.self_repair_ok(&["install", "--project"])?;
        }
        Ok(project)
    }

    /// Marks the project as trusted in the client's config, as a user who accepted the trust
    /// dialog: only then does the client apply the project's `.claude/settings.json` allow
    /// rules. Nothing else is granted: no `--allowedTools`, the default permission mode. The
    /// interactive client's other first-run dialogs are answered the way that user answered
    /// them: onboarding (with the theme) done, and the API key of the environment approved
    /// (`customApiKeyResponses` holds its last 20 characters).
    fn trust(&self) -> Result<(), E2eError> {
        let key_tail: String = {
            let chars: Vec<char> = API_KEY.chars().collect();
            chars[chars.len().saturating_sub(20)..].iter().collect()
        };
        let config = json!({
            "hasCompletedOnboarding": true,
            "customApiKeyResponses": {"approved": [key_tail], "rejected": []},
            "projects": {
                self.path().to_string_lossy(): {"hasTrustDialogAccepted": true}
            }
        });
        let path = self.root.join("config/.claude.json");
        fs::write(&path, format!("{config:#}\n")).map_err(E2eError::io(&path))
    }

    /// The project folder (the sessions' working directory).
    pub fn path(&self) -> PathBuf {
        self.root.join("project")
    }

    /// The scenario folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The tools the scenario runs.
    pub(crate) fn tools(&self) -> &Tools {
        &self.tools
    }

    /// How self-repair is loaded.
    pub fn mode(&self) -> InstallMode {
        self.mode
    }

    /// Writes a file under the project.
    pub fn write(&self, relative: &str, text: &str) -> Result<(), E2eError> {
        let path = self.path().join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(E2eError::io(parent))?;
        }
        fs::write(&path, text).map_err(E2eError::io(&path))
    }

    /// The files of run `id`.
    pub fn run(&self, id: &str) -> RunFiles {
        RunFiles::new(self.path().join(".self-repair/runs").join(id))
    }

    /// The scenario's PATH: its `bin/`, the client's folder, then the runner's own PATH.
    pub(crate) fn path_var(&self) -> String {
        let mut dirs = vec![self.root.join("bin")];
        if let Some(dir) = self.tools.claude.parent() {
            dirs.push(dir.to_owned());
        }
        let mut path = std::env::join_paths(dirs)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Ok(inherited) = std::env::var("PATH") {
            path.push(':');
            path.push_str(&inherited);
        }
        path
    }

    /// The isolated environment every process of the scenario gets.
    pub(crate) fn isolated(&self, command: &mut Command) {
        command
            .env_clear()
            .current_dir(self.path())
            .env("PATH", self.path_var())
            .env("HOME", self.root.join("home"))
            .env("CLAUDE_CONFIG_DIR", self.root.join("config"))
            .env("LANG", "C.UTF-8")
            .env("TMPDIR", std::env::temp_dir())
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("NO_COLOR", "1");
    }

    /// Runs `self-repair ARGS` in the project (outside any Claude Code session).
    pub fn self_repair(&self, args: &[&str]) -> Result<Output, E2eError> {
        let mut command = Command::new(&self.tools.self_repair);
        self.isolated(&mut command);
        command
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|source| E2eError::Spawn {
                program: self.tools.self_repair.display().to_string(),
                source,
            })
    }

    /// Runs `self-repair ARGS` and fails unless it exits 0; returns stdout.
    pub fn self_repair_ok(&self, args: &[&str]) -> Result<String, E2eError> {
        let out = self.self_repair(args)?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(E2eError::Command {
                command: format!("self-repair {}", args.join(" ")),
                code: out.status.code(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            })
        }
    }

    /// Puts `ruff`, `pytest` and `vulture` of the venv `scripts/install-py-tools.sh` makes first
    /// on the scenario's PATH (in `bin/`, beside `self-repair`), so the detectors, the tests and
    /// the fix loop's re-runs use the pinned tools, never the machine's. Fails when the venv was
    /// not given or lacks one of them: the scenario cannot run without them.
    pub fn link_python_tools(&self) -> Result<(), E2eError> {
        let Some(dir) = &self.tools.python_bin else {
            return Err(E2eError::MissingTool(
                "the fix-loop scenarios need Ruff, pytest and vulture: no --py-tools folder was given"
                    .to_owned(),
            ));
        };
        for name in PYTHON_TOOLS {
            let tool = dir.join(name);
            if !tool.is_file() {
                return Err(E2eError::MissingTool(format!(
                    "{} is not there",
                    tool.display()
                )));
            }
            let link = self.root.join("bin").join(name);
            symlink(&tool, &link).map_err(E2eError::io(&link))?;
        }
        Ok(())
    }

    /// Runs a program of the scenario's PATH (`bin/` first) in the project, isolated like the
    /// sessions, without failing on its exit code.
    pub fn program(&self, program: &str, args: &[&str]) -> Result<Output, E2eError> {
        let path = self.root.join("bin").join(program);
        let mut command = Command::new(if path.exists() {
            path
        } else {
            PathBuf::from(program)
        });
        self.isolated(&mut command);
        command
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|source| E2eError::Spawn {
                program: program.to_owned(),
                source,
            })
    }

    /// `git ARGS` in the project as its user (a name and e-mail of its own, no system config);
    /// fails unless it exits 0, returns stdout.
    pub fn git(&self, args: &[&str]) -> Result<String, E2eError> {
        let mut command = Command::new("git");
        self.isolated(&mut command);
        let out = command
            .args(["-c", "user.name=e2e", "-c", "user.email=e2e@localhost"])
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .output()
            .map_err(|source| E2eError::Spawn {
                program: "git".to_owned(),
                source,
            })?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(E2eError::Command {
                command: format!("git {}", args.join(" ")),
                code: out.status.code(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            })
        }
    }

    /// Copies the folder `from` (recursively) to `relative` under the project.
    pub fn copy_in(&self, from: &Path, relative: &str) -> Result<(), E2eError> {
        copy_tree(from, &self.path().join(relative))
    }

    /// `backlog ARGS` (the real CLI) in the project; fails unless it exits 0, returns stdout.
    pub fn backlog(&self, args: &[&str]) -> Result<String, E2eError> {
        let mut command = Command::new(&self.tools.backlog);
        self.isolated(&mut command);
        let out = command
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|source| E2eError::Spawn {
                program: self.tools.backlog.display().to_string(),
                source,
            })?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(E2eError::Command {
                command: format!("backlog {}", args.join(" ")),
                code: out.status.code(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            })
        }
    }

    /// The tasks the real backlog CLI lists (`backlog task list --json`).
    pub fn backlog_tasks(&self) -> Result<Vec<Value>, E2eError> {
        let mut command = Command::new(&self.tools.backlog);
        self.isolated(&mut command);
        let out = command
            .args(["task", "list", "--json"])
            .stdin(Stdio::null())
            .output()
            .map_err(|source| E2eError::Spawn {
                program: self.tools.backlog.display().to_string(),
                source,
            })?;
        let text = String::from_utf8_lossy(&out.stdout);
        let parsed: Value = serde_json::from_str(text.trim()).map_err(|e| E2eError::Command {
            command: "backlog task list --json".to_owned(),
            code: out.status.code(),
            stderr: format!(
                "{e}; stdout {text:?}; stderr {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        })?;
        Ok(parsed
            .get("tasks")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default())
    }

    /// Starts `claude -p PROMPT --output-format json` against `base_url`.
    pub fn claude(
        &self,
        base_url: &str,
        prompt: &str,
        options: &ClaudeOptions,
    ) -> Result<ClaudeRun, E2eError> {
        let n = self.runs.get() + 1;
        self.runs.set(n);
        let stdout = self.root.join(format!("claude-{n}.json"));
        let stderr = self.root.join(format!("claude-{n}.err"));
        let debug = self.root.join(format!("claude-{n}.debug.log"));
        let out_file = File::create(&stdout).map_err(E2eError::io(&stdout))?;
        let err_file = File::create(&stderr).map_err(E2eError::io(&stderr))?;
        let mut command = Command::new(&self.tools.claude);
        self.isolated(&mut command);
        command
            .env("ANTHROPIC_BASE_URL", base_url)
            .env("ANTHROPIC_API_KEY", API_KEY)
            .envs(options.env.iter().map(|(k, v)| (k, v)))
            .arg("-p")
            .arg(prompt)
            .args(["--output-format", "json"])
            .arg("--debug-file")
            .arg(&debug);
        if self.mode == InstallMode::Plugin {
            command.arg("--plugin-dir").arg(&self.tools.plugin_dir);
        }
        if let Some(session) = &options.resume {
            command.args(["--resume", session]);
        }
        own_group(&mut command)
            .stdin(Stdio::null())
            .stdout(out_file)
            .stderr(err_file);
        let started = Instant::now();
        let child = command.spawn().map_err(|source| E2eError::Spawn {
            program: self.tools.claude.display().to_string(),
            source,
        })?;
        Ok(ClaudeRun {
            child,
            started,
            stdout,
            stderr,
            debug,
        })
    }

    /// Starts the real client's interactive UI (`claude ARGS`, no `-p`) in a tmux session in
    /// the project, against `base_url`, with `--debug-file claude-N.debug.log` and, for a
    /// plugin project, `--plugin-dir`; its screens go to `screens-N/`.
    pub fn claude_terminal(
        &self,
        base_url: &str,
        args: &[&str],
    ) -> Result<(TerminalSession, PathBuf), E2eError> {
        let n = self.runs.get() + 1;
        self.runs.set(n);
        let debug = self.root.join(format!("claude-{n}.debug.log"));
        let screens = self.root.join(format!("screens-{n}"));
        fs::create_dir_all(&screens).map_err(E2eError::io(&screens))?;
        let mut command = TerminalSession::command();
        self.isolated(&mut command);
        command
            .env_remove("NO_COLOR")
            .env("TERM", "xterm-256color")
            .env("ANTHROPIC_BASE_URL", base_url)
            .env("ANTHROPIC_API_KEY", API_KEY);
        let mut claude_args: Vec<OsString> = args.iter().map(OsString::from).collect();
        claude_args.push("--debug-file".into());
        claude_args.push(debug.clone().into());
        if self.mode == InstallMode::Plugin {
            claude_args.push("--plugin-dir".into());
            claude_args.push(self.tools.plugin_dir.clone().into());
        }
        let session = TerminalSession::start(
            command,
            &self.tools.claude,
            &claude_args,
            &self.path(),
            &screens,
        )?;
        Ok((session, debug))
    }

    /// The path of the `n`-th scenario record file.
    pub fn records_path(&self, n: usize) -> PathBuf {
        self.root.join(format!("requests-{n}.jsonl"))
    }
}
