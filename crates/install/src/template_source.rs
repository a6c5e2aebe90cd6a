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
