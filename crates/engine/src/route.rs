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

/// Whether the analyzer itself says the finding is about security: a `security-severity`
/// (`CodeQL`), or `tags` holding `security` or a CWE (`CodeQL`, Semgrep). `None` when it carries
/// neither: then the tool's name decides.
fn tagged_security(finding: &Finding) -> Option<bool> {
    let raw = finding.raw.as_ref()?;
    let severity = raw.get("security-severity").and_then(|s| {
        s.as_f64()
            .or_else(|| s.as_str().and_then(|t| t.trim().parse::<f64>().ok()))
    });
    if severity.is_some_and(|s| s > 0.0) {
        return Some(true);
    }
    let tags = raw.get("tags")?.as_array()?;
    Some(
        tags.iter()
            .filter_map(serde_json::Value::as_str)
            .any(|tag| {
                let tag = tag.to_ascii_lowercase();
                tag == "security" || tag.contains("cwe")
            }),
    )
}

/// The default route of a finding: security when the analyzer tags it so (SARIF `tags`,
/// `security-severity`), else from its tool and rule id.
pub fn default_route(finding: &Finding) -> &'static Route {
    let tool = finding.tool.to_ascii_lowercase();
    let rule = finding.rule_id.as_str();
    let by_tool = || {
        SECURITY_TOOLS.contains(&tool.as_str())
            || (tool == "ruff"
                && rule.starts_with('S')
                && rule[1..].bytes().all(|b| b.is_ascii_digit()))
    };
    let name = if tagged_security(finding).unwrap_or_else(by_tool) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn finding(tool: &str, rule: &str, raw: Option<serde_json::Value>) -> Finding {
        Finding {
            fix: None,
            tool: tool.to_owned(),
            rule_id: rule.to_owned(),
            level: crate::Level::Warning,
            message: "m".to_owned(),
            path: "a.py".to_owned(),
            line: Some(1),
            column: None,
            end_line: None,
            end_column: None,
            symbol: None,
            help_uri: None,
            raw,
        }
    }

    #[test]
    fn a_codeql_or_semgrep_quality_rule_is_not_routed_to_security_by_its_tool_name() {
        let quality = finding(
            "codeql",
            "py/unused-local-variable",
            Some(json!({"tags": ["maintainability", "useless-code"]})),
        );
        assert_eq!(default_route(&quality).name, "generic");
        let semgrep = finding(
            "semgrep",
            "python.lang.best-practice.x",
            Some(json!({"tags": []})),
        );
        assert_eq!(default_route(&semgrep).name, "generic");
    }

    #[test]
    fn security_tags_or_a_security_severity_route_to_security_whatever_the_tool() {
        let cwe = finding(
            "codeql",
            "py/sql-injection",
            Some(json!({"tags": ["security", "external/cwe/cwe-089"]})),
        );
        assert_eq!(default_route(&cwe).name, "security");
        let severity = finding("sometool", "R1", Some(json!({"security-severity": "7.5"})));
        assert_eq!(default_route(&severity).name, "security");
        // No tags at all: the tool's name decides, as before.
        assert_eq!(
            default_route(&finding("bandit", "B602", None)).name,
            "security"
        );
        assert_eq!(
            default_route(&finding("codeql", "x", None)).name,
            "security"
        );
    }
}
