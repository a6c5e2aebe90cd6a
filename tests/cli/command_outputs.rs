//! What the small commands print, snapshotted (issue 25: behaviour does not change while the
//! code moves, so every command's words are pinned): the `--help` of every command and
//! subcommand, and `runs`, `doctor`, `known list`, `rules list`, `next`, `detect` and `status`
//! on a project with one finished run.

use serde_json::Value;

use crate::harness::{TestProject, binary, filters, jsonl_findings};
use crate::scripted_agent::{ScriptedAgent, dispatch_reason, launched};
use self_repair_test_support::Bounded;

/// The subcommand names a help text lists: under `Commands:`, or under the groups of the
/// top-level help (`Run a triage:`, ...); clap's own `help` left out.
pub(crate) fn subcommands(help: &str) -> Vec<String> {
    let mut listing = false;
    let mut names = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') && !line.is_empty() {
            listing = line.ends_with(':') && !["Options:", "Arguments:"].contains(&line);
        } else if listing && line.starts_with("  ") && !line.starts_with("   ") {
            names.extend(line.split_whitespace().next().map(str::to_owned));
        }
    }
    names.retain(|name| name != "help");
    names
}

/// `self-repair WORDS --help`.
fn help(words: &[&str]) -> String {
    let mut command = std::process::Command::new(binary());
    command.args(words).arg("--help").env("NO_COLOR", "1");
    let out = Bounded::new(command).run();
    assert!(out.succeeded(), "{words:?} --help: {out:?}");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

#[test]
fn the_help_of_every_command_and_subcommand_is_unchanged() {
    let mut pages = vec![("self-repair --help".to_owned(), help(&[]))];
    let mut queue: Vec<Vec<String>> = subcommands(&pages[0].1)
        .into_iter()
        .map(|name| vec![name])
        .collect();
    while let Some(words) = queue.first().cloned() {
        queue.remove(0);
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let text = help(&refs);
        for sub in subcommands(&text) {
            let mut deeper = words.clone();
            deeper.push(sub);
            queue.push(deeper);
        }
        pages.push((format!("self-repair {} --help", words.join(" ")), text));
    }
    // Every command the top-level help lists has a page (a command missing from `src/cli.rs`'s
    // arms would fail its `--help` above).
    assert!(pages.len() > 40, "{} pages", pages.len());
    let mut all = String::new();
    for (title, text) in &pages {
        all.push_str(&format!("==== {title}\n{text}\n"));
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("help_of_every_command", all));
}

/// Drives the run `r-test` to its end with the scripted agents.
fn finish(project: &TestProject) {
    let agent = ScriptedAgent {
        project,
        run: "r-test".into(),
    };
    for _ in 0..200 {
        let out = project.stop("s1", &[]);
        let answer: Value = serde_json::from_str(&out.stdout).expect("hook stdout is JSON");
        let Some(reason) = dispatch_reason(&answer) else {
            return;
        };
        for id in launched(reason).1 {
            agent.work(&id).success();
        }
    }
    panic!("the run did not end in 200 stops");
}

#[test]
fn runs_doctor_known_rules_next_detect_and_status_after_a_finished_run() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(20));
    project.write(".self-repair/config.json", r#"{"confirm_above_usd": null}"#);
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let next_mid_run = project.cmd(&["next"]).run().success().stdout;
    insta::assert_snapshot!("command_next_at_start", next_mid_run);
    finish(&project);
    for (name, args) in [
        ("command_runs", &["runs"][..]),
        ("command_doctor", &["doctor", "--runs-only"][..]),
        ("command_known_list", &["known", "list"][..]),
        ("command_rules_list", &["rules", "list"][..]),
        ("command_next_finished", &["next"][..]),
        ("command_status_finished", &["status"][..]),
    ] {
        let out = project.cmd(args).run().success();
        insta::assert_snapshot!(name, format!("{}{}", out.stdout, out.stderr));
    }
    // No detectors configured: `detect` says what to add, and fails as cli.md says.
    let detect = project
        .cmd(&["detect"])
        .run()
        .code(self_repair_app::ExitStatus::Usage);
    insta::assert_snapshot!(
        "command_detect_without_detectors",
        format!("{}{}", detect.stdout, detect.stderr)
    );
}
