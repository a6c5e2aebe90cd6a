//! Builds a submission from an item's `output_schema` (JSON Schema draft 2020-12): required
//! fields only, first enum value, strings of at least `minLength`, arrays of `minItems`, numbers
//! at `minimum`; plus a deliberately broken variant for "submit invalid" scenarios.

use serde_json::{Map, Value, json};

/// Whether a schema describes a markdown submission (plans, reviews) rather than JSON.
pub fn is_markdown(schema: &Value) -> bool {
    schema.get("contentMediaType").and_then(Value::as_str) == Some("text/markdown")
}

/// The smallest value that satisfies `schema`, as far as this generator understands it.
///
/// Arrays whose items are an `enum` list every distinct enum value (up to `maxItems`), so an
/// aggregator's group names each item of its slice once.
pub fn generate(schema: &Value) -> Value {
    node(schema, "value")
}

/// `generate(schema)` with `overrides`' top-level keys replacing (or adding) fields; for a
/// markdown schema a string override replaces the text.
pub fn generate_with(schema: &Value, overrides: &Value) -> Value {
    let mut value = generate(schema);
    match (&mut value, overrides) {
        (Value::Object(map), Value::Object(extra)) => {
            for (k, v) in extra {
                map.insert(k.clone(), v.clone());
            }
        }
        (Value::String(_), Value::String(text)) => value = Value::String(text.clone()),
        _ => {}
    }
    value
}

/// A value `submit` must reject: an object loses its first required field and gains an
/// unknown one; a string (markdown) becomes too short.
pub fn generate_invalid(schema: &Value) -> Value {
    match generate(schema) {
        Value::Object(mut map) => {
            if let Some(first) = required(schema).first() {
                map.remove(*first);
            }
            map.insert("unexpected_field".into(), json!(true));
            Value::Object(map)
        }
        _ => json!("tbd"),
    }
}

/// The text a submission is sent as: markdown raw, everything else as compact JSON.
pub fn submission_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn usize_of(schema: &Value, key: &str) -> Option<usize> {
    schema.get(key).and_then(Value::as_u64).map(|n| n as usize)
}

fn node(schema: &Value, name: &str) -> Value {
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "object" => {
            let mut map = Map::new();
            let properties = schema.get("properties");
            for field in required(schema) {
                let child = properties
                    .and_then(|p| p.get(field))
                    .unwrap_or(&Value::Null);
                map.insert(field.to_owned(), node(child, field));
            }
            Value::Object(map)
        }
        "array" => array(schema, name),
        "integer" => json!(schema.get("minimum").and_then(Value::as_i64).unwrap_or(0)),
        "number" => json!(schema.get("minimum").and_then(Value::as_f64).unwrap_or(0.0)),
        "boolean" => json!(false),
        "null" => Value::Null,
        _ => Value::String(string(schema, name)),
    }
}

fn array(schema: &Value, name: &str) -> Value {
    let items = schema.get("items").unwrap_or(&Value::Null);
    let min = usize_of(schema, "minItems").unwrap_or(0);
    let max = usize_of(schema, "maxItems").unwrap_or(usize::MAX);
    if let Some(values) = items.get("enum").and_then(Value::as_array) {
        let take = values.len().min(max).max(min.min(values.len()));
        return Value::Array(values.iter().take(take).cloned().collect());
    }
    Value::Array((0..min).map(|_| node(items, name)).collect())
}

fn string(schema: &Value, name: &str) -> String {
    let min = usize_of(schema, "minLength").unwrap_or(0);
    let max = usize_of(schema, "maxLength").unwrap_or(usize::MAX);
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        return sample_of_pattern(pattern);
    }
    let mut text = if is_markdown(schema) {
        format!("# Mock {name}\n\n- written by the scripted model\n- step one: change the code\n")
    } else {
        format!("mock {name}")
    };
    while text.chars().count() < min {
        text.push_str(if is_markdown(schema) {
            "- more detail\n"
        } else {
            " text"
        });
    }
    text.chars().take(max.max(1)).collect()
}

/// One string matching a simple anchored regex: literals, `[...]` classes (first member),
/// `\d`, and the quantifiers `+ * ? {n} {n,m}` (minimum count, at least one for `+`).
pub fn sample_of_pattern(pattern: &str) -> String {
    let body = pattern.trim_start_matches('^').trim_end_matches('$');
    let chars: Vec<char> = body.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let (atom, next) = match chars[i] {
            '[' => {
                let close = chars[i..]
                    .iter()
                    .position(|c| *c == ']')
                    .map_or(chars.len(), |p| i + p);
                let first = chars
                    .get(i + 1)
                    .copied()
                    .filter(|c| *c != '^')
                    .unwrap_or('a');
                // `[0-9]` samples as 1, so ids like `t-1` look like real ones.
                (if first == '0' { '1' } else { first }, close + 1)
            }
            '\\' => {
                let escaped = chars.get(i + 1).copied().unwrap_or('\\');
                let atom = match escaped {
                    'd' => '1',
                    'w' => 'a',
                    's' => ' ',
                    other => other,
                };
                (atom, i + 2)
            }
            '.' => ('a', i + 1),
            literal => (literal, i + 1),
        };
        let (count, after) = quantifier(&chars, next);
        for _ in 0..count {
            out.push(atom);
        }
        i = after;
    }
    out
}

fn quantifier(chars: &[char], at: usize) -> (usize, usize) {
    match chars.get(at) {
        Some('+') => (1, at + 1),
        Some('*' | '?') => (0, at + 1),
        Some('{') => {
            let close = chars[at..]
                .iter()
                .position(|c| *c == '}')
                .map_or(chars.len(), |p| at + p);
            let inner: String = chars[at + 1..close.min(chars.len())].iter().collect();
            let n = inner
                .split(',')
                .next()
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(1);
            (n, close + 1)
        }
        _ => (1, at),
    }
}
