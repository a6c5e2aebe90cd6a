//! A temporary project (or home) with helpers to install, uninstall and inspect it.

use std::fs;
use std::path::{Path, PathBuf};

use self_repair_install::{
    BundleFile, InstallError, InstallPlan, InstallRoot, InstallSpec, Scope, UninstallPlan,
    plan_install, plan_uninstall,
};
use serde_json::Value;

/// A fixed fake binary path so snapshots do not depend on the machine.
pub(crate) const FAKE_BIN: &str = "/opt/fake/bin/self-repair";

pub(crate) const BUSY: &str = include_str!("../fixtures/busy-settings.json");
pub(crate) const HAND_FORMATTED: &str = include_str!("../fixtures/hand-formatted-settings.json");

/// A small bundle standing in for the real agents and skill.
pub(crate) const TEST_BUNDLE: &[BundleFile] = &[
    BundleFile {
        rel_path: "agents/triage-investigator.md",
        contents: "---\nname: triage-investigator\ndescription: Triage one finding.\n---\n\nRun `self-repair show <id>`.\n",
    },
    BundleFile {
        rel_path: "skill/self-repair/SKILL.md",
        contents: "---\nname: self-repair\ndescription: Run the self-repair pipeline.\n---\n\nRun `self-repair start`.\n",
    },
    BundleFile {
        rel_path: "skill/self-repair/templates/generic.md",
        contents: "Finding: {{finding}}\n",
    },
];

pub(crate) struct Project {
    pub dir: tempfile::TempDir,
    pub scope: Scope,
}

impl Project {
    pub(crate) fn new() -> Self {
        Self::with_scope(Scope::Project)
    }

    pub(crate) fn with_scope(scope: Scope) -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            scope,
        }
    }

    pub(crate) fn with_settings(text: &str) -> Self {
        let project = Self::new();
        project.write(".claude/settings.json", text);
        project
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Where the install goes: the project, or the home (no `CLAUDE_CONFIG_DIR`).
    pub(crate) fn install_root(&self) -> InstallRoot {
        match self.scope {
            Scope::Project => InstallRoot::project(self.root()),
            Scope::User => InstallRoot::user(self.root(), None),
        }
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub(crate) fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap()
    }

    pub(crate) fn settings(&self) -> String {
        self.read(".claude/settings.json")
    }

    pub(crate) fn settings_json(&self) -> Value {
        serde_json::from_str(&self.settings()).unwrap()
    }

    pub(crate) fn spec(&self, binary: &str) -> InstallSpec {
        InstallSpec {
            binary: PathBuf::from(binary),
            scope: self.scope,
            binary_on_path: true,
        }
    }

    pub(crate) fn plan(&self) -> Result<InstallPlan, InstallError> {
        self.plan_with(FAKE_BIN, TEST_BUNDLE)
    }

    pub(crate) fn plan_with(
        &self,
        binary: &str,
        bundle: &[BundleFile],
    ) -> Result<InstallPlan, InstallError> {
        plan_install(&self.install_root(), &self.spec(binary), bundle)
    }

    /// Plans and applies an install with the fake binary and test bundle.
    pub(crate) fn install(&self) -> InstallPlan {
        self.install_with(FAKE_BIN, TEST_BUNDLE)
    }

    pub(crate) fn install_with(&self, binary: &str, bundle: &[BundleFile]) -> InstallPlan {
        let plan = self.plan_with(binary, bundle).unwrap();
        plan.apply().unwrap();
        plan
    }

    pub(crate) fn uninstall(&self) -> UninstallPlan {
        let plan = plan_uninstall(&self.install_root(), self.scope).unwrap();
        plan.apply().unwrap();
        plan
    }

    /// Every file and directory under the root, relative, sorted (directories end in `/`).
    pub(crate) fn tree(&self) -> Vec<String> {
        let mut out = Vec::new();
        walk(self.root(), self.root(), &mut out);
        out.sort();
        out
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if path.is_dir() {
            out.push(format!("{rel}/"));
            walk(root, &path, out);
        } else {
            out.push(rel);
        }
    }
}

/// Our hook entries (any command) on `event` with args `["hook", sub]`.
pub(crate) fn our_entries<'a>(settings: &'a Value, event: &str, sub: &str) -> Vec<&'a Value> {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|group| group["hooks"].as_array().into_iter().flatten())
        .filter(|entry| entry["args"] == serde_json::json!(["hook", sub]))
        .collect()
}

/// `text` with regex metacharacters escaped, for insta filters.
pub(crate) fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}
