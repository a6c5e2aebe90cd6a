//! The item as `self-repair show <id> --json` prints it: `{item, kind, agent, model, prompt,
//! output_schema}`, read tolerantly (unknown fields kept in `raw`). An output over the client's
//! limit for a Bash result (about 30,000 characters) reaches the model as a `<persisted-output>`
//! preview naming the file that holds it whole; the scripted model reads that file, as a real
//! model reads it with the Read tool.

use std::fs;

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

/// What the client puts before the path of an output it persisted instead of sending.
const PERSISTED: &str = "Full output saved to: ";

impl ShowOutput {
    /// Parses a `show --json` tool result: its text, or the file a `<persisted-output>`
    /// preview names (read from disk: the mock runs on the client's machine).
    pub fn parse_result(text: &str) -> Option<ShowOutput> {
        if text.trim_start().starts_with("<persisted-output>")
            && let Some(path) = text
                .lines()
                .find_map(|line| line.split_once(PERSISTED).map(|(_, path)| path))
        {
            return ShowOutput::parse(&fs::read_to_string(path.trim()).ok()?);
        }
        ShowOutput::parse(text)
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    const SHOWN: &str = r#"{"item": "tb-00003", "kind": "triage_batch", "model": "haiku",
        "prompt": "...", "output_schema": {"type": "object"}}"#;

    #[test]
    fn an_output_the_client_persisted_is_read_from_the_file_its_preview_names() {
        let dir = std::env::temp_dir().join(format!("mock-persisted-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b4u7hlsb8.txt");
        fs::write(&path, SHOWN).unwrap();
        let preview = format!(
            "<persisted-output>\nOutput too large (31KB). {PERSISTED}{}\n\nPreview (first 2KB):\n{{\n  \"item\": \"tb-00003\",\n...\n</persisted-output>",
            path.display()
        );
        let show = ShowOutput::parse_result(&preview).unwrap();
        assert_eq!(show.item, "tb-00003");
        assert_eq!(show.kind, "triage_batch");
        assert_eq!(ShowOutput::parse_result(SHOWN), Some(show));
        fs::remove_dir_all(&dir).unwrap();
    }
}
