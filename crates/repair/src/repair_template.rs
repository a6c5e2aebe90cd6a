//! The repair prompt templates (`fix-feedback.md`, `fix-fixer.md`): the project's override in
//! `.self-repair/templates/`, else the bundled one; `{{name}}` placeholders.

use std::path::Path;

use crate::RepairError;

/// The template `name`: the project's override, else the bundle's.
pub(crate) fn load_template(store_dir: &Path, name: &str) -> Result<String, RepairError> {
    self_repair_install::load_template(store_dir, name).map_err(RepairError::Template)
}

/// Replaces every `{{name}}` with its value; an unknown placeholder is an error naming the
/// ones this template may use.
pub(crate) fn render_template(
    name: &str,
    template: &str,
    vars: &[(&str, String)],
) -> Result<String, RepairError> {
    self_repair_engine::debug_assert_placeholders(name, vars);
    self_repair_engine::render_template(template, vars)
        .map_err(|e| RepairError::Template(format!("template {name}: {e}")))
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
