//! What the Stop hook records of a run's cost at each stop: what the session's transcripts grew
//! by since the last stop, into the run's `cost.json` / `cost.jsonl` (reference/cost.md), and the
//! closing line's cost and duration. `status` and the reports read the same ledger.

use std::path::Path;

use self_repair_cost::{Attribution, CostLedger, PriceTable};
use self_repair_engine::{ItemKind, RunHead, RunState, Spend, to_micros};
use self_repair_store::RunDir;

/// The part an item's cost is recorded under: its kind.
pub fn part_of(item: &str) -> Option<String> {
    ItemKind::of_id(item).map(|kind| kind.as_str().to_owned())
}

/// Records what the session's transcripts grew by since the last stop (the hook, under the run
/// lock). `running` is what the client listed in `background_tasks`; `run_turn`: this stop ends
/// a turn the run's own notification started, read even after the run ended (the closing
/// line may be said again there). Returns what the run has
/// spent (the budget's input), and a line for stderr when the ledger could not be saved (the
/// next stop reads the same bytes again).
pub fn account_stop(
    dir: &RunDir,
    head: &RunHead,
    transcript: Option<&Path>,
    running: Option<&[String]>,
    run_turn: bool,
) -> (Option<Spend>, Option<String>) {
    let mut ledger =
        CostLedger::load(dir.path()).unwrap_or_else(|| CostLedger::new(PriceTable::default()));
    if run_turn {
        // Read through this turn and the reply that may follow it.
        ledger.reads_after_end = 0;
    }
    // A run that ended (its closing line said) is read through two more stops, for the reply
    // to that line (and a notification's turn); the third marks it closed, for `status` too:
    // what its session does after is not the run's.
    let ended = head.is_over();
    if ended && ledger.reads_after_end >= self_repair_cost::READS_AFTER_END {
        let mut failure = None;
        if ledger.reads_after_end == self_repair_cost::READS_AFTER_END {
            ledger.reads_after_end += 1;
            failure = ledger
                .save(dir.path(), &self_repair_cost::Accounted::default())
                .err()
                .map(|e| format!("self-repair hook stop: cost not recorded: {e}"));
        }
        return (Some(spend(&ledger)), failure);
    }
    let Some(transcript) = transcript else {
        return (Some(spend(&ledger)), None);
    };
    if ended {
        ledger.reads_after_end += 1;
    }
    let finished = |item: &str| {
        !head.dispatched.iter().any(|id| id == item)
            && running.is_none_or(|r| !r.iter().any(|id| id == item))
    };
    let who = Attribution {
        run: &head.run,
        part_of: &part_of,
        finished: &finished,
    };
    let accounted = ledger.account(dir.path(), transcript, &who);
    if !accounted.changed && !ended {
        return (Some(spend(&ledger)), None);
    }
    let failure = ledger
        .save(dir.path(), &accounted)
        .err()
        .map(|e| format!("self-repair hook stop: cost not recorded: {e}"));
    (Some(spend(&ledger)), failure)
}

/// The run's closing line with what it cost and how long it took, once the hook has read the
/// session's transcripts (otherwise the line as it is).
pub fn with_cost_and_duration(dir: &RunDir, state: &RunState, now: u64, line: &str) -> String {
    let Some(ledger) = CostLedger::load(dir.path()).filter(|l| l.main.is_some()) else {
        return line.to_owned();
    };
    let secs = now.saturating_sub(state.created_at);
    format!(
        "{line} Cost ${:.4} ({} agents; `self-repair status` shows it per phase), {}h{:02}m since start.",
        ledger.total.usd,
        ledger.total.agents,
        secs / 3600,
        (secs % 3600) / 60
    )
}

/// The ledger as the engine's budget reads it.
pub fn spend(ledger: &CostLedger) -> Spend {
    Spend {
        spent_micros: to_micros(ledger.total.usd),
        per_agent_micros: ledger
            .per_agent_usd()
            .into_iter()
            .map(|(part, usd)| (part, to_micros(usd)))
            .collect(),
    }
}

#[cfg(test)]
#[path = "stop_cost_tests.rs"]
mod tests;
