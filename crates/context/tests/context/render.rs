//! Snapshots of `CodeContext::render_markdown`, the section `show` puts in an investigator's prompt.

use self_repair_context::{ContextOptions, code_context};

use crate::project::Project;

const LOADER_PY: &str = r#"import os


class Loader:
    """Loads files."""

    def __init__(self, root):
        self.root = root

    def load(self, name):
        path = os.path.join(self.root, name)
        if not os.path.exists(path):
            return None
        with open(path) as handle:
            return handle.read()

    def unused_helper(self):
        return "```not a fence```"
"#;

const MAIN_PY: &str = r#"from app.loader import Loader


def main():
    loader = Loader("data")
    print(loader.load("a.txt"))
    print(Loader.unused_helper)
"#;

#[test]
fn python_dead_method_context() {
    let project = Project::new();
    project
        .file("app/loader.py", LOADER_PY)
        .file("app/main.py", MAIN_PY)
        .file(".gitignore", "build/\n")
        .file("build/lib/app/loader.py", LOADER_PY);
    let options = ContextOptions {
        radius: 4,
        ..ContextOptions::default()
    };
    let context = code_context(
        project.root(),
        "app/loader.py",
        17,
        Some("Loader.unused_helper"),
        &options,
    );
    insta::assert_snapshot!(context.render_markdown());
}

const STORE_RS: &str = r#"//! The state store.

use std::path::Path;

pub struct Store {
    root: std::path::PathBuf,
}

impl Store {
    /// Opens the store.
    pub fn open(root: &Path) -> Store {
        let root = root.to_path_buf();
        Store { root }
    }

    fn legacy_path(&self) -> std::path::PathBuf {
        self.root.join("old")
    }
}
"#;

const MAIN_RS: &str = r#"use crate::store::Store;

fn main() {
    let store = Store::open(std::path::Path::new("."));
    let reopened = Store::open(std::path::Path::new(".."));
    drop((store, reopened));
}
"#;

#[test]
fn rust_method_context() {
    let project = Project::new();
    project
        .file("src/store.rs", STORE_RS)
        .file("src/main.rs", MAIN_RS)
        .file("target/debug/build/out.rs", "Store::open()\n");
    let options = ContextOptions {
        radius: 3,
        ..ContextOptions::default()
    };
    let context = code_context(project.root(), "src/store.rs", 12, Some("open"), &options);
    insta::assert_snapshot!(context.render_markdown());
}

#[test]
fn missing_file_and_no_symbol_are_explained() {
    let project = Project::new();
    let context = code_context(
        project.root(),
        "src/gone.rs",
        4,
        None,
        &ContextOptions::default(),
    );
    insta::assert_snapshot!(context.render_markdown());
}

#[test]
fn path_outside_the_project_is_a_note_not_a_read() {
    let project = Project::new();
    let context = code_context(
        project.root(),
        "../../etc/passwd",
        1,
        Some("root"),
        &ContextOptions::default(),
    );
    assert!(context.snippet.is_none());
    let rendered = context.render_markdown();
    assert!(rendered.contains("is outside the project"), "{rendered}");
    assert!(!rendered.contains("root:x:0"), "{rendered}");
}
