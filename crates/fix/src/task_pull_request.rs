//! A fixed task as a draft pull request (reference/fix.md, "A draft pull request per task"): its
//! branch, its title and body (the task, the verification chain, the findings it closes), and
//! the `gh` calls that open it once and update it on every later run. Pure: the caller runs the
//! calls and hands back what `gh pr list` printed.

use serde::Deserialize;

use crate::FixError;

/// GitHub refuses a pull request body past 65,536 characters; the body stays under this.
pub const PULL_REQUEST_BODY_LIMIT: usize = 60_000;

/// The check report's last lines kept in the body (the verdict line is the last one).
const REPORT_LINES: usize = 40;

/// Findings listed in the body; the rest are counted.
const FINDING_ROWS: usize = 200;

/// One finding a fixed task closes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClosedFinding {
    pub fingerprint: String,
    pub tool: String,
    pub rule: String,
    pub path: String,
    pub line: Option<u32>,
    pub message: String,
}

/// What a fixed task's pull request says, from the fix queue's and its repair run's records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PullRequestEvidence {
    /// The triage run.
    pub run: String,
    pub task_id: String,
    pub title: String,
    /// The task file, relative to the project root.
    pub task_file: String,
    /// The task file's text (Backlog.md: front matter, description, plan, criteria, notes).
    pub task_text: String,
    /// The commit `fix --commit` made for the task.
    pub commit: String,
    /// The repair run whose check passed.
    pub repair_run: String,
    pub attempts: u32,
    /// Who made the change (`autofix`, `main`, `sonnet`, ...).
    pub tiers: Vec<String>,
    pub files_changed: Vec<String>,
    /// The autofix step's command, when one ran.
    pub autofix_command: Option<String>,
    /// The analyzers re-run by the check, as typed.
    pub analyzer_commands: Vec<String>,
    /// The test command the check ran; `None`: no test command, the tests were not run.
    pub test_command: Option<String>,
    /// The check (`self-repair verify-task ...`), as typed.
    pub check_command: String,
    /// The passing check's report (its last lines, as the repair run kept them).
    pub check_report: String,
    pub findings: Vec<ClosedFinding>,
}

/// A pull request that is already open for a branch, as `gh pr list --json number,url` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct OpenPullRequest {
    pub number: u64,
    pub url: String,
}

impl OpenPullRequest {
    /// The open pull request of `gh pr list --head BRANCH --json number,url`'s output, if any.
    pub fn from_pr_list(stdout: &str) -> Result<Option<OpenPullRequest>, FixError> {
        let listed: Vec<OpenPullRequest> = serde_json::from_str(stdout.trim()).map_err(|e| {
            FixError::Usage(format!(
                "`gh pr list` printed no list of pull requests ({e}): update the GitHub CLI (gh 2.x) and run again"
            ))
        })?;
        Ok(listed.into_iter().next())
    }
}

/// The draft pull request of one fixed task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskPullRequest {
    /// The branch that holds the task's change alone.
    pub branch: String,
    /// The branch it goes into.
    pub base: String,
    pub title: String,
    pub body: String,
}

impl TaskPullRequest {
    /// The pull request of the task `evidence` describes, into `base`.
    pub fn new(evidence: &PullRequestEvidence, base: &str) -> TaskPullRequest {
        TaskPullRequest {
            branch: pull_request_branch(&evidence.run, &evidence.task_id),
            base: base.to_owned(),
            title: evidence.title.clone(),
            body: render_pull_request_body(evidence, base),
        }
    }

    /// `gh pr list --head BRANCH --json number,url`: the open pull request of the branch, so a
    /// second run edits it instead of opening another.
    pub fn list_argv(&self) -> Vec<String> {
        words(&[
            "gh",
            "pr",
            "list",
            "--head",
            &self.branch,
            "--json",
            "number,url",
        ])
    }

    /// `gh pr create --draft ...` when no pull request is open for the branch, else
    /// `gh pr edit NUMBER ...` (title and body rewritten; its draft state is the reviewer's).
    pub fn write_argv(&self, existing: Option<&OpenPullRequest>) -> Vec<String> {
        match existing {
            None => words(&[
                "gh",
                "pr",
                "create",
                "--draft",
                "--head",
                &self.branch,
                "--base",
                &self.base,
                "--title",
                &self.title,
                "--body",
                &self.body,
            ]),
            Some(open) => words(&[
                "gh",
                "pr",
                "edit",
                &open.number.to_string(),
                "--title",
                &self.title,
                "--body",
                &self.body,
            ]),
        }
    }
}

fn words(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// `self-repair/<run>/<task>`: one branch per task of a run, the same on every run of the
/// command (that is how its pull request is found again). Characters a ref cannot hold become `-`.
pub fn pull_request_branch(run: &str, task_id: &str) -> String {
    let part = |text: &str| -> String {
        let cleaned: String = text
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        // A ref component may not start with `.` nor end with `.lock` or `.`.
        let trimmed = cleaned.trim_matches('.').replace("..", "-");
        let trimmed = trimmed.strip_suffix(".lock").unwrap_or(&trimmed).to_owned();
        if trimmed.is_empty() {
            "-".to_owned()
        } else {
            trimmed
        }
    };
    format!(
        "self-repair/{}/{}",
        part(run),
        part(&task_id.to_ascii_lowercase())
    )
}

/// The pull request's body: what was asked (the task), how it was verified (the autofix, the
/// analyzers' re-run, the tests and the check's report), and the findings it closes.
pub fn render_pull_request_body(evidence: &PullRequestEvidence, base: &str) -> String {
    let e = evidence;
    let mut out = format!(
        "<!-- self-repair pull-requests: {task} of run {run}; `self-repair pull-requests` rewrites this body -->\n\
         Fixes **{task}** of the self-repair triage run `{run}`, verified by self-repair's composite check \
         (the analyzer re-run, the tests, the guard against a weakened check). This branch is the task's \
         commit `{commit}` alone on `{base}`; the task file `{file}` stays out of the diff.\n",
        task = e.task_id,
        run = e.run,
        commit = e.commit,
        file = e.task_file,
    );
    out.push_str("\n## Task\n\n");
    let task = task_body(&e.task_text);
    if task.is_empty() {
        out.push_str("(the task file is empty)\n");
    } else {
        out.push_str(&task);
        out.push('\n');
    }
    out.push_str(&verification(e));
    out.push_str(&findings_table(&e.findings));
    if out.chars().count() > PULL_REQUEST_BODY_LIMIT {
        let cut: String = out.chars().take(PULL_REQUEST_BODY_LIMIT - 200).collect();
        out = format!(
            "{cut}\n\n(cut here: GitHub takes at most 65,536 characters; the whole record is in `.self-repair/runs/{}/`)\n",
            e.repair_run
        );
    }
    out
}

/// The task file without its front matter, its headings one level down (under `## Task`).
fn task_body(text: &str) -> String {
    let mut lines = text.lines().peekable();
    if lines.peek() == Some(&"---") {
        lines.next();
        for line in lines.by_ref() {
            if line == "---" {
                break;
            }
        }
    }
    // Inside a fenced block (the task's plan is one) a `#` line is text, not a heading.
    let mut fence: Option<String> = None;
    lines
        .map(|l| {
            let ticks: String = l.chars().take_while(|&c| c == '`').collect();
            if ticks.len() >= 3 {
                match &fence {
                    None => fence = Some(ticks),
                    Some(open) if ticks.len() >= open.len() && l.trim() == ticks => fence = None,
                    Some(_) => {}
                }
            }
            if fence.is_none() && l.starts_with('#') {
                format!("#{l}")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

fn verification(e: &PullRequestEvidence) -> String {
    let mut out = String::from("\n## Verification\n\n");
    let tiers = if e.tiers.is_empty() {
        "none: the check passed before any change".to_owned()
    } else {
        e.tiers.join(", ")
    };
    let files = if e.files_changed.is_empty() {
        "none".to_owned()
    } else {
        e.files_changed
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push_str(&format!(
        "Repair run `{}`: {} attempt(s) (by {tiers}); files changed: {files}.\n\n",
        e.repair_run, e.attempts
    ));
    let mut n = 0;
    let mut step = |text: String| {
        n += 1;
        format!("{n}. {text}\n")
    };
    if let Some(autofix) = &e.autofix_command {
        out.push_str(&step(format!("The analyzer's safe fixes: `{autofix}`")));
    }
    if e.analyzer_commands.is_empty() {
        out.push_str(&step(
            "The analyzer re-run: the detectors of `.self-repair/config.json`".to_owned(),
        ));
    } else {
        for command in &e.analyzer_commands {
            out.push_str(&step(format!("The analyzer re-run: `{command}`")));
        }
    }
    out.push_str(&step(match &e.test_command {
        Some(test) => format!("The tests: `{test}`"),
        None => "The tests: none run (no test command: `self-repair init` or `checks.test.command` adds one)".to_owned(),
    }));
    out.push_str(&step(format!(
        "The check, which ran both and the guard, passed: `{}`",
        e.check_command
    )));
    let report: Vec<&str> = e.check_report.trim_end().lines().collect();
    if !report.is_empty() {
        let kept = &report[report.len().saturating_sub(REPORT_LINES)..];
        out.push_str(&format!("\n```text\n{}\n```\n", kept.join("\n")));
    }
    out
}

fn findings_table(findings: &[ClosedFinding]) -> String {
    let mut out = format!("\n## Findings closed ({})\n\n", findings.len());
    if findings.is_empty() {
        out.push_str("(the task's group names no finding)\n");
        return out;
    }
    out.push_str("| tool | rule | location | message | fingerprint |\n|---|---|---|---|---|\n");
    for f in findings.iter().take(FINDING_ROWS) {
        let location = match f.line {
            Some(line) => format!("{}:{line}", f.path),
            None => f.path.clone(),
        };
        out.push_str(&format!(
            "| {} | {} | `{}` | {} | `{}` |\n",
            cell(&f.tool),
            cell(&f.rule),
            location.replace('`', "'"),
            cell(&f.message),
            f.fingerprint.chars().take(16).collect::<String>()
        ));
    }
    if findings.len() > FINDING_ROWS {
        out.push_str(&format!(
            "\n... and {} more (the task file lists the group)\n",
            findings.len() - FINDING_ROWS
        ));
    }
    out
}

/// Text safe in one cell of a Markdown table.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence() -> PullRequestEvidence {
        PullRequestEvidence {
            run: "r-fix".into(),
            task_id: "task-1".into(),
            title: "Apply ruff's safe fixes for F401 (1 finding)".into(),
            task_file: "backlog/tasks/task-1 - Apply-ruffs-safe-fixes-for-F401-1-finding.md".into(),
            task_text: "---\nid: task-1\ntitle: Apply ruff's safe fixes\nstatus: Done\n---\n\n## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\nRemove the unused import.\n<!-- SECTION:DESCRIPTION:END -->\n\n## Acceptance Criteria\n<!-- AC:BEGIN -->\n- [x] #1 `ruff check --select F401 mod.py` reports none\n<!-- AC:END -->\n".into(),
            commit: "1a2b3c4".into(),
            repair_run: "fix-r-fix-task-1-1".into(),
            attempts: 1,
            tiers: vec!["main".into()],
            files_changed: vec!["mod.py".into()],
            autofix_command: None,
            analyzer_commands: vec!["ruff check --output-format json".into()],
            test_command: Some("pytest -q".into()),
            check_command: "self-repair verify-task task-1 --run r-fix --base 9f8e7d6".into(),
            check_report: "verify-task task-1: Apply ruff's safe fixes for F401 (1 finding)\nanalyzer (ruff): 1 of 1 finding(s) of the group gone\ntests: `pytest -q` passed\nfiles changed: mod.py\nPASSED: the group's findings are gone, the tests pass, nothing weakened\n".into(),
            findings: vec![ClosedFinding {
                fingerprint: "0123456789abcdef0123".into(),
                tool: "ruff".into(),
                rule: "F401".into(),
                path: "mod.py".into(),
                line: Some(1),
                message: "`os` imported but unused | really".into(),
            }],
        }
    }

    #[test]
    fn the_body_names_the_task_the_verification_chain_and_the_findings() {
        insta::assert_snapshot!(render_pull_request_body(&evidence(), "main"));
    }

    #[test]
    fn a_first_run_creates_a_draft_and_a_later_one_edits_the_open_pull_request() {
        let pr = TaskPullRequest::new(&evidence(), "main");
        assert_eq!(pr.branch, "self-repair/r-fix/task-1");
        assert_eq!(
            pr.list_argv(),
            [
                "gh",
                "pr",
                "list",
                "--head",
                "self-repair/r-fix/task-1",
                "--json",
                "number,url"
            ]
        );
        let create = pr.write_argv(None);
        assert_eq!(
            create[..9],
            [
                "gh",
                "pr",
                "create",
                "--draft",
                "--head",
                "self-repair/r-fix/task-1",
                "--base",
                "main",
                "--title"
            ]
        );
        assert_eq!(create[9], "Apply ruff's safe fixes for F401 (1 finding)");
        assert_eq!(create[11], pr.body);
        let open = OpenPullRequest::from_pr_list(
            "[{\"number\":7,\"url\":\"https://github.com/o/r/pull/7\"}]\n",
        )
        .unwrap();
        let edit = pr.write_argv(open.as_ref());
        assert_eq!(edit[..4], ["gh", "pr", "edit", "7"]);
        assert!(!edit.contains(&"--draft".to_owned()));
        assert_eq!(OpenPullRequest::from_pr_list("[]").unwrap(), None);
        assert!(OpenPullRequest::from_pr_list("not json").is_err());
    }

    #[test]
    fn a_branch_name_holds_only_what_a_ref_may() {
        assert_eq!(
            pull_request_branch("20260518 run..1", "TASK-3"),
            "self-repair/20260518-run-1/task-3"
        );
        assert_eq!(pull_request_branch(".x.lock", "t"), "self-repair/x/t");
    }

    #[test]
    fn a_huge_body_is_cut_under_github_s_limit() {
        let mut e = evidence();
        e.task_text = "x".repeat(100_000);
        let body = render_pull_request_body(&e, "main");
        assert!(body.chars().count() <= PULL_REQUEST_BODY_LIMIT);
        assert!(body.contains("cut here"));
        e.task_text = String::new();
        e.findings = vec![ClosedFinding::default(); 250];
        let body = render_pull_request_body(&e, "main");
        assert!(body.contains("## Findings closed (250)") && body.contains("... and 50 more"));
        // 200 findings are all listed: nothing is counted apart.
        e.findings = vec![ClosedFinding::default(); 200];
        let body = render_pull_request_body(&e, "main");
        assert_eq!(body.matches("|  |  | `` |  | `` |\n").count(), 200);
        assert!(!body.contains("more (the task file lists the group)"));
    }

    #[test]
    fn a_heading_goes_one_level_down_outside_a_fenced_block_only() {
        // (the task file's text, its body under `## Task`)
        let cases = [
            ("---\nid: t\n---\n# Title\n## Plan", "## Title\n### Plan"),
            (
                "```\n# not a heading\n```\n# heading",
                "```\n# not a heading\n```\n## heading",
            ),
            // A fence closes only on a line of its ticks alone, at least as many as opened it.
            (
                "````md\n```python\n# a comment\n```\n# still inside\n````\n# after",
                "````md\n```python\n# a comment\n```\n# still inside\n````\n## after",
            ),
            (
                "```\n```python\n# inside\n```\n# after",
                "```\n```python\n# inside\n```\n## after",
            ),
        ];
        for (text, body) in cases {
            assert_eq!(task_body(text), body, "{text}");
        }
    }

    #[test]
    fn a_body_of_the_limit_is_kept_whole_and_one_past_it_is_cut_200_short_of_it() {
        let mut e = evidence();
        e.task_text = "x".to_owned();
        let one = render_pull_request_body(&e, "main").chars().count();
        let of_length = |chars: usize| {
            let mut e = evidence();
            e.task_text = "x".repeat(chars + 1 - one);
            render_pull_request_body(&e, "main")
        };
        let whole = of_length(PULL_REQUEST_BODY_LIMIT);
        assert_eq!(whole.chars().count(), PULL_REQUEST_BODY_LIMIT);
        assert!(!whole.contains("cut here"));
        // The body one longer, were it not cut: its task has one more `x`.
        let uncut = whole.replacen(&"x".repeat(10), &"x".repeat(11), 1);
        let kept: String = uncut.chars().take(PULL_REQUEST_BODY_LIMIT - 200).collect();
        let cut = of_length(PULL_REQUEST_BODY_LIMIT + 1);
        let expected = format!(
            "{kept}\n\n(cut here: GitHub takes at most 65,536 characters; the whole record is in `.self-repair/runs/fix-r-fix-task-1-1/`)\n"
        );
        // Not assert_eq!: a failure would print 60,000 characters twice.
        assert!(
            cut == expected,
            "cut to {} characters, not {}",
            cut.chars().count(),
            expected.chars().count()
        );
    }
}
