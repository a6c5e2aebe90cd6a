//! How the `self-repair` on `PATH` was installed, and so how to upgrade it (`doctor`'s
//! `install` line): the installer's receipt when it names that binary, else where the binary
//! lives (cargo's folder, a Python tool's environment, Homebrew's cellar, a clone's `target/`).

use std::path::{Path, PathBuf};

use super::setup_check::{SetupCheck, SetupScene, read_json};

/// Where `scripts/install.sh` (the release's `self-repair-installer.sh`) records what it
/// installed, under `HOME`.
pub(crate) const RECEIPT: &str = ".config/self-repair/install-receipt.json";

/// The installer's one-liner (README.md, "Install").
const INSTALLER: &str = "curl -LsSf https://github.com/self-repair/self-repair/releases/latest/download/self-repair-installer.sh | sh";

/// How a binary came to be where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum InstallRoute {
    /// The release's installer, as its receipt says: the version and where it downloaded from.
    Installer { version: String, source: String },
    /// `cargo install` (`~/.cargo/bin`, or any `.cargo/bin`).
    Cargo,
    /// The published wheel in `uv tool`'s environment.
    UvTool,
    /// The published wheel in `pipx`'s environment.
    Pipx,
    /// The published wheel in a virtual environment (`pip install`): the environment's folder.
    Venv(PathBuf),
    /// Homebrew (the formula the release writes).
    Homebrew,
    /// Built in a clone (`target/release` or `target/debug`): the clone's folder.
    Clone(PathBuf),
    /// None of these.
    Unknown,
}

impl InstallRoute {
    /// The route of the binary at `found` (as `PATH` names it; links are followed), given the
    /// installer's receipt (`receipt`, when there is one).
    pub(crate) fn of(found: &Path, receipt: Option<&serde_json::Value>) -> InstallRoute {
        let real = found.canonicalize().unwrap_or_else(|_| found.to_path_buf());
        if let Some(receipt) = receipt {
            let named = receipt["binary"].as_str().map(Path::new);
            let same =
                named.is_some_and(|p| p == found || p.canonicalize().ok() == Some(real.clone()));
            if same && receipt["installed_by"] == "self-repair-installer.sh" {
                let text = |key: &str| receipt[key].as_str().unwrap_or("?").to_owned();
                return InstallRoute::Installer {
                    version: text("version"),
                    source: text("source"),
                };
            }
        }
        let text = real.to_string_lossy();
        let dir = real.parent().unwrap_or(&real);
        if text.contains("/uv/tools/") {
            InstallRoute::UvTool
        } else if text.contains("/pipx/venvs/") {
            InstallRoute::Pipx
        } else if let Some(venv) = dir.parent().filter(|env| env.join("pyvenv.cfg").is_file()) {
            InstallRoute::Venv(venv.to_path_buf())
        } else if dir.ends_with(".cargo/bin") {
            InstallRoute::Cargo
        } else if text.contains("/Cellar/") {
            InstallRoute::Homebrew
        } else if dir.ends_with("target/release") || dir.ends_with("target/debug") {
            let clone = dir.parent().and_then(Path::parent).unwrap_or(dir);
            InstallRoute::Clone(clone.to_path_buf())
        } else {
            InstallRoute::Unknown
        }
    }

    /// What put it there, for the line `installed by ...`.
    fn describe(&self) -> String {
        match self {
            InstallRoute::Installer { version, source } => {
                format!("installed by self-repair-installer.sh (version {version}, from {source})")
            }
            InstallRoute::Cargo => "installed by cargo install".to_owned(),
            InstallRoute::UvTool => "installed from the PyPI wheel by uv tool".to_owned(),
            InstallRoute::Pipx => "installed from the PyPI wheel by pipx".to_owned(),
            InstallRoute::Venv(env) => format!(
                "installed from the PyPI wheel by pip, in the environment {}",
                env.display()
            ),
            InstallRoute::Homebrew => "installed by Homebrew".to_owned(),
            InstallRoute::Clone(clone) => format!("built in the clone {}", clone.display()),
            InstallRoute::Unknown => {
                "installed by hand (no installer receipt names it; not cargo's, a Python \
                 environment's or Homebrew's folder)"
                    .to_owned()
            }
        }
    }

    /// The command that upgrades it the same way.
    fn upgrade(&self) -> String {
        match self {
            InstallRoute::Installer { .. } | InstallRoute::Unknown => format!("`{INSTALLER}`"),
            InstallRoute::Cargo => {
                "`git pull` in your clone, then `cargo install --locked --path .` \
                 (or `cargo binstall self-repair` for the released binary)"
                    .to_owned()
            }
            InstallRoute::UvTool => "`uv tool upgrade self-repair`".to_owned(),
            InstallRoute::Pipx => "`pipx upgrade self-repair`".to_owned(),
            InstallRoute::Venv(env) => {
                format!("`{}/bin/pip install --upgrade self-repair`", env.display())
            }
            InstallRoute::Homebrew => "`brew upgrade self-repair`".to_owned(),
            InstallRoute::Clone(clone) => format!(
                "`git pull` in {}, then `cargo build --release` there",
                clone.display()
            ),
        }
    }
}

/// `doctor`'s `install` line: how the `self-repair` on `PATH` was installed and how to upgrade
/// it, the binary and then what registers the hooks (`plugin`: whether the plugin does).
/// Skipped when none is on `PATH` (the `binary` line says what to do).
pub(crate) fn install_check(scene: &SetupScene<'_>, plugin: bool) -> SetupCheck {
    let Some(found) = scene.find_on_path("self-repair") else {
        return SetupCheck::skipped("install", "self-repair is not on PATH: no install to name");
    };
    let receipt = scene.home.and_then(|home| read_json(&home.join(RECEIPT)));
    let route = InstallRoute::of(&found, receipt.as_ref());
    let hooks = if plugin {
        "then `claude plugin marketplace update self-repair` and `claude plugin update \
         self-repair@self-repair`"
    } else {
        "then `self-repair install` again as you ran it (`--project` or `--user`): it updates \
         the hooks it wrote"
    };
    SetupCheck::ok(
        "install",
        format!(
            "{}; upgrade: {}, {hooks}",
            route.describe(),
            route.upgrade()
        ),
    )
}

#[cfg(test)]
mod tests {
    use std::fs;

    use serde_json::json;

    use super::InstallRoute;

    fn binary_in(dir: &std::path::Path) -> std::path::PathBuf {
        fs::create_dir_all(dir).unwrap();
        let binary = dir.join("self-repair");
        fs::write(&binary, "").unwrap();
        binary
    }

    #[test]
    fn the_installer_s_receipt_names_the_route_only_for_the_binary_it_installed() {
        let home = tempfile::tempdir().unwrap();
        let binary = binary_in(&home.path().join(".local/bin"));
        let receipt = json!({
            "installed_by": "self-repair-installer.sh",
            "version": "0.1.0",
            "binary": binary.display().to_string(),
            "source": "http://127.0.0.1:1/v0.1.0",
        });
        assert_eq!(
            InstallRoute::of(&binary, Some(&receipt)),
            InstallRoute::Installer {
                version: "0.1.0".to_owned(),
                source: "http://127.0.0.1:1/v0.1.0".to_owned()
            }
        );
        // The same receipt does not claim another binary: a copy somewhere else is not its.
        let other = binary_in(&home.path().join("elsewhere"));
        assert_eq!(
            InstallRoute::of(&other, Some(&receipt)),
            InstallRoute::Unknown
        );
        assert_eq!(InstallRoute::of(&binary, None), InstallRoute::Unknown);
    }

    #[test]
    fn cargo_python_environments_homebrew_and_clones_are_told_by_their_folders() {
        let root = tempfile::tempdir().unwrap();
        let at = |relative: &str| binary_in(&root.path().join(relative));
        assert_eq!(
            InstallRoute::of(&at(".cargo/bin"), None),
            InstallRoute::Cargo
        );
        assert_eq!(
            InstallRoute::of(&at(".local/share/uv/tools/self-repair/bin"), None),
            InstallRoute::UvTool
        );
        assert_eq!(
            InstallRoute::of(&at(".local/share/pipx/venvs/self-repair/bin"), None),
            InstallRoute::Pipx
        );
        let venv_binary = at("venv/bin");
        fs::write(root.path().join("venv/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        let venv = root.path().join("venv").canonicalize().unwrap();
        assert_eq!(
            InstallRoute::of(&venv_binary, None),
            InstallRoute::Venv(venv)
        );
        assert_eq!(
            InstallRoute::of(&at("opt/homebrew/Cellar/self-repair/0.1.0/bin"), None),
            InstallRoute::Homebrew
        );
        let built = at("clone/target/release");
        let clone = root.path().join("clone").canonicalize().unwrap();
        assert_eq!(InstallRoute::of(&built, None), InstallRoute::Clone(clone));
    }

    #[test]
    fn a_link_into_a_python_tool_s_environment_is_followed() {
        let root = tempfile::tempdir().unwrap();
        let real = binary_in(&root.path().join("share/uv/tools/self-repair/bin"));
        fs::create_dir_all(root.path().join("bin")).unwrap();
        let link = root.path().join("bin/self-repair");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(InstallRoute::of(&link, None), InstallRoute::UvTool);
    }

    #[test]
    fn every_route_names_the_upgrade_of_its_own_tool() {
        let cases = [
            (
                InstallRoute::Installer {
                    version: "0.1.0".to_owned(),
                    source: "s".to_owned(),
                },
                "self-repair-installer.sh | sh",
            ),
            (InstallRoute::Cargo, "cargo install --locked --path ."),
            (InstallRoute::UvTool, "uv tool upgrade self-repair"),
            (InstallRoute::Pipx, "pipx upgrade self-repair"),
            (
                InstallRoute::Venv("/v".into()),
                "/v/bin/pip install --upgrade",
            ),
            (InstallRoute::Homebrew, "brew upgrade self-repair"),
            (InstallRoute::Clone("/c".into()), "`git pull` in /c"),
            (InstallRoute::Unknown, "self-repair-installer.sh | sh"),
        ];
        for (route, expected) in cases {
            let upgrade = route.upgrade();
            assert!(upgrade.contains(expected), "{route:?}: {upgrade}");
        }
    }
}
