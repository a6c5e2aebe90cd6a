//! The repair prompt templates (`fix-feedback.md`, `fix-fixer.md`): the project's override in
//! `.self-repair/templates/`, else the bundled one; `{{name}}` placeholders.

use std::path::Path;

use self_repair_install::embedded_bundle;

use crate::RepairError;

/// Folder of the bundled templates inside the skill bundle.
const BUNDLED: &str = "skill/self-repair/templates/";

/// The template `name`: the project's override, else the bundle's.
pub(crate) fn load_template(store_dir: &Path, name: &str) -> Result<String, RepairError> {
    let own = store_dir.join("templates").join(name);
    if own.is_file() {
        return std::fs::read_to_string(&own).map_err(RepairError::io("read template", &own));
    }
    let bundled = format!("{BUNDLED}{name}");
    embedded_bundle()
        .iter()
        .find(|f| f.rel_path == bundled)
        .map(|f| f.contents.to_owned())
        .ok_or_else(|| {
            RepairError::Template(format!(
                "template {name} is missing from this build of self-repair and from {}",
                own.display()
            ))
        })
}

/// Replaces every `{{name}}` with its value; an unknown placeholder is an error naming the
/// ones this template may use.
pub(crate) fn render_template(
    name: &str,
    template: &str,
    vars: &[(&str, String)],
) -> Result<String, RepairError> {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let key = after[..end].trim();
        let Some((_, value)) = vars.iter().find(|(k, _)| *k == key) else {
            let known: Vec<&str> = vars.iter().map(|(k, _)| *k).collect();
            return Err(RepairError::Template(format!(
                "template {name}: unknown placeholder {{{{{key}}}}}; it may use: {}",
                known.join(", ")
            )));
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
    fn bundled_templates_exist_and_unknown_placeholders_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["fix-feedback.md", "fix-fixer.md"] {
            assert!(load_template(dir.path(), name).is_ok(), "{name}");
        }
        let vars = [("item", "fix-2".to_owned())];
        assert_eq!(
            render_template("t", "{{ item }}!", &vars).unwrap(),
            "fix-2!"
        );
        let err = render_template("t", "{{itme}}", &vars)
            .unwrap_err()
            .to_string();
        assert!(err.contains("{{itme}}") && err.contains("item"), "{err}");
    }
}
