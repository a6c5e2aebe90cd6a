//! What `self-repair doctor` reads of the client's own files: the hooks (the plugin's install
//! record and `enabledPlugins`, or `install`'s entries in a settings file), the plugin's version,
//! and whether the project is trusted. The shapes are those Claude Code 2.1.330 writes
//! (reference/claude-cli-notes.md, "Plugins and trust").

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::plugin_load::PluginLoad;
use super::setup_check::{CheckOutcome, SetupCheck, SetupScene, read_json};

/// The plugin as the client recorded it: `plugins/installed_plugins.json` in the client's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PluginInstall {
    /// `self-repair@MARKETPLACE`.
    pub(crate) key: String,
    /// The version installed (the record's, else its copy's `plugin.json`).
    pub(crate) version: Option<String>,
    /// `enabledPlugins[key]` of the settings that decide it (local, project, user).
    pub(crate) enabled: bool,
    /// The record's `gitCommitSha` (a plugin installed from a git marketplace).
    pub(crate) commit: Option<String>,
}

/// The settings files the client reads for this project, the most specific first.
fn settings_files(scene: &SetupScene<'_>) -> Vec<PathBuf> {
    let mut files = vec![
        scene.root.join(".claude/settings.local.json"),
        scene.root.join(".claude/settings.json"),
    ];
    files.extend(scene.client_dir.iter().map(|dir| dir.join("settings.json")));
    files
}

/// The self-repair plugin installed for this project (user scope, or project or local scope in
/// this folder), when the client has a record of it.
pub(crate) fn plugin_install(scene: &SetupScene<'_>) -> Option<PluginInstall> {
    let records = read_json(
        &scene
            .client_dir
            .as_ref()?
            .join("plugins/installed_plugins.json"),
    )?;
    let (key, entries) = records
        .get("plugins")?
        .as_object()?
        .iter()
        .find(|(key, _)| key.starts_with("self-repair@"))?;
    // Version 2 holds a list of installs per plugin (one per scope); version 1 one object.
    let entries: Vec<&Value> = match entries {
        Value::Array(list) => list.iter().collect(),
        one => vec![one],
    };
    let here = scene.root.to_string_lossy();
    let entry = entries
        .iter()
        .find(|e| e.get("projectPath").and_then(Value::as_str) == Some(&here))
        .or_else(|| entries.iter().find(|e| e.get("projectPath").is_none()))?;
    let version = entry
        .get("version")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            let path = Path::new(entry.get("installPath")?.as_str()?);
            let manifest = read_json(&path.join(".claude-plugin/plugin.json"))?;
            manifest.get("version")?.as_str().map(str::to_owned)
        });
    let enabled = settings_files(scene)
        .iter()
        .find_map(|file| read_json(file)?.get("enabledPlugins")?.get(key)?.as_bool())
        .unwrap_or(false);
    Some(PluginInstall {
        key: key.clone(),
        version,
        enabled,
        commit: entry
            .get("gitCommitSha")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// The settings files holding `self-repair install`'s Stop hook.
fn installed_hooks(scene: &SetupScene<'_>) -> Vec<PathBuf> {
    settings_files(scene)
        .into_iter()
        .filter(|file| {
            read_json(file).is_some_and(|s| self_repair_install::registers_stop_hook(&s))
        })
        .collect()
}

/// What registering the hooks takes, in either way.
const REGISTER: &str = "in the project, `self-repair install --project` (or `--user` for every \
     project); or the plugin: `claude plugin marketplace add PATH-TO-YOUR-CLONE`, then `claude \
     plugin install self-repair@self-repair`. Then start a new session";

/// Every settings file the client reads for this project parses: the client skips a file that
/// does not, and `install` refuses to edit it. Checked first: the hooks' check reads them.
pub(crate) fn settings_check(scene: &SetupScene<'_>) -> SetupCheck {
    let mut read = 0;
    for file in settings_files(scene) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        read += 1;
        if let Err(e) = serde_json::from_str::<Value>(&text) {
            let shown = file.display();
            return SetupCheck::fail(
                "settings",
                format!(
                    "{shown} is not valid JSON ({e}): the client does not read it, and \
                     `self-repair install` will not edit it"
                ),
                format!(
                    "correct {shown} at line {} column {} by hand (`python3 -m json.tool \
                     {shown}` shows where), or move it aside (`mv {shown} {shown}.bad`); then \
                     run `self-repair doctor` again",
                    e.line(),
                    e.column()
                ),
            );
        }
    }
    if read == 0 {
        return SetupCheck::skipped("settings", "no settings file of the client's yet");
    }
    SetupCheck::ok(
        "settings",
        format!("the client's settings parse ({read} file(s) read)"),
    )
}

/// Hooks registered once: by the plugin (installed, enabled and loaded by the client), or by
/// `install`. Not judged when a settings file does not parse (the settings check names it).
pub(crate) fn hooks_check(
    scene: &SetupScene<'_>,
    plugin: Option<&PluginInstall>,
    load: Option<&PluginLoad>,
    settings: &SetupCheck,
) -> SetupCheck {
    if settings.outcome == CheckOutcome::Fail {
        return SetupCheck::skipped(
            "hooks",
            "hooks not checked: a settings file the client reads does not parse (above)",
        );
    }
    let files = installed_hooks(scene);
    let shown: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    if let (Some(p), Some(load)) = (plugin, load)
        && p.enabled
        && !load.errors.is_empty()
    {
        return not_loaded(p, load);
    }
    match (plugin, shown.is_empty()) {
        (Some(p), false) if p.enabled => SetupCheck::fail(
            "hooks",
            format!(
                "hooks registered twice: by the plugin {} and by `self-repair install` in {}; \
                 every hook would run twice",
                p.key,
                shown.join(", ")
            ),
            format!(
                "keep one: `self-repair uninstall --project` (or `--user`), or `claude plugin \
                 uninstall {}`",
                p.key
            ),
        ),
        (Some(p), _) if p.enabled => SetupCheck::ok(
            "hooks",
            format!(
                "hooks registered by the plugin {} (installed, enabled)",
                p.key
            ),
        ),
        (_, false) => SetupCheck::ok(
            "hooks",
            format!(
                "hooks registered by `self-repair install` in {}",
                shown.join(", ")
            ),
        ),
        (Some(p), true) => SetupCheck::fail(
            "hooks",
            format!("the plugin {} is installed but not enabled", p.key),
            format!("`claude plugin enable {}`, then start a new session", p.key),
        ),
        (None, true) => SetupCheck::fail(
            "hooks",
            "no hooks registered: no self-repair plugin in the client's plugins, and no \
             self-repair hook in the user's or the project's settings",
            REGISTER,
        ),
    }
}

/// The plugin installed and enabled, but the client fails to load it: its words, and the fix
/// (a clone that moved: the marketplace added again from where it is now).
fn not_loaded(plugin: &PluginInstall, load: &PluginLoad) -> SetupCheck {
    let key = &plugin.key;
    let marketplace = key.split_once('@').map_or(key.as_str(), |(_, m)| m);
    let said = if load.asked_client {
        "`claude plugin list` says"
    } else {
        "the client's files show"
    };
    let found = format!(
        "the plugin {key} is installed and enabled, but the client fails to load it, so no hook \
         of it runs ({said}: {})",
        load.errors.join("; ")
    );
    let fix = match &load.missing_source {
        Some(dir) => format!(
            "the clone it was added from, {}, is gone (moved or deleted): `claude plugin \
             marketplace remove {marketplace}`, then `claude plugin marketplace add \
             PATH-TO-YOUR-CLONE` and `claude plugin install {key}`; then start a new session",
            dir.display()
        ),
        None => format!(
            "install it again: `claude plugin uninstall {key}`, then `claude plugin install \
             {key}` (`claude plugin list` shows the client's error); then start a new session"
        ),
    };
    SetupCheck::fail("hooks", found, fix)
}

/// The plugin's version and commit against this program's: the same version from another
/// commit (a `git pull` without a rebuild) is caught by the commit.
pub(crate) fn plugin_version_check(
    plugin: Option<&PluginInstall>,
    load: Option<&PluginLoad>,
    binary: &str,
    binary_commit: Option<&str>,
) -> SetupCheck {
    let Some(plugin) = plugin else {
        return SetupCheck::skipped(
            "plugin_version",
            "no plugin installed: no plugin version to compare",
        );
    };
    let plugin_commit = load.and_then(|l| l.commit(plugin.commit.as_deref()));
    let same_commit = |a: &str, b: &str| a.starts_with(b) || b.starts_with(a);
    match (
        plugin.version.as_deref(),
        plugin_commit.as_deref(),
        binary_commit,
    ) {
        (Some(version), Some(theirs), Some(ours))
            if version == binary && !same_commit(theirs, ours) =>
        {
            SetupCheck::fail(
                "plugin_version",
                format!(
                    "the plugin is commit {theirs} and the program commit {ours} (both version \
                     {version}): a `git pull` without a rebuild, or a build of another clone; a \
                     hook's instruction or an agent's submission can be refused"
                ),
                format!(
                    "build the program from the plugin's clone: `cargo install --locked --path .` \
                     in it (or `claude plugin update {}` when the program is the newer); then \
                     start a new session",
                    plugin.key
                ),
            )
        }
        (Some(version), Some(commit), Some(_)) if version == binary => SetupCheck::ok(
            "plugin_version",
            format!("plugin {version}, program {binary}: the same version and commit ({commit})"),
        ),
        (Some(version), _, _) if version == binary => SetupCheck::ok(
            "plugin_version",
            format!("plugin {version}, program {binary}: the same version"),
        ),
        (other, _, _) => SetupCheck::fail(
            "plugin_version",
            format!(
                "the plugin is version {} but the program is {binary}: a hook's instruction or \
                 an agent's submission can be refused",
                other.unwrap_or("unknown")
            ),
            format!(
                "bring the older one up to date: `claude plugin update {}` for the plugin, \
                 `cargo install --locked --path .` in an updated clone for the program; then \
                 start a new session",
                plugin.key
            ),
        ),
    }
}

/// The project (or a folder above it) marked trusted in the client's config: until its trust
/// dialog is accepted, the client ignores the project's settings.
pub(crate) fn trust_check(scene: &SetupScene<'_>) -> SetupCheck {
    let Some(config) = scene.client_config.as_deref() else {
        return SetupCheck::skipped("trust", "no HOME: the client's config cannot be found");
    };
    let projects = read_json(config).and_then(|c| c.get("projects").cloned());
    let canonical = scene.root.canonicalize().ok();
    let trusted = [Some(scene.root.as_path()), canonical.as_deref()]
        .into_iter()
        .flatten()
        .flat_map(Path::ancestors)
        .find(|dir| {
            projects.as_ref().and_then(|p| {
                p.get(dir.to_str()?)?
                    .get("hasTrustDialogAccepted")?
                    .as_bool()
            }) == Some(true)
        });
    match trusted {
        Some(dir) => SetupCheck::ok(
            "trust",
            format!(
                "the project is trusted ({} in {})",
                dir.display(),
                config.display()
            ),
        ),
        None => SetupCheck::fail(
            "trust",
            format!(
                "the project {} is not trusted in the client's config ({})",
                scene.root.display(),
                config.display()
            ),
            format!(
                "start `claude` in {} once and accept its trust dialog: until then the client \
                 ignores the project's settings",
                scene.root.display()
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::doctor::setup_check::CheckOutcome;

    /// The plugin's version and recorded commit against the program's version `0.2.0` and
    /// commit `abc1234`: only the same version from another commit is the commit's failure.
    #[test]
    fn a_plugin_fails_on_its_commit_only_at_the_same_version_from_another_commit() {
        let load = PluginLoad::default();
        for (version, commit, outcome, found) in [
            (
                "0.2.0",
                "abc1234f00",
                CheckOutcome::Ok,
                "the same version and commit (abc1234)",
            ),
            (
                "0.2.0",
                "def5678",
                CheckOutcome::Fail,
                "the plugin is commit def5678",
            ),
            (
                "0.1.0",
                "def5678",
                CheckOutcome::Fail,
                "the plugin is version 0.1.0",
            ),
            (
                "0.1.0",
                "abc1234",
                CheckOutcome::Fail,
                "the plugin is version 0.1.0",
            ),
        ] {
            let plugin = PluginInstall {
                key: "self-repair@market".to_owned(),
                version: Some(version.to_owned()),
                enabled: true,
                commit: Some(commit.to_owned()),
            };
            let check = plugin_version_check(Some(&plugin), Some(&load), "0.2.0", Some("abc1234"));
            assert_eq!(
                check.outcome, outcome,
                "{version} {commit}: {}",
                check.found
            );
            assert!(
                check.found.contains(found),
                "{version} {commit}: {}",
                check.found
            );
        }
    }
}
