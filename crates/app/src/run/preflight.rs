//! What a run will cost, in one likely figure (agents and dollars, the main session included)
//! and the range around it: `start` prints it before anything is dispatched, `status` counts
//! what is left the same way (one count, `agents_ahead`, one price, [`Prices`]), so both agree
//! at the start of a run (reference/cost.md, "Preflight").

use std::collections::BTreeMap;

use self_repair_engine::{
    KindAgents, Phase, RunState, Spend, agents_ahead, default_micros, total_agents,
};
use self_repair_store::Project;
use serde::Serialize;

/// Tokens one agent is expected to use when no earlier run says: the client's own prompt
/// (12k-22k tokens, ARCHITECTURE §12) and a few thousand tokens of work.
const DEFAULT_AGENT_TOKENS: u64 = 25_000;

/// What the main session costs when no earlier run measured it: once per run (the skill,
/// `start`, the closing line) ...
const DEFAULT_MAIN_USD_PER_RUN: f64 = 0.8;
/// ... and per agent it launches (each dispatch it reads and relays, each result it takes in,
/// the stops between), by launch mode: a background agent's notification is one more turn.
/// Fitted to the scripted-model e2e runs (reference/cost.md, "How close the likely figure is").
const DEFAULT_MAIN_USD_PER_AGENT_FOREGROUND: f64 = 0.033;
const DEFAULT_MAIN_USD_PER_AGENT_BACKGROUND: f64 = 0.095;

/// Agents of one phase.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseAgents {
    pub phase: Phase,
    pub min: u32,
    pub likely: u32,
    pub max: u32,
}

/// The estimate.
#[derive(Debug, Clone, Serialize)]
pub struct Preflight {
    pub phases: Vec<PhaseAgents>,
    /// The figure to decide on: the agents the run likely launches and what they and the main
    /// session likely cost.
    pub agents_likely: u32,
    pub usd_likely: f64,
    /// Of `usd_likely`, the main session's own share.
    pub main_session_usd: f64,
    pub agents_min: u32,
    pub agents_max: u32,
    pub tokens_min: u64,
    pub tokens_max: u64,
    pub usd_min: f64,
    pub usd_max: f64,
    /// `earlier runs` when the project's finished runs priced every kind, `defaults` when none
    /// did, `earlier runs and defaults` in between.
    pub priced_by: String,
    /// Whether the main session's price per agent comes from earlier runs (else the default).
    pub main_session_measured: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_usd: Option<f64>,
    /// `confirm_above_usd`: above it the run waits for the user's go.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirm_above_usd: Option<f64>,
    /// The run waits for the user's go (`self-repair resume --confirm`) before any dispatch.
    pub waits_for_go: bool,
}

/// What one agent of each kind and the main session per agent cost, for the estimate.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prices {
    /// Per kind (`triage`, `plan` ...): this run's averages, else the earlier runs'.
    per_agent_micros: BTreeMap<String, u64>,
    /// Tokens per agent of each kind, from the earlier runs.
    tokens: BTreeMap<String, u64>,
    main_usd_per_run: f64,
    main_usd_per_agent: f64,
    main_tokens_per_agent: u64,
    main_measured: bool,
}

impl Prices {
    /// The prices for `state`: `ledger` (this run's, as the budget reads it) over the
    /// project's earlier runs, over the defaults per tier.
    pub(crate) fn for_run(project: &Project, state: &RunState, ledger: Option<&Spend>) -> Prices {
        let prior = crate::run::cost::prior_runs(project, &state.run);
        let mut prices = Prices::default();
        for (part, cost) in prior.finished.iter().filter(|(_, c)| c.agents > 0) {
            prices.per_agent_micros.insert(
                part.clone(),
                self_repair_engine::to_micros(cost.usd / f64::from(cost.agents)),
            );
            prices
                .tokens
                .insert(part.clone(), cost.tokens() / u64::from(cost.agents));
        }
        if let Some(spend) = ledger {
            prices
                .per_agent_micros
                .extend(spend.per_agent_micros.clone());
        }
        prices.main_measured = prior.agents > 0;
        if prices.main_measured {
            prices.main_usd_per_agent = prior.main.usd / f64::from(prior.agents);
            prices.main_tokens_per_agent = prior.main.tokens() / u64::from(prior.agents);
        } else {
            prices.main_usd_per_run = DEFAULT_MAIN_USD_PER_RUN;
            prices.main_usd_per_agent = match state.config.launch_mode {
                self_repair_engine::LaunchMode::Background => DEFAULT_MAIN_USD_PER_AGENT_BACKGROUND,
                self_repair_engine::LaunchMode::Foreground => DEFAULT_MAIN_USD_PER_AGENT_FOREGROUND,
            };
        }
        prices
    }

    /// Dollars and tokens of one agent of `kind`, and whether a run measured it.
    fn agent(&self, state: &RunState, kind: self_repair_engine::ItemKind) -> (f64, u64, bool) {
        match self.per_agent_micros.get(kind.as_str()) {
            Some(&micros) => (
                micros as f64 / 1e6,
                self.tokens
                    .get(kind.as_str())
                    .copied()
                    .unwrap_or(DEFAULT_AGENT_TOKENS),
                true,
            ),
            None => (
                default_micros(state.config.tiers.of(kind)) as f64 / 1e6,
                DEFAULT_AGENT_TOKENS,
                false,
            ),
        }
    }
}

/// The agents `state` still launches and what they and the main session cost: the figure
/// `start` prints and `status` counts down.
pub(crate) fn bill(state: &RunState, prices: &Prices) -> Preflight {
    let agents: Vec<KindAgents> = agents_ahead(state);
    let mut phases: Vec<PhaseAgents> = Vec::new();
    let (mut tokens_min, mut tokens_max) = (0u64, 0u64);
    let (mut usd_min, mut usd_likely, mut usd_max) = (0.0, 0.0, 0.0);
    let (mut measured, mut defaulted) = (false, false);
    for kind in &agents {
        let (usd, tokens, known) = prices.agent(state, kind.kind);
        measured |= known;
        defaulted |= !known;
        usd_min += usd * f64::from(kind.min);
        usd_likely += usd * f64::from(kind.likely);
        usd_max += usd * f64::from(kind.max);
        tokens_min += tokens * u64::from(kind.min);
        tokens_max += tokens * u64::from(kind.max);
        let phase = kind.kind.phase();
        match phases.iter_mut().find(|p| p.phase == phase) {
            Some(p) => {
                p.min += kind.min;
                p.likely += kind.likely;
                p.max += kind.max;
            }
            None => phases.push(PhaseAgents {
                phase,
                min: kind.min,
                likely: kind.likely,
                max: kind.max,
            }),
        }
    }
    let (agents_min, agents_likely, agents_max) = total_agents(&agents);
    // The main session: once per run (until its first dispatch: then `spent` holds it), and
    // per agent.
    let once = if agents_max > 0 && state.items.iter().all(|i| i.dispatches == 0) {
        prices.main_usd_per_run
    } else {
        0.0
    };
    let main = |n: u32| once + prices.main_usd_per_agent * f64::from(n);
    let main_tokens = |n: u32| prices.main_tokens_per_agent * u64::from(n);
    let priced_by = match (measured, defaulted) {
        (true, false) => "earlier runs",
        (true, true) => "earlier runs and defaults",
        _ => "defaults",
    };
    Preflight {
        phases,
        agents_likely,
        usd_likely: usd_likely + main(agents_likely),
        main_session_usd: main(agents_likely),
        agents_min,
        agents_max,
        tokens_min: tokens_min + main_tokens(agents_min),
        tokens_max: tokens_max + main_tokens(agents_max),
        usd_min: usd_min + main(agents_min),
        usd_max: usd_max + main(agents_max),
        priced_by: priced_by.to_owned(),
        main_session_measured: prices.main_measured,
        budget_usd: state.config.budget_usd,
        confirm_above_usd: state.config.confirm_above_usd,
        waits_for_go: crate::run::confirm::waits_for_go(state),
    }
}

/// `1 agent`, `3 agents`.
fn agents(n: u64) -> String {
    if n == 1 {
        "1 agent".to_owned()
    } else {
        format!("{n} agents")
    }
}

/// The estimate for the run `state` describes, before its first dispatch.
pub(crate) fn preflight(project: &Project, state: &RunState) -> Preflight {
    bill(state, &Prices::for_run(project, state, None))
}

impl Preflight {
    /// The lines `start` prints: the likely figure first, the range as a footnote.
    pub fn render(&self) -> String {
        let mut out = format!(
            "estimate: likely {}, ${:.2} (the main session's ${:.2} included)\n",
            agents(u64::from(self.agents_likely)),
            self.usd_likely,
            self.main_session_usd
        );
        for p in &self.phases {
            let count = if p.min == p.max {
                agents(u64::from(p.max))
            } else {
                format!("{} ({}-{})", agents(u64::from(p.likely)), p.min, p.max)
            };
            out.push_str(&format!("  {:<12} {count}\n", p.phase.as_str()));
        }
        let by = if self.priced_by == "defaults" {
            "defaults per model tier: no cost data from this project's earlier runs".to_owned()
        } else {
            format!("averages of this project's {}", self.priced_by)
        };
        out.push_str(&format!(
            "  range: {}-{} agents, ${:.2}-${:.2}, {}-{} tokens, from every finding dismissed to \
             every one real in the smallest groups (priced by {by}; reference/cost.md)\n",
            self.agents_min,
            self.agents_max,
            self.usd_min,
            self.usd_max,
            self.tokens_min,
            self.tokens_max
        ));
        if let Some(budget) = self.budget_usd {
            out.push_str(&format!(
                "  budget ${budget:.2}: the hook dispatches nothing past it and pauses the run\n"
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_likely_figure_comes_first_and_the_range_is_a_footnote() {
        let estimate = Preflight {
            phases: vec![
                PhaseAgents {
                    phase: Phase::Triage,
                    min: 3,
                    likely: 3,
                    max: 3,
                },
                PhaseAgents {
                    phase: Phase::Plan,
                    min: 0,
                    likely: 4,
                    max: 9,
                },
            ],
            agents_likely: 7,
            usd_likely: 0.25,
            main_session_usd: 0.14,
            agents_min: 3,
            agents_max: 12,
            tokens_min: 75_000,
            tokens_max: 300_000,
            usd_min: 0.015,
            usd_max: 0.6,
            priced_by: "defaults".to_owned(),
            main_session_measured: false,
            budget_usd: Some(1.0),
            confirm_above_usd: Some(5.0),
            waits_for_go: false,
        };
        let text = estimate.render();
        assert!(
            text.starts_with(
                "estimate: likely 7 agents, $0.25 (the main session's $0.14 included)"
            ),
            "{text}"
        );
        assert!(text.contains("triage       3 agents\n"), "{text}");
        assert!(text.contains("plan         4 agents (0-9)"), "{text}");
        assert!(text.contains("range: 3-12 agents, $0.01-$0.60"), "{text}");
        assert!(text.contains("budget $1.00"), "{text}");
    }
}
