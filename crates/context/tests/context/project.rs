//! A temporary project to run the context functions over.

use std::path::Path;

/// A temp directory with files written by path.
pub(crate) struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    pub(crate) fn new() -> Project {
        Project {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `content` at `rel_path`, creating directories.
    pub(crate) fn file(&self, rel_path: &str, content: impl AsRef<[u8]>) -> &Project {
        let path = self.dir.path().join(rel_path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create dirs");
        }
        std::fs::write(path, content).expect("write file");
        self
    }
}

/// `count` lines `line 1` .. `line N`.
pub(crate) fn numbered_lines(count: u32) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    for number in 1..=count {
        let _ = writeln!(text, "line {number}");
    }
    text
}
