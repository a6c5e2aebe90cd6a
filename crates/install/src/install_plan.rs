//! `self-repair install`: every file change computed up front, then shown or applied.

use crate::bundle_file::BundleFile;
use crate::change_set::{ChangeSet, FileChange};
use crate::file_read::read_optional;
use crate::hook_target::HookTarget;
use crate::install_error::InstallError;
use crate::install_manifest::{
    FileRecord, InstallManifest, MANIFEST_SCHEMA_VERSION, OriginalSettings, SettingsRecord,
    read_manifest, sha256_hex,
};
use crate::install_root::InstallRoot;
use crate::install_spec::InstallSpec;
use crate::settings_document::{SettingsDocument, push_unique};
use crate::uninstall_plan::settings_restoration;

/// Everything `install` would change. Nothing is written until [`InstallPlan::apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallPlan {
    changes: ChangeSet,
    notes: Vec<String>,
    settings_display: String,
}

/// Computes every change `install` makes under `root` (the project root for
/// [`crate::Scope::Project`], the home, `.claude/` maybe moved to `CLAUDE_CONFIG_DIR`, for
/// [`crate::Scope::User`]): our hooks in the settings file (and no permission rule: the
/// `PreToolUse` gate decides our commands), the `bundle` copied into `.claude/`, and the
/// manifest. Reads files; writes nothing. An invalid settings file is an error.
pub fn plan_install(
    root: &InstallRoot,
    spec: &InstallSpec,
    bundle: &[BundleFile],
) -> Result<InstallPlan, InstallError> {
    let binary = spec
        .binary
        .to_str()
        .filter(|_| spec.binary.is_absolute())
        .ok_or_else(|| InstallError::BinaryPath {
            path: spec.binary.clone(),
        })?;
    let scope = spec.scope;
    let previous = read_manifest(root, scope)?;
    let target = HookTarget::for_install(spec, binary);
    let mut changes = ChangeSet::default();
    let mut notes = Vec::new();

    // An earlier install registered the hooks in the other settings file (the binary was, or
    // was not, on PATH then; or an install from before the hooks ran `self-repair` from PATH
    // wrote this machine's path into the committed file): take them out of it first.
    let moved_from = previous
        .as_ref()
        .filter(|p| p.settings.path != target.settings_rel_path);
    if let Some(old) = moved_from {
        let restoration = settings_restoration(root, old)?;
        notes.extend(restoration.note);
        notes.push(format!(
            "moved self-repair's hooks from {} to {}",
            root.display(&old.settings.path),
            root.display(target.settings_rel_path)
        ));
        changes.push(restoration.change);
    }
    let previous_settings = previous
        .as_ref()
        .map(|p| &p.settings)
        .filter(|s| s.path == target.settings_rel_path);

    let settings_rel = target.settings_rel_path;
    let settings_display = root.display(settings_rel);
    let settings_path = root.resolve(settings_rel);
    let current = read_optional(&settings_path)?;
    let mut doc = match &current {
        Some(text) => SettingsDocument::parse(&settings_path, text)?,
        None => SettingsDocument::empty(&settings_path),
    };
    let pristine = doc.clone();

    let mut created_keys = previous_settings
        .map(|s| s.created_keys.clone())
        .unwrap_or_default();
    let mut known_commands: Vec<&str> = previous.iter().map(|p| p.binary.as_str()).collect();
    known_commands.push(binary);
    let touched_hooks = doc.add_our_hooks(&target.command, &known_commands, &mut created_keys)?;
    let mut hooks = previous_settings
        .map(|s| s.hooks.clone())
        .unwrap_or_default();
    for hook in touched_hooks {
        push_unique(&mut hooks, hook);
    }

    // Installs before the permission gate (`hook pre-tool-use`) wrote `Bash(self-repair ...)`
    // allow rules; the gate now decides our commands in both install paths, so they go.
    let stale_rules: Vec<String> = previous_settings
        .map(|s| s.permissions.clone())
        .unwrap_or_default();
    doc.remove_permissions(&stale_rules);
    let permissions: Vec<String> = Vec::new();

    // The status line: ours, composed with the user's own when they have one.
    let previous_status_line = previous_settings.and_then(|s| s.status_line.clone());
    let status_line = match crate::status_line::add_status_line(
        doc.root_mut(),
        &target.command,
        previous_status_line.as_ref(),
    ) {
        crate::status_line::StatusLineChange::Written(record) => {
            if let Some(theirs) = record
                .previous
                .as_ref()
                .filter(|_| previous_status_line.is_none())
                .and_then(|p| p.get("command"))
                .and_then(serde_json::Value::as_str)
            {
                notes.push(format!(
                    "your status line `{theirs}` now runs through `self-repair statusline \
                     --compose`: its rows first, then self-repair's; `self-repair uninstall` \
                     puts it back"
                ));
            }
            Some(record)
        }
        crate::status_line::StatusLineChange::Unchanged => previous_status_line,
        crate::status_line::StatusLineChange::LeftAlone(why) => {
            notes.push(why);
            previous_status_line
        }
    };

    let settings_changed = doc.root() != pristine.root();
    let new_settings = if settings_changed {
        doc.render()
    } else {
        current.clone().unwrap_or_default()
    };
    let new_sha = sha256_hex(&new_settings);
    let (original, written_sha256) = match (previous_settings, &current) {
        (_, None) => (OriginalSettings::Absent, new_sha),
        (Some(p), Some(_)) if !settings_changed => (p.original.clone(), p.written_sha256.clone()),
        (Some(p), Some(text)) if sha256_hex(text) == p.written_sha256 => {
            (p.original.clone(), new_sha)
        }
        // Edited by the user since the last install: its pre-install bytes are gone.
        (Some(_), Some(_)) => (OriginalSettings::Unknown, new_sha),
        (None, Some(text)) => (OriginalSettings::Text { text: text.clone() }, new_sha),
    };
    let reformatted = current
        .as_ref()
        .is_some_and(|text| settings_changed && pristine.render() != *text);
    if reformatted {
        notes.push(format!(
            "{settings_display} is rewritten by a JSON writer that keeps every key and its \
             indent but not all of your layout; uninstall restores your exact bytes as long as \
             you do not edit the file meanwhile"
        ));
    }
    if plugin_enabled(&doc) {
        notes.push(format!(
            "the self-repair plugin is also enabled in {settings_display}: its hooks would run \
             as well; disable the plugin or run `self-repair uninstall`"
        ));
    }
    if !spec.binary_on_path {
        let local = match scope {
            crate::Scope::Project => format!(
                " (the hooks run {binary} from {settings_display}, this machine's own settings, \
                 not the committed .claude/settings.json)"
            ),
            crate::Scope::User => String::new(),
        };
        notes.push(format!(
            "`self-repair` on PATH is not {binary}: sub-agents call `self-repair` by name, so \
             put its directory first on PATH{local}"
        ));
    }
    changes.push(FileChange::planned(
        root,
        settings_rel,
        current.clone(),
        Some(new_settings),
    ));

    let files = plan_bundle(root, bundle, previous.as_ref(), &mut changes, &mut notes)?;

    let manifest_rel = scope.manifest_rel_path();
    let mut created_dirs = previous
        .as_ref()
        .map(|p| p.created_dirs.clone())
        .unwrap_or_default();
    let mut new_files: Vec<&str> = changes
        .changes
        .iter()
        .filter(|change| change.before.is_none())
        .map(|change| change.rel_path.as_str())
        .collect();
    if previous.is_none() {
        new_files.push(manifest_rel);
    }
    for file in new_files {
        for dir in missing_ancestors(root, file) {
            push_unique(&mut created_dirs, dir);
        }
    }
    created_dirs.sort();

    let manifest = InstallManifest {
        schema_version: MANIFEST_SCHEMA_VERSION,
        scope,
        binary: target.command.clone(),
        settings: SettingsRecord {
            path: settings_rel.to_owned(),
            original,
            written_sha256,
            hooks,
            permissions,
            created_keys,
            status_line,
        },
        files,
        created_dirs,
    };
    let manifest_before = read_optional(&root.resolve(manifest_rel))?;
    changes.push(
        FileChange::planned(root, manifest_rel, manifest_before, Some(manifest.render()))
            .of_record(),
    );

    Ok(InstallPlan {
        changes,
        notes,
        settings_display,
    })
}

/// Queues the bundle copies (and removal of files a previous install copied that the bundle
/// no longer has); returns the manifest's file records.
fn plan_bundle(
    root: &InstallRoot,
    bundle: &[BundleFile],
    previous: Option<&InstallManifest>,
    changes: &mut ChangeSet,
    notes: &mut Vec<String>,
) -> Result<Vec<FileRecord>, InstallError> {
    let previous_files = previous.map(|p| p.files.as_slice()).unwrap_or_default();
    let mut records = Vec::new();
    for file in bundle {
        let rel = format!(".claude/{}", file.target_in_claude_dir()?);
        let path = root.resolve(&rel);
        let existing = read_optional(&path)?;
        let recorded = previous_files.iter().find(|r| r.path == rel);
        let ours = FileRecord {
            path: rel.clone(),
            sha256: sha256_hex(file.contents),
            preexisting: false,
        };
        match existing {
            None => {
                records.push(ours);
                changes.push(FileChange::planned(
                    root,
                    &rel,
                    None,
                    Some(file.contents.to_owned()),
                ));
            }
            Some(text) if text == file.contents => {
                records.push(recorded.cloned().unwrap_or(FileRecord {
                    preexisting: true,
                    ..ours
                }));
            }
            Some(text) => match recorded {
                Some(record) if !record.preexisting && sha256_hex(&text) == record.sha256 => {
                    records.push(ours);
                    changes.push(FileChange::planned(
                        root,
                        &rel,
                        Some(text),
                        Some(file.contents.to_owned()),
                    ));
                }
                Some(record) => {
                    notes.push(format!(
                        "kept {}: you edited it since install; delete it and rerun to get the \
                         current version",
                        root.display(&rel)
                    ));
                    records.push(record.clone());
                }
                None => return Err(InstallError::BundleConflict { path }),
            },
        }
    }
    for record in previous_files {
        if records.iter().any(|r| r.path == record.path) || record.preexisting {
            continue;
        }
        match read_optional(&root.resolve(&record.path))? {
            Some(text) if sha256_hex(&text) == record.sha256 => {
                changes.push(FileChange::planned(root, &record.path, Some(text), None));
            }
            Some(_) => notes.push(format!(
                "kept {}: no longer part of self-repair, but you edited it",
                root.display(&record.path)
            )),
            None => {}
        }
    }
    Ok(records)
}

/// Directories above `rel_file` (relative, `/`-separated) that do not exist yet, outermost first.
fn missing_ancestors(root: &InstallRoot, rel_file: &str) -> Vec<String> {
    let mut dirs = Vec::new();
    let mut prefix = String::new();
    let parts: Vec<&str> = rel_file.split('/').collect();
    for part in parts.iter().take(parts.len().saturating_sub(1)) {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(part);
        if !root.resolve(&prefix).is_dir() {
            dirs.push(prefix.clone());
        }
    }
    dirs
}

/// True when `enabledPlugins` turns on a plugin named `self-repair` from any marketplace.
fn plugin_enabled(doc: &SettingsDocument) -> bool {
    doc.root()
        .get("enabledPlugins")
        .and_then(serde_json::Value::as_object)
        .is_some_and(|plugins| {
            plugins
                .iter()
                .any(|(name, on)| name.starts_with("self-repair@") && on.as_bool() == Some(true))
        })
}

impl InstallPlan {
    /// A plan of these changes and notes (`install --status-line`).
    pub(crate) fn from_parts(
        changes: ChangeSet,
        notes: Vec<String>,
        settings_display: String,
    ) -> InstallPlan {
        InstallPlan {
            changes,
            notes,
            settings_display,
        }
    }

    /// True when self-repair is already installed exactly as asked.
    pub fn is_empty(&self) -> bool {
        self.changes.changes.is_empty()
    }

    /// The file changes, in the order they are applied.
    pub fn changes(&self) -> &[FileChange] {
        &self.changes.changes
    }

    /// Warnings and remarks for the user (plugin also enabled, binary not on PATH, edited
    /// files kept, re-formatting).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The unified diff `install --dry-run` prints (empty when there is nothing to do).
    pub fn render_diff(&self) -> String {
        self.changes.render_diff()
    }

    /// What install did, one line each, then the notes.
    pub fn summary(&self) -> String {
        self.summary_of(false)
    }

    /// What install would do (`--dry-run`: `would create ...`), one line each, then the notes.
    pub fn dry_run_summary(&self) -> String {
        self.summary_of(true)
    }

    fn summary_of(&self, dry_run: bool) -> String {
        let mut lines = if self.is_empty() {
            vec![format!(
                "self-repair is already installed in {}; nothing to change",
                self.settings_display
            )]
        } else {
            self.changes.summary_lines(dry_run)
        };
        lines.extend(self.notes.iter().map(|note| format!("note: {note}")));
        let mut text = lines.join("\n");
        text.push('\n');
        text
    }

    /// Writes every change (each file through a temporary file and a rename), the manifest
    /// last. Fails without writing if a file changed since planning.
    pub fn apply(&self) -> Result<(), InstallError> {
        self.changes.apply()
    }
}
