//! The generic JSONL corpus: distinct findings over five rules of four tools.

/// The five rules of the generic corpus: tool, rule id, level, message.
const RULES: [(&str, &str, &str, &str); 5] = [
    ("ruff", "F401", "warning", "imported but unused"),
    (
        "ruff",
        "E711",
        "error",
        "comparison to None should be `cond is None`",
    ),
    (
        "eslint",
        "eqeqeq",
        "warning",
        "Expected '===' and instead saw '=='",
    ),
    ("vulture", "unused-function", "warning", "unused function"),
    (
        "clippy",
        "clippy::len_zero",
        "warning",
        "length comparison to zero",
    ),
];

/// `count` distinct generic findings as JSONL lines (no trailing newline), over the five rules:
/// one triage item each after `start`.
pub fn jsonl_findings(count: usize) -> String {
    (0..count)
        .map(|i| {
            let (tool, rule, level, message) = RULES[i % RULES.len()];
            serde_json::json!({"tool": tool, "rule_id": rule, "level": level,
                "message": format!("{message} (n{i})"), "path": format!("src/m{}.py", i / 7),
                "line": i % 40 + 1, "symbol": format!("sym{i}")})
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::jsonl_findings;

    #[test]
    fn the_corpus_has_one_line_per_finding_over_five_rules() {
        let text = jsonl_findings(12);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 12);
        let rules: std::collections::BTreeSet<String> = lines
            .iter()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["rule_id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(rules.len(), 5);
    }
}
