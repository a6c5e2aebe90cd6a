//! `enclosing_item` read from files on disk (per-language cases are unit tests in the crate).

use self_repair_context::{ItemKind, enclosing_item};

use crate::project::Project;

#[test]
fn reads_the_file_and_finds_the_method() {
    let project = Project::new();
    project.file(
        "src/store.rs",
        "pub struct Store;\n\nimpl Store {\n    pub fn open(path: &str) -> Store {\n        Store\n    }\n}\n",
    );
    let item = enclosing_item(project.root(), "src/store.rs", 5).expect("enclosed");
    assert_eq!(
        (item.kind, item.name.as_str(), item.start_line),
        (ItemKind::Method, "open", 4)
    );
    let parent = item.parent.expect("impl around it");
    assert_eq!(
        (parent.kind, parent.name.as_str(), parent.start_line),
        (ItemKind::Impl, "Store", 3)
    );
}

#[test]
fn missing_or_outside_files_give_none() {
    let project = Project::new();
    assert_eq!(enclosing_item(project.root(), "src/none.rs", 1), None);
    assert_eq!(enclosing_item(project.root(), "../x.rs", 1), None);
}
