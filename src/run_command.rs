//! Maps each command onto the library and its result onto stdout, stderr and an exit status.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

use self_repair_app::{
    AppError, CommandEnv, ExitStatus, HookAnswer, Installation, StartOptions, demo, doctor,
    finalize, finalize_partial, finding_lines, hook_post_tool_use, hook_pre_tool_use,
    hook_session_start, hook_stop, hook_stop_failure, known_accept, known_add, known_list,
    known_remove, load_folded, load_project_config, next, record_shown, render_findings,
    render_known, render_rules, render_runs, replace_run_in_progress, rules_list, rules_set,
    run_detectors, run_input_paths, runs, save_detections, session_notices, show, show_findings,
    start, status, steer, submit_repaired,
};
use self_repair_classify::RuleStatus;
use self_repair_engine::Event;
use self_repair_ingest::{Format, IngestOptions, parse};
use self_repair_install::{InstallSpec, Scope, plan_install, plan_uninstall};
use self_repair_store::Project;

use crate::args::{CheckArgs, Cli, Command, HookEvent, InstallArgs, KnownAction, RulesAction};

/// Largest hook input read; the client sends a few kilobytes.
const MAX_HOOK_INPUT: u64 = 64 * 1024 * 1024;

/// Runs the command; prints its output; returns the exit status.
pub fn run_command(cli: Cli, env: &CommandEnv) -> ExitStatus {
    if let Command::Hook { event } = &cli.command {
        return run_hook(event, env);
    }
    match reply(cli.command, env) {
        Ok(Reply { text, status }) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            if !text.is_empty() && !text.ends_with('\n') {
                let _ = stdout.write_all(b"\n");
            }
            status
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr().lock(), "self-repair: {e}");
            e.exit_status()
        }
    }
}

/// Runs a hook entry point: reads stdin, prints at most one JSON object, always exit 0.
pub fn run_hook(event: &HookEvent, env: &CommandEnv) -> ExitStatus {
    let mut stdin = Vec::new();
    let _ = std::io::stdin()
        .take(MAX_HOOK_INPUT)
        .read_to_end(&mut stdin);
    let answer: HookAnswer = match event {
        HookEvent::Stop => hook_stop(env, &stdin),
        HookEvent::StopFailure => hook_stop_failure(env, &stdin),
        HookEvent::SessionStart => {
            let mut answer = hook_session_start(env, &stdin);
            for notice in session_notices(&installation(), &stdin) {
                answer.announce(&notice);
            }
            answer
        }
        HookEvent::PreToolUse => {
            let own_exe = std::env::current_exe().ok();
            hook_pre_tool_use(env, &stdin, own_exe.as_deref())
        }
        HookEvent::PostToolUse => hook_post_tool_use(env, &stdin),
    };
    let mut stderr = std::io::stderr().lock();
    for line in &answer.stderr {
        let _ = writeln!(stderr, "{line}");
    }
    if let Some(json) = answer.stdout {
        let _ = writeln!(std::io::stdout().lock(), "{json}");
    }
    // A hook always exits 0: a non-zero exit would be shown as an error or block by the client.
    ExitStatus::Success
}

/// This binary's version and what the client tells its hooks about the plugin and itself.
fn installation() -> Installation {
    let variable = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    Installation {
        binary_version: env!("CARGO_PKG_VERSION").to_owned(),
        plugin_root: variable("CLAUDE_PLUGIN_ROOT").map(Into::into),
        agent_variable: variable("AI_AGENT").and_then(|value| value.into_string().ok()),
    }
}

/// What a command prints on standard output, and its exit status.
struct Reply {
    text: String,
    status: ExitStatus,
}

/// Runs a command. `check` and `tick` print their attempts table either way and say by their
/// exit status whether the run gave up; every other command succeeds when it returns.
fn reply(command: Command, env: &CommandEnv) -> Result<Reply, AppError> {
    let repair = match command {
        Command::Check(args) => check(env, args)?,
        Command::Drive(args) => {
            let (text, status) = crate::drive_args::run_drive(env, args)?;
            return Ok(Reply { text, status });
        }
        Command::VerifyTask(args) => {
            let (text, status) = crate::fix_args::run_verify_task(env, args)?;
            return Ok(Reply { text, status });
        }
        Command::ApplyFixes(args) => {
            let (text, status) = crate::fix_args::run_apply_fixes(env, &args)?;
            return Ok(Reply { text, status });
        }
        Command::Fix(args) => {
            let (text, status) = crate::fix_args::run_fix(env, args)?;
            return Ok(Reply { text, status });
        }
        Command::Tick { run } => {
            let project = env.find_project()?;
            let mut reply =
                self_repair_repair::tick(&project, &repair_env(env), run.run.as_deref())?;
            // A task of `self-repair fix` whose run just ended: record it, start the next.
            if let Some(line) = self_repair_app::continue_fix_after_tick(
                &project,
                &repair_env(env),
                run.run.as_deref(),
            ) {
                reply.text = format!(
                    "{}
{line}
",
                    reply.text.trim_end()
                );
            }
            reply
        }
        other => {
            return execute(other, env).map(|text| Reply {
                text,
                status: ExitStatus::Success,
            });
        }
    };
    Ok(Reply {
        text: repair.text,
        status: if repair.gave_up {
            ExitStatus::GaveUp
        } else {
            ExitStatus::Success
        },
    })
}

fn execute(command: Command, env: &CommandEnv) -> Result<String, AppError> {
    match command {
        Command::Start {
            files,
            format,
            run_id,
            config,
            base,
            relative_to,
            detect,
            replace,
            budget,
            dry_run,
            json,
        } => {
            let format: Format = format
                .parse()
                .map_err(|e| AppError::Usage(format!("--format: {e}")))?;
            let needs_stdin = files.is_empty() || files.iter().any(|f| f.as_os_str() == "-");
            let stdin = if needs_stdin && !std::io::stdin().is_terminal() {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| AppError::Usage(format!("cannot read standard input: {e}")))?;
                Some(text)
            } else {
                None
            };
            let report = start(
                env,
                &StartOptions {
                    files,
                    stdin,
                    format: Some(format),
                    run_id,
                    config,
                    base,
                    relative_to,
                    prepared: Vec::new(),
                    detect,
                    replace,
                    budget_usd: budget,
                    dry_run,
                },
            )?;
            Ok(if json {
                to_json(&report)
            } else {
                report.render()
            })
        }
        Command::Status {
            run,
            findings: true,
            json,
        } => {
            let project = env.find_project()?;
            let dir = project.run_or_active(run.run.as_deref())?;
            triage_only(&dir, "`status --findings`")?;
            let state = load_folded(&dir, true)?;
            let lines = finding_lines(&dir, &state)?;
            Ok(if json {
                to_json(&lines)
            } else {
                render_findings(&lines)
            })
        }
        Command::Status { run, json, .. } => {
            let project = env.find_project()?;
            let dir = project.run_or_active(run.run.as_deref())?;
            if self_repair_repair::is_repair_run(&dir) {
                let report = self_repair_repair::repair_status(&dir)?;
                return Ok(if json {
                    to_json(&report)
                } else {
                    report.render()
                });
            }
            let report = status(&project, &dir, env.now)?;
            Ok(if json {
                to_json(&report)
            } else {
                report.render()
            })
        }
        Command::Next { run } => {
            let project = env.find_project()?;
            let dir = project.run_or_active(run.run.as_deref())?;
            triage_only(&dir, "`next`")?;
            next(&dir, env.now)
        }
        Command::Show { item, run, view } | Command::Item { item, run, view } => {
            let json = view.json;
            let project = env.find_project()?;
            let dir = project.run_or_active(run.run.as_deref())?;
            if view.findings {
                triage_only(&dir, "`show --findings`")?;
                let state = load_folded(&dir, false)?;
                let page = show_findings(&dir, &state, &item, view.page)?;
                return Ok(if json { to_json(&page) } else { page.render() });
            }
            if self_repair_repair::is_repair_run(&dir) {
                let shown = self_repair_repair::show_fix(&project, &dir, &item)?;
                return Ok(if json { to_json(&shown) } else { shown.prompt });
            }
            let state = load_folded(&dir, false)?;
            let shown = show(&project, &dir, &state, &item)?;
            record_shown(&dir, &state, &item, env.now)?;
            Ok(if json { to_json(&shown) } else { shown.prompt })
        }
        Command::Submit { item, file, run } => {
            let project = env.find_project()?;
            let dir = project.run_or_active(run.run.as_deref())?;
            triage_only(&dir, "`submit`")?;
            let content = read_result(file.as_deref())?;
            submit_repaired(&dir, &item, &content, env.now)
        }
        Command::Pause { run } => steer_run(env, run.run.as_deref(), Event::Pause),
        Command::Resume {
            run,
            budget: None,
            confirm,
        } => steer_run(
            env,
            run.run.as_deref(),
            if confirm {
                Event::Confirm
            } else {
                Event::Resume
            },
        ),
        Command::Resume {
            run,
            budget: Some(usd),
            confirm,
        } => {
            if !(usd.is_finite() && usd > 0.0) {
                return Err(AppError::Usage(format!(
                    "--budget {usd}: give the dollars the whole run may spend, above 0"
                )));
            }
            let capped = steer_run(env, run.run.as_deref(), Event::Budget { usd })?;
            if !confirm {
                return Ok(capped);
            }
            steer_run(env, run.run.as_deref(), Event::Confirm)
        }
        Command::Cancel { run } => steer_run(env, run.run.as_deref(), Event::Cancel),
        Command::Adopt { session, run } => {
            let session = session.or_else(|| env.session.clone()).ok_or_else(|| {
                AppError::Usage(
                    "adopt needs the session: run it inside Claude Code (which sets CLAUDE_CODE_SESSION_ID) or pass --session ID"
                        .to_owned(),
                )
            })?;
            steer_run(env, run.run.as_deref(), Event::Adopt { session })
        }
        Command::Errors { run, json } => self_repair_app::drive_errors(env, run.as_deref(), json),
        Command::Timeline { run, json } => self_repair_app::timeline(env, run.as_deref(), json),
        Command::Runs { json, cost: true } => {
            let lines = self_repair_app::runs_cost(&env.find_project()?)?;
            Ok(if json {
                to_json(&lines)
            } else {
                self_repair_app::render_runs_cost(&lines)
            })
        }
        Command::Runs { json, cost: false } => {
            let lines = runs(&env.find_project()?)?;
            Ok(if json {
                to_json(&lines)
            } else {
                render_runs(&lines)
            })
        }
        Command::Doctor { run } => {
            let project = env.find_project()?;
            let (lines, healthy) = doctor(&project, run.run.as_deref())?;
            let text = lines.join("\n");
            if healthy {
                Ok(text)
            } else {
                Err(AppError::Conflict(text))
            }
        }
        Command::Finalize { run, partial } => {
            let project = env.find_project()?;
            let dir = project.run_or_active(run.run.as_deref())?;
            triage_only(&dir, "`finalize`")?;
            if partial {
                finalize_partial(&project, &dir, env.now)
            } else {
                finalize(&project, &dir, env.now)
            }
        }
        Command::Refs { symbol, max } => {
            let project = env.find_project().ok();
            let root = project
                .as_ref()
                .map_or_else(|| env.start_dir().to_path_buf(), |p| p.root().to_path_buf());
            // The active run's own inputs are never references (an analyzer report names the
            // symbols it flags).
            let active = project.as_ref().and_then(|p| p.run_or_active(None).ok());
            let mut options = self_repair_context::RefOptions {
                max_results: max,
                ..self_repair_context::RefOptions::default()
            };
            options.skip_paths.extend(run_input_paths(active.as_ref()));
            let report = self_repair_context::references(&root, &symbol, &options)
                .map_err(|e| AppError::Usage(e.to_string()))?;
            Ok(format!("{}{}", report.render(), report.summary()))
        }
        Command::Detect { only } => detect(env, only.as_deref()),
        Command::Rules { action } => {
            let project = env.find_project()?;
            match action {
                RulesAction::List { json } => {
                    let rules = rules_list(&project)?;
                    Ok(if json {
                        to_json(&rules)
                    } else {
                        render_rules(&rules)
                    })
                }
                RulesAction::Accept { id } => rules_set(&project, &id, RuleStatus::Accepted),
                RulesAction::Reject { id } => rules_set(&project, &id, RuleStatus::Rejected),
            }
        }
        Command::Known { action } => {
            let project = env.find_project()?;
            match action {
                KnownAction::List { json } => {
                    let lines = known_list(&project)?;
                    Ok(if json {
                        to_json(&lines)
                    } else {
                        render_known(&lines)
                    })
                }
                KnownAction::Add {
                    target,
                    verdict,
                    reason,
                    run,
                } => known_add(&project, run.run.as_deref(), &target, &verdict, &reason),
                KnownAction::Accept { target, run } => {
                    known_accept(&project, run.run.as_deref(), &target)
                }
                KnownAction::Remove { target, run } | KnownAction::Reject { target, run } => {
                    known_remove(&project, run.run.as_deref(), &target)
                }
            }
        }
        Command::Demo { dir } => {
            let dir = dir.unwrap_or_else(|| default_demo_dir(env.now));
            let mut stdout = std::io::stdout().lock();
            demo(env, &dir, &mut stdout)?;
            Ok(String::new())
        }
        Command::Install(args) => install(env, &args),
        Command::Uninstall(args) => uninstall(env, &args),
        Command::Hook { .. }
        | Command::Check(_)
        | Command::Tick { .. }
        | Command::Drive(_)
        | Command::VerifyTask(_)
        | Command::ApplyFixes(_)
        | Command::Fix(_) => {
            unreachable!("answered by run_hook and reply before execute")
        }
    }
}

fn repair_env(env: &CommandEnv) -> self_repair_repair::RepairEnv {
    self_repair_repair::RepairEnv {
        now: env.now,
        session: env.session.clone(),
        home: env.home.clone(),
    }
}

/// `check`: with `--autofix`, the words after `--` are `FIX... -- CHECK...`.
fn check(env: &CommandEnv, args: CheckArgs) -> Result<self_repair_repair::RepairReply, AppError> {
    let (autofix, command) = if args.autofix {
        let Some(split) = args.command.iter().position(|w| w == "--") else {
            return Err(AppError::Usage(
                "--autofix takes the fixer and the check, each after `--`: `self-repair check --autofix -- cargo fmt -- cargo test`"
                    .to_owned(),
            ));
        };
        (
            Some(args.command[..split].to_vec()),
            args.command[split + 1..].to_vec(),
        )
    } else {
        (None, args.command)
    };
    let request = self_repair_repair::CheckRequest {
        name: args.name,
        run_id: args.run_id,
        command,
        autofix,
        max_attempts: args.max_attempts,
        timeout_secs: args.timeout,
        circuit_breaker: args.circuit_breaker,
        tiers: args.tiers,
        backoff_secs: args.backoff,
        hook_budget_secs: args.hook_budget,
    };
    let project = match &env.project {
        Some(root) => Project::at(root.clone()),
        None => Project::find_or_choose(env.start_dir()),
    };
    let replaced = replace_run_in_progress(&project, args.replace, &check_again(), env.now)?;
    let mut reply = self_repair_repair::start_check(&project, &repair_env(env), &request)?;
    if let Some(line) = replaced {
        reply.text = format!("{line}\n{}", reply.text);
    }
    Ok(reply)
}

/// This `check` command line with `--replace` added before its `--`.
fn check_again() -> String {
    let mut words: Vec<String> = std::env::args().skip(1).collect();
    if !words.iter().any(|w| w == "--replace") {
        let at = words.iter().position(|w| w == "--").unwrap_or(words.len());
        words.insert(at, "--replace".to_owned());
    }
    format!("self-repair {}", words.join(" "))
}

/// The submission text: from `--file`, else standard input.
fn read_result(file: Option<&std::path::Path>) -> Result<String, AppError> {
    if let Some(path) = file {
        return std::fs::read_to_string(path)
            .map_err(|e| AppError::Usage(format!("cannot read {}: {e}", path.display())));
    }
    if std::io::stdin().is_terminal() {
        return Err(AppError::Usage(
            "give the result with --file FILE or on standard input".to_owned(),
        ));
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| AppError::Usage(format!("cannot read standard input: {e}")))?;
    Ok(text)
}

fn detect(env: &CommandEnv, only: Option<&str>) -> Result<String, AppError> {
    let project = Project::find_or_choose(env.start_dir());
    let config = load_project_config(&project.store_dir(), None)?;
    let detections = run_detectors(project.root(), &config.detectors, only)?;
    save_detections(&project.store_dir().join("detect"), &detections)?;
    let mut out = String::new();
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
    Ok(out)
}

fn steer_run(env: &CommandEnv, run: Option<&str>, event: Event) -> Result<String, AppError> {
    let project = env.find_project()?;
    let dir = project.run_or_active(run)?;
    if self_repair_repair::is_repair_run(&dir) && event == Event::Cancel {
        return self_repair_repair::cancel_repair(&project, dir, env.now).map_err(AppError::from);
    }
    triage_only(&dir, "this command")?;
    steer(&dir, event, env.now)
}

/// Refuses a repair run for commands of the triage pipeline, saying what works instead.
fn triage_only(dir: &self_repair_store::RunDir, what: &str) -> Result<(), AppError> {
    if self_repair_repair::is_repair_run(dir) {
        return Err(AppError::Usage(format!(
            "run {} is a repair run (`self-repair check`): {what} is for triage runs; use `self-repair status`, `tick` or `cancel`",
            dir.id()
        )));
    }
    Ok(())
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn default_demo_dir(now: u64) -> PathBuf {
    let base = std::env::temp_dir();
    (0..1000)
        .map(|n| {
            if n == 0 {
                base.join(format!("self-repair-demo-{now}"))
            } else {
                base.join(format!("self-repair-demo-{now}-{n}"))
            }
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| base.join("self-repair-demo"))
}

fn scope_root(env: &CommandEnv, args: &InstallArgs) -> Result<(Scope, PathBuf), AppError> {
    if args.user {
        let home = env
            .home
            .clone()
            .ok_or_else(|| AppError::Usage("--user needs HOME to be set".to_owned()))?;
        return Ok((Scope::User, home));
    }
    let root = Project::find_or_choose(env.start_dir())
        .root()
        .to_path_buf();
    Ok((Scope::Project, root))
}

fn install(env: &CommandEnv, args: &InstallArgs) -> Result<String, AppError> {
    let (scope, root) = scope_root(env, args)?;
    let binary = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| AppError::Usage(format!("cannot find the running binary: {e}")))?;
    let spec = InstallSpec {
        binary_on_path: self_repair_install::binary_resolves_from_path(
            &binary,
            std::env::var_os("PATH").as_deref(),
        ),
        binary,
        scope,
    };
    let plan = plan_install(&root, &spec, self_repair_install::embedded_bundle())?;
    if args.dry_run {
        return Ok(format!("{}{}", plan.render_diff(), plan.summary()));
    }
    plan.apply()?;
    Ok(plan.summary())
}

fn uninstall(env: &CommandEnv, args: &InstallArgs) -> Result<String, AppError> {
    let (scope, root) = scope_root(env, args)?;
    let plan = plan_uninstall(&root, scope)?;
    if args.dry_run {
        return Ok(format!("{}{}", plan.render_diff(), plan.summary()));
    }
    plan.apply()?;
    Ok(plan.summary())
}
