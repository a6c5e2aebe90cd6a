//! `self-repair uninstall`: remove exactly what the install manifest says install added.

use std::path::Path;

use crate::change_set::{ChangeSet, FileChange};
use crate::file_read::read_optional;
use crate::install_error::InstallError;
use crate::install_manifest::{InstallManifest, OriginalSettings, read_manifest, sha256_hex};
use crate::install_root::InstallRoot;
use crate::scope::Scope;
use crate::settings_document::SettingsDocument;

/// Everything `uninstall` would change. Nothing is written until [`UninstallPlan::apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UninstallPlan {
    changes: ChangeSet,
    notes: Vec<String>,
    kept_files: Vec<String>,
    settings_outcome: SettingsOutcome,
}

/// What uninstall does to the settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsOutcome {
    /// Nothing installed here (no manifest), or the file is already gone or clean.
    Untouched,
    /// The file is exactly what install wrote: its original bytes come back.
    RestoredExactly,
    /// Install created the file and nothing else is in it: it is deleted.
    Deleted,
    /// The file changed since install: only our hooks and rules are taken out.
    RemovedStructurally,
}

/// Computes every change `uninstall` makes under `root`, from the manifest `install` wrote
/// there. Without a manifest the plan is empty. Reads files; writes nothing.
pub fn plan_uninstall(root: &InstallRoot, scope: Scope) -> Result<UninstallPlan, InstallError> {
    let Some(manifest) = read_manifest(root, scope)? else {
        return Ok(UninstallPlan {
            changes: ChangeSet::default(),
            notes: vec![format!(
                "self-repair is not installed here (no {}); nothing to remove",
                root.display(scope.manifest_rel_path())
            )],
            kept_files: Vec::new(),
            settings_outcome: SettingsOutcome::Untouched,
        });
    };
    let mut changes = ChangeSet::default();
    let mut notes = Vec::new();

    let restoration = settings_restoration(root, &manifest)?;
    notes.extend(restoration.note);
    let settings_outcome = restoration.outcome;
    changes.push(restoration.change);

    let mut kept_files = Vec::new();
    for record in manifest.files.iter().filter(|r| !r.preexisting) {
        match read_optional(&root.resolve(&record.path))? {
            Some(text) if sha256_hex(&text) == record.sha256 => {
                changes.push(FileChange::planned(root, &record.path, Some(text), None));
            }
            Some(_) => {
                let shown = root.display(&record.path);
                notes.push(format!("kept {shown}: you edited it since install"));
                kept_files.push(shown);
            }
            None => {}
        }
    }

    let manifest_rel = scope.manifest_rel_path();
    let manifest_before = read_optional(&root.resolve(manifest_rel))?;
    changes.push(FileChange::planned(root, manifest_rel, manifest_before, None).of_record());

    let mut dirs = manifest.created_dirs.clone();
    dirs.sort_by_key(|dir| std::cmp::Reverse(dir.matches('/').count()));
    changes.remove_dirs_if_empty = dirs.iter().map(|dir| root.resolve(dir)).collect();

    Ok(UninstallPlan {
        changes,
        notes,
        kept_files,
        settings_outcome,
    })
}

/// What taking self-repair out of the settings file `manifest` names does to it.
pub(crate) struct SettingsRestoration {
    /// The file's change (its text unchanged when there is nothing to take out).
    pub(crate) change: FileChange,
    pub(crate) outcome: SettingsOutcome,
    /// Said when only a structural removal was possible.
    pub(crate) note: Option<String>,
}

/// Takes our hooks out of the settings file `manifest` names: its exact original bytes back
/// when it is still what install wrote, else a structural removal of our entries.
pub(crate) fn settings_restoration(
    root: &InstallRoot,
    manifest: &InstallManifest,
) -> Result<SettingsRestoration, InstallError> {
    let settings_path = root.resolve(&manifest.settings.path);
    let current = read_optional(&settings_path)?;
    let mut note = None;
    let (after, mut outcome) = match &current {
        None => (None, SettingsOutcome::Untouched),
        Some(text) if sha256_hex(text) == manifest.settings.written_sha256 => {
            match &manifest.settings.original {
                OriginalSettings::Absent => (None, SettingsOutcome::Deleted),
                OriginalSettings::Text { text } => {
                    (Some(text.clone()), SettingsOutcome::RestoredExactly)
                }
                OriginalSettings::Unknown => structural_removal(&settings_path, text, manifest)?,
            }
        }
        Some(text) => {
            let removal = structural_removal(&settings_path, text, manifest)?;
            note = Some(format!(
                "{} changed since install: removed only self-repair's hooks and permission \
                 rules, kept everything else (re-indented by the JSON writer)",
                root.display(&manifest.settings.path)
            ));
            removal
        }
    };
    if after == current {
        outcome = SettingsOutcome::Untouched;
    }
    Ok(SettingsRestoration {
        change: FileChange::planned(root, &manifest.settings.path, current, after),
        outcome,
        note,
    })
}

/// The settings text without our hooks and rules; `None` when install created the file and
/// nothing else is left in it.
fn structural_removal(
    path: &Path,
    text: &str,
    manifest: &InstallManifest,
) -> Result<(Option<String>, SettingsOutcome), InstallError> {
    let mut doc = SettingsDocument::parse(path, text)?;
    doc.remove_permissions(&manifest.settings.permissions);
    if let Some(record) = &manifest.settings.status_line {
        crate::status_line::remove_status_line(doc.root_mut(), record);
    }
    doc.remove_our_hooks(
        &manifest.binary,
        &manifest.settings.hooks,
        &manifest.settings.created_keys,
    );
    if doc.root().is_empty() && manifest.settings.original == OriginalSettings::Absent {
        return Ok((None, SettingsOutcome::Deleted));
    }
    Ok((Some(doc.render()), SettingsOutcome::RemovedStructurally))
}

impl UninstallPlan {
    /// A plan of these changes and notes (`uninstall --status-line`).
    pub(crate) fn from_parts(
        changes: ChangeSet,
        notes: Vec<String>,
        settings_outcome: SettingsOutcome,
    ) -> UninstallPlan {
        UninstallPlan {
            changes,
            notes,
            kept_files: Vec::new(),
            settings_outcome,
        }
    }

    /// True when there is nothing to remove.
    pub fn is_empty(&self) -> bool {
        self.changes.changes.is_empty()
    }

    /// The file changes, in the order they are applied.
    pub fn changes(&self) -> &[FileChange] {
        &self.changes.changes
    }

    /// Bundle files install copied that the user edited since: left in place.
    pub fn kept_files(&self) -> &[String] {
        &self.kept_files
    }

    /// What happens to the settings file.
    pub fn settings_outcome(&self) -> SettingsOutcome {
        self.settings_outcome
    }

    /// Remarks for the user (edited files kept, structural removal, not installed).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The unified diff `uninstall --dry-run` prints.
    pub fn render_diff(&self) -> String {
        self.changes.render_diff()
    }

    /// What uninstall did, one line each, then the notes.
    pub fn summary(&self) -> String {
        self.summary_of(false)
    }

    /// What uninstall would do (`--dry-run`: `would remove ...`), one line each, then the notes.
    pub fn dry_run_summary(&self) -> String {
        self.summary_of(true)
    }

    fn summary_of(&self, dry_run: bool) -> String {
        let mut lines = self.changes.summary_lines(dry_run);
        lines.extend(self.notes.iter().map(|note| format!("note: {note}")));
        let mut text = lines.join("\n");
        text.push('\n');
        text
    }

    /// Applies every change (the manifest is removed last), then removes the directories
    /// install created if they are empty.
    pub fn apply(&self) -> Result<(), InstallError> {
        self.changes.apply()
    }
}
