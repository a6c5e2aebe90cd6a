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
        38,
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

#[test]
fn init_json_says_what_it_proposed_and_wrote() {
    let project = TestProject::new();
    project.write(
        "pyproject.toml",
        "[project]\nname = \"shop\"\n\n[tool.ruff]\nline-length = 100\n",
    );
    let dry = project
        .terminal(&["init", "--dry-run", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(dry["schema_version"], 1);
    assert_eq!(
        (dry["written"].clone(), dry["dry_run"].clone()),
        (false.into(), true.into())
    );
    assert!(!project.path().join(".self-repair/config.json").exists());

    let wrote = project.terminal(&["init", "--json"]).run().success().json();
    assert_eq!(wrote["written"], true);
    assert_eq!(wrote["detectors"][0]["name"], "ruff");
    assert_eq!(wrote["changes"][0]["change"], "added");
    assert_eq!(wrote["config"]["detectors"][0]["name"], "ruff");
    let on_disk: serde_json::Value =
        serde_json::from_str(&project.read(".self-repair/config.json")).unwrap();
    assert_eq!(wrote["config"], on_disk);

    let again = project.terminal(&["init", "--json"]).run().success().json();
    assert_eq!(again["written"], false);
    assert_eq!(again["changes"][0]["change"], "kept");
}

#[test]
fn fix_json_describes_the_queue_it_made() {
    let (project, _) = crate::verify_task::fixed_run_project();
    let out = project
        .cmd(&["fix", "--all", "--tiers", "main", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(out["schema_version"], 1);
    assert_eq!(out["gave_up"], false);
    assert_eq!(out["queue"]["run"], "r-fix");
    let tasks = out["queue"]["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 2, "{out:#}");
    assert_eq!(tasks[0]["status"], "running");
    let queue: serde_json::Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-fix/fix.json")).unwrap();
    assert_eq!(out["queue"], queue);
    assert!(
        out["text"]
            .as_str()
            .unwrap()
            .contains("self-repair fix, run r-fix"),
        "{out:#}"
    );
}
