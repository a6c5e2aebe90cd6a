//! Whether the client loads the self-repair plugin, asked of the client itself where it can
//! (`claude plugin list --json`, bounded by `PROBE_TIMEOUT`), else read from its files: a
//! directory marketplace whose folder is gone cannot load (the client says `cache-miss`).
//! Shapes as Claude Code 2.1.332 writes them (reference/claude-cli-notes.md, "Plugins and
//! trust").

use std::path::PathBuf;

use self_repair_process::{Captured, Git, ProcessRequest, run_process};
use serde_json::Value;

use super::setup_check::{PROBE_TIMEOUT, SetupScene, read_json};

/// The plugin as the client loads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PluginLoad {
    /// Why the client fails to load it (its own words, or what its files show); empty when
    /// it loads.
    pub(crate) errors: Vec<String>,
    /// The folder its marketplace was added from (`claude plugin marketplace add PATH`), when
    /// that folder no longer exists.
    pub(crate) missing_source: Option<PathBuf>,
    /// The folder the client reads the plugin from (a clone), when known.
    pub(crate) folder: Option<PathBuf>,
    /// True when the client answered `claude plugin list --json`.
    pub(crate) asked_client: bool,
}

impl PluginLoad {
    /// The commit of the plugin's files: the client's record (`gitCommitSha`, a git
    /// marketplace), else HEAD of the clone it reads them from.
    pub(crate) fn commit(&self, recorded: Option<&str>) -> Option<String> {
        if let Some(sha) = recorded {
            return Some(sha.chars().take(7).collect());
        }
        let folder = self.folder.as_ref()?;
        let git = Git::at(folder).within(PROBE_TIMEOUT);
        // The clone itself (the marketplace's folder, or its `plugin/`), not a repository that
        // happens to hold a copy of it.
        let top = PathBuf::from(git.text(&["rev-parse", "--show-toplevel"]).ok()?.trim());
        let folder = folder.canonicalize().ok()?;
        let top = top.canonicalize().ok()?;
        if folder != top && folder.parent() != Some(top.as_path()) {
            return None;
        }
        let head = git.text(&["rev-parse", "--short=7", "HEAD"]).ok()?;
        Some(head.trim().to_owned()).filter(|h| !h.is_empty())
    }
}

/// How the client loads the plugin `key` (`self-repair@MARKETPLACE`).
pub(crate) fn plugin_load(scene: &SetupScene<'_>, key: &str) -> PluginLoad {
    let marketplace = key.split_once('@').map_or(key, |(_, m)| m);
    let source = scene.client_dir.as_ref().and_then(|dir| {
        let known = read_json(&dir.join("plugins/known_marketplaces.json"))?;
        let source = known.get(marketplace)?.get("source")?;
        if source.get("source")?.as_str()? != "directory" {
            return None;
        }
        Some(PathBuf::from(source.get("path")?.as_str()?))
    });
    let missing_source = source.clone().filter(|dir| !dir.exists());
    if let Some(mut asked) = ask_client(scene, key) {
        asked.missing_source = missing_source;
        return asked;
    }
    PluginLoad {
        errors: missing_source
            .iter()
            .map(|dir| {
                format!(
                    "its marketplace {marketplace} was added from {}, which no longer exists",
                    dir.display()
                )
            })
            .collect(),
        folder: source.filter(|dir| dir.exists()),
        missing_source,
        asked_client: false,
    }
}

/// `claude plugin list --json`'s entry for `key`; `None` when the client is not on `PATH` or
/// does not answer with that list.
fn ask_client(scene: &SetupScene<'_>, key: &str) -> Option<PluginLoad> {
    let claude = scene.find_on_path("claude")?;
    let argv = [
        claude.display().to_string(),
        "plugin".to_owned(),
        "list".to_owned(),
        "--json".to_owned(),
    ];
    let outcome = run_process(&ProcessRequest {
        argv: &argv,
        cwd: &scene.root,
        stdin: None,
        timeout: Some(PROBE_TIMEOUT),
        output: Captured::Separately,
    })
    .ok()?;
    if outcome.timed_out || !outcome.succeeded() {
        return None;
    }
    let list: Value = serde_json::from_str(outcome.stdout_text().trim()).ok()?;
    let entry = list
        .as_array()?
        .iter()
        .find(|e| e.get("id").and_then(Value::as_str) == Some(key))?;
    let errors = entry
        .get("errors")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    Some(PluginLoad {
        errors,
        missing_source: None,
        folder: entry
            .get("readFromFolder")
            .and_then(Value::as_str)
            .map(PathBuf::from),
        asked_client: true,
    })
}
