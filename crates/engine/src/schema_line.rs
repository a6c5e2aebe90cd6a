//! A schema as one short line for a prompt: the shape, the allowed values and the conditions,
//! without JSON Schema's keywords and descriptions (the full schema stays in `show --json`).

use crate::schema::{EachOnce, Field, Pattern, Rule, Schema};

impl Schema {
    /// One line such as `{"verdict": "real"|"unsure", "reason": text 10-2000, ...}`.
    #[must_use]
    pub fn to_line(&self) -> String {
        match self {
            Schema::Object { fields, rules, .. } => {
                let parts: Vec<String> = fields.iter().map(|f| field_line(f, rules)).collect();
                format!("{{{}}}", parts.join(", "))
            }
            Schema::String {
                min,
                max,
                one_of,
                pattern,
                one_line,
            } => {
                if !one_of.is_empty() {
                    let quoted: Vec<String> = one_of.iter().map(|v| format!("\"{v}\"")).collect();
                    return quoted.join("|");
                }
                match pattern {
                    Some(Pattern::TriageId | Pattern::TriageIdOf { .. }) => {
                        "\"t-NNNNN\" (a triage item id)".to_owned()
                    }
                    Some(Pattern::Label) => "\"lowercase-label\"".to_owned(),
                    None if *one_line => format!("one line, {min}-{max} chars"),
                    None => format!("text, {min}-{max} chars"),
                }
            }
            Schema::Integer { min, max } => format!("integer {min}-{max}"),
            Schema::Number { min, max } => format!("number {min}-{max}"),
            Schema::Array {
                items,
                min,
                max,
                each_once,
                ..
            } => {
                let count = if min == max {
                    format!("exactly {min}")
                } else {
                    format!("{min}-{max}")
                };
                let each = match each_once {
                    Some(EachOnce {
                        field,
                        scalar: true,
                        ..
                    }) => format!(", one per `{field}`"),
                    Some(EachOnce { field, values, .. }) => {
                        format!(", each of {} in one `{field}`", values.join(", "))
                    }
                    None => String::new(),
                };
                format!("[{}, ...] ({count} entries{each})", items.to_line())
            }
            Schema::Markdown { min, max } => format!("markdown, {min}-{max} chars"),
        }
    }
}

fn field_line(field: &Field, rules: &[Rule]) -> String {
    let mut conditions = Vec::new();
    for rule in rules {
        match rule {
            Rule::RequiredWhen {
                field: f,
                when,
                value,
            } if *f == field.name => conditions.push(format!("required with {when} {value}")),
            Rule::OnlyWhen {
                field: f,
                when,
                value,
            } if *f == field.name => conditions.push(format!("only with {when} {value}")),
            _ => {}
        }
    }
    if let [required, only] = conditions.as_slice()
        && let (Some(a), Some(b)) = (
            required.strip_prefix("required with "),
            only.strip_prefix("only with "),
        )
        && a == b
    {
        conditions = vec![format!("only and always with {a}")];
    }
    let optional = if field.required { "" } else { "?" };
    let mut line = format!("\"{}\"{optional}: {}", field.name, field.schema.to_line());
    if !conditions.is_empty() {
        line.push_str(&format!(" ({})", conditions.join(", ")));
    }
    line
}

#[cfg(test)]
mod tests {
    use crate::{ItemInput, ItemKind, output_schema};

    #[test]
    fn a_batch_schema_line_names_every_field_once_and_the_members() {
        let input = ItemInput {
            item: "tb-00001".to_owned(),
            kind: ItemKind::TriageBatch,
            inputs: vec!["t-00001".to_owned(), "t-00002".to_owned()],
            group: None,
            angle: None,
        };
        let line = output_schema(&input, &["generic", "security"], 5).to_line();
        assert_eq!(
            line,
            "{\"verdicts\": [{\"item\": \"t-00001\"|\"t-00002\", \"verdict\": \
             \"real\"|\"false_positive\"|\"intended\"|\"duplicate\"|\"unsure\", \"root_cause\": \
             one line, 3-120 chars, \"reason\": text, 10-2000 chars, \"confidence\"?: number 0-1, \
             \"duplicate_of\"?: \"t-NNNNN\" (a triage item id) (only and always with \
             verdict duplicate), \"reroute\"?: \"generic\"|\"security\" (only with \
             verdict unsure)}, ...] (exactly 2 entries, one per `item`)}"
        );
    }
}
