//! Diagnosis routes: which template and starting tier a finding's triage uses.

use crate::{Finding, Tier};

/// A diagnosis route. The template file is `triage-<name>.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub name: &'static str,
    pub tier: Tier,
    pub summary: &'static str,
}

/// Built-in routes; `generic` is the escape hatch for anything unmatched.
pub const ROUTES: [Route; 3] = [
    Route {
        name: "generic",
        tier: Tier::Haiku,
        summary: "any finding: read the code and decide whether the report is right",
    },
    Route {
        name: "dead-code",
        tier: Tier::Haiku,
        summary: "unused code reports: check every reference, dynamic use and public API",
    },
    Route {
        name: "security",
        tier: Tier::Sonnet,
        summary: "security rules: trace untrusted data to the sink before deciding",
    },
];

/// Names of every route, for the `reroute` field of the triage schema.
pub fn route_names() -> Vec<&'static str> {
    ROUTES.iter().map(|r| r.name).collect()
}

/// The route with this name.
pub fn route(name: &str) -> Option<&'static Route> {
    ROUTES.iter().find(|r| r.name == name)
}

const DEAD_CODE_TOOLS: [&str; 3] = ["vulture", "knip", "ts-prune"];
const SECURITY_TOOLS: [&str; 4] = ["bandit", "semgrep", "codeql", "gosec"];
const DEAD_CODE_RULES: [&str; 8] = [
    "dead_code",
    "unused",
    "F401",
    "F841",
    "no-unused-vars",
    "@typescript-eslint/no-unused-vars",
    "unused_imports",
    "unused_variables",
];

/// The default route of a finding, from its tool and rule id.
pub fn default_route(finding: &Finding) -> &'static Route {
    let tool = finding.tool.to_ascii_lowercase();
    let rule = finding.rule_id.as_str();
    let name = if SECURITY_TOOLS.contains(&tool.as_str())
        || (tool == "ruff"
            && rule.starts_with('S')
            && rule[1..].bytes().all(|b| b.is_ascii_digit()))
    {
        "security"
    } else if DEAD_CODE_TOOLS.contains(&tool.as_str())
        || DEAD_CODE_RULES.iter().any(|r| rule.eq_ignore_ascii_case(r))
        || rule.starts_with("unused-")
    {
        "dead-code"
    } else {
        "generic"
    };
    route(name).unwrap_or(&ROUTES[0])
}
