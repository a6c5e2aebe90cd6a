//! Prompt templates are text with `{{name}}` placeholders; rendering them is pure.

/// The placeholders `self-repair show` gives every template of the triage pipeline.
pub const COMMON_PLACEHOLDERS: [&str; 7] =
    ["run", "item", "kind", "schema", "submit", "show", "format"];

/// The placeholders every route's triage template gets (`confidence`: the scale a first look is
/// told, issue 48).
const TRIAGE: [&str; 7] = [
    "route",
    "count",
    "rules",
    "findings",
    "scope",
    "claim",
    "confidence",
];

/// The placeholders the repair pipeline's templates (`fix-*.md`) get besides their own.
pub const REPAIR_COMMON_PLACEHOLDERS: [&str; 2] = ["run", "item"];

/// Each bundled template and the placeholders it gets beyond the common ones: what the code
/// that renders it supplies (checked at each render in debug builds), what
/// scripts/validate-plugin.sh allows in it, and what the skill's reference documents (a test
/// compares them, so neither drifts).
pub const TEMPLATE_PLACEHOLDERS: [(&str, &[&str]); 14] = [
    ("triage-generic.md", &TRIAGE),
    ("triage-dead-code.md", &TRIAGE),
    ("triage-security.md", &TRIAGE),
    (
        "rule-survey.md",
        &[
            "rule",
            "count",
            "sample_count",
            "files",
            "fix",
            "rules",
            "findings",
        ],
    ),
    ("aggregate.md", &["count", "slice"]),
    ("merge-labels.md", &["count", "labels"]),
    ("rule-review.md", &["count", "verdicts"]),
    (
        "plan.md",
        &[
            "group", "findings", "planner", "planners", "peers", "emphasis",
        ],
    ),
    ("synthesize.md", &["group", "findings", "plans"]),
    (
        "review.md",
        &["angle", "angle_guide", "group", "findings", "plan"],
    ),
    (
        "revise.md",
        &["group", "findings", "plan", "points", "approach"],
    ),
    ("write-task.md", &["group", "findings", "plan", "reviews"]),
    (
        "fix-feedback.md",
        &[
            "attempt",
            "max_attempts",
            "command",
            "exit",
            "output",
            "changes",
            "approach",
            "history",
        ],
    ),
    (
        "fix-fixer.md",
        &[
            "attempt",
            "max_attempts",
            "command",
            "exit",
            "output",
            "changes",
            "approach",
            "history",
        ],
    ),
];

/// Every placeholder `template` may use (the common ones included), or `None` for a template
/// no code renders.
pub fn template_placeholders(template: &str) -> Option<Vec<&'static str>> {
    let (_, own) = TEMPLATE_PLACEHOLDERS
        .iter()
        .find(|(name, _)| *name == template)?;
    let common: &[&str] = if template.starts_with("fix-") {
        &REPAIR_COMMON_PLACEHOLDERS
    } else {
        &COMMON_PLACEHOLDERS
    };
    Some(common.iter().chain(own.iter()).copied().collect())
}

/// In debug builds (so in every test), stops when the code rendering `template` supplies other
/// placeholders than [`TEMPLATE_PLACEHOLDERS`] lists for it: the table the docs are checked
/// against cannot drift from what the renderers give. A name with no row (a test's own
/// template) is not checked; the bundle's files are (a test compares them with the table).
pub fn debug_assert_placeholders(template: &str, vars: &[(&str, String)]) {
    if cfg!(debug_assertions)
        && let Some(mut listed) = template_placeholders(template)
    {
        let mut supplied: Vec<&str> = vars.iter().map(|(name, _)| *name).collect();
        supplied.sort_unstable();
        listed.sort_unstable();
        debug_assert_eq!(
            supplied, listed,
            "{template}: the placeholders supplied are not TEMPLATE_PLACEHOLDERS' row"
        );
    }
}

/// Replaces every `{{name}}` with its value. A placeholder with no value is an error naming the
/// placeholders this template may use, so a typo in an override never reaches an agent.
pub fn render_template(template: &str, vars: &[(&str, String)]) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = after[..end].trim();
        let Some((_, value)) = vars.iter().find(|(k, _)| *k == name) else {
            let known: Vec<&str> = vars.iter().map(|(k, _)| *k).collect();
            return Err(format!(
                "unknown placeholder {{{{{name}}}}}; this template may use: {}",
                known.join(", ")
            ));
        };
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_placeholders_and_refuses_unknown_ones() {
        let vars = [("item", "t-1".to_owned()), ("run", "r".to_owned())];
        assert_eq!(
            render_template("{{item}} of {{ run }}; {x}", &vars).unwrap(),
            "t-1 of r; {x}"
        );
        let err = render_template("{{itme}}", &vars).unwrap_err();
        assert!(
            err.contains("{{itme}}") && err.contains("item, run"),
            "{err}"
        );
    }
}
