//! Recovers the symbol a finding is about from its message, for rules known to name one.
//!
//! Used by every adapter that lacks a structured symbol, so the same Ruff finding read from
//! SARIF and from Ruff's own JSON gets the same symbol (and so the same fingerprint).

/// Ruff/pyflakes rules whose message names the symbol in backticks first.
const RUFF_SYMBOL_RULES: &[&str] = &[
    "F401", "F405", "F811", "F821", "F822", "F823", "F841", "F842", "ARG001", "ARG002", "ARG003",
    "ARG004", "ARG005",
];

/// rustc lints whose message names the item in backticks first.
const RUSTC_SYMBOL_RULES: &[&str] = &[
    "dead_code",
    "unused_imports",
    "unused_variables",
    "unused_assignments",
    "unused_macros",
    "unused_mut",
    "unused_must_use",
];

/// The symbol named by `message`, when `tool`'s `rule_id` is known to name one.
pub(crate) fn infer_symbol(tool: &str, rule_id: &str, message: &str) -> Option<String> {
    match tool {
        "ruff" | "flake8" | "pyflakes" if RUFF_SYMBOL_RULES.contains(&rule_id) => {
            first_quoted(message, '`')
        }
        "rustc" | "clippy" if RUSTC_SYMBOL_RULES.contains(&rule_id) => first_quoted(message, '`'),
        "eslint" if rule_id.ends_with("no-unused-vars") || rule_id.ends_with("no-undef") => {
            first_quoted(message, '\'')
        }
        "knip" if rule_id != "knip/files" => message
            .rsplit_once(": ")
            .map(|(_, name)| name.trim().to_owned())
            .filter(|name| !name.is_empty()),
        _ => None,
    }
}

/// The first non-empty text between a pair of `quote` characters.
pub(crate) fn first_quoted(message: &str, quote: char) -> Option<String> {
    let (_, after_open) = message.split_once(quote)?;
    let (inside, _) = after_open.split_once(quote)?;
    (!inside.is_empty()).then(|| inside.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_rules_yield_their_symbol() {
        assert_eq!(
            infer_symbol("ruff", "F401", "`os` imported but unused"),
            Some("os".into())
        );
        assert_eq!(
            infer_symbol("rustc", "dead_code", "function `unused_fn` is never used"),
            Some("unused_fn".into())
        );
        assert_eq!(
            infer_symbol(
                "eslint",
                "no-unused-vars",
                "'x' is assigned a value but never used."
            ),
            Some("x".into())
        );
        assert_eq!(
            infer_symbol("knip", "knip/exports", "Unused export: unusedExport"),
            Some("unusedExport".into())
        );
    }

    #[test]
    fn code_in_backticks_is_not_a_symbol() {
        assert_eq!(
            infer_symbol(
                "ruff",
                "E711",
                "Comparison to `None` should be `cond is None`"
            ),
            None
        );
        assert_eq!(
            infer_symbol("clippy", "clippy::useless_vec", "useless use of `vec!`"),
            None
        );
        assert_eq!(
            infer_symbol("knip", "knip/files", "Unused file: src/a.ts"),
            None
        );
    }
}
