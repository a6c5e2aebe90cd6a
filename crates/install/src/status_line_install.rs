//! `self-repair install --status-line`: Claude Code's `statusLine` alone, in the user's
//! `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`), for those who have the
//! hooks from the plugin (a plugin cannot set it). Its own record,
//! `self-repair-status-line.json` beside it, lets `uninstall --status-line` put back exactly
//! what was there.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::change_set::{ChangeSet, FileChange};
use crate::file_read::read_optional;
use crate::install_error::InstallError;
use crate::install_manifest::{OriginalSettings, sha256_hex};
use crate::install_plan::InstallPlan;
use crate::install_root::InstallRoot;
use crate::settings_document::SettingsDocument;
use crate::status_line::{StatusLineChange, StatusLineRecord, add_status_line, remove_status_line};
use crate::uninstall_plan::{SettingsOutcome, UninstallPlan};

/// The record, relative to the home (`.claude/` is `CLAUDE_CONFIG_DIR` when set,
/// [`InstallRoot`]).
pub const STATUS_LINE_MANIFEST: &str = ".claude/self-repair-status-line.json";
/// The settings file, relative to the home (the same).
const USER_SETTINGS: &str = ".claude/settings.json";

/// What `install --status-line` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StatusLineManifest {
    schema_version: u32,
    /// The settings file before the first install.
    original: OriginalSettings,
    /// SHA-256 of the text install wrote: while the file hashes to it, `original` comes back.
    written_sha256: String,
    status_line: StatusLineRecord,
}

/// Sets `statusLine` in the user's settings (`~/.claude/settings.json` or
/// `$CLAUDE_CONFIG_DIR/settings.json`, as `home` says) to `binary statusline` (composed with a
/// status line already there). Reads files; writes nothing until applied.
pub fn plan_status_line_install(
    home: &InstallRoot,
    binary: &str,
) -> Result<InstallPlan, InstallError> {
    let settings_path = home.resolve(USER_SETTINGS);
    let manifest_path = home.resolve(STATUS_LINE_MANIFEST);
    let previous = read_record(&manifest_path)?;
    let current = read_optional(&settings_path)?;
    let mut doc = match &current {
        Some(text) => SettingsDocument::parse(&settings_path, text)?,
        None => SettingsDocument::empty(&settings_path),
    };
    let mut notes = Vec::new();
    let record = match add_status_line(
        doc.root_mut(),
        binary,
        previous.as_ref().map(|m| &m.status_line),
    ) {
        StatusLineChange::Written(record) => record,
        StatusLineChange::Unchanged => {
            return Ok(InstallPlan::from_parts(
                ChangeSet::default(),
                Vec::new(),
                home.display(USER_SETTINGS),
            ));
        }
        StatusLineChange::LeftAlone(why) => {
            return Ok(InstallPlan::from_parts(
                ChangeSet::default(),
                vec![why],
                home.display(USER_SETTINGS),
            ));
        }
    };
    if let Some(theirs) = record
        .previous
        .as_ref()
        .filter(|_| previous.is_none())
        .and_then(|p| p.get("command"))
        .and_then(serde_json::Value::as_str)
    {
        notes.push(format!(
            "your status line `{theirs}` now runs through `self-repair statusline --compose`: \
             its rows first, then self-repair's; `self-repair uninstall --status-line` puts it \
             back"
        ));
    }
    notes.push(
        "a `statusLine` in a project's .claude/settings.json or settings.local.json hides this \
         one in that project"
            .to_owned(),
    );
    let after = doc.render();
    let original = match (&previous, &current) {
        (_, None) => OriginalSettings::Absent,
        (Some(p), Some(text)) if sha256_hex(text) == p.written_sha256 => p.original.clone(),
        (Some(_), Some(_)) => OriginalSettings::Unknown,
        (None, Some(text)) => OriginalSettings::Text { text: text.clone() },
    };
    let manifest = StatusLineManifest {
        schema_version: 1,
        original,
        written_sha256: sha256_hex(&after),
        status_line: record,
    };
    let mut changes = ChangeSet::default();
    changes.push(FileChange::planned(
        home,
        USER_SETTINGS,
        current,
        Some(after),
    ));
    changes.push(
        FileChange::planned(
            home,
            STATUS_LINE_MANIFEST,
            read_optional(&manifest_path)?,
            Some(render(&manifest)),
        )
        .of_record(),
    );
    Ok(InstallPlan::from_parts(
        changes,
        notes,
        home.display(USER_SETTINGS),
    ))
}

/// Takes out what `install --status-line` set: the settings file's exact bytes back while it is
/// what install wrote, else the `statusLine` before install (when ours is still there).
pub fn plan_status_line_uninstall(home: &InstallRoot) -> Result<UninstallPlan, InstallError> {
    let settings_path = home.resolve(USER_SETTINGS);
    let manifest_path = home.resolve(STATUS_LINE_MANIFEST);
    let Some(manifest) = read_record(&manifest_path)? else {
        return Ok(UninstallPlan::from_parts(
            ChangeSet::default(),
            vec![format!(
                "the status line was not installed here (no {}); nothing to remove",
                home.display(STATUS_LINE_MANIFEST)
            )],
            SettingsOutcome::Untouched,
        ));
    };
    let current = read_optional(&settings_path)?;
    let (after, outcome) = match &current {
        None => (None, SettingsOutcome::Untouched),
        Some(text) if sha256_hex(text) == manifest.written_sha256 => match &manifest.original {
            OriginalSettings::Absent => (None, SettingsOutcome::Deleted),
            OriginalSettings::Text { text } => {
                (Some(text.clone()), SettingsOutcome::RestoredExactly)
            }
            OriginalSettings::Unknown => (
                Some(without_ours(&settings_path, text, &manifest)?),
                SettingsOutcome::RemovedStructurally,
            ),
        },
        Some(text) => (
            Some(without_ours(&settings_path, text, &manifest)?),
            SettingsOutcome::RemovedStructurally,
        ),
    };
    let mut changes = ChangeSet::default();
    changes.push(FileChange::planned(home, USER_SETTINGS, current, after));
    changes.push(
        FileChange::planned(
            home,
            STATUS_LINE_MANIFEST,
            read_optional(&manifest_path)?,
            None,
        )
        .of_record(),
    );
    Ok(UninstallPlan::from_parts(changes, Vec::new(), outcome))
}

fn without_ours(
    path: &Path,
    text: &str,
    manifest: &StatusLineManifest,
) -> Result<String, InstallError> {
    let mut doc = SettingsDocument::parse(path, text)?;
    remove_status_line(doc.root_mut(), &manifest.status_line);
    Ok(doc.render())
}

fn read_record(path: &Path) -> Result<Option<StatusLineManifest>, InstallError> {
    let Some(text) = read_optional(path)? else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|err| InstallError::InvalidManifest {
            path: path.to_owned(),
            message: err.to_string(),
        })
}

fn render(manifest: &StatusLineManifest) -> String {
    let mut text = serde_json::to_string_pretty(manifest).unwrap_or_default();
    text.push('\n');
    text
}
