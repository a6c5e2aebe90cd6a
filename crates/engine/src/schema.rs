//! One description of what `submit` accepts, used twice: rendered as JSON Schema (draft
//! 2020-12) for agents, and walked to validate submissions with messages naming the field.

use serde_json::{Map, Value, json};

/// A string check that JSON Schema expresses as `pattern`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// `^t-[0-9]+$`
    TriageId,
    /// `^[a-z0-9][a-z0-9-]*$`
    Label,
}

impl Pattern {
    fn regex(self) -> &'static str {
        match self {
            Pattern::TriageId => "^t-[0-9]+$",
            Pattern::Label => "^[a-z0-9][a-z0-9-]*$",
        }
    }

    fn matches(self, text: &str) -> bool {
        match self {
            Pattern::TriageId => text
                .strip_prefix("t-")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
            Pattern::Label => {
                let mut bytes = text.bytes();
                bytes
                    .next()
                    .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                    && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            }
        }
    }
}

/// A node of the accepted shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Schema {
    Object(Vec<Field>),
    String {
        min: usize,
        max: usize,
        one_of: Vec<String>,
        pattern: Option<Pattern>,
    },
    Integer {
        min: i64,
        max: i64,
    },
    Number {
        min: f64,
        max: f64,
    },
    Array {
        items: Box<Schema>,
        min: usize,
        max: usize,
    },
    /// The whole submission is markdown text, not JSON.
    Markdown {
        min: usize,
        max: usize,
    },
}

/// One property of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: &'static str,
    pub required: bool,
    pub description: &'static str,
    pub schema: Schema,
}

impl Field {
    /// A required property.
    pub fn required(name: &'static str, description: &'static str, schema: Schema) -> Field {
        Field {
            name,
            required: true,
            description,
            schema,
        }
    }

    /// An optional property.
    pub fn optional(name: &'static str, description: &'static str, schema: Schema) -> Field {
        Field {
            name,
            required: false,
            description,
            schema,
        }
    }
}

impl Schema {
    /// A free string of bounded length.
    pub fn text(min: usize, max: usize) -> Schema {
        Schema::String {
            min,
            max,
            one_of: Vec::new(),
            pattern: None,
        }
    }

    /// A string that must be one of `values`.
    pub fn one_of<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Schema {
        Schema::String {
            min: 1,
            max: 200,
            one_of: values.into_iter().map(Into::into).collect(),
            pattern: None,
        }
    }

    /// A string matching a pattern.
    pub fn pattern(pattern: Pattern, max: usize) -> Schema {
        Schema::String {
            min: 1,
            max,
            one_of: Vec::new(),
            pattern: Some(pattern),
        }
    }

    /// An array of `items`.
    pub fn array(items: Schema, min: usize, max: usize) -> Schema {
        Schema::Array {
            items: Box::new(items),
            min,
            max,
        }
    }

    /// The JSON Schema (draft 2020-12) document for this shape, with a title.
    pub fn to_json_schema(&self, title: &str) -> Value {
        let mut doc = self.node();
        if let Value::Object(map) = &mut doc {
            map.insert(
                "$schema".into(),
                json!("https://json-schema.org/draft/2020-12/schema"),
            );
            map.insert("title".into(), json!(title));
        }
        doc
    }

    fn node(&self) -> Value {
        match self {
            Schema::Object(fields) => {
                let mut properties = Map::new();
                for field in fields {
                    let mut node = field.schema.node();
                    if let Value::Object(map) = &mut node {
                        map.insert("description".into(), json!(field.description));
                    }
                    properties.insert(field.name.into(), node);
                }
                let required: Vec<&str> = fields
                    .iter()
                    .filter(|f| f.required)
                    .map(|f| f.name)
                    .collect();
                json!({"type": "object", "properties": properties, "required": required,
                       "additionalProperties": false})
            }
            Schema::String {
                min,
                max,
                one_of,
                pattern,
            } => {
                let mut node = json!({"type": "string"});
                if one_of.is_empty() {
                    node["minLength"] = json!(min);
                    node["maxLength"] = json!(max);
                } else {
                    node["enum"] = json!(one_of);
                }
                if let Some(p) = pattern {
                    node["pattern"] = json!(p.regex());
                }
                node
            }
            Schema::Integer { min, max } => {
                json!({"type": "integer", "minimum": min, "maximum": max})
            }
            Schema::Number { min, max } => {
                json!({"type": "number", "minimum": min, "maximum": max})
            }
            Schema::Array { items, min, max } => {
                json!({"type": "array", "items": items.node(), "minItems": min, "maxItems": max})
            }
            Schema::Markdown { min, max } => json!({"type": "string",
                "contentMediaType": "text/markdown", "minLength": min, "maxLength": max}),
        }
    }

    /// Every violation in `value`, each naming its field path and what is allowed.
    pub fn violations(&self, value: &Value) -> Vec<String> {
        let mut out = Vec::new();
        self.walk(value, "", &mut out);
        out
    }

    fn walk(&self, value: &Value, path: &str, out: &mut Vec<String>) {
        let at = if path.is_empty() {
            "the submission".to_owned()
        } else {
            format!("field `{path}`")
        };
        match self {
            Schema::Object(fields) => {
                let Some(map) = value.as_object() else {
                    out.push(format!(
                        "{at}: expected a JSON object, got {}",
                        kind_of(value)
                    ));
                    return;
                };
                for field in fields {
                    let child = join(path, field.name);
                    match map.get(field.name) {
                        Some(Value::Null) | None if field.required => {
                            out.push(format!("field `{child}` is missing: {}", field.description));
                        }
                        Some(Value::Null) | None => {}
                        Some(v) => field.schema.walk(v, &child, out),
                    }
                }
                for key in map.keys() {
                    if !fields.iter().any(|f| f.name == key) {
                        let allowed: Vec<&str> = fields.iter().map(|f| f.name).collect();
                        out.push(format!(
                            "field `{}` is not allowed; allowed fields: {}",
                            join(path, key),
                            allowed.join(", ")
                        ));
                    }
                }
            }
            Schema::String {
                min,
                max,
                one_of,
                pattern,
            } => {
                let Some(text) = value.as_str() else {
                    out.push(format!("{at}: expected a string, got {}", kind_of(value)));
                    return;
                };
                if !one_of.is_empty() {
                    if !one_of.iter().any(|v| v == text) {
                        out.push(format!(
                            "{at}: expected one of {}; got {}",
                            one_of.join(", "),
                            quote(text)
                        ));
                    }
                    return;
                }
                let chars = text.chars().count();
                if chars < *min || chars > *max {
                    out.push(format!(
                        "{at}: expected {min} to {max} characters, got {chars}"
                    ));
                }
                if let Some(p) = pattern.filter(|p| !p.matches(text)) {
                    out.push(format!(
                        "{at}: expected text matching {}; got {}",
                        p.regex(),
                        quote(text)
                    ));
                }
            }
            Schema::Integer { min, max } => match value.as_i64() {
                Some(n) if (*min..=*max).contains(&n) => {}
                _ => out.push(format!(
                    "{at}: expected a whole number from {min} to {max}, got {}",
                    short(value)
                )),
            },
            Schema::Number { min, max } => match value.as_f64() {
                Some(n) if n >= *min && n <= *max => {}
                _ => out.push(format!(
                    "{at}: expected a number from {min} to {max}, got {}",
                    short(value)
                )),
            },
            Schema::Array { items, min, max } => {
                let Some(list) = value.as_array() else {
                    out.push(format!("{at}: expected an array, got {}", kind_of(value)));
                    return;
                };
                if list.len() < *min || list.len() > *max {
                    out.push(format!(
                        "{at}: expected {min} to {max} entries, got {}",
                        list.len()
                    ));
                }
                for (i, v) in list.iter().enumerate() {
                    items.walk(v, &format!("{path}[{i}]"), out);
                }
            }
            Schema::Markdown { min, max } => {
                let text = value.as_str().unwrap_or_default();
                let chars = text.trim().chars().count();
                if chars < *min || chars > *max {
                    out.push(format!(
                        "{at}: expected markdown of {min} to {max} characters, got {chars}"
                    ));
                }
            }
        }
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

fn quote(text: &str) -> String {
    short(&Value::String(text.to_owned()))
}
