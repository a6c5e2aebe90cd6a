//! Identifier fields (tool, rule id, path, symbol, help URI) are echoed into prompts and task
//! files as one-line values: a line break or another control character there would let a
//! finding write its own lines into a prompt (a fence, an instruction). They are refused at
//! ingest, with the field; free text (the message) is fenced as data and may hold them.

use self_repair_engine::Finding;

/// The first control character of `text` (C0, DEL, or C1), with its 1-based position.
pub(crate) fn control_character(text: &str) -> Option<(usize, char)> {
    text.chars()
        .enumerate()
        .find(|(_, c)| c.is_control())
        .map(|(i, c)| (i + 1, c))
}

/// `field `name` holds a control character (U+000A at character 5)...`, or `None`.
pub(crate) fn control_problem(name: &str, text: &str) -> Option<String> {
    control_character(text).map(|(at, c)| {
        format!(
            "field `{name}` holds a control character (U+{:04X} at character {at}); identifiers must be one line of printable text, so remove it or fix the tool that wrote it",
            u32::from(c)
        )
    })
}

/// The first identifier field of `finding` that holds a control character, as a problem.
pub(crate) fn finding_control_problem(finding: &Finding) -> Option<String> {
    [
        ("tool", Some(finding.tool.as_str())),
        ("rule_id", Some(finding.rule_id.as_str())),
        ("path", Some(finding.path.as_str())),
        ("symbol", finding.symbol.as_deref()),
        ("help_uri", finding.help_uri.as_deref()),
    ]
    .into_iter()
    .find_map(|(name, value)| value.and_then(|text| control_problem(name, text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_tabs_nul_del_and_c1_are_control_characters() {
        for text in ["a\nb", "a\rb", "a\tb", "a\u{0}b", "a\u{7f}b", "a\u{85}b"] {
            assert_eq!(
                control_character(text).map(|(at, _)| at),
                Some(2),
                "{text:?}"
            );
        }
        assert_eq!(control_character("F401 `os` ünïcode"), None);
    }

    /// Each identifier field holding a control character is refused by name, the first of
    /// them when several do; the message may hold line breaks.
    #[test]
    fn a_finding_is_refused_by_its_first_identifier_field_with_a_control_character() {
        let finding = |field: &str, value: &str| -> Finding {
            let mut json = serde_json::json!({"tool": "ruff", "rule_id": "F401",
                "level": "warning", "message": "line one\nline two", "path": "a.py",
                "symbol": "os", "help_uri": "https://docs.astral.sh/ruff/rules/"});
            if !field.is_empty() {
                json[field] = serde_json::Value::from(value);
            }
            serde_json::from_value(json).unwrap()
        };
        assert_eq!(finding_control_problem(&finding("", "")), None);
        for field in ["tool", "rule_id", "path", "symbol", "help_uri"] {
            let problem = finding_control_problem(&finding(field, "x\ny"))
                .unwrap_or_else(|| panic!("{field} with a line break passed"));
            assert!(
                problem.starts_with(&format!(
                    "field `{field}` holds a control character (U+000A at character 2)"
                )),
                "{field}: {problem}"
            );
        }
        let mut two = finding("path", "a\tb.py");
        two.rule_id = "F\r401".to_owned();
        assert!(
            finding_control_problem(&two)
                .is_some_and(|p| p.starts_with("field `rule_id` holds a control character (U+000D")),
        );
    }
}
