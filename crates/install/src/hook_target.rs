//! Where `install` registers the hooks and what command they run: no path of this machine in
//! a file a team commits.

use crate::install_spec::InstallSpec;
use crate::scope::Scope;

/// The hooks' command when the binary is the `self-repair` found on PATH.
pub(crate) const PATH_COMMAND: &str = "self-repair";

/// The project's local settings file: Claude Code reads it, and it is this machine's alone
/// (not committed), so it may hold an absolute path.
const PROJECT_LOCAL_SETTINGS: &str = ".claude/settings.local.json";

/// The settings file that gets the hooks and the command they run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HookTarget {
    /// Relative to the project root or the home.
    pub(crate) settings_rel_path: &'static str,
    /// `self-repair` or the binary's absolute path.
    pub(crate) command: String,
}

impl HookTarget {
    /// `--project` with the binary on PATH: `self-repair` in `.claude/settings.json`, the file a
    /// team commits. `--project` without it: the absolute path, in `.claude/settings.local.json`.
    /// `--user`: the absolute path in `~/.claude/settings.json`, which is the user's own and
    /// keeps working from a client started without the shell's PATH.
    pub(crate) fn for_install(spec: &InstallSpec, absolute_binary: &str) -> HookTarget {
        match (spec.scope, spec.binary_on_path) {
            (Scope::Project, true) => HookTarget {
                settings_rel_path: spec.scope.settings_rel_path(),
                command: PATH_COMMAND.to_owned(),
            },
            (Scope::Project, false) => HookTarget {
                settings_rel_path: PROJECT_LOCAL_SETTINGS,
                command: absolute_binary.to_owned(),
            },
            (Scope::User, _) => HookTarget {
                settings_rel_path: spec.scope.settings_rel_path(),
                command: absolute_binary.to_owned(),
            },
        }
    }
}
