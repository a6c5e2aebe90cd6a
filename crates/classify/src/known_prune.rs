//! `self-repair known prune --runs N`: drops the entries whose finding none of the project's
//! last N triage runs read. The record of what a run saw is the run's own `findings.json`
//! (every unique finding it read, decided by the registry or not), so no run rewrites the
//! committed `known.json` just to say it saw a finding (reference/design-notes.md).

use std::collections::HashSet;
use std::io::BufReader;

use self_repair_engine::timestamp::rfc3339;
use self_repair_store::{Project, RunKind};
use serde::Deserialize;

use crate::{ClassifyError, KnownEntry, KnownRegistry};

/// What the last N triage runs read.
#[derive(Debug, Clone, Default)]
pub struct PruneWindow {
    /// The runs, newest first.
    pub runs: Vec<String>,
    fingerprints: HashSet<String>,
    tools: HashSet<String>,
    /// When the oldest of them started (RFC 3339): an entry decided later was not there for
    /// every run, so it is never pruned.
    since: String,
}

/// What pruning did.
#[derive(Debug, Clone, Default)]
pub struct PruneOutcome {
    /// The entries dropped, by fingerprint.
    pub removed: Vec<(String, KnownEntry)>,
    /// Kept although unseen: their analyzer ran in none of the runs (an `ESLint` entry after
    /// only Ruff runs), so the runs say nothing about them.
    pub kept_other_tool: usize,
    /// Kept although unseen: decided after the oldest of the runs started.
    pub kept_younger: usize,
}

/// The part of a `findings.json` row prune reads.
#[derive(Deserialize)]
struct SeenRow {
    fingerprint: String,
    finding: SeenFinding,
}

#[derive(Deserialize)]
struct SeenFinding {
    tool: String,
}

impl PruneWindow {
    /// Reads the `runs` newest triage runs of the project (by creation time). Refused when it
    /// has fewer: then no entry can be said to be unseen for that many runs.
    pub fn read(project: &Project, runs: usize) -> Result<PruneWindow, ClassifyError> {
        if runs == 0 {
            return Err(ClassifyError::NoRunsToPrune);
        }
        let mut triage = Vec::new();
        for id in project.run_ids()? {
            let dir = project.run(&id)?;
            let Ok(manifest) = dir.manifest() else {
                continue;
            };
            if manifest.kind == RunKind::Triage && dir.findings_path().is_file() {
                triage.push((manifest.created_at, id, dir));
            }
        }
        if triage.len() < runs {
            return Err(ClassifyError::TooFewRuns {
                wanted: runs,
                found: triage.len(),
            });
        }
        triage.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
        triage.truncate(runs);
        let mut window = PruneWindow {
            since: rfc3339(triage.last().map_or(0, |t| t.0)),
            ..PruneWindow::default()
        };
        for (_, id, dir) in triage {
            let path = dir.findings_path();
            let file = std::fs::File::open(&path).map_err(|e| ClassifyError::BadFile {
                path: path.clone(),
                message: e.to_string(),
            })?;
            let rows: Vec<SeenRow> =
                serde_json::from_reader(BufReader::new(file)).map_err(|e| {
                    ClassifyError::BadFile {
                        path: path.clone(),
                        message: e.to_string(),
                    }
                })?;
            for row in rows {
                window.tools.insert(row.finding.tool);
                window.fingerprints.insert(row.fingerprint);
            }
            window.runs.push(id);
        }
        Ok(window)
    }

    /// A window over findings given directly (tests): `(fingerprint, tool)`, the oldest run
    /// starting at `since` (Unix seconds).
    pub fn of_findings<'a>(
        runs: Vec<String>,
        seen: impl IntoIterator<Item = (&'a str, &'a str)>,
        since: u64,
    ) -> PruneWindow {
        let mut window = PruneWindow {
            runs,
            since: rfc3339(since),
            ..PruneWindow::default()
        };
        for (fingerprint, tool) in seen {
            window.fingerprints.insert(fingerprint.to_owned());
            window.tools.insert(tool.to_owned());
        }
        window
    }
}

impl KnownRegistry {
    /// Drops the entries `window`'s runs did not see, but those whose analyzer none of them
    /// ran and those decided after the oldest of them started. The analyzer is the first word
    /// of the entry's `summary` (`ruff F401 src/a.py: ...`); an entry without one is judged by
    /// its fingerprint alone.
    pub fn prune(&mut self, window: &PruneWindow) -> PruneOutcome {
        let mut outcome = PruneOutcome::default();
        let unseen: Vec<String> = self
            .entries
            .iter()
            .filter(|(fingerprint, _)| !window.fingerprints.contains(*fingerprint))
            .filter(|(fingerprint, entry)| {
                let tool = entry.summary.split_whitespace().next();
                if tool.is_some_and(|t| !window.tools.contains(t)) {
                    outcome.kept_other_tool += 1;
                    return false;
                }
                if self
                    .decided_at(fingerprint)
                    .is_some_and(|at| at >= window.since.as_str())
                {
                    outcome.kept_younger += 1;
                    return false;
                }
                true
            })
            .map(|(fingerprint, _)| fingerprint.clone())
            .collect();
        for fingerprint in unseen {
            if let Some(entry) = self.remove(&fingerprint) {
                outcome.removed.push((fingerprint, entry));
            }
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use self_repair_engine::Verdict;
    use self_repair_store::RunKind;

    use super::*;

    fn entry(summary: &str) -> KnownEntry {
        KnownEntry::without_agent(
            Verdict::Intended,
            "r".to_owned(),
            "manual".to_owned(),
            summary.to_owned(),
        )
    }

    #[test]
    fn prune_drops_only_unseen_entries_of_analyzers_that_ran_before_the_window() {
        let mut known = KnownRegistry::default();
        known.insert_at("seen".to_owned(), entry("ruff F401 a.py: m"), 10);
        known.insert_at("gone".to_owned(), entry("ruff E501 a.py: m"), 10);
        known.insert_at("gone-no-summary".to_owned(), entry(""), 10);
        known.insert_at("eslint".to_owned(), entry("eslint no-undef a.js: m"), 10);
        known.insert_at("young".to_owned(), entry("ruff F841 a.py: m"), 500);
        let window = PruneWindow::of_findings(
            vec!["r2".to_owned(), "r1".to_owned()],
            [("seen", "ruff"), ("other", "ruff")],
            100,
        );
        assert_eq!(window.runs, ["r2", "r1"]);
        let outcome = known.prune(&window);
        let removed: Vec<&str> = outcome.removed.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(removed, ["gone", "gone-no-summary"]);
        assert_eq!(outcome.kept_other_tool, 1);
        assert_eq!(outcome.kept_younger, 1);
        let left: Vec<&String> = known.entries.keys().collect();
        assert_eq!(left, ["eslint", "seen", "young"]);
        assert_eq!(
            known.decided_at("gone"),
            None,
            "its decision time goes with it"
        );
    }

    /// A run folder of `kind` created at `created_at`, with `findings.json` listing `seen`
    /// (`None`: no findings file).
    fn run(
        project: &Project,
        id: &str,
        created_at: u64,
        kind: RunKind,
        seen: Option<&[(&str, &str)]>,
    ) {
        let dir = project.begin_run(id).unwrap().publish().unwrap();
        let manifest = self_repair_store::Manifest {
            schema_version: 1,
            run: id.to_owned(),
            created_at,
            kind,
            triage_items: 0,
        };
        self_repair_store::write_json(&dir.manifest_path(), &manifest).unwrap();
        if let Some(seen) = seen {
            let rows: Vec<serde_json::Value> = seen
                .iter()
                .map(|(f, tool)| serde_json::json!({"fingerprint": f, "finding": {"tool": tool}}))
                .collect();
            std::fs::write(dir.findings_path(), serde_json::to_string(&rows).unwrap()).unwrap();
        }
    }

    /// The window is the N newest triage runs with a findings file (newest first, a tie by
    /// id), what they saw, and when the oldest of them started.
    #[test]
    fn the_window_is_the_newest_triage_runs_that_read_findings() {
        let root = tempfile::tempdir().unwrap();
        let project = Project::at(root.path().to_path_buf());
        run(
            &project,
            "r-a",
            100,
            RunKind::Triage,
            Some(&[("old", "ruff")]),
        );
        run(
            &project,
            "r-b",
            300,
            RunKind::Triage,
            Some(&[("b", "ruff")]),
        );
        run(
            &project,
            "r-c",
            200,
            RunKind::Triage,
            Some(&[("c", "eslint")]),
        );
        run(
            &project,
            "r-d",
            200,
            RunKind::Triage,
            Some(&[("d", "ruff")]),
        );
        run(
            &project,
            "r-repair",
            400,
            RunKind::Repair,
            Some(&[("x", "x")]),
        );
        run(&project, "r-empty", 500, RunKind::Triage, None);

        let window = PruneWindow::read(&project, 3).unwrap();
        assert_eq!(window.runs, ["r-b", "r-d", "r-c"]);
        assert_eq!(window.since, rfc3339(200));
        let mut seen: Vec<&str> = window.fingerprints.iter().map(String::as_str).collect();
        seen.sort_unstable();
        assert_eq!(seen, ["b", "c", "d"]);
        let mut tools: Vec<&str> = window.tools.iter().map(String::as_str).collect();
        tools.sort_unstable();
        assert_eq!(tools, ["eslint", "ruff"]);
        assert_eq!(PruneWindow::read(&project, 4).unwrap().runs.len(), 4);
        assert!(matches!(
            PruneWindow::read(&project, 5),
            Err(ClassifyError::TooFewRuns {
                wanted: 5,
                found: 4
            })
        ));
        assert!(matches!(
            PruneWindow::read(&project, 0),
            Err(ClassifyError::NoRunsToPrune)
        ));

        // Decided in the second the oldest run started: maybe not there for it, so kept.
        let mut known = KnownRegistry::default();
        known.insert_at("at-since".to_owned(), entry("ruff F401 a.py: m"), 200);
        known.insert_at("before".to_owned(), entry("ruff F401 a.py: m"), 199);
        let outcome = known.prune(&window);
        let removed: Vec<&str> = outcome.removed.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(removed, ["before"]);
        assert_eq!(outcome.kept_younger, 1);
    }

    #[test]
    fn a_findings_file_that_does_not_read_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let project = Project::at(root.path().to_path_buf());
        run(&project, "r-a", 100, RunKind::Triage, Some(&[]));
        let dir = project.run("r-a").unwrap();
        std::fs::write(dir.findings_path(), "{not a list").unwrap();
        assert!(matches!(
            PruneWindow::read(&project, 1),
            Err(ClassifyError::BadFile { .. })
        ));
    }
}
