//! Prompt templates are text with `{{name}}` placeholders; rendering them is pure.

/// Replaces every `{{name}}` with its value. A placeholder with no value is an error naming the
/// placeholders this template may use, so a typo in an override never reaches an agent.
pub fn render_template(template: &str, vars: &[(&str, String)]) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = after[..end].trim();
        let Some((_, value)) = vars.iter().find(|(k, _)| *k == name) else {
            let known: Vec<&str> = vars.iter().map(|(k, _)| *k).collect();
            return Err(format!(
                "unknown placeholder {{{{{name}}}}}; this template may use: {}",
                known.join(", ")
            ));
        };
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_placeholders_and_refuses_unknown_ones() {
        let vars = [("item", "t-1".to_owned()), ("run", "r".to_owned())];
        assert_eq!(
            render_template("{{item}} of {{ run }}; {x}", &vars).unwrap(),
            "t-1 of r; {x}"
        );
        let err = render_template("{{itme}}", &vars).unwrap_err();
        assert!(
            err.contains("{{itme}}") && err.contains("item, run"),
            "{err}"
        );
    }
}
