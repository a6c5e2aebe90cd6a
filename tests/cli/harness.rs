//! A small fluent harness: a temp project, the real binary, stdin, env, and the outcome.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use self_repair_test_support::Bounded;
pub(crate) use self_repair_test_support::{NOW, git, jsonl_findings};

/// How long one invocation may run before the test fails on it (a hang is a failure, not a
/// stuck suite); far above what any command of these tests takes.
const COMMAND_LIMIT: Duration = Duration::from_secs(300);

/// A temporary project folder.
pub(crate) struct TestProject {
    dir: tempfile::TempDir,
}

/// What a command did.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// How long it ran.
    pub elapsed: Duration,
    /// How many bytes of its stdin it took before it stopped reading.
    pub stdin_taken: u64,
}

impl Outcome {
    /// Asserts exit 0 and returns self.
    #[track_caller]
    pub(crate) fn success(self) -> Outcome {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }

    /// Asserts the exit status (named as reference/cli.md's table names it) and returns self.
    #[track_caller]
    pub(crate) fn code(self, status: self_repair_app::ExitStatus) -> Outcome {
        assert_eq!(
            self.code,
            i32::from(status.code()),
            "expected exit {status:?}\nstdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// Stdout parsed as JSON.
    #[track_caller]
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout))
    }
}

/// One invocation being built.
pub(crate) struct Cmd {
    command: Command,
    stdin: Option<Box<dyn Read + Send>>,
}

impl Cmd {
    /// Text on standard input.
    pub(crate) fn stdin(self, text: impl Into<Vec<u8>>) -> Cmd {
        self.stdin_from(std::io::Cursor::new(text.into()))
    }

    /// Standard input read from `source` as the command takes it (a stream of any size).
    pub(crate) fn stdin_from(mut self, source: impl Read + Send + 'static) -> Cmd {
        self.stdin = Some(Box::new(source));
        self
    }

    /// An environment variable.
    pub(crate) fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Cmd {
        self.command.env(key, value);
        self
    }

    /// The folder it runs in (the project's root by default).
    pub(crate) fn current_dir(mut self, dir: impl AsRef<Path>) -> Cmd {
        self.command.current_dir(dir);
        self
    }

    /// Runs to completion; fails the test when it runs past [`COMMAND_LIMIT`].
    #[track_caller]
    pub(crate) fn run(self) -> Outcome {
        let what = format!("{:?}", self.command.get_args().collect::<Vec<_>>());
        let mut bounded = Bounded::new(self.command).limit(COMMAND_LIMIT);
        if let Some(source) = self.stdin {
            bounded = bounded.stdin_from(source);
        }
        let done = bounded.run();
        assert!(
            !done.timed_out,
            "self-repair {what} ran past {COMMAND_LIMIT:?} and was killed\nstderr: {}",
            done.stderr_text()
        );
        Outcome {
            code: done.code.unwrap_or(-1),
            stdout: done.stdout_text(),
            stderr: done.stderr_text(),
            elapsed: done.elapsed,
            stdin_taken: done.stdin_taken,
        }
    }
}

/// The binary under test.
pub(crate) fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_self-repair"))
}

impl TestProject {
    /// An empty project (with a `.git` folder, so it is its own root).
    pub(crate) fn new() -> TestProject {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
        TestProject { dir }
    }

    /// Its root.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file (parents created).
    pub(crate) fn write(&self, rel: &str, text: &str) -> &TestProject {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
        self
    }

    /// Reads a file.
    pub(crate) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// `.self-repair/known.json` (one entry a line) as `{"entries": {fingerprint: entry}}`.
    pub(crate) fn known(&self) -> serde_json::Value {
        let mut entries = serde_json::Map::new();
        for line in self.read(".self-repair/known.json").lines().skip(1) {
            let mut entry: serde_json::Value = serde_json::from_str(line).unwrap();
            let fingerprint = entry["fingerprint"].as_str().unwrap().to_owned();
            entry.as_object_mut().unwrap().remove("fingerprint");
            entries.insert(fingerprint, entry);
        }
        serde_json::json!({ "entries": entries })
    }

    /// `self-repair ARGS` in the project, with the fixed clock, run inside the Claude Code
    /// session `s1` (as the skill runs `start`: the run is bound to `s1` from the start; a run
    /// started from a terminal is bound by no stop, only by `adopt`). [`TestProject::terminal`]
    /// runs it outside any session.
    pub(crate) fn cmd(&self, args: &[&str]) -> Cmd {
        let mut cmd = self.terminal(args);
        cmd.command.env("CLAUDE_CODE_SESSION_ID", "s1");
        cmd
    }

    /// `self-repair ARGS` in the project, with the fixed clock, from a terminal (no session).
    pub(crate) fn terminal(&self, args: &[&str]) -> Cmd {
        let mut command = Command::new(binary());
        command
            .args(args)
            .current_dir(self.path())
            .env("SELF_REPAIR_NOW", NOW.to_string())
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .env_remove("CLAUDE_PROJECT_DIR")
            // The run a `drive` session is pinned to.
            .env_remove("SELF_REPAIR_RUN")
            // Where the client reads user settings; `install --user` writes there when set.
            .env_remove("CLAUDE_CONFIG_DIR")
            // A session start says what it reads from these (plugin and client versions).
            .env_remove("CLAUDE_PLUGIN_ROOT")
            .env_remove("AI_AGENT")
            .env("HOME", self.path().join(".home"));
        // A coding agent's shell: `audit` refuses to record answers in one (tests that need
        // it set it back).
        for name in self_repair_audit::AGENT_VARIABLES {
            command.env_remove(name);
        }
        Cmd {
            command,
            stdin: None,
        }
    }

    /// The run folder.
    pub(crate) fn run_dir(&self, run: &str) -> PathBuf {
        self.path().join(".self-repair/runs").join(run)
    }

    /// A Stop hook call for `session` with these items running in the background.
    pub(crate) fn stop(&self, session: &str, running: &[&str]) -> Outcome {
        self.stop_at(session, running, NOW)
    }

    /// A Stop hook call at a given time.
    pub(crate) fn stop_at(&self, session: &str, running: &[&str], now: u64) -> Outcome {
        let tasks: Vec<Value> = running
            .iter()
            .map(|id| serde_json::json!({"id": format!("a-{id}"), "type": "subagent", "status": "running",
                                         "description": format!("triage {id}"), "agent_type": "self-repair:triage-investigator"}))
            .collect();
        let input = serde_json::json!({"session_id": session, "hook_event_name": "Stop",
            "stop_hook_active": true, "cwd": self.path(), "background_tasks": tasks});
        self.cmd(&["hook", "stop"])
            .env("SELF_REPAIR_NOW", now.to_string())
            .stdin(input.to_string())
            .run()
            .success()
    }
}

/// insta settings that hide the temp folder.
pub(crate) fn filters(project: &TestProject) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    let path = project.path().display().to_string();
    settings.add_filter(&regex_escape(&path), "[PROJECT]");
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// `text` as a regex matching itself (for insta filters).
pub(crate) fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if "\\.+*?()|[]{}^$".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}

/// Leaves the marker the Stop hook writes when it dispatches an item, for triage items 1..=n:
/// tests of `submit` itself (concurrency, crash safety) answer more items than one block
/// dispatches.
pub(crate) fn mark_dispatched(project: &TestProject, run: &str, n: usize) {
    let items = project.run_dir(run).join("items");
    std::fs::create_dir_all(&items).expect("items dir");
    for i in 1..=n {
        std::fs::write(items.join(format!("t-{i:05}.dispatched")), b"").expect("marker");
    }
}

/// The run's state, read through the engine's own type (triage items are columns on disk).
pub(crate) fn run_state(project: &TestProject, run: &str) -> self_repair_engine::RunState {
    let text =
        std::fs::read_to_string(project.run_dir(run).join("state.json")).expect("state.json");
    serde_json::from_str(&text).expect("state.json parses")
}
