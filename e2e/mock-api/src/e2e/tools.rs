//! Where the programs under test live and where scenarios may write.

use std::path::PathBuf;

use crate::e2e::wheel_install::WheelInstall;

/// The binaries and folders every scenario uses.
#[derive(Debug, Clone)]
pub struct Tools {
    /// The `self-repair` binary under test.
    pub self_repair: PathBuf,
    /// The real Claude Code CLI.
    pub claude: PathBuf,
    /// The real backlog CLI.
    pub backlog: PathBuf,
    /// The bin folder of the venv holding Ruff, pytest and vulture
    /// (`scripts/install-py-tools.sh`); the fix-loop scenarios fail without it.
    pub python_bin: Option<PathBuf>,
    /// Microsoft's SARIF Multitool (`Sarif.Multitool`): the CI recipes' stand-in for
    /// `github/codeql-action/upload-sarif` validates with it; those scenarios fail without it.
    pub sarif_multitool: Option<PathBuf>,
    /// The plugin directory for `--plugin-dir` (the repository's `plugin/`).
    pub plugin_dir: PathBuf,
    /// The repository root: the fixtures, corpora and recipes the scenarios read.
    pub repo: PathBuf,
    /// A folder scenarios create their projects in.
    pub work: PathBuf,
    /// Seconds a single `claude -p` may take before it is killed.
    pub claude_timeout: u64,
    /// The venv the repo's wheel was installed into, when `self_repair` is its binary (the
    /// `wheel-installed` scenario runs then only).
    pub wheel: Option<WheelInstall>,
}
