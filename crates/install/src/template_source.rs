//! Where a prompt template's text comes from: the project's override in
//! `.self-repair/templates/`, else the copy bundled into this binary.

use std::path::Path;

use crate::embedded_bundle;

/// Folder of the bundled templates inside the skill bundle.
const BUNDLED: &str = "skill/self-repair/templates/";

/// The text of template `name` (e.g. `triage-generic.md`); `Err` says what is missing.
pub fn load_template(store_dir: &Path, name: &str) -> Result<String, String> {
    let own = store_dir.join("templates").join(name);
    if own.is_file() {
        return std::fs::read_to_string(&own)
            .map_err(|e| format!("cannot read {}: {e}", own.display()));
    }
    let bundled = format!("{BUNDLED}{name}");
    embedded_bundle()
        .iter()
        .find(|f| f.rel_path == bundled)
        .map(|f| f.contents.to_owned())
        .ok_or_else(|| {
            format!(
                "template {name} is missing from this build of self-repair and from {}",
                own.display()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_projects_own_template_wins_over_the_bundled_one() {
        let store = tempfile::tempdir().unwrap();
        let name = "fix-fixer.md";
        let bundled = embedded_bundle()
            .iter()
            .find(|f| f.rel_path == format!("{BUNDLED}{name}"))
            .map(|f| f.contents)
            .unwrap_or_default();
        assert!(!bundled.is_empty(), "{name} is bundled");
        assert_eq!(load_template(store.path(), name).as_deref(), Ok(bundled));

        std::fs::create_dir_all(store.path().join("templates")).unwrap();
        std::fs::write(store.path().join("templates").join(name), "mine {{x}}\n").unwrap();
        assert_eq!(
            load_template(store.path(), name).as_deref(),
            Ok("mine {{x}}\n")
        );
    }

    #[test]
    fn a_template_neither_bundled_nor_the_projects_is_named_in_the_error() {
        let store = tempfile::tempdir().unwrap();
        let err = load_template(store.path(), "nope.md").unwrap_err();
        assert!(
            err.starts_with("template nope.md is missing from this build"),
            "{err}"
        );
    }
}
