//! The item as `self-repair show <id> --json` prints it: `{item, kind, agent, model, prompt,
//! output_schema}`, read tolerantly (unknown fields kept in `raw`).

use serde_json::Value;

/// A parsed `show --json` output.
#[derive(Debug, Clone, PartialEq)]
pub struct ShowOutput {
    /// Item id.
    pub item: String,
    /// Item kind (`triage`, `aggregate`, `rule_review`, `plan`, ...).
    pub kind: String,
    /// Model tier or id the item runs on.
    pub model: String,
    /// JSON Schema of what `submit` accepts.
    pub output_schema: Value,
    /// The whole document.
    pub raw: Value,
}

impl ShowOutput {
    /// Parses the JSON object inside a tool result's text (the first `{` to the last `}`).
    pub fn parse(text: &str) -> Option<ShowOutput> {
        let start = text.find('{')?;
        let end = text.rfind('}')?;
        let raw: Value = serde_json::from_str(text.get(start..=end)?).ok()?;
        let field = |name: &str| {
            raw.get(name)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Some(ShowOutput {
            item: field("item"),
            kind: field("kind"),
            model: field("model"),
            output_schema: raw.get("output_schema")?.clone(),
            raw,
        })
    }
}
