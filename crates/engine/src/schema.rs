//! One description of what `submit` accepts, used twice: rendered as JSON Schema (draft
//! 2020-12) for agents, and walked to validate submissions with messages naming the field.
//! Every rule the walk enforces is stated in the rendered schema (ARCHITECTURE.md §11.8), in a
//! form every common regex engine reads the same way: no pattern relies on `$` alone, because
//! Python, PCRE and Java let `$` match before a final newline; one-line fields state "no control
//! character" as a separate `not` pattern instead.

use serde_json::{Map, Value, json};

/// The characters a one-line field may not hold: C0 controls (newline, tab, ...) and DEL,
/// written with `\x` escapes, which ECMA-262, Python, PCRE, Java, RE2 and Rust all read.
const CONTROL_CLASS: &str = r"[\x00-\x1f\x7f]";

/// The whitespace a markdown submission is trimmed of before its length is measured.
fn is_trimmed_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Trims what [`is_trimmed_space`] names from both ends.
pub fn trim_markdown(text: &str) -> &str {
    text.trim_matches(is_trimmed_space)
}

/// A string check that JSON Schema expresses as `pattern`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// `^t-[0-9]+$`: any triage item id.
    TriageId,
    /// The id of a triage item of this run, `t-1` to `t-<count>` (leading zeros allowed, as in
    /// `t-00042`), other than `t-<except>`.
    TriageIdOf { count: u32, except: Option<u32> },
    /// `^[a-z0-9][a-z0-9-]*$`
    Label,
}

impl Pattern {
    /// The regex of the rendered schema.
    pub fn regex(self) -> String {
        match self {
            Pattern::TriageId => "^t-[0-9]+$".to_owned(),
            Pattern::TriageIdOf { count, except } => {
                let mut alternatives = Vec::new();
                let (below, above) = match except {
                    Some(k) if (1..=count).contains(&k) => (k - 1, Some(k + 1)),
                    _ => (count, None),
                };
                if below >= 1 {
                    alternatives.extend(number_range(1, u64::from(below)));
                }
                if let Some(from) = above.filter(|from| *from <= count) {
                    alternatives.extend(number_range(u64::from(from), u64::from(count)));
                }
                if alternatives.is_empty() {
                    // No other triage item exists: nothing can match.
                    return "^t-[^\\s\\S]$".to_owned();
                }
                format!("^t-0*({})$", alternatives.join("|"))
            }
            Pattern::Label => "^[a-z0-9][a-z0-9-]*$".to_owned(),
        }
    }

    /// Whether `text` matches [`Pattern::regex`] (computed without a regex engine).
    pub fn matches(self, text: &str) -> bool {
        match self {
            Pattern::TriageId => text
                .strip_prefix("t-")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
            Pattern::TriageIdOf { count, except } => {
                let Some(digits) = text
                    .strip_prefix("t-")
                    .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                else {
                    return false;
                };
                let significant = digits.trim_start_matches('0');
                if significant.len() > 10 {
                    return false;
                }
                let n: u64 = significant.parse().unwrap_or(0);
                n >= 1 && n <= u64::from(count) && except.is_none_or(|k| n != u64::from(k))
            }
            Pattern::Label => {
                let mut bytes = text.bytes();
                bytes
                    .next()
                    .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                    && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            }
        }
    }

    fn explain(self, text: &str) -> String {
        match self {
            Pattern::TriageIdOf { count, except } => {
                let not_self = except.map_or(String::new(), |k| format!(", other than t-{k:05}"));
                format!(
                    "{} is not another triage item of this run (t-00001 to t-{count:05}{not_self})",
                    quote(text)
                )
            }
            _ => format!(
                "expected text matching {}; got {}",
                self.regex(),
                quote(text)
            ),
        }
    }
}

/// Alternatives of a regex matching the decimal numbers `lo..=hi` (no leading zeros), `lo >= 1`.
fn number_range(lo: u64, hi: u64) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = lo;
    while start <= hi {
        let digits = start.to_string().len() as u32;
        let end = hi.min(10u64.pow(digits) - 1);
        out.extend(same_length_range(
            start.to_string().as_bytes(),
            end.to_string().as_bytes(),
        ));
        start = end + 1;
    }
    out
}

fn digit_class(a: u8, b: u8) -> String {
    if a == b {
        (a as char).to_string()
    } else {
        format!("[{}-{}]", a as char, b as char)
    }
}

fn any_digits(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => "[0-9]".to_owned(),
        n => format!("[0-9]{{{n}}}"),
    }
}

/// Alternatives for `lo..=hi`, both of the same number of digits.
fn same_length_range(lo: &[u8], hi: &[u8]) -> Vec<String> {
    let rest = lo.len() - 1;
    if rest == 0 {
        return vec![digit_class(lo[0], hi[0])];
    }
    if lo[0] == hi[0] {
        return same_length_range(&lo[1..], &hi[1..])
            .into_iter()
            .map(|tail| format!("{}{tail}", lo[0] as char))
            .collect();
    }
    let lo_full = lo[1..].iter().all(|b| *b == b'0');
    let hi_full = hi[1..].iter().all(|b| *b == b'9');
    let mut out = Vec::new();
    let mut first = lo[0];
    if !lo_full {
        let nines = vec![b'9'; rest];
        out.extend(
            same_length_range(&lo[1..], &nines)
                .into_iter()
                .map(|tail| format!("{}{tail}", lo[0] as char)),
        );
        first += 1;
    }
    let last = if hi_full { hi[0] } else { hi[0] - 1 };
    if first <= last {
        out.push(format!("{}{}", digit_class(first, last), any_digits(rest)));
    }
    if !hi_full {
        let zeros = vec![b'0'; rest];
        out.extend(
            same_length_range(&zeros, &hi[1..])
                .into_iter()
                .map(|tail| format!("{}{tail}", hi[0] as char)),
        );
    }
    out
}

/// A rule between two properties of one object.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// `field` is required when the property `when` equals `value`.
    RequiredWhen {
        field: &'static str,
        when: &'static str,
        value: &'static str,
    },
    /// `field` is allowed only when the property `when` equals `value`.
    OnlyWhen {
        field: &'static str,
        when: &'static str,
        value: &'static str,
    },
}

impl Rule {
    fn node(&self) -> Value {
        match self {
            Rule::RequiredWhen { field, when, value } => json!({
                "if": {"properties": {*when: {"const": value}}, "required": [when]},
                "then": {"required": [field]},
            }),
            Rule::OnlyWhen { field, when, value } => json!({
                "if": {"required": [field]},
                "then": {"properties": {*when: {"const": value}}, "required": [when]},
            }),
        }
    }
}

/// Each of `values` must be in the property `field` of exactly one element: in the array
/// `field` holds (an aggregator's `items`), or, when `scalar`, as the string `field` is (a
/// batch's one verdict per `item`).
#[derive(Debug, Clone, PartialEq)]
pub struct EachOnce {
    pub field: &'static str,
    pub values: Vec<String>,
    pub scalar: bool,
}

/// A node of the accepted shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Schema {
    Object {
        fields: Vec<Field>,
        rules: Vec<Rule>,
        min_properties: usize,
    },
    String {
        min: usize,
        max: usize,
        one_of: Vec<String>,
        pattern: Option<Pattern>,
        /// No control character (newline, tab, ...).
        one_line: bool,
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
        unique: bool,
        each_once: Option<EachOnce>,
    },
    /// The whole submission is markdown text, not JSON; `min` counts characters once spaces,
    /// tabs and line breaks are trimmed from both ends, `max` counts them all.
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
    /// An object of `fields`, no other property.
    pub fn object(fields: Vec<Field>) -> Schema {
        Schema::Object {
            fields,
            rules: Vec::new(),
            min_properties: 0,
        }
    }

    /// This object with a rule between its properties.
    #[must_use]
    pub fn with_rule(mut self, rule: Rule) -> Schema {
        if let Schema::Object { rules, .. } = &mut self {
            rules.push(rule);
        }
        self
    }

    /// This object with at least `n` properties.
    #[must_use]
    pub fn with_min_properties(mut self, n: usize) -> Schema {
        if let Schema::Object { min_properties, .. } = &mut self {
            *min_properties = n;
        }
        self
    }

    /// This array with unique entries.
    #[must_use]
    pub fn with_unique_items(mut self) -> Schema {
        if let Schema::Array { unique, .. } = &mut self {
            *unique = true;
        }
        self
    }

    /// This array with each of `values` in the array property `field` of exactly one entry.
    #[must_use]
    pub fn with_each_once(mut self, field: &'static str, values: Vec<String>) -> Schema {
        if let Schema::Array { each_once, .. } = &mut self {
            *each_once = Some(EachOnce {
                field,
                values,
                scalar: false,
            });
        }
        self
    }

    /// This array of objects with exactly one entry whose string property `field` is each of
    /// `values`.
    #[must_use]
    pub fn with_one_entry_each(mut self, field: &'static str, values: Vec<String>) -> Schema {
        if let Schema::Array { each_once, .. } = &mut self {
            *each_once = Some(EachOnce {
                field,
                values,
                scalar: true,
            });
        }
        self
    }

    /// A free string of bounded length (line breaks allowed).
    pub fn text(min: usize, max: usize) -> Schema {
        Schema::String {
            min,
            max,
            one_of: Vec::new(),
            pattern: None,
            one_line: false,
        }
    }

    /// A string of bounded length on one line, without control characters.
    pub fn line(min: usize, max: usize) -> Schema {
        Schema::String {
            min,
            max,
            one_of: Vec::new(),
            pattern: None,
            one_line: true,
        }
    }

    /// A string that must be one of `values`.
    pub fn one_of<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Schema {
        Schema::String {
            min: 1,
            max: 200,
            one_of: values.into_iter().map(Into::into).collect(),
            pattern: None,
            one_line: false,
        }
    }

    /// A one-line string matching a pattern.
    pub fn pattern(pattern: Pattern, max: usize) -> Schema {
        Schema::String {
            min: 1,
            max,
            one_of: Vec::new(),
            pattern: Some(pattern),
            one_line: true,
        }
    }

    /// An array of `items`.
    pub fn array(items: Schema, min: usize, max: usize) -> Schema {
        Schema::Array {
            items: Box::new(items),
            min,
            max,
            unique: false,
            each_once: None,
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
            Schema::Object {
                fields,
                rules,
                min_properties,
            } => {
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
                let mut node = json!({"type": "object", "properties": properties,
                    "required": required, "additionalProperties": false});
                if *min_properties > 0 {
                    node["minProperties"] = json!(min_properties);
                }
                if !rules.is_empty() {
                    node["allOf"] = rules.iter().map(Rule::node).collect();
                }
                node
            }
            Schema::String {
                min,
                max,
                one_of,
                pattern,
                one_line,
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
                if *one_line && one_of.is_empty() {
                    node["not"] = json!({"pattern": CONTROL_CLASS});
                }
                node
            }
            Schema::Integer { min, max } => {
                json!({"type": "integer", "minimum": min, "maximum": max})
            }
            Schema::Number { min, max } => {
                json!({"type": "number", "minimum": min, "maximum": max})
            }
            Schema::Array {
                items,
                min,
                max,
                unique,
                each_once,
            } => {
                let mut node = json!({"type": "array", "items": items.node(), "minItems": min, "maxItems": max});
                if *unique {
                    node["uniqueItems"] = json!(true);
                }
                if let Some(EachOnce {
                    field,
                    values,
                    scalar,
                }) = each_once
                {
                    node["allOf"] = values
                        .iter()
                        .map(|v| {
                            let holds = if *scalar {
                                json!({"properties": {*field: {"const": v}}, "required": [field]})
                            } else {
                                json!({"properties": {*field: {"contains": {"const": v}}}})
                            };
                            json!({"contains": holds, "minContains": 1, "maxContains": 1})
                        })
                        .collect();
                }
                node
            }
            Schema::Markdown { min, max } => {
                // Trimmed length >= min: a non-space character, then one at least min-1 later.
                let between = min.saturating_sub(2);
                json!({"type": "string", "contentMediaType": "text/markdown",
                       "minLength": min, "maxLength": max,
                       "pattern": format!("[^ \\t\\n\\r][\\s\\S]{{{between},}}[^ \\t\\n\\r]")})
            }
        }
    }

    /// `value` with whole numbers written as `3.0` at integer places rewritten as `3`: JSON
    /// Schema counts both as integers, and so does `submit`.
    pub fn normalize(&self, value: &mut Value) {
        match (self, value) {
            (Schema::Object { fields, .. }, Value::Object(map)) => {
                for field in fields {
                    if let Some(v) = map.get_mut(field.name) {
                        field.schema.normalize(v);
                    }
                }
            }
            (Schema::Array { items, .. }, Value::Array(list)) => {
                for v in list {
                    items.normalize(v);
                }
            }
            (Schema::Integer { .. }, value @ Value::Number(_)) => {
                if let Some(f) = value.as_f64().filter(|_| !value.is_i64())
                    && f.fract() == 0.0
                    && f.abs() < 9.0e15
                {
                    *value = json!(f as i64);
                }
            }
            _ => {}
        }
    }

    /// Every violation in `value`, each naming its field path and what is allowed.
    pub fn violations(&self, value: &Value) -> Vec<String> {
        let mut out = Vec::new();
        self.walk(value, &FieldPath::Root, &mut out);
        out
    }

    /// Checks `value` at `path`. The path is written out only when a violation names it: a
    /// valid submission (every one the fold replays) formats nothing.
    fn walk(&self, value: &Value, path: &FieldPath<'_>, out: &mut Vec<String>) {
        let at = At(path);
        match self {
            Schema::Object {
                fields,
                rules,
                min_properties,
            } => {
                let Some(map) = value.as_object() else {
                    out.push(format!(
                        "{at}: expected a JSON object, got {}",
                        kind_of(value)
                    ));
                    return;
                };
                for field in fields {
                    let child = FieldPath::Field(path, field.name);
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
                            FieldPath::Field(path, key),
                            allowed.join(", ")
                        ));
                    }
                }
                let present = map.values().filter(|v| !v.is_null()).count();
                if present < *min_properties {
                    let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
                    out.push(format!(
                        "{at}: give at least {min_properties} of {}",
                        names.join(", ")
                    ));
                }
                for rule in rules {
                    check_rule(rule, fields, map, path, out);
                }
            }
            Schema::String {
                min,
                max,
                one_of,
                pattern,
                one_line,
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
                if let Some((i, c)) = text
                    .chars()
                    .enumerate()
                    .find(|(_, c)| *one_line && is_control(*c))
                {
                    out.push(format!(
                        "{at}: must be one line without control characters; character {} is U+{:04X}",
                        i + 1,
                        u32::from(c)
                    ));
                } else if let Some(p) = pattern.filter(|p| !p.matches(text)) {
                    out.push(format!("{at}: {}", p.explain(text)));
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
            Schema::Array {
                items,
                min,
                max,
                unique,
                each_once,
            } => {
                let Some(list) = value.as_array() else {
                    out.push(format!("{at}: expected an array, got {}", kind_of(value)));
                    return;
                };
                if list.len() < *min || list.len() > *max {
                    let expected = if min == max {
                        min.to_string()
                    } else {
                        format!("{min} to {max}")
                    };
                    out.push(format!(
                        "{at}: expected {expected} entries, got {}",
                        list.len()
                    ));
                }
                for (i, v) in list.iter().enumerate() {
                    items.walk(v, &FieldPath::Index(path, i), out);
                }
                if *unique
                    && let Some((i, v)) = list
                        .iter()
                        .enumerate()
                        .find(|(i, v)| list[..*i].contains(v))
                {
                    out.push(format!(
                        "{at}: entries must be unique; entry {} repeats {}",
                        i + 1,
                        short(v)
                    ));
                }
                if let Some(rule) = each_once {
                    check_each_once(rule, list, &at.to_string(), out);
                }
            }
            Schema::Markdown { min, max } => {
                let text = value.as_str().unwrap_or_default();
                let all = text.chars().count();
                let trimmed = trim_markdown(text).chars().count();
                if trimmed < *min || all > *max {
                    out.push(format!(
                        "{at}: expected markdown of {min} to {max} characters, got {trimmed}"
                    ));
                }
            }
        }
    }
}

fn check_rule(
    rule: &Rule,
    fields: &[Field],
    map: &Map<String, Value>,
    path: &FieldPath<'_>,
    out: &mut Vec<String>,
) {
    let present = |name: &str| map.get(name).is_some_and(|v| !v.is_null());
    let equals = |name: &str, value: &str| map.get(name).and_then(Value::as_str) == Some(value);
    match rule {
        Rule::RequiredWhen { field, when, value } => {
            if equals(when, value) && !present(field) {
                let description = fields
                    .iter()
                    .find(|f| f.name == *field)
                    .map_or("", |f| f.description);
                out.push(format!(
                    "field `{}` is missing: {when} {value} requires it ({description})",
                    FieldPath::Field(path, field)
                ));
            }
        }
        Rule::OnlyWhen { field, when, value } => {
            if present(field) && !equals(when, value) {
                out.push(format!(
                    "field `{}` is only allowed with {when} {value}; remove it or set {when} to {value}",
                    FieldPath::Field(path, field)
                ));
            }
        }
    }
}

fn check_each_once(rule: &EachOnce, list: &[Value], at: &str, out: &mut Vec<String>) {
    for value in &rule.values {
        let holders = list
            .iter()
            .filter(|entry| {
                if rule.scalar {
                    return entry[rule.field].as_str() == Some(value);
                }
                entry[rule.field]
                    .as_array()
                    .is_some_and(|inner| inner.iter().any(|v| v.as_str() == Some(value)))
            })
            .count();
        if rule.scalar {
            match holders {
                1 => {}
                0 => out.push(format!(
                    "{at}: no entry for {value}: add one with \"{}\": \"{value}\" (one entry \
                     for each of {})",
                    rule.field,
                    rule.values.join(", ")
                )),
                n => out.push(format!(
                    "{at}: {value} has {n} entries; give it exactly one"
                )),
            }
            continue;
        }
        match holders {
            1 => {}
            0 => out.push(format!(
                "{at}: {value} is in no entry's `{}`; every one of {} must be in exactly one",
                rule.field,
                rule.values.join(", ")
            )),
            n => out.push(format!(
                "{at}: {value} is in the `{}` of {n} entries; put it in exactly one",
                rule.field
            )),
        }
    }
}

fn is_control(c: char) -> bool {
    c <= '\u{1f}' || c == '\u{7f}'
}

/// Where a value sits in a submission (`verdicts[2].item`), written out only for a message.
enum FieldPath<'a> {
    Root,
    Field(&'a FieldPath<'a>, &'a str),
    Index(&'a FieldPath<'a>, usize),
}

impl std::fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldPath::Root => Ok(()),
            FieldPath::Field(FieldPath::Root, name) => f.write_str(name),
            FieldPath::Field(parent, name) => write!(f, "{parent}.{name}"),
            FieldPath::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// The subject of a message about the value at a path: ``field `x.y` `` or `the submission`.
struct At<'a>(&'a FieldPath<'a>);

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            FieldPath::Root => f.write_str("the submission"),
            path => write!(f, "field `{path}`"),
        }
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

#[cfg(test)]
mod short_tests {
    use super::*;

    #[test]
    fn a_value_is_shown_up_to_forty_characters_then_cut() {
        let forty = "x".repeat(38);
        assert_eq!(short(&Value::String(forty.clone())), format!("\"{forty}\""));
        let over = "x".repeat(39);
        assert_eq!(
            short(&Value::String(over)),
            format!("\"{}…", "x".repeat(39))
        );
        assert_eq!(quote("ok"), "\"ok\"");
    }
}
