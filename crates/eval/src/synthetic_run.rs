//! A run made up for the tests: a scripted model whose first look errs at a set rate per
//! tier, on findings whose labels are known, so every figure has one right answer.

use std::collections::BTreeMap;

use crate::{Ended, FindingResult, LabelSet, ModelSource, RunOutcome, Spend};

/// One tier's share of the synthetic run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TierPlan {
    pub(crate) tier: &'static str,
    pub(crate) route: &'static str,
    /// Labelled findings that get a verdict: half labelled real, half false. Each half must be
    /// a multiple of `errs.1`.
    pub(crate) decided: u32,
    /// The model errs on `errs.0` of every `errs.1` findings of each half.
    pub(crate) errs: (u32, u32),
    /// Labelled findings it abstains on (unsure, quarantined, refused in turn; real, false in
    /// turn starting with real).
    pub(crate) abstained: u32,
    /// Findings no label holds for (decided `real`).
    pub(crate) unlabelled: u32,
    /// Each finding's agent: one launch of this many tokens and dollars.
    pub(crate) tokens: u64,
    pub(crate) usd: f64,
}

/// The plan of issue 34: haiku errs 25 %, sonnet 10 %, opus never.
pub(crate) const ISSUE_34_PLAN: [TierPlan; 3] = [
    TierPlan {
        tier: "haiku",
        route: "generic",
        decided: 40,
        errs: (1, 4),
        abstained: 3,
        unlabelled: 2,
        tokens: 10_000,
        usd: 0.01,
    },
    TierPlan {
        tier: "sonnet",
        route: "security",
        decided: 40,
        errs: (1, 10),
        abstained: 2,
        unlabelled: 1,
        tokens: 20_000,
        usd: 0.06,
    },
    TierPlan {
        tier: "opus",
        route: "security",
        decided: 20,
        errs: (0, 1),
        abstained: 1,
        unlabelled: 0,
        tokens: 30_000,
        usd: 0.3,
    },
];

/// Whether the scripted model errs on the `j`-th finding of a half.
pub(crate) fn errs(plan: &TierPlan, j: u32) -> bool {
    (j * plan.errs.0) % plan.errs.1 < plan.errs.0
}

/// The run and its labels (JSONL by fingerprint).
pub(crate) fn synthetic_run(plans: &[TierPlan]) -> (RunOutcome, LabelSet) {
    let mut findings = Vec::new();
    let mut items = BTreeMap::new();
    let mut labels = String::new();
    for plan in plans {
        let half = plan.decided / 2;
        let total = plan.decided + plan.abstained + plan.unlabelled;
        for i in 0..total {
            let n = findings.len() + 1;
            let (real, ended, labelled) = if i < plan.decided {
                let real = i < half;
                let wrong = errs(plan, i % half);
                let ended = match (real, wrong) {
                    (true, false) | (false, true) => Ended::Real,
                    (true, true) => Ended::FalsePositive,
                    (false, false) if i % 2 == 0 => Ended::FalsePositive,
                    (false, false) => Ended::Intended,
                };
                (real, ended, true)
            } else if i < plan.decided + plan.abstained {
                let k = i - plan.decided;
                let ended = [Ended::Unsure, Ended::Quarantined, Ended::Refused][k as usize % 3];
                (k % 2 == 0, ended, true)
            } else {
                (true, Ended::Real, false)
            };
            let fingerprint = format!("fp{n:04}");
            if labelled {
                labels.push_str(&format!(
                    "{{\"fingerprint\": \"{fingerprint}\", \"label\": \"{}\"}}\n",
                    if real { "real" } else { "false_positive" }
                ));
            }
            let item = format!("t-{n:05}");
            items.insert(
                item.clone(),
                Spend {
                    agents: 1,
                    tokens: plan.tokens,
                    usd: plan.usd,
                },
            );
            findings.push(FindingResult {
                fingerprint,
                path: format!("src/{}/m{n}.py", plan.route),
                line: Some(n as u32),
                rule: "B602".to_owned(),
                cwe: Some(78),
                route: Some(plan.route.to_owned()),
                tier: Some(plan.tier.to_owned()),
                ended,
                items: vec![item],
                checked: None,
            });
        }
    }
    let run = RunOutcome {
        run: "synthetic-1".to_owned(),
        corpus: "synthetic (tests)".to_owned(),
        model: ModelSource::Scripted {
            name: "errs haiku 25%, sonnet 10%, opus 0%".to_owned(),
        },
        findings,
        items,
        overhead: Spend {
            agents: 0,
            tokens: 5_000,
            usd: 0.02,
        },
        priced: true,
        wall_seconds: Some(754),
        protocol: None,
    };
    let labels = LabelSet::parse("synthetic.jsonl", &labels).expect("synthetic labels parse");
    (run, labels)
}
