//! The two commonest slips of a model writing JSON for `submit`, repaired: a Markdown code
//! fence around the object, and raw control characters (newlines, tabs) inside strings. Only
//! text that does not parse as it is gets repaired, and every repair is named, so the agent
//! learns what it did.

use std::borrow::Cow;

/// Text as `submit` will parse it, and what was changed to get there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LenientJson<'a> {
    pub text: Cow<'a, str>,
    /// One phrase per repair, e.g. "removed the code fence around it".
    pub repairs: Vec<String>,
}

/// Repairs `text` when it is not valid JSON as it stands; valid text is returned untouched.
pub fn lenient_json(text: &str) -> LenientJson<'_> {
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        return LenientJson {
            text: Cow::Borrowed(text),
            repairs: Vec::new(),
        };
    }
    let mut repairs = Vec::new();
    let mut body = text;
    if let Some(inner) = strip_fence(text) {
        repairs.push("removed the ``` fence around it".to_owned());
        body = inner;
    }
    let (escaped, count) = escape_controls_in_strings(body);
    if count > 0 {
        repairs.push(format!(
            "escaped {count} raw control character(s) (newlines, tabs) inside strings"
        ));
    }
    LenientJson {
        text: if count > 0 {
            Cow::Owned(escaped)
        } else {
            Cow::Borrowed(body)
        },
        repairs,
    }
}

/// The text between one outer code fence (three backticks, optionally `json`) and its closing
/// fence, if the whole text is fenced.
fn strip_fence(text: &str) -> Option<&str> {
    let trimmed = text.trim();
    let rest = trimmed.strip_prefix("```")?;
    let (info, body) = rest.split_once('\n')?;
    if !info.trim().chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let body = body.trim_end().strip_suffix("```")?;
    Some(body)
}

/// Escapes control characters that appear inside JSON strings (outside strings they are
/// whitespace or an error the parser reports as usual). Returns the text and how many.
fn escape_controls_in_strings(text: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut count = 0;
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            } else if u32::from(c) < 0x20 {
                count += 1;
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    other => out.push_str(&format!("\\u{:04x}", u32::from(other))),
                }
                continue;
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_json_is_left_alone() {
        let text = "{\"a\": \"b\"}\n";
        let fixed = lenient_json(text);
        assert_eq!(fixed.text, text);
        assert!(fixed.repairs.is_empty());
    }

    #[test]
    fn a_fenced_object_with_raw_newlines_in_a_string_parses_after_repair() {
        let text = "```json\n{\"reason\": \"line one\nline two\tend\", \"n\": 1}\n```\n";
        let fixed = lenient_json(text);
        let value: serde_json::Value = serde_json::from_str(&fixed.text).unwrap();
        assert_eq!(value["reason"], "line one\nline two\tend");
        assert_eq!(fixed.repairs.len(), 2, "{:?}", fixed.repairs);
    }

    #[test]
    fn escaped_quotes_and_newlines_between_fields_are_not_touched() {
        let text = "{\"a\": \"say \\\"hi\\\"\nthere\",\n \"b\": 2}";
        let fixed = lenient_json(text);
        let value: serde_json::Value = serde_json::from_str(&fixed.text).unwrap();
        assert_eq!(value["a"], "say \"hi\"\nthere");
        assert_eq!(fixed.repairs.len(), 1);
    }

    #[test]
    fn text_that_is_not_json_stays_unparseable() {
        let fixed = lenient_json("not json at all");
        assert!(serde_json::from_str::<serde_json::Value>(&fixed.text).is_err());
        assert!(fixed.repairs.is_empty());
    }
}
