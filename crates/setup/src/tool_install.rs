//! How to install the programs `init` writes into the config (the detectors' and the test
//! command's first word), for the warning `init` prints when one is not on `PATH` and the error
//! `detect` gives when one cannot start.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The command that installs `program` (its file name: `ruff`, `/opt/bin/ruff`), when it is
/// one of the tools `init` proposes or the analyzers the docs name.
pub fn install_hint(program: &str) -> Option<&'static str> {
    let name = Path::new(program).file_name()?.to_str()?;
    Some(match name {
        "ruff" => "`pip install ruff` or `uv tool install ruff`",
        "pytest" => "`pip install pytest` into the project's environment",
        "vulture" => "`pip install vulture`",
        "bandit" => "`pip install bandit`",
        "npx" | "npm" | "node" => "Node.js (it brings npm and npx): https://nodejs.org",
        "cargo" | "cargo-clippy" => {
            "Rust with rustup (https://rustup.rs), then `rustup component add clippy`"
        }
        _ => return None,
    })
}

/// `program` as the operating system would find it: a path with a `/` as it is (when it is a
/// file), else the first folder of `path_var` (`PATH`) holding a file of that name.
pub fn find_program(path_var: Option<&OsStr>, program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return path.is_file().then_some(path);
    }
    std::env::split_paths(path_var?)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proposed_tools_have_an_install_command_and_others_none() {
        assert!(install_hint("ruff").is_some_and(|h| h.contains("pip install ruff")));
        assert!(install_hint("/usr/bin/npx").is_some_and(|h| h.contains("Node.js")));
        assert!(install_hint("cargo").is_some_and(|h| h.contains("rustup")));
        assert_eq!(install_hint("make"), None);
    }

    #[test]
    fn a_program_is_found_in_a_folder_of_path_and_not_elsewhere() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("ruff"), "").unwrap_or_else(|e| panic!("{e}"));
        let path = std::env::join_paths([Path::new("/nonexistent"), dir.path()])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            find_program(Some(&path), "ruff"),
            Some(dir.path().join("ruff"))
        );
        assert_eq!(find_program(Some(&path), "pytest"), None);
        assert_eq!(find_program(None, "ruff"), None);
        let full = dir.path().join("ruff").display().to_string();
        assert!(find_program(None, &full).is_some());
    }
}
