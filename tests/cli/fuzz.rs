//! No panic, no hang, on any file content: a seeded, deterministic mutation fuzzer over a run's
//! files (`state.json`, `journal.jsonl`, `run.json`, `state.initial.json`, `items/*`,
//! `findings.json`). Each execution damages a copy of a real run and runs every command on it,
//! in-process (fast), and every few executions through the real binary too. `cargo test` runs
//! it for a few seconds; `just fuzz` runs it for as long as `SELF_REPAIR_FUZZ_SECS` says
//! (reference/fuzz.md).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use self_repair_app::CommandEnv;
use self_repair_app::commands::doctor::doctor;
use self_repair_app::commands::next::next;
use self_repair_app::commands::show::show;
use self_repair_app::commands::status::finding_lines;
use self_repair_app::commands::status::status;
use self_repair_app::commands::submit::submit;
use self_repair_app::hooks::stop::hook_stop;
use self_repair_app::run::handle::RunHandle;
use self_repair_app::run::load::load_folded;
use self_repair_store::Project;
use serde_json::Value;

use crate::harness::{NOW, TestProject, binary};
use crate::pipeline::{drive, started};
use crate::scripted_agent::ScriptedAgent;
use self_repair_test_support::Bounded;

/// How long one command may take before it counts as a hang (debug build, 2 busy cores).
const COMMAND_LIMIT: Duration = Duration::from_secs(10);
/// One execution in this many also runs the real binary.
const BINARY_EVERY: u64 = 16;

/// splitmix64: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Numbers that break code trusting them.
const NASTY_NUMBERS: [&str; 12] = [
    "0",
    "-1",
    "1",
    "36",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "99999999999999999999999",
    "-9223372036854775808",
    "1e308",
    "0.5",
    "1000000000000",
];

/// Damages `bytes` once; says how.
fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    match rng.below(8) {
        0 if !bytes.is_empty() => {
            let at = rng.below(bytes.len());
            let bit = rng.below(8);
            bytes[at] ^= 1 << bit;
            format!("flip bit {bit} at {at}")
        }
        1 => {
            let at = rng.below(bytes.len() + 1);
            bytes.truncate(at);
            format!("truncate at {at}")
        }
        2 | 3 => {
            // Replace one number (a run of digits) with a nasty one.
            let starts: Vec<usize> = (0..bytes.len())
                .filter(|&i| {
                    bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit())
                })
                .collect();
            if starts.is_empty() {
                return "no number to replace".to_owned();
            }
            let start = *rng.pick(&starts);
            let end = (start..bytes.len())
                .find(|&i| !bytes[i].is_ascii_digit())
                .unwrap_or(bytes.len());
            let number = *rng.pick(&NASTY_NUMBERS);
            bytes.splice(start..end, number.bytes());
            format!("number at {start} -> {number}")
        }
        4 if !bytes.is_empty() => {
            // Duplicate or delete a line.
            let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            let k = rng.below(lines.len());
            let mut out: Vec<&[u8]> = lines.clone();
            let how = if rng.below(2) == 0 {
                out.insert(k, lines[k]);
                "duplicate"
            } else {
                out.remove(k);
                "delete"
            };
            *bytes = out.join(&b'\n');
            format!("{how} line {k}")
        }
        5 if !bytes.is_empty() => {
            let at = rng.below(bytes.len());
            let junk = *rng.pick(&[&b"\xff\xfe"[..], b"\0", b"}", b"{\"", b",", b"\n", b"\"\""]);
            bytes.splice(at..at, junk.iter().copied());
            format!("insert {junk:?} at {at}")
        }
        _ => mutate_json(rng, bytes),
    }
}

/// A structural change to a JSON document (or to one line of a JSON-lines file).
fn mutate_json(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    if let Ok(mut value) = serde_json::from_slice::<Value>(bytes) {
        let how = mutate_value(rng, &mut value, 0);
        let pretty = rng.below(2) == 0;
        *bytes = if pretty {
            serde_json::to_vec_pretty(&value).unwrap_or_default()
        } else {
            serde_json::to_vec(&value).unwrap_or_default()
        };
        return how;
    }
    // JSON lines: mutate one line.
    let text = String::from_utf8_lossy(bytes).into_owned();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        return "empty".to_owned();
    }
    let k = rng.below(lines.len());
    let Ok(mut value) = serde_json::from_str::<Value>(&lines[k]) else {
        return "unparseable line".to_owned();
    };
    let how = mutate_value(rng, &mut value, 0);
    lines[k] = value.to_string();
    *bytes = (lines.join("\n") + "\n").into_bytes();
    format!("line {k}: {how}")
}

fn mutate_value(rng: &mut Rng, value: &mut Value, depth: usize) -> String {
    let descend = depth < 6 && rng.below(3) != 0;
    match value {
        Value::Object(map) if descend && !map.is_empty() => {
            let key = map
                .keys()
                .nth(rng.below(map.len()))
                .cloned()
                .unwrap_or_default();
            if rng.below(5) == 0 {
                map.remove(&key);
                return format!("remove key {key}");
            }
            let inner = map.get_mut(&key).map(|v| mutate_value(rng, v, depth + 1));
            format!("{key}.{}", inner.unwrap_or_default())
        }
        Value::Array(items) if descend && !items.is_empty() => {
            let k = rng.below(items.len());
            match rng.below(6) {
                0 => {
                    let copy = items[k].clone();
                    items.insert(k, copy);
                    format!("[{k}] duplicated")
                }
                1 => {
                    items.remove(k);
                    format!("[{k}] removed")
                }
                _ => format!("[{k}].{}", mutate_value(rng, &mut items[k], depth + 1)),
            }
        }
        _ => {
            let value: &mut Value = value;
            let replacement = match rng.below(10) {
                0 => Value::Null,
                1 => Value::Array(vec![]),
                2 => Value::Object(serde_json::Map::new()),
                3 => Value::String(String::new()),
                4 => Value::String("t-00001".repeat(1 + rng.below(3))),
                5 => match &*value {
                    Value::String(s) => Value::String(s.repeat(1 + rng.below(50))),
                    other => other.clone(),
                },
                6 => Value::Bool(true),
                7 => {
                    let number = *rng.pick::<&str>(&NASTY_NUMBERS);
                    serde_json::from_str::<Value>(number).unwrap_or(Value::Null)
                }
                8 => match &*value {
                    Value::String(s) if !s.is_empty() => {
                        let mut chars: Vec<char> = s.chars().collect();
                        let at = rng.below(chars.len());
                        chars[at] = *rng.pick(&['-', 'z', '9', 'Z', 'p', 'd', 'q', '\u{e9}']);
                        Value::String(chars.into_iter().collect())
                    }
                    other => other.clone(),
                },
                _ => serde_json::json!(rng.next() % 100_000),
            };
            let how = format!("{value} -> {replacement}");
            *value = replacement;
            how.chars().take(120).collect()
        }
    }
}

/// Copies a folder tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs that the fuzzer damages: one mid-triage with agents in flight, one in a later phase.
fn fixtures() -> Vec<TestProject> {
    let triage = started(12);
    let agent = ScriptedAgent {
        project: &triage,
        run: "r-test".to_owned(),
    };
    drive(&triage, &agent, "s1", 8);
    for id in ["t-00001", "t-00003", "t-00005"] {
        agent.work(id);
    }
    // What a submit killed between its journal line and its result file leaves: the marker
    // that says where the line went, and no result file (the recovery path of `submit`).
    let run = triage.run_dir("r-test");
    let journal = std::fs::read_to_string(run.join("journal.jsonl")).unwrap();
    let offset = journal
        .find("\"item\":\"t-00005\"")
        .and_then(|at| journal[..at].rfind('\n').map(|nl| nl + 1))
        .unwrap_or(0);
    std::fs::write(run.join("items/t-00005.pending"), format!("{offset}\n")).unwrap();
    let _ = std::fs::remove_file(run.join("items/t-00005.json"));
    let later = started(6);
    let agent = ScriptedAgent {
        project: &later,
        run: "r-test".to_owned(),
    };
    drive(&later, &agent, "s1", 11);
    vec![triage, later]
}

/// The files of a run worth damaging, relative to the project root.
fn targets(root: &Path, rng: &mut Rng) -> PathBuf {
    let run = Path::new(".self-repair/runs/r-test");
    let named = [
        "state.json",
        "state.json",
        "state.json",
        "state.json",
        "journal.jsonl",
        "journal.jsonl",
        "journal.jsonl",
        "run.json",
        "run.json",
        "state.initial.json",
        "findings.json",
    ];
    if rng.below(5) == 0 {
        let mut items: Vec<PathBuf> = std::fs::read_dir(root.join(run).join("items"))
            .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        items.sort();
        if !items.is_empty() {
            let path = rng.pick(&items).clone();
            return path.strip_prefix(root).unwrap().to_path_buf();
        }
    }
    run.join(rng.pick(&named))
}

fn env(root: &Path) -> CommandEnv {
    CommandEnv {
        cwd: root.to_path_buf(),
        now: NOW + 60,
        session: None,
        project_dir: None,
        home: Some(root.join(".home")),
        project: None,
        ..CommandEnv::default()
    }
}

fn hook_input(root: &Path, rng: &mut Rng) -> String {
    let mut input = serde_json::json!({"session_id": "s1", "hook_event_name": "Stop",
        "stop_hook_active": true, "cwd": root});
    match rng.below(3) {
        0 => {}
        1 => input["background_tasks"] = serde_json::json!([]),
        _ => {
            input["background_tasks"] = serde_json::json!([
                {"id": "a1", "type": "subagent", "status": "running",
                 "description": "triage t-00002", "agent_type": "self-repair:triage-investigator"}
            ]);
        }
    }
    input.to_string()
}

const VERDICT: &str = r#"{"confidence": 0.9, "verdict":"real","root_cause":"unused import","reason":"nothing in the module uses the import"}"#;

/// The hook's stdout: nothing, or exactly one JSON object on one line.
fn check_hook_stdout(stdout: &str) -> Result<(), String> {
    let text = stdout.trim_end_matches('\n');
    if text.is_empty() {
        return Ok(());
    }
    if text.contains('\n') {
        return Err(format!("hook printed several lines: {text}"));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(_)) => Ok(()),
        _ => Err(format!(
            "hook printed something else than one JSON object: {text}"
        )),
    }
}

/// Every command, in-process, on the damaged run. Returns what went wrong (panics and broken
/// hook output); errors the commands report are fine.
fn run_in_process(root: &Path, hook_stdin: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let env = env(root);
    let mut guard = |name: &str, f: &mut dyn FnMut() -> Result<(), String>| match catch_unwind(
        AssertUnwindSafe(&mut *f),
    ) {
        Ok(Ok(())) => {}
        Ok(Err(problem)) => problems.push(format!("{name}: {problem}")),
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            problems.push(format!("{name}: PANIC {message}"));
        }
    };
    let project = Project::at(root.to_path_buf());
    let run = || project.run_or_active(None);
    guard("hook stop", &mut || {
        let answer = hook_stop(&env, hook_stdin.as_bytes());
        check_hook_stdout(answer.stdout.as_deref().unwrap_or_default())
    });
    guard("status", &mut || {
        let Ok(dir) = run() else { return Ok(()) };
        let dir = match RunHandle::open(dir) {
            RunHandle::Triage(dir) => dir,
            RunHandle::Repair(dir) => {
                let _ = self_repair_repair::repair_status(&dir).map(|r| r.render());
                return Ok(());
            }
        };
        if let Ok(report) = status(&project, &dir, 0) {
            let _ = report.render();
            let _ = serde_json::to_string(&report);
        }
        Ok(())
    });
    guard("status --findings", &mut || {
        let Ok(dir) = run() else { return Ok(()) };
        if let Ok(state) = load_folded(&dir, true) {
            let _ = finding_lines(&dir, &state);
        }
        Ok(())
    });
    guard("next", &mut || {
        let _ = run().map(|dir| next(&dir, NOW + 60));
        Ok(())
    });
    guard("show", &mut || {
        let Ok(dir) = run() else { return Ok(()) };
        if let Ok(state) = load_folded(&dir, false) {
            let ids: Vec<String> = state.items.iter().map(|i| i.id.to_string()).collect();
            for id in ids.iter().take(2).chain(ids.iter().rev().take(2)) {
                let _ = show(&project, &dir, &state, id);
            }
        }
        Ok(())
    });
    guard("submit", &mut || {
        for item in ["t-00002", "t-00005"] {
            let _ = run().map(|dir| submit(&dir, item, VERDICT, NOW + 60));
        }
        Ok(())
    });
    let mut healthy = false;
    guard("doctor", &mut || {
        healthy = matches!(doctor(&project, None), Ok((_, true)));
        Ok(())
    });
    guard("hook stop after doctor", &mut || {
        let answer = hook_stop(&env, hook_stdin.as_bytes());
        check_hook_stdout(answer.stdout.as_deref().unwrap_or_default())
    });
    // `doctor` saying ok means every command works on the run.
    guard("status after a healthy doctor", &mut || {
        let Ok(dir) = run() else { return Ok(()) };
        let RunHandle::Triage(dir) = RunHandle::open(dir) else {
            return Ok(());
        };
        if !healthy {
            return Ok(());
        }
        load_folded(&dir, true)
            .map(|_| ())
            .map_err(|e| format!("doctor said ok, then: {e}"))
    });
    problems
}

/// Runs the binary with a time limit; `None` when it had to be killed.
fn run_binary(root: &Path, args: &[&str], stdin: &str) -> Option<(i32, String)> {
    let mut command = Command::new(binary());
    command
        .args(args)
        .current_dir(root)
        .env("SELF_REPAIR_NOW", (NOW + 60).to_string())
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env("HOME", root.join(".home"));
    let done = Bounded::new(command)
        .stdin(stdin)
        .limit(COMMAND_LIMIT)
        .run();
    // A signal (an abort) has no code.
    (!done.timed_out).then(|| (done.code.unwrap_or(-1), done.stdout_text()))
}

/// The same commands through the real binary: no crash (101 is a Rust panic, -1 a signal), no
/// hang, and the hook exits 0 with nothing or one JSON object.
fn run_through_binary(root: &Path, hook_stdin: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let commands: [(&[&str], &str); 8] = [
        (&["hook", "stop"], hook_stdin),
        (&["status"], ""),
        (&["status", "--json"], ""),
        (&["next"], ""),
        (&["show", "t-00001"], ""),
        (&["submit", "t-00004"], VERDICT),
        (&["doctor", "--runs-only"], ""),
        (&["hook", "stop"], hook_stdin),
    ];
    for (args, stdin) in commands {
        let name = args.join(" ");
        match run_binary(root, args, stdin) {
            None => problems.push(format!("{name}: HANG (killed after {COMMAND_LIMIT:?})")),
            Some((code, _)) if code == 101 || code < 0 => {
                problems.push(format!("{name}: CRASH (exit {code})"));
            }
            Some((code, stdout)) if args[0] == "hook" => {
                if code != 0 {
                    problems.push(format!("{name}: exit {code}"));
                }
                if let Err(problem) = check_hook_stdout(&stdout) {
                    problems.push(format!("{name}: {problem}"));
                }
            }
            Some(_) => {}
        }
    }
    problems
}

/// What one run of the fuzzer found.
#[derive(Debug, Default)]
struct Findings {
    executions: u64,
    binary_executions: u64,
    panics: u64,
    hangs: u64,
    other: u64,
    reports: Vec<String>,
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// One execution: a fresh copy of a fixture, damaged, then every command.
fn execute(
    fixtures: &[TestProject],
    seed: u64,
    n: u64,
    scratch: &Path,
    findings: &mut Findings,
) -> bool {
    let mut rng = Rng(seed ^ n.wrapping_mul(0xA24B_AED4_963E_E407));
    let fixture = &fixtures[rng.below(fixtures.len())];
    let root = scratch.join(format!("x{n}"));
    std::fs::create_dir_all(root.join(".git")).unwrap();
    copy_tree(
        &fixture.path().join(".self-repair"),
        &root.join(".self-repair"),
    );
    let mut what = Vec::new();
    for _ in 0..=rng.below(3) {
        let target = targets(&root, &mut rng);
        let path = root.join(&target);
        let mut bytes = std::fs::read(&path).unwrap_or_default();
        let how = mutate_bytes(&mut rng, &mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        what.push(format!("{}: {how}", target.display()));
    }
    let hook_stdin = hook_input(&root, &mut rng);
    // The damaged run as it was before any command touched it (doctor repairs in place).
    let damaged = scratch.join(format!("d{n}"));
    copy_tree(&root, &damaged);
    let through_binary = n.is_multiple_of(BINARY_EVERY);
    let (sender, receiver) = mpsc::channel();
    let thread_root = root.clone();
    let thread_stdin = hook_stdin.clone();
    std::thread::spawn(move || {
        let _ = sender.send(run_in_process(&thread_root, &thread_stdin));
    });
    let mut problems = match receiver.recv_timeout(COMMAND_LIMIT * 3) {
        Ok(problems) => problems,
        Err(_) => vec!["in-process commands: HANG".to_owned()],
    };
    let hung = problems.iter().any(|p| p.contains("HANG"));
    if through_binary && !hung {
        findings.binary_executions += 1;
        // A fresh copy with the same damage: the in-process doctor may have repaired it.
        let again = scratch.join(format!("b{n}"));
        copy_tree(&damaged, &again);
        problems.extend(run_through_binary(
            &again,
            &hook_stdin.replace(&root.display().to_string(), &again.display().to_string()),
        ));
        let _ = std::fs::remove_dir_all(&again);
    }
    findings.executions += 1;
    for problem in &problems {
        if problem.contains("PANIC") || problem.contains("CRASH") {
            findings.panics += 1;
        } else if problem.contains("HANG") {
            findings.hangs += 1;
        } else {
            findings.other += 1;
        }
    }
    if !problems.is_empty() && findings.reports.len() < 20 {
        let kept = scratch.join(format!("failure-{n}"));
        let _ = std::fs::rename(&damaged, &kept);
        findings.reports.push(format!(
            "seed {seed} execution {n} ({}): {}\n  damage: {}\n  kept at {}",
            if through_binary {
                "in-process + binary"
            } else {
                "in-process"
            },
            problems.join("; "),
            what.join(" | "),
            kept.display()
        ));
    }
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&damaged);
    !hung
}

#[test]
fn no_file_content_makes_any_command_panic_or_hang() {
    // `cargo test` runs a fixed number of executions, so what it covers does not depend on the
    // machine's load; `just fuzz` sets a time instead (reference/fuzz.md).
    let seconds = std::env::var("SELF_REPAIR_FUZZ_SECS")
        .ok()
        .map(|_| env_number("SELF_REPAIR_FUZZ_SECS", 0));
    let default_iters = if seconds.is_some() { u64::MAX } else { 16 };
    let max = env_number("SELF_REPAIR_FUZZ_ITERS", default_iters);
    let seed = env_number("SELF_REPAIR_FUZZ_SEED", 0x5EED_2026);
    let fixtures = fixtures();
    // Kept (not deleted) when the fuzzer finds something, so a failure can be reproduced.
    let scratch = tempfile::Builder::new()
        .prefix("self-repair-fuzz-")
        .tempdir()
        .unwrap()
        .keep();
    let started = Instant::now();
    let deadline = seconds.map(|s| started + Duration::from_secs(s));
    let mut findings = Findings::default();
    let mut n = 0;
    while deadline.is_none_or(|d| Instant::now() < d) && n < max {
        if !execute(&fixtures, seed, n, &scratch, &mut findings) {
            break; // A hung thread holds the run; stop here and report.
        }
        n += 1;
    }
    let seconds = started.elapsed().as_secs();
    eprintln!(
        "fuzz: seed {seed}, {seconds} s: {} executions ({} also through the binary), {} panics, {} hangs, {} other problems",
        findings.executions,
        findings.binary_executions,
        findings.panics,
        findings.hangs,
        findings.other
    );
    let clean = findings.reports.is_empty();
    if clean {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(clean, "{}", findings.reports.join("\n"));
}
