//! GitHub code scanning's upload limits (reference/export.md): what an export checks, and how a
//! run with too many results is cut to fit.

use crate::result_entry::ResultEntry;

/// Runs per SARIF file GitHub accepts.
pub const RUNS_PER_FILE: usize = 20;
/// Results per run GitHub accepts (it shows the 5,000 most severe).
pub const RESULTS_PER_RUN: usize = 25_000;
/// Locations per result GitHub accepts (it shows 100).
pub const LOCATIONS_PER_RESULT: usize = 1_000;
/// The largest upload GitHub accepts, gzip-compressed.
pub const FILE_BYTES: usize = 10 * 1024 * 1024;

/// A limit the export met, and what it did about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitNotice {
    pub message: String,
}

/// Keeps at most [`RESULTS_PER_RUN`] of a run's results: open results by level first, then the
/// dismissed ones and those the analyzer did not report; the kept ones stay in their order.
pub(crate) fn fit_results<'a>(
    tool: &str,
    entries: Vec<ResultEntry<'a>>,
) -> (Vec<ResultEntry<'a>>, Option<LimitNotice>) {
    if entries.len() <= RESULTS_PER_RUN {
        return (entries, None);
    }
    let total = entries.len();
    let mut order: Vec<usize> = (0..total).collect();
    order.sort_by_key(|&i| entries[i].rank);
    let mut keep = vec![false; total];
    for &i in order.iter().take(RESULTS_PER_RUN) {
        keep[i] = true;
    }
    let dropped_open = entries
        .iter()
        .zip(&keep)
        .filter(|(e, kept)| !**kept && !e.suppressed)
        .count();
    let kept: Vec<ResultEntry<'a>> = entries
        .into_iter()
        .zip(keep)
        .filter_map(|(e, kept)| kept.then_some(e))
        .collect();
    let dropped = total - kept.len();
    let message = format!(
        "{tool}: {total} results, but GitHub code scanning accepts at most {RESULTS_PER_RUN} per \
         run: {dropped} were left out of this file ({} dismissed or not reported by the analyzer, \
         {dropped_open} open ones of the lowest levels); report.json still lists every finding",
        dropped - dropped_open
    );
    (kept, Some(LimitNotice { message }))
}

/// The notices for the whole file: too many runs, or too large to upload even compressed.
pub(crate) fn check_file(runs: usize, bytes: usize) -> Vec<LimitNotice> {
    let mut notices = Vec::new();
    if runs > RUNS_PER_FILE {
        notices.push(LimitNotice {
            message: format!(
                "{runs} runs (one per analyzer and input), but GitHub code scanning accepts at \
                 most {RUNS_PER_FILE} per file: start runs with fewer inputs to upload each export"
            ),
        });
    }
    if bytes > FILE_BYTES {
        notices.push(LimitNotice {
            message: format!(
                "{:.1} MB uncompressed; GitHub code scanning accepts at most 10 MB gzip-compressed \
                 (github/codeql-action/upload-sarif compresses it): check with `gzip -c FILE | wc -c`",
                bytes as f64 / 1_048_576.0
            ),
        });
    }
    notices
}

#[cfg(test)]
mod tests {
    use super::*;
    use self_repair_engine::Level;

    #[test]
    fn a_run_over_the_limit_drops_dismissed_results_then_the_lowest_levels() {
        let mut entries = Vec::new();
        for i in 0..RESULTS_PER_RUN {
            entries.push(ResultEntry::open(format!("w{i}"), Level::Warning));
        }
        entries.insert(0, ResultEntry::closed("dismissed"));
        entries.insert(1, ResultEntry::open("note", Level::Note));
        entries.push(ResultEntry::open("error", Level::Error));
        let (kept, notice) = fit_results("ruff", entries);
        assert_eq!(kept.len(), RESULTS_PER_RUN);
        assert!(
            kept.iter()
                .all(|e| e.json != "dismissed" && e.json != "note")
        );
        assert_eq!(kept.first().map(|e| e.json.as_ref()), Some("w0"));
        assert_eq!(kept.last().map(|e| e.json.as_ref()), Some("error"));
        let message = notice.map(|n| n.message).unwrap_or_default();
        assert!(
            message.contains("25003 results") && message.contains("3 were left out"),
            "{message}"
        );
        assert!(message.contains("(1 dismissed or not reported by the analyzer, 2 open"));
    }

    #[test]
    fn a_run_at_the_limit_is_kept_whole() {
        let entries: Vec<ResultEntry<'_>> = (0..RESULTS_PER_RUN)
            .map(|_| ResultEntry::closed("x"))
            .collect();
        let (kept, notice) = fit_results("ruff", entries);
        assert_eq!((kept.len(), notice), (RESULTS_PER_RUN, None));
    }

    #[test]
    fn too_many_runs_and_too_many_bytes_are_named() {
        assert!(check_file(RUNS_PER_FILE, FILE_BYTES).is_empty());
        let notices = check_file(RUNS_PER_FILE + 1, FILE_BYTES + 1);
        assert_eq!(notices.len(), 2);
        assert!(notices[0].message.starts_with("21 runs"));
        assert!(notices[1].message.starts_with("10.0 MB uncompressed"));
    }
}
