//! The one line `self-repair statusline` prints under Claude Code's prompt: the run, its phase,
//! a bar over the whole run's agents, dollars spent of the budget, and an ETA. The figures are
//! `status`'s (the engine's phase counts, preflight's count of the agents ahead, the pace of
//! `progress`), the dollars the ledger's (what the budget reads). A run that ended says nothing,
//! and is seen to have ended from the first lines of `state.json` alone.

use std::io::Read;

use self_repair_engine::{Phase, RunState, RunStatus, agents_behind};
use self_repair_store::{Project, RunDir};

use crate::run::handle::RunHandle;

/// Cells of the bar.
const BAR_CELLS: u32 = 10;
/// Bytes of `state.json` read to see that a run ended: its top-level `status` is in the first
/// few lines (reference/state-file.md).
const HEAD_BYTES: u64 = 4096;

/// What the line shows.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusLine {
    pub run: String,
    pub status: RunStatus,
    /// The status as a person is shown it (`waiting` for the user's go).
    pub shown: &'static str,
    pub phase: Phase,
    /// The current phase's items done and in all (`status`'s table).
    pub phase_done: u32,
    pub phase_total: u32,
    /// Agents that ended, and those likely still to come, over every phase.
    pub agents_behind: u32,
    pub agents_ahead: u32,
    /// What the run's ledger says was spent (the figure the budget reads).
    pub spent_usd: f64,
    pub budget_usd: Option<f64>,
    /// At the last ten minutes' pace; `None` with no result in that window or nothing left.
    pub eta_minutes: Option<f64>,
    /// A run `drive --partitions` split: its shares, whose figures the line sums (0: none).
    pub partitions: u32,
    /// Agents launched, and the launches past which the run pauses (issue 32): shown once the
    /// launches pass the likely agents, before the ceiling is reached.
    pub launched: u64,
    pub launch_pause_at: u64,
}

/// The file in the run folder that keeps the last row and what it was computed from.
const CACHE: &str = "statusline.cache";

/// The row for the project's active run at `now`: from the run's cache while `state.json`,
/// the journal and the cost ledger are unchanged and the minute is the same (the ETA moves with
/// the clock), else computed and cached. `None` when there is no run in progress or anything
/// needed cannot be read (a status bar shows no errors).
pub fn cached_row(project: &Project, now: u64) -> Option<String> {
    let id = project.active_run_id()?;
    let dir = project.run(&id).ok()?;
    let key = split_cache_key(project, &dir, now)?;
    let cache = dir.path().join(CACHE);
    if let Some((cached_key, row)) = std::fs::read_to_string(&cache)
        .ok()
        .as_deref()
        .and_then(|text| text.split_once('\n'))
        .map(|(k, r)| (k.to_owned(), r.to_owned()))
        && cached_key == key
    {
        return (!row.is_empty()).then_some(row);
    }
    let row = status_line(project, now).map(|line| line.render());
    // A failed write only means the next refresh computes it again.
    let _ = self_repair_store::write_atomic(
        &cache,
        format!("{key}\n{}", row.as_deref().unwrap_or_default()).as_bytes(),
    );
    row
}

/// What the row depends on: the sizes and times of the files the run changes through, and the
/// minute.
fn cache_key(dir: &RunDir, now: u64) -> Option<String> {
    let stamp = |name: &str| {
        std::fs::metadata(dir.path().join(name)).map_or_else(
            |_| "-".to_owned(),
            |m| {
                let modified = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{}@{modified}", m.len())
            },
        )
    };
    let state = stamp("state.json");
    (state != "-").then(|| {
        format!(
            "v1 {state} {} {} {}",
            stamp("journal.jsonl"),
            stamp("cost.json"),
            now / 60
        )
    })
}

/// The key of a run split by `drive --partitions`: its own and each share's (the row sums the
/// shares, which move while the run split does not).
fn split_cache_key(project: &Project, dir: &RunDir, now: u64) -> Option<String> {
    let mut key = cache_key(dir, now)?;
    for share in crate::run::partitions::shares_of(project, dir) {
        key.push(' ');
        key.push_str(&cache_key(&share, now)?);
    }
    Some(key)
}

/// The line for the project's active run at `now`; `None` when there is no run in progress or
/// anything needed cannot be read (a status bar shows no errors).
pub fn status_line(project: &Project, now: u64) -> Option<StatusLine> {
    let id = project.active_run_id()?;
    let dir = project.run(&id).ok()?;
    if head_says_ended(&dir) {
        return None;
    }
    let RunHandle::Triage(dir) = RunHandle::open(dir) else {
        return None;
    };
    // Read without the run's lock: `state.json` is replaced whole by a rename, and the fold
    // stops at the journal's last complete line; nothing is written.
    let mut state = dir.load_state().ok()?;
    dir.fold(&mut state).ok()?;
    if matches!(state.status, RunStatus::Complete | RunStatus::Cancelled) {
        return None;
    }
    let shares = crate::run::partitions::shares_of(project, &dir);
    if shares.is_empty() {
        return Some(of_state(project, &dir, &state, now));
    }
    Some(of_shares(project, &state, &shares, now))
}

/// The line of a run `drive --partitions` split: its shares' figures summed (their triage is the
/// run's), the slowest share's ETA, the run split's budget.
fn of_shares(project: &Project, state: &RunState, shares: &[RunDir], now: u64) -> StatusLine {
    let mut line = StatusLine {
        run: state.run.clone(),
        status: state.status,
        shown: state.shown_status(),
        phase: Phase::Triage,
        phase_done: 0,
        phase_total: 0,
        agents_behind: 0,
        agents_ahead: 0,
        spent_usd: 0.0,
        budget_usd: state.config.budget_usd,
        eta_minutes: None,
        partitions: shares.len() as u32,
        launched: 0,
        launch_pause_at: 0,
    };
    for share in shares {
        let Ok(mut share_state) = share.load_state() else {
            continue;
        };
        if share.fold(&mut share_state).is_err() {
            continue;
        }
        let part = of_state(project, share, &share_state, now);
        let triage = share_state.counts(Phase::Triage);
        line.phase_done += triage.done;
        line.phase_total += triage.total();
        line.agents_behind += part.agents_behind;
        line.agents_ahead += part.agents_ahead;
        line.spent_usd += part.spent_usd;
        line.launched += part.launched;
        line.launch_pause_at += part.launch_pause_at;
        line.eta_minutes = match (line.eta_minutes, part.eta_minutes) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
    line
}

/// The line's figures for a loaded state.
pub(crate) fn of_state(project: &Project, dir: &RunDir, state: &RunState, now: u64) -> StatusLine {
    let spent = crate::run::cost::ledger_spend(dir).map_or(0.0, |s| s.spent_micros as f64 / 1e6);
    let progress = crate::run::progress::progress(project, dir, state, now, Some(spent));
    let counts = state.counts(state.phase);
    let behind = agents_behind(state);
    let likely = u64::from(behind) + u64::from(progress.agents_left);
    let launches = self_repair_engine::LaunchCeiling::with_likely(state, likely);
    StatusLine {
        run: state.run.clone(),
        status: state.status,
        shown: state.shown_status(),
        phase: state.phase,
        phase_done: counts.done,
        phase_total: counts.total(),
        agents_behind: behind,
        agents_ahead: progress.agents_left,
        spent_usd: spent,
        budget_usd: progress.budget_usd,
        eta_minutes: progress.eta_minutes.filter(|_| progress.agents_left > 0),
        partitions: 0,
        launched: launches.launched,
        launch_pause_at: launches.pause_at,
    }
}

/// Whether `state.json`'s top-level `status` (in its first lines) says the run ended. Both
/// ends are final, so no journal entry can undo them.
fn head_says_ended(dir: &RunDir) -> bool {
    let Ok(file) = std::fs::File::open(dir.state_path()) else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(HEAD_BYTES).read_to_end(&mut head).is_err() {
        return false;
    }
    let head = String::from_utf8_lossy(&head);
    head.split_once("\n  \"status\": \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .is_some_and(|(status, _)| matches!(status, "complete" | "cancelled"))
}

impl StatusLine {
    /// Of the whole run's agents, the share that ended (0 to 1).
    pub fn share_done(&self) -> f64 {
        let all = self.agents_behind + self.agents_ahead;
        if all == 0 {
            return 1.0;
        }
        f64::from(self.agents_behind) / f64::from(all)
    }

    /// The line: `self-repair r-1 · triage 8/60 · ██░░░░░░░░ 13% of ~75 agents · $0.42 / $5.00
    /// · ETA 12m`.
    pub fn render(&self) -> String {
        let mut line = format!("self-repair {}", self.run);
        if self.status != RunStatus::Active {
            line.push_str(&format!(" ({})", self.shown));
        }
        if self.partitions > 0 {
            line.push_str(&format!(" · {} partitions", self.partitions));
        }
        line.push_str(&format!(" · {}", self.phase.as_str()));
        if self.phase_total > 0 {
            line.push_str(&format!(" {}/{}", self.phase_done, self.phase_total));
        }
        let share = self.share_done();
        let filled = ((share * f64::from(BAR_CELLS)).floor() as u32).min(BAR_CELLS);
        line.push_str(&format!(
            " · {}{} {}% of ~{} agents",
            "█".repeat(filled as usize),
            "░".repeat((BAR_CELLS - filled) as usize),
            (share * 100.0).floor() as u32,
            self.agents_behind + self.agents_ahead
        ));
        if self.launched > u64::from(self.agents_behind + self.agents_ahead) {
            // More launches than the run's likely agents: retries; the ceiling is in sight.
            line.push_str(&format!(
                " · {}/{} launches",
                self.launched, self.launch_pause_at
            ));
        }
        line.push_str(&format!(" · ${:.2}", self.spent_usd));
        if let Some(budget) = self.budget_usd {
            line.push_str(&format!(" / ${budget:.2}"));
        }
        if let Some(eta) = self.eta_minutes {
            let minutes = eta.round() as u64;
            if minutes < 60 {
                line.push_str(&format!(" · ETA {minutes}m"));
            } else {
                line.push_str(&format!(" · ETA {}h{:02}m", minutes / 60, minutes % 60));
            }
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> StatusLine {
        StatusLine {
            run: "r-1".to_owned(),
            status: RunStatus::Active,
            shown: "active",
            phase: Phase::Triage,
            phase_done: 8,
            phase_total: 60,
            agents_behind: 8,
            agents_ahead: 67,
            spent_usd: 0.424,
            budget_usd: Some(5.0),
            eta_minutes: Some(83.6),
            partitions: 0,
            launched: 30,
            launch_pause_at: 150,
        }
    }

    #[test]
    fn launches_past_the_likely_agents_show_against_the_ceiling() {
        let mut retrying = line();
        retrying.launched = 90;
        assert_eq!(
            retrying.render(),
            "self-repair r-1 · triage 8/60 · █░░░░░░░░░ 10% of ~75 agents · 90/150 launches · $0.42 / $5.00 · ETA 1h24m"
        );
    }

    #[test]
    fn a_split_run_says_how_many_partitions_its_figures_sum() {
        let split = StatusLine {
            partitions: 4,
            ..line()
        };
        assert!(
            split
                .render()
                .starts_with("self-repair r-1 · 4 partitions · triage 8/60 · "),
            "{}",
            split.render()
        );
    }

    #[test]
    fn the_line_shows_run_phase_bar_dollars_and_eta() {
        assert_eq!(
            line().render(),
            "self-repair r-1 · triage 8/60 · █░░░░░░░░░ 10% of ~75 agents · $0.42 / $5.00 · ETA 1h24m"
        );
    }

    #[test]
    fn a_paused_run_says_so_and_a_run_with_nothing_ahead_is_a_full_bar_without_eta() {
        let mut paused = line();
        paused.status = RunStatus::Paused;
        paused.shown = "paused";
        paused.budget_usd = None;
        paused.eta_minutes = Some(4.2);
        assert_eq!(
            paused.render(),
            "self-repair r-1 (paused) · triage 8/60 · █░░░░░░░░░ 10% of ~75 agents · $0.42 · ETA 4m"
        );
        let mut finishing = line();
        finishing.phase = Phase::Finalize;
        finishing.phase_total = 0;
        finishing.agents_ahead = 0;
        finishing.eta_minutes = None;
        finishing.launched = 8;
        assert_eq!(
            finishing.render(),
            "self-repair r-1 · finalize · ██████████ 100% of ~8 agents · $0.42 / $5.00"
        );
    }
}
