//! `self-repair rules list|accept|reject`: the deterministic rules a user manages between runs
//! (hand-written in `rules.json`, or proposed by a finalized run).

use clap::Subcommand;
use self_repair_classify::{Rule, RuleBook, RuleStatus};
use self_repair_store::Project;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;

/// `rules` subcommands.
#[derive(Debug, Subcommand)]
pub enum RulesAction {
    /// Every rule with its status and measured accuracy.
    List {
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Apply a rule from the next `start`.
    Accept {
        /// The rule's id (`self-repair rules list` shows them).
        id: String,
    },
    /// Never apply a rule.
    Reject {
        /// The rule's id (`self-repair rules list` shows them).
        id: String,
    },
}

/// Runs a `rules` subcommand.
pub fn run(env: &CommandEnv, action: RulesAction) -> Result<Output, AppError> {
    let project = env.find_project()?;
    match action {
        RulesAction::List { json } => {
            let rules = rules_list(&project)?;
            Output::json_or(json, &rules, |r| render_rules(r))
        }
        RulesAction::Accept { id } => {
            rules_set(&project, &id, RuleStatus::Accepted).map(Output::text)
        }
        RulesAction::Reject { id } => {
            rules_set(&project, &id, RuleStatus::Rejected).map(Output::text)
        }
    }
}

/// Every rule, hand-written and proposed.
pub fn rules_list(project: &Project) -> Result<Vec<Rule>, AppError> {
    Ok(RuleBook::load(&project.store_dir())?.rules)
}

/// The text of `rules list`.
pub fn render_rules(rules: &[Rule]) -> String {
    if rules.is_empty() {
        return "no rules yet: a finalized run proposes some; see reference/config.md for hand-written ones\n"
            .to_owned();
    }
    let mut out = String::new();
    for rule in rules {
        let outcome = rule
            .verdict
            .map(|v| format!("verdict {}", v.as_str()))
            .or_else(|| rule.route.as_ref().map(|r| format!("route {r}")))
            .unwrap_or_default();
        let when = serde_json::to_string(&rule.when).unwrap_or_default();
        out.push_str(&format!(
            "{}  [{}]  {}\n    when {when} → {outcome}\n",
            rule.id,
            rule.status.as_str(),
            rule.name
        ));
        if let Some(m) = &rule.measured {
            out.push_str(&format!(
                "    measured on {}: {} match(es), {} agreed with the agents, accuracy {:.0}%{}\n",
                m.run,
                m.matches,
                m.agreed,
                m.accuracy * 100.0,
                if m.disagreements.is_empty() {
                    String::new()
                } else {
                    format!("; disagreed on {}", m.disagreements.join(", "))
                }
            ));
        }
    }
    out
}

/// Accepts or rejects a rule; accepted rules apply from the next `start`.
pub fn rules_set(project: &Project, id: &str, status: RuleStatus) -> Result<String, AppError> {
    let store = project.store_dir();
    let _registry = self_repair_store::lock_registry(&store)?;
    let mut book = RuleBook::load(&store)?;
    book.set_status(id, status)?;
    let line = format!(
        "rule {id} is now {}{}",
        status.as_str(),
        if status == RuleStatus::Accepted {
            ": it decides matching findings from the next `self-repair start`"
        } else {
            ""
        }
    );
    book.save(&store)?;
    Ok(line)
}
