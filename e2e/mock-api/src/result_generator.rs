//! Builds a submission from an item's `output_schema` (JSON Schema draft 2020-12): required
//! fields only (plus those an `if`/`then` requires), first enum value, strings of at least
//! `minLength`, arrays of `minItems`, numbers at `minimum`; plus a deliberately broken variant
//! for "submit invalid" scenarios.

use serde_json::{Map, Value, json};

/// Whether a schema describes a markdown submission (plans, reviews) rather than JSON.
pub fn is_markdown(schema: &Value) -> bool {
    schema.get("contentMediaType").and_then(Value::as_str) == Some("text/markdown")
}

/// The smallest value that satisfies `schema`, as far as this generator understands it.
///
/// Arrays whose items are an `enum` list every distinct enum value (up to `maxItems`), so an
/// aggregator's group names each item of its slice once; arrays that must hold one entry per
/// value of a field (a triage batch's verdicts) get exactly those entries.
pub fn generate(schema: &Value) -> Value {
    let mut value = node(schema, "value");
    // What an `if`/`then` requires of the first enum values (a survey's `fix_all` needs its
    // `root_cause`).
    if let Value::Object(map) = &mut value {
        add_conditionally_required(schema, map);
    }
    value
}

/// `generate(schema)` with `overrides`' top-level keys replacing (or adding) fields; for a
/// markdown schema a string override replaces the text.
///
/// Fields an `if`/`then` of the schema requires once the overrides are in (`duplicate_of` after
/// `"verdict": "duplicate"`) are generated too.
pub fn generate_with(schema: &Value, overrides: &Value) -> Value {
    let mut value = generate(schema);
    match (&mut value, overrides) {
        (Value::Object(map), Value::Object(extra)) => {
            for (k, v) in extra {
                map.insert(k.clone(), v.clone());
            }
            add_conditionally_required(schema, map);
        }
        (Value::String(_), Value::String(text)) => value = Value::String(text.clone()),
        _ => {}
    }
    value
}

/// For each `if`/`then` of `schema` whose `if` holds (`required` and `const` properties),
/// generates the fields its `then` requires that `map` lacks.
fn add_conditionally_required(schema: &Value, map: &mut Map<String, Value>) {
    let rules = schema.get("allOf").and_then(Value::as_array);
    for rule in rules.into_iter().flatten() {
        let (Some(cond), Some(then)) = (rule.get("if"), rule.get("then")) else {
            continue;
        };
        let holds = required(cond).iter().all(|f| map.contains_key(*f))
            && cond
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .all(|(name, c)| c.get("const").is_none_or(|k| map.get(name) == Some(k)));
        if !holds {
            continue;
        }
        for field in required(then) {
            if !map.contains_key(field) {
                let child = schema
                    .get("properties")
                    .and_then(|p| p.get(field))
                    .unwrap_or(&Value::Null);
                map.insert(field.to_owned(), node(child, field));
            }
        }
    }
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
        // A verdict's confidence says the model is sure: at the minimum (0) every generated
        // `real` would get a second look (issue 48), which a scenario asks for by answering so.
        "number" if name == "confidence" => json!(0.9),
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
    // One entry per `contains: {properties: {F: {const: v}}}` (a triage batch: one verdict per
    // finding, each naming its `item`).
    let each: Vec<(&String, &Value)> = schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let (field, inner) = c
                .pointer("/contains/properties")?
                .as_object()?
                .iter()
                .next()?;
            Some((field, inner.get("const")?))
        })
        .collect();
    if !each.is_empty() {
        return Value::Array(
            each.into_iter()
                .map(|(field, value)| {
                    let mut entry = node(items, name);
                    entry[field.as_str()] = value.clone();
                    entry
                })
                .collect(),
        );
    }
    Value::Array((0..min).map(|_| node(items, name)).collect())
}

fn string(schema: &Value, name: &str) -> String {
    let min = usize_of(schema, "minLength").unwrap_or(0);
    let max = usize_of(schema, "maxLength").unwrap_or(usize::MAX);
    if let Some(pattern) = schema
        .get("pattern")
        .and_then(Value::as_str)
        .filter(|_| !is_markdown(schema))
    {
        return sample_of_pattern(pattern);
    }
    let mut text = if is_markdown(schema) {
        format!("# Mock {name}\n\n- written by the scripted model\n- step one: change the code\n")
    } else {
        format!("mock {name}")
    };
    // Counted as `submit` counts markdown: without the spaces and line breaks at either end.
    while text.trim().chars().count() < min {
        text.push_str(if is_markdown(schema) {
            "- more detail\n"
        } else {
            " text"
        });
    }
    text.chars().take(max.max(1)).collect()
}

/// One string matching a simple anchored regex: literals, `[...]` classes (first member),
/// `\d`, groups `(a|b)` (first alternative), and the quantifiers `+ * ? {n} {n,m}` (minimum
/// count, at least one for `+`).
pub fn sample_of_pattern(pattern: &str) -> String {
    let body = pattern.trim_start_matches('^').trim_end_matches('$');
    let chars: Vec<char> = body.chars().collect();
    sample_of_chars(&chars)
}

fn sample_of_chars(chars: &[char]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '(' {
            let close = group_end(chars, i);
            let inner = &chars[i + 1..close.min(chars.len())];
            let first = first_alternative(inner);
            let (count, after) = quantifier(chars, close + 1);
            let text = sample_of_chars(first);
            for _ in 0..count {
                out.push_str(&text);
            }
            i = after;
            continue;
        }
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
        let (count, after) = quantifier(chars, next);
        for _ in 0..count {
            out.push(atom);
        }
        i = after;
    }
    out
}

/// The index of the `)` closing the group opened at `open`.
fn group_end(chars: &[char], open: usize) -> usize {
    let mut depth = 0;
    let mut in_class = false;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

/// The first top-level alternative of a group's body.
fn first_alternative(inner: &[char]) -> &[char] {
    let mut depth = 0;
    let mut in_class = false;
    let mut i = 0;
    while i < inner.len() {
        match inner[i] {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => depth -= 1,
            '|' if !in_class && depth == 0 => return &inner[..i],
            _ => {}
        }
        i += 1;
    }
    inner
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
