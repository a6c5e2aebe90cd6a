//! The config as the user will read and edit it: pretty JSON, but a list of plain values (an
//! argv, exit codes) on one line, as reference/config.md writes them.

use serde_json::Value;

/// `value` as indented JSON (two spaces) with lists of scalars kept on one line; ends with a
/// newline.
pub fn config_text(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, 0, &mut out);
    out.push('\n');
    out
}

fn write_value(value: &Value, depth: usize, out: &mut String) {
    let pad = |depth: usize| "  ".repeat(depth);
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (key, item)) in map.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_value(item, depth + 1, out);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        Value::Array(items) if items.iter().any(|v| v.is_object() || v.is_array()) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                write_value(item, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        Value::Array(items) => {
            let inline: Vec<String> = items.iter().map(Value::to_string).collect();
            out.push('[');
            out.push_str(&inline.join(", "));
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_of_plain_values_stay_on_one_line_and_the_text_reads_back_the_same() {
        let value = json!({"fan_out": 4, "detectors": [{"name": "ruff", "argv": ["ruff", "check"], "ok_exit_codes": [0, 1]}], "empty": {}, "none": []});
        let text = config_text(&value);
        assert_eq!(
            text,
            "{\n  \"fan_out\": 4,\n  \"detectors\": [\n    {\n      \"name\": \"ruff\",\n      \"argv\": [\"ruff\", \"check\"],\n      \"ok_exit_codes\": [0, 1]\n    }\n  ],\n  \"empty\": {},\n  \"none\": []\n}\n"
        );
        let back: Value = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(back, value);
    }
}
