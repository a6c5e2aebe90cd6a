//! What a CLI of this size is expected to have: `--version` with the commit and its date,
//! completions for every shell clap knows, a man page, and a `--help` grouped by purpose.

use crate::harness::TestProject;

#[test]
fn version_is_the_semver_first_then_the_commit_and_its_date_when_built_in_a_clone() {
    let project = TestProject::new();
    let out = project.terminal(&["--version"]).run().success();
    let line = out.stdout.trim();
    let mut words = line.splitn(3, ' ');
    assert_eq!(words.next(), Some("self-repair"), "{line}");
    assert_eq!(words.next(), Some(env!("CARGO_PKG_VERSION")), "{line}");
    // From a clone: ` (abc1234 2026-11-29)`; from a tarball without .git: nothing more.
    if let Some(rest) = words.next() {
        let inner = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .unwrap_or_else(|| panic!("{line}"));
        let (commit, date) = inner.split_once(' ').unwrap_or_else(|| panic!("{line}"));
        assert!(
            commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit()),
            "{line}"
        );
        assert!(
            date.len() == 10 && date.chars().filter(|c| *c == '-').count() == 2,
            "{line}"
        );
    }
}

#[test]
fn completions_are_printed_for_every_shell_and_name_the_commands() {
    let project = TestProject::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = project.terminal(&["completions", shell]).run().success();
        for word in ["self-repair", "doctor", "verify-task", "runs-only"] {
            assert!(out.stdout.contains(word), "{shell}: {word}");
        }
    }
    project
        .terminal(&["completions", "tcsh"])
        .run()
        .code(self_repair_app::ExitStatus::Usage);
}

#[test]
fn the_man_page_is_roff_with_every_command() {
    let project = TestProject::new();
    let out = project.terminal(&["man"]).run().success();
    assert!(out.stdout.contains(".TH self-repair 1"), "{}", out.stdout);
    for command in ["start", "doctor", "completions", "pull\\-requests"] {
        assert!(out.stdout.contains(command), "{command}");
    }
}

#[test]
fn the_help_lists_the_commands_in_groups() {
    let project = TestProject::new();
    let help = project.terminal(&["--help"]).run().success().stdout;
    let headings: Vec<&str> = help
        .lines()
        .filter(|line| line.ends_with(':') && !line.starts_with(' '))
        .collect();
    assert_eq!(
        headings,
        [
            "Run a triage:",
            "Look at a run:",
            "Decide findings once:",
            "Fix:",
            "Repair a check:",
            "Export:",
            "Set up:",
            "Run by the hooks and the agents:",
            "Options:"
        ],
        "{help}"
    );
    assert_eq!(
        crate::command_outputs::subcommands(&help).len(),
        37,
        "{help}"
    );
}

#[test]
fn next_refs_and_detect_answer_in_json_with_a_schema_version() {
    let project = TestProject::new();
    project.write("findings.jsonl", &crate::harness::jsonl_findings(3));
    project.write(
        ".self-repair/config.json",
        r#"{"confirm_above_usd": null, "detectors": [{"name": "cat", "argv": ["cat", "findings.jsonl"], "format": "jsonl"}]}"#,
    );
    project.write(
        "src/lib.py",
        "def parse_config():\n    return parse_config\n",
    );
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-json"])
        .run()
        .success();

    let next = project.cmd(&["next", "--json"]).run().success().json();
    assert_eq!(next["schema_version"], 1);
    assert_eq!(next["run"], "r-json");
    assert_eq!(next["decision"], "block");
    assert!(next["agents"].as_u64().unwrap() >= 1, "{next:#}");
    let text = project.cmd(&["next"]).run().success().stdout;
    assert_eq!(next["text"].as_str().unwrap(), text.trim_end());

    let refs = project
        .cmd(&["refs", "parse_config", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(refs["schema_version"], 1);
    assert_eq!(refs["total_hits"], 2);
    assert_eq!(refs["hits"][0]["path"], "src/lib.py");
    assert_eq!(refs["hits"][1]["line"], 2);

    let detect = project.cmd(&["detect", "--json"]).run().success().json();
    assert_eq!(detect["schema_version"], 1);
    assert_eq!(detect["detectors"][0]["name"], "cat");
    assert_eq!(detect["detectors"][0]["findings"], 3);
    assert_eq!(detect["detectors"][0]["format"], "jsonl");
}
