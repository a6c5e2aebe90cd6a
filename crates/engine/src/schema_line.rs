//! The accepted shape as ONE compact line for the text prompt (issue 13, lean prompts): every
//! field, its type and bounds, and the rules between fields, in a few hundred bytes. The full
//! JSON Schema stays in `show --json`; an aggregator's per-member `contains` rules (one per item
//! of its slice) become one sentence here, so the line does not grow with the slice.

use crate::schema::{EachOnce, Field, Pattern, Rule, Schema};

/// Enumerations longer than this are named by their count (their values are the ids the task
/// lists), not spelled out.
const SPELLED_VALUES: usize = 8;

impl Schema {
    /// One line, e.g. `{"title": line 5-69, "labels"?: [label] 0-10}`: `line` is one line of
    /// text (no control character), `text` may span lines, `?` marks an optional field, `A|B`
    /// lists the allowed values, `[T] 1-20` is an array of 1 to 20 `T`.
    pub fn to_compact_line(&self) -> String {
        let mut notes = Vec::new();
        let shape = self.compact(&mut notes);
        if notes.is_empty() {
            shape
        } else {
            format!("{shape}; {}", notes.join("; "))
        }
    }

    fn compact(&self, notes: &mut Vec<String>) -> String {
        match self {
            Schema::Object {
                fields,
                rules,
                min_properties,
            } => {
                let inner: Vec<String> = fields.iter().map(|f| f.compact(notes)).collect();
                notes.extend(rules.iter().map(Rule::sentence));
                if *min_properties > 0 {
                    let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
                    notes.push(format!("at least {min_properties} of {}", names.join(", ")));
                }
                format!("{{{}}}", inner.join(", "))
            }
            Schema::String {
                min,
                max,
                one_of,
                pattern,
                one_line,
            } => {
                if one_of.len() > SPELLED_VALUES {
                    let first = one_of.first().map_or("", String::as_str);
                    let last = one_of.last().map_or("", String::as_str);
                    format!("one of the {} ids listed ({first} … {last})", one_of.len())
                } else if !one_of.is_empty() {
                    let quoted: Vec<String> = one_of.iter().map(|v| format!("\"{v}\"")).collect();
                    quoted.join("|")
                } else if let Some(p) = pattern {
                    p.compact()
                } else if *one_line {
                    format!("line {min}-{max}")
                } else {
                    format!("text {min}-{max}")
                }
            }
            Schema::Integer { min, max } => format!("integer {min}-{max}"),
            Schema::Number { min, max } => format!("number {min}-{max}"),
            Schema::Array {
                items,
                min,
                max,
                unique,
                each_once,
            } => {
                let unique = if *unique { " unique" } else { "" };
                match each_once {
                    Some(EachOnce {
                        field,
                        values,
                        scalar: true,
                    }) => notes.push(format!(
                        // A batch's entries name findings (`item`), a revision's `point`s.
                        "exactly one entry per listed {} ({}), named by its \"{field}\"",
                        if *field == "item" { "finding" } else { field },
                        values.len()
                    )),
                    Some(EachOnce { field, values, .. }) => notes.push(format!(
                        "each of the {} listed ids in the \"{field}\" of exactly one entry",
                        values.len()
                    )),
                    None => {}
                }
                format!("[{}] {min}-{max}{unique}", items.compact(notes))
            }
            Schema::Markdown { min, max } => {
                format!("markdown text (not JSON), {min}-{max} characters")
            }
        }
    }
}

impl Field {
    fn compact(&self, notes: &mut Vec<String>) -> String {
        let optional = if self.required { "" } else { "?" };
        let before = notes.len();
        let shape = self.schema.compact(notes);
        if let Schema::Object { .. } = self.schema {
            // Name the object a note of its own is about ("\"when\" has at least 1 of ...").
            for note in &mut notes[before..] {
                if note.starts_with("at least") {
                    *note = format!("\"{}\" has {note}", self.name);
                }
            }
        }
        format!("\"{}\"{optional}: {shape}", self.name)
    }
}

impl Rule {
    fn sentence(&self) -> String {
        match self {
            Rule::RequiredWhen { field, when, value } => {
                format!("\"{field}\" required when \"{when}\" is \"{value}\"")
            }
            Rule::OnlyWhen { field, when, value } => {
                format!("\"{field}\" only when \"{when}\" is \"{value}\"")
            }
        }
    }
}

impl Pattern {
    fn compact(self) -> String {
        match self {
            Pattern::TriageId => "triage id (t-00042)".to_owned(),
            Pattern::TriageIdOf { count, except } => {
                let other = except.map_or(String::new(), |k| format!(", not t-{k:05}"));
                format!("triage id t-00001…t-{count:05}{other}")
            }
            Pattern::Label => "label [a-z0-9-]".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{ItemInput, ItemKind, output_schema};

    fn line(kind: ItemKind, inputs: Vec<String>) -> String {
        let input = ItemInput {
            item: "x-1".to_owned(),
            kind,
            inputs,
            group: None,
            angle: None,
        };
        output_schema(&input, &["generic", "security"], 120).to_compact_line()
    }

    #[test]
    fn an_aggregate_line_does_not_grow_with_its_slice() {
        let ids = |n: usize| (1..=n).map(|i| format!("t-{i:05}")).collect::<Vec<_>>();
        let small = line(ItemKind::Aggregate, ids(40));
        let big = line(ItemKind::Aggregate, ids(500));
        assert!(
            small.contains("one of the 40 ids listed (t-00001 … t-00040)"),
            "{small}"
        );
        assert!(
            small.contains("each of the 40 listed ids in the \"items\" of exactly one entry"),
            "{small}"
        );
        assert!(big.len() <= small.len() + 10, "{big}");
    }

    #[test]
    fn every_kind_renders_one_short_line_naming_each_field() {
        for kind in ItemKind::ALL {
            let text = line(kind, vec!["plan-g1-1".to_owned(), "plan-g1-2".to_owned()]);
            assert!(!text.contains('\n') && text.len() < 700, "{kind:?}: {text}");
        }
        let write = line(ItemKind::WriteTask, Vec::new());
        assert_eq!(
            write,
            "{\"title\": line 5-69, \"description\": text 20-8000, \"acceptance_criteria\": \
             [line 5-300] 1-20, \"labels\"?: [label [a-z0-9-]] 0-10, \"priority\"?: \
             \"high\"|\"medium\"|\"low\"}"
        );
        let rules = line(ItemKind::RuleReview, Vec::new());
        assert!(
            rules.ends_with("; \"when\" has at least 1 of tool, rule_id, level, path_glob, message_regex, symbol_regex"),
            "{rules}"
        );
        let triage = line(ItemKind::Triage, Vec::new());
        assert!(
            triage.contains("\"duplicate_of\" required when \"verdict\" is \"duplicate\""),
            "{triage}"
        );
    }
}
