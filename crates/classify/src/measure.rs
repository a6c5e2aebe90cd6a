//! Rule proposals checked by code: each is run against the findings agents decided in this run.

use self_repair_engine::{Finding, Verdict};

use crate::{CompiledRule, Measured};

/// One finding an agent decided.
pub struct AgentVerdict<'a> {
    pub item: &'a str,
    pub finding: &'a Finding,
    pub verdict: Verdict,
}

/// How often the rule matches those findings and agrees with the agents.
pub fn measure(run: &str, rule: &CompiledRule<'_>, decided: &[AgentVerdict<'_>]) -> Measured {
    let mut matches = 0;
    let mut agreed = 0;
    let mut disagreements = Vec::new();
    for d in decided.iter().filter(|d| rule.matches(d.finding)) {
        matches += 1;
        if Some(d.verdict) == rule.rule.verdict {
            agreed += 1;
        } else {
            disagreements.push(d.item.to_owned());
        }
    }
    Measured {
        run: run.to_owned(),
        matches,
        agreed,
        accuracy: if matches == 0 {
            0.0
        } else {
            f64::from(agreed) / f64::from(matches)
        },
        disagreements,
    }
}
