//! Test support: a small seeded generator of instances of a rendered JSON Schema (the subset
//! `output_schema` uses: enum, const, pattern, not-pattern, min/max lengths, items and
//! properties, required, minProperties, uniqueItems, if/then, contains with min/maxContains),
//! and the mutations that break exactly one stated rule. It reads the rendered JSON, not the
//! `Schema` the validator walks, so it checks the document agents are given.

use regex::Regex;
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value, json};

/// splitmix64: small, seeded, good enough to vary instances.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.next() % (hi - lo + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.range(0, 99) < percent
    }

    fn pick<'a, T>(&mut self, list: &'a [T]) -> &'a T {
        &list[self.range(0, list.len() as u64 - 1) as usize]
    }
}

fn usize_of(node: &Value, key: &str) -> Option<usize> {
    node.get(key).and_then(Value::as_u64).map(|n| n as usize)
}

fn required(node: &Value) -> Vec<String> {
    node.get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("schema pattern {pattern:?}: {e}"))
}

/// One instance of `node`.
pub(crate) fn sample(node: &Value, rng: &mut Rng) -> Value {
    sample_some(node, rng).unwrap_or_else(|| panic!("no instance found for {node}"))
}

/// One instance of `node`, or `None` when none was found (a pattern no string matches: an
/// item id pattern of a run with one item, say).
fn sample_some(node: &Value, rng: &mut Rng) -> Option<Value> {
    (0..200).find_map(|_| try_sample(node, rng))
}

fn try_sample(node: &Value, rng: &mut Rng) -> Option<Value> {
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        return Some(rng.pick(values).clone());
    }
    if let Some(constant) = node.get("const") {
        return Some(constant.clone());
    }
    match node.get("type").and_then(Value::as_str) {
        Some("object") => sample_object(node, rng),
        Some("array") => sample_array(node, rng),
        Some("integer") => {
            let lo = node["minimum"].as_i64().unwrap_or(0);
            let hi = node["maximum"].as_i64().unwrap_or(lo + 100);
            Some(json!(lo + rng.range(0, hi.abs_diff(lo)).cast_signed()))
        }
        Some("number") => {
            let lo = node["minimum"].as_f64().unwrap_or(0.0);
            let hi = node["maximum"].as_f64().unwrap_or(lo + 100.0);
            let t = rng.range(0, 1000) as f64 / 1000.0;
            Some(json!(lo + (hi - lo) * t))
        }
        _ => sample_string(node, rng).map(Value::String),
    }
}

/// What free text is made of: ASCII, accents, CJK, an emoji, line breaks, quotes.
const ALPHABET: [&str; 12] = [
    "a", "z", "0", "-", " ", "é", "日", "🦀", "\n", "\t", "\"", "`",
];

fn sample_string(node: &Value, rng: &mut Rng) -> Option<String> {
    let min = usize_of(node, "minLength").unwrap_or(0);
    let max = usize_of(node, "maxLength").unwrap_or(min + 60);
    let text = if let Some(pattern) = node.get("pattern").and_then(Value::as_str) {
        let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
        let mut out = String::new();
        if !from_hir(&hir, rng, &mut out) {
            return None;
        }
        out
    } else {
        // Mostly short texts, sometimes the longest allowed.
        let len = if rng.chance(10) {
            max
        } else {
            rng.range(min as u64, max.min(min + 40) as u64) as usize
        };
        (0..len).map(|_| *rng.pick(&ALPHABET)).collect()
    };
    let chars = text.chars().count();
    if chars < min || chars > max {
        return None;
    }
    if let Some(not) = node.pointer("/not/pattern").and_then(Value::as_str)
        && regex(not).is_match(&text)
    {
        return None;
    }
    Some(text)
}

/// Appends a string `hir` matches; false when it matches none (an empty class).
fn from_hir(hir: &Hir, rng: &mut Rng, out: &mut String) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(lit) => {
            out.push_str(&String::from_utf8_lossy(&lit.0));
            true
        }
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            if ranges.is_empty() {
                return false;
            }
            let range = rng.pick(ranges);
            let (lo, hi) = (u32::from(range.start()), u32::from(range.end()));
            // Keep to the first plane's printable part most of the time.
            let hi = if rng.chance(90) {
                hi.min(lo.max(0x7e))
            } else {
                hi
            };
            let c = (0..20)
                .map(|_| char::from_u32(rng.range(u64::from(lo), u64::from(hi)) as u32))
                .find_map(|c| c)
                .unwrap_or(range.start());
            out.push(c);
            true
        }
        HirKind::Class(Class::Bytes(class)) => {
            if class.ranges().is_empty() {
                return false;
            }
            let range = rng.pick(class.ranges());
            out.push(rng.range(u64::from(range.start()), u64::from(range.end())) as u8 as char);
            true
        }
        HirKind::Repetition(rep) => {
            let max = rep.max.unwrap_or(rep.min + 6);
            (0..rng.range(u64::from(rep.min), u64::from(max))).all(|_| from_hir(&rep.sub, rng, out))
        }
        HirKind::Capture(capture) => from_hir(&capture.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().all(|part| from_hir(part, rng, out)),
        HirKind::Alternation(options) => from_hir(rng.pick(options), rng, out),
    }
}

fn sample_object(node: &Value, rng: &mut Rng) -> Option<Value> {
    let properties = node["properties"].as_object()?;
    let required = required(node);
    let mut map = Map::new();
    for (name, child) in properties {
        if required.contains(name) {
            map.insert(name.clone(), sample_some(child, rng)?);
        } else if rng.chance(50)
            && let Some(value) = sample_some(child, rng)
        {
            map.insert(name.clone(), value);
        }
    }
    let min = usize_of(node, "minProperties").unwrap_or(0);
    while map.len() < min {
        let (name, child) = rng.pick(&properties.iter().collect::<Vec<_>>()).to_owned();
        map.insert(name.clone(), sample(child, rng));
    }
    let rules: Vec<&Value> = node
        .get("allOf")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    // Make every if/then hold: either make the `then` true or the `if` false.
    for _ in 0..10 {
        let mut changed = false;
        for rule in &rules {
            let (Some(cond), Some(then)) = (rule.get("if"), rule.get("then")) else {
                continue;
            };
            let value = Value::Object(map.clone());
            if !holds(cond, &value) || holds(then, &value) {
                continue;
            }
            changed = true;
            let optional_if: Vec<String> = required_of(cond)
                .into_iter()
                .filter(|f| !required.contains(f))
                .collect();
            if !optional_if.is_empty() && cond.get("properties").is_none() && rng.chance(50) {
                for f in optional_if {
                    map.remove(&f);
                }
                continue;
            }
            for (name, constraint) in then
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if let Some(c) = constraint.get("const") {
                    map.insert(name.clone(), c.clone());
                }
            }
            for name in required_of(then) {
                if !map.contains_key(&name) {
                    map.insert(name.clone(), sample_some(&properties[&name], rng)?);
                }
            }
        }
        if !changed {
            return Some(Value::Object(map));
        }
    }
    None
}

fn required_of(node: &Value) -> Vec<String> {
    required(node)
}

/// Whether `value` satisfies `cond`, for the conditions `output_schema` writes: `required`
/// and `properties` with `const`.
pub(crate) fn holds(cond: &Value, value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return true;
    };
    if !required(cond).iter().all(|f| map.contains_key(f)) {
        return false;
    }
    cond.get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .all(|(name, c)| match (map.get(name), c.get("const")) {
            (Some(v), Some(k)) => v == k,
            _ => true,
        })
}

fn sample_array(node: &Value, rng: &mut Rng) -> Option<Value> {
    let items = &node["items"];
    let min = usize_of(node, "minItems").unwrap_or(0);
    let mut max = usize_of(node, "maxItems").unwrap_or(min + 4).min(min + 4);
    let unique = node["uniqueItems"] == true;
    if unique && let Some(values) = items.get("enum").and_then(Value::as_array) {
        max = max.min(values.len());
    }
    let len = rng.range(min as u64, max.max(min) as u64) as usize;
    let mut list: Vec<Value> = Vec::new();
    for _ in 0..len * 20 {
        if list.len() == len {
            break;
        }
        let v = sample(items, rng);
        if !(unique && list.contains(&v)) {
            list.push(v);
        }
    }
    if list.len() < len {
        return None;
    }
    plant_contains(node, &mut list, rng);
    let max = usize_of(node, "maxItems").unwrap_or(usize::MAX);
    (list.len() >= min && list.len() <= max).then_some(Value::Array(list))
}

/// `contains: {properties: {F: {contains: {const: v}}}}` with `minContains = maxContains = 1`:
/// clears `F` in every entry, puts each `v` in one random entry, drops entries left empty.
fn plant_contains(node: &Value, list: &mut Vec<Value>, rng: &mut Rng) {
    // `contains: {properties: {F: {const: v}}}`: one entry per value, `F` set to it.
    let scalar: Vec<(String, Value)> = node
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let props = c.pointer("/contains/properties")?.as_object()?;
            let (field, inner) = props.iter().next()?;
            Some((field.clone(), inner.get("const")?.clone()))
        })
        .collect();
    if !scalar.is_empty() && scalar.len() == list.len() {
        let mut order: Vec<usize> = (0..list.len()).collect();
        for i in (1..order.len()).rev() {
            let j = rng.range(0, i as u64) as usize;
            order.swap(i, j);
        }
        for (entry, at) in list.iter_mut().zip(order) {
            let (field, value) = &scalar[at];
            entry[field.as_str()] = value.clone();
        }
        return;
    }
    let constraints: Vec<(String, Value)> = node
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let props = c.pointer("/contains/properties")?.as_object()?;
            let (field, inner) = props.iter().next()?;
            Some((field.clone(), inner.pointer("/contains/const")?.clone()))
        })
        .collect();
    if constraints.is_empty() || list.is_empty() {
        return;
    }
    for entry in list.iter_mut() {
        for (field, _) in &constraints {
            entry[field.as_str()] = json!([]);
        }
    }
    for (field, value) in &constraints {
        let at = rng.range(0, list.len() as u64 - 1) as usize;
        if let Some(inner) = list[at][field.as_str()].as_array_mut() {
            inner.push(value.clone());
        }
    }
    list.retain(|entry| {
        constraints.iter().all(|(field, _)| {
            entry[field.as_str()]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
    });
}

/// One way to break one stated rule: the broken instance and the field its message must name.
#[derive(Debug, Clone)]
pub(crate) struct Mutation {
    pub rule: String,
    pub value: Value,
    pub names: String,
}

/// Every single-rule break of `instance` the schema `node` states.
pub(crate) fn mutations(node: &Value, instance: &Value, rng: &mut Rng) -> Vec<Mutation> {
    let mut out = Vec::new();
    collect(node, instance, &mut Vec::new(), "submission", rng, &mut out);
    out.into_iter()
        .map(|(rule, path, broken, names)| Mutation {
            rule,
            value: replace_at(instance, &path, broken),
            names,
        })
        .collect()
}

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn replace_at(root: &Value, path: &[Step], new: Value) -> Value {
    let mut root = root.clone();
    let mut at = &mut root;
    for step in path {
        at = match step {
            Step::Key(k) => &mut at[k.as_str()],
            Step::Index(i) => &mut at[*i],
        };
    }
    *at = new;
    root
}

type Found = (String, Vec<Step>, Value, String);

fn collect(
    node: &Value,
    value: &Value,
    path: &mut Vec<Step>,
    name: &str,
    rng: &mut Rng,
    out: &mut Vec<Found>,
) {
    let mut push = |rule: &str, broken: Value, names: &str| {
        out.push((rule.to_owned(), path.clone(), broken, names.to_owned()));
    };
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        let outside = json!("not-one-of-these");
        if !values.contains(&outside) {
            push("enum", outside, name);
        }
        return;
    }
    match node.get("type").and_then(Value::as_str) {
        Some("object") => {
            let Some(map) = value.as_object() else { return };
            push("type", json!("not an object"), name);
            for field in required(node) {
                let mut broken = map.clone();
                broken.remove(&field);
                push("required", Value::Object(broken), &field);
            }
            let mut extra = map.clone();
            extra.insert("unexpected_field".into(), json!(1));
            push(
                "additionalProperties",
                Value::Object(extra),
                "unexpected_field",
            );
            if usize_of(node, "minProperties").is_some_and(|n| n > 0) {
                push("minProperties", json!({}), name);
            }
            let properties = &node["properties"];
            for rule in node
                .get("allOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let (Some(cond), Some(then)) = (rule.get("if"), rule.get("then")) else {
                    continue;
                };
                if let Some(broken) = break_if_then(cond, then, properties, map, rng) {
                    push("if/then", Value::Object(broken.0), &broken.1);
                }
            }
            for (key, child) in map {
                if let Some(child_node) = properties.get(key) {
                    path.push(Step::Key(key.clone()));
                    collect(child_node, child, path, key, rng, out);
                    path.pop();
                }
            }
        }
        Some("array") => {
            let Some(list) = value.as_array() else { return };
            push("type", json!({"not": "an array"}), name);
            let min = usize_of(node, "minItems").unwrap_or(0);
            let max = usize_of(node, "maxItems").unwrap_or(usize::MAX);
            if min > 0 {
                push("minItems", Value::Array(list[..min - 1].to_vec()), name);
            }
            if max < 60 && !list.is_empty() {
                let mut longer = list.clone();
                while longer.len() <= max {
                    longer.push(list[0].clone());
                }
                push("maxItems", Value::Array(longer), name);
            }
            if node["uniqueItems"] == true && !list.is_empty() && list.len() < max {
                let mut twice = list.clone();
                twice.push(list[0].clone());
                push("uniqueItems", Value::Array(twice), name);
            }
            contains_breaks(node, list, name, &mut push);
            for (i, child) in list.iter().enumerate() {
                path.push(Step::Index(i));
                collect(&node["items"], child, path, name, rng, out);
                path.pop();
            }
        }
        Some("integer" | "number") => {
            push("type", json!("7"), name);
            if let Some(max) = node["maximum"].as_f64() {
                push("maximum", json!(max + 1.0), name);
            }
            if let Some(min) = node["minimum"].as_f64() {
                push("minimum", json!(min - 1.0), name);
            }
        }
        _ => string_breaks(node, value, name, &mut push),
    }
}

fn string_breaks(
    node: &Value,
    value: &Value,
    name: &str,
    push: &mut impl FnMut(&str, Value, &str),
) {
    let Some(text) = value.as_str() else { return };
    push("type", json!(12), name);
    let min = usize_of(node, "minLength").unwrap_or(0);
    let max = usize_of(node, "maxLength").unwrap_or(usize::MAX);
    if max < 100_000 {
        push("maxLength", json!("a".repeat(max + 1)), name);
    }
    if min > 0 {
        push("minLength", json!("a".repeat(min - 1)), name);
    }
    if let Some(pattern) = node.get("pattern").and_then(Value::as_str) {
        let re = regex(pattern);
        // Same length as the valid text, made of characters the patterns never start with.
        for candidate in [
            "Z".repeat(text.chars().count()),
            " ".repeat(text.chars().count()),
        ] {
            if !re.is_match(&candidate) {
                push("pattern", json!(candidate), name);
                break;
            }
        }
    }
    if let Some(not) = node.pointer("/not/pattern").and_then(Value::as_str) {
        let re = regex(not);
        for control in ["\n", "\t", "\u{0}", "\u{7f}", "\r"] {
            let mut chars: Vec<char> = text.chars().collect();
            let at = chars.len() / 2;
            if chars.len() < max {
                chars.insert(at, control.chars().next().unwrap_or('\n'));
            } else if !chars.is_empty() {
                chars[at] = control.chars().next().unwrap_or('\n');
            }
            let broken: String = chars.into_iter().collect();
            if re.is_match(&broken) {
                push("not pattern", json!(broken), name);
            }
        }
    }
}

fn contains_breaks(
    node: &Value,
    list: &[Value],
    name: &str,
    push: &mut impl FnMut(&str, Value, &str),
) {
    for c in node
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some((field, inner)) = c
            .pointer("/contains/properties")
            .and_then(Value::as_object)
            .and_then(|p| p.iter().next())
        else {
            continue;
        };
        if let Some(wanted) = inner.get("const") {
            // One entry per value: naming it in a second entry breaks maxContains.
            let holder = list.iter().position(|e| e[field.as_str()] == *wanted);
            if let Some(other) = holder.and_then(|h| (0..list.len()).find(|i| *i != h)) {
                let mut broken = list.to_vec();
                broken[other][field.as_str()] = wanted.clone();
                push("maxContains", Value::Array(broken), name);
            }
            continue;
        }
        let Some(wanted) = inner.pointer("/contains/const") else {
            continue;
        };
        let holder = list.iter().position(|e| {
            e[field.as_str()]
                .as_array()
                .is_some_and(|a| a.contains(wanted))
        });
        let Some(holder) = holder else { continue };
        // minContains: take it out of its entry (when the entry keeps another).
        if list[holder][field.as_str()]
            .as_array()
            .is_some_and(|a| a.len() > 1)
        {
            let mut broken = list.to_vec();
            if let Some(a) = broken[holder][field.as_str()].as_array_mut() {
                a.retain(|v| v != wanted);
            }
            push("minContains", Value::Array(broken), name);
        }
        // maxContains: put it in a second entry too.
        if let Some(other) = (0..list.len()).find(|i| *i != holder) {
            let mut broken = list.to_vec();
            if let Some(a) = broken[other][field.as_str()].as_array_mut() {
                a.push(wanted.clone());
            }
            push("maxContains", Value::Array(broken), name);
        }
    }
}

/// Breaks one `if`/`then`: makes the `if` hold and the `then` fail. Returns the object and the
/// field the message must name.
fn break_if_then(
    cond: &Value,
    then: &Value,
    properties: &Value,
    map: &Map<String, Value>,
    rng: &mut Rng,
) -> Option<(Map<String, Value>, String)> {
    let mut broken = map.clone();
    for (name, c) in cond
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        broken.insert(name.clone(), c.get("const")?.clone());
    }
    for name in required(cond) {
        if !broken.contains_key(&name) {
            broken.insert(name.clone(), sample(&properties[&name], rng));
        }
    }
    // then: required fields removed, or a const property set to another allowed value.
    let then_required = required(then);
    let then_const: Vec<(&String, &Value)> = then
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(n, c)| Some((n, c.get("const")?)))
        .collect();
    let named = required(cond)
        .into_iter()
        .find(|f| cond.get("properties").and_then(|p| p.get(f)).is_none());
    if let Some((name, constant)) = then_const.first() {
        let other = properties[name.as_str()]["enum"]
            .as_array()?
            .iter()
            .find(|v| v != constant)?
            .clone();
        broken.insert((*name).clone(), other);
        return Some((broken, named.unwrap_or_else(|| (*name).clone())));
    }
    let field = then_required.first()?.clone();
    broken.remove(&field);
    Some((broken, field))
}
