//! Labels as JSON Lines: one object a line, keys as [`Field::named`] reads them, unknown keys
//! ignored.

use serde_json::Value;

use crate::Label;
use crate::label_fields::{Field, LabelFields};

/// Reads every non-blank line of `text` as one label; `Err((line, problem))` at the first bad
/// line.
pub(crate) fn parse_jsonl(text: &str) -> Result<Vec<Label>, (usize, String)> {
    let mut labels = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") || line.starts_with('#') {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|error| (number, format!("not a JSON object: {error}")))?;
        let Value::Object(object) = value else {
            return Err((number, "not a JSON object".to_owned()));
        };
        let mut fields = LabelFields::default();
        for (key, value) in &object {
            let Some(field) = Field::named(key) else {
                continue;
            };
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => n.to_string(),
                Value::Null => continue,
                Value::Array(_) | Value::Object(_) => {
                    return Err((
                        number,
                        format!("`{key}` must be a string, number or boolean"),
                    ));
                }
            };
            fields.set(field, &text);
        }
        labels.push(
            fields
                .into_label(number)
                .map_err(|problem| (number, problem))?,
        );
    }
    Ok(labels)
}
