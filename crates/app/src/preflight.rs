//! What `start` says a run will cost before anything is dispatched: the agents per phase it
//! expects (exact for triage, a range after), priced per kind by the averages of the project's
//! earlier runs, else by the defaults per tier (reference/cost.md, "Preflight").

use self_repair_engine::{Phase, RunState, default_micros, expected_agents};
use self_repair_store::Project;
use serde::Serialize;

/// Tokens one agent is expected to use when no earlier run says: the client's own prompt
/// (12k-22k tokens, ARCHITECTURE §12) and a few thousand tokens of work.
const DEFAULT_AGENT_TOKENS: u64 = 25_000;

/// Agents of one phase.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseAgents {
    pub phase: Phase,
    pub min: u32,
    pub max: u32,
}

/// The estimate.
#[derive(Debug, Clone, Serialize)]
pub struct Preflight {
    pub phases: Vec<PhaseAgents>,
    pub tokens_min: u64,
    pub tokens_max: u64,
    pub usd_min: f64,
    pub usd_max: f64,
    /// `earlier runs` when the project's finished runs priced every kind, `defaults` when none
    /// did, `earlier runs and defaults` in between.
    pub priced_by: String,
    /// Whether the main session's cost is in the figures (only from earlier runs).
    pub main_session: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_usd: Option<f64>,
}

/// The estimate for the run `state` describes, before its first dispatch.
pub(crate) fn preflight(project: &Project, state: &RunState) -> Preflight {
    let prior = crate::run_cost::prior_runs(project, &state.run);
    let mut phases: Vec<PhaseAgents> = Vec::new();
    let (mut tokens_min, mut tokens_max, mut usd_min, mut usd_max) = (0u64, 0u64, 0.0, 0.0);
    let (mut measured, mut defaulted) = (false, false);
    let (mut agents_min, mut agents_max) = (0u32, 0u32);
    for kind in expected_agents(state) {
        let part = kind.kind.as_str();
        let (usd, tokens) = if let Some(c) = prior.finished.get(part).filter(|c| c.agents > 0) {
            measured = true;
            (
                c.usd / f64::from(c.agents),
                c.tokens() / u64::from(c.agents),
            )
        } else {
            defaulted = true;
            let tier = state.config.tiers.of(kind.kind);
            (default_micros(tier) as f64 / 1e6, DEFAULT_AGENT_TOKENS)
        };
        usd_min += usd * f64::from(kind.min);
        usd_max += usd * f64::from(kind.max);
        tokens_min += tokens * u64::from(kind.min);
        tokens_max += tokens * u64::from(kind.max);
        agents_min += kind.min;
        agents_max += kind.max;
        let phase = kind.kind.phase();
        match phases.iter_mut().find(|p| p.phase == phase) {
            Some(p) => {
                p.min += kind.min;
                p.max += kind.max;
            }
            None => phases.push(PhaseAgents {
                phase,
                min: kind.min,
                max: kind.max,
            }),
        }
    }
    // The main session, per agent launched, as the earlier runs measured it.
    let main_session = prior.agents > 0;
    if main_session {
        let per_agent = prior.main.usd / f64::from(prior.agents);
        let tokens = prior.main.tokens() / u64::from(prior.agents);
        usd_min += per_agent * f64::from(agents_min);
        usd_max += per_agent * f64::from(agents_max);
        tokens_min += tokens * u64::from(agents_min);
        tokens_max += tokens * u64::from(agents_max);
    }
    let priced_by = match (measured, defaulted) {
        (true, false) => "earlier runs",
        (true, true) => "earlier runs and defaults",
        _ => "defaults",
    };
    Preflight {
        phases,
        tokens_min,
        tokens_max,
        usd_min,
        usd_max,
        priced_by: priced_by.to_owned(),
        main_session,
        budget_usd: state.config.budget_usd,
    }
}

impl Preflight {
    /// The lines `start` prints.
    pub fn render(&self) -> String {
        let mut out = String::from("estimate before any dispatch:\n");
        for p in &self.phases {
            let count = if p.min == p.max {
                format!("{} agents (exact)", p.max)
            } else {
                format!("{}-{} agents (depends on the verdicts)", p.min, p.max)
            };
            out.push_str(&format!("  {:<12} {count}\n", p.phase.as_str()));
        }
        let by = if self.priced_by == "defaults" {
            "defaults per model tier: this project has no finished run yet".to_owned()
        } else {
            format!("averages of this project's {}", self.priced_by)
        };
        let main = if self.main_session {
            "main session included"
        } else {
            "the main session's own cost not included"
        };
        out.push_str(&format!(
            "  {}-{} tokens, ${:.2}-${:.2} ({by}; {main}; reference/cost.md)\n",
            self.tokens_min, self.tokens_max, self.usd_min, self.usd_max
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
    fn a_range_renders_as_min_to_max_and_an_exact_count_says_so() {
        let estimate = Preflight {
            phases: vec![
                PhaseAgents {
                    phase: Phase::Triage,
                    min: 3,
                    max: 3,
                },
                PhaseAgents {
                    phase: Phase::Plan,
                    min: 0,
                    max: 9,
                },
            ],
            tokens_min: 75_000,
            tokens_max: 300_000,
            usd_min: 0.015,
            usd_max: 0.6,
            priced_by: "defaults".to_owned(),
            main_session: false,
            budget_usd: Some(1.0),
        };
        let text = estimate.render();
        assert!(text.contains("triage       3 agents (exact)"), "{text}");
        assert!(text.contains("plan         0-9 agents"), "{text}");
        assert!(text.contains("$0.01-$0.60"), "{text}");
        assert!(text.contains("budget $1.00"), "{text}");
    }
}
