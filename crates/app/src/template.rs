//! Prompt templates: files with `{{name}}` placeholders. A project overrides any of them with a
//! file of the same name in `.self-repair/templates/`; otherwise the bundled one is used.

use std::path::Path;

use self_repair_install::embedded_bundle;

use crate::AppError;

/// Folder of the bundled templates inside the skill bundle.
const BUNDLED: &str = "skill/self-repair/templates/";

/// The template `name` (e.g. `triage-generic.md`): the project's override, else the bundle's.
pub fn load_template(store_dir: &Path, name: &str) -> Result<String, AppError> {
    let own = store_dir.join("templates").join(name);
    if own.is_file() {
        return std::fs::read_to_string(&own).map_err(AppError::io("read template", &own));
    }
    let bundled = format!("{BUNDLED}{name}");
    embedded_bundle()
        .iter()
        .find(|f| f.rel_path == bundled)
        .map(|f| f.contents.to_owned())
        .ok_or_else(|| {
            AppError::NotFound(format!(
                "template {name} is missing from this build of self-repair and from {}",
                own.display()
            ))
        })
}

/// Replaces every `{{name}}` with its value. A placeholder with no value is an error, so a typo
/// in an override is caught instead of reaching an agent.
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
