//! The docs against the binary and the tree: every `self-repair <command>` that README.md, the
//! contributor docs, reference/ and the skill name is a command of `--help` (and of its
//! subcommand's `--help`), and every repository path they or the binary's messages name exists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::harness::TestProject;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The docs: README.md, the contributor docs (CONTRIBUTING.md, ARCHITECTURE.md), reference/*.md,
/// the skill's SKILL.md and its reference.
fn docs() -> Vec<PathBuf> {
    let mut docs = vec![
        repo().join("README.md"),
        repo().join("CONTRIBUTING.md"),
        repo().join("ARCHITECTURE.md"),
        repo().join("plugin/skill/self-repair/SKILL.md"),
    ];
    for dir in ["reference", "plugin/skill/self-repair/reference"] {
        for entry in std::fs::read_dir(repo().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                docs.push(path);
            }
        }
    }
    docs.sort();
    docs
}

/// The subcommands a `--help` lists (under "Commands:", or the top-level help's groups).
fn subcommands(project: &TestProject, args: &[&str]) -> BTreeSet<String> {
    let mut args = args.to_vec();
    args.push("--help");
    let help = project.cmd(&args).run().success().stdout;
    crate::command_outputs::subcommands(&help)
        .into_iter()
        .collect()
}

/// The `` `code` `` spans of a markdown text.
fn spans(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

/// A word that stands for something (`ITEM`, `<id>`, `[--json]`, `...`), not a literal name.
fn is_placeholder(word: &str) -> bool {
    word.starts_with(['-', '<', '[', '{', '.', '…', '|'])
        || word.chars().any(|c| c.is_ascii_uppercase())
        || word.contains('/')
}

/// The command names a span's first word gives: `show\|item\|submit` is three. `None` for a
/// line of the binary's own output quoted in a doc (`self-repair run R: paused`, `self-repair
/// fix: ...`, `self-repair 0.1.0`, a status row's run id).
fn command_names(word: &str) -> Option<Vec<&str>> {
    if word == "run"
        || !word
            .chars()
            .all(|c| c.is_ascii_lowercase() || "-\\|".contains(c))
    {
        return None;
    }
    Some(word.split('|').map(|w| w.trim_end_matches('\\')).collect())
}

#[test]
fn every_command_the_docs_name_is_in_help() {
    let project = TestProject::new();
    let top = subcommands(&project, &[]);
    let mut missing = Vec::new();
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(repo()).unwrap().display().to_string();
        for span in spans(&text) {
            let Some(rest) = span.strip_prefix("self-repair ") else {
                continue;
            };
            let mut words = rest.split_whitespace();
            let Some(commands) = words
                .next()
                .filter(|w| !is_placeholder(w))
                .and_then(command_names)
            else {
                continue;
            };
            if let Some(unknown) = commands.iter().find(|c| !top.contains(**c)) {
                missing.push(format!("{name}: `{span}`: no command `{unknown}`"));
                continue;
            }
            let [command] = commands[..] else {
                continue;
            };
            let nested = subcommands(&project, &[command]);
            if let Some(sub) = words
                .next()
                .filter(|w| !nested.is_empty() && !is_placeholder(w))
                && !nested.contains(sub)
            {
                missing.push(format!("{name}: `{span}`: no `{command} {sub}`"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Folders of the repository a doc or a message names paths under.
const TOP_FOLDERS: [&str; 11] = [
    "reference/",
    "crates/",
    "scripts/",
    "skill/",
    "agents/",
    "hooks/",
    "src/",
    "tests/",
    "e2e/",
    "bench/",
    "test-support/",
];

/// The repository paths named in `text`: words under one of [`TOP_FOLDERS`] naming a file (with
/// an extension) or a folder (`.../`), without a trailing `:line` or punctuation; templates
/// (`<name>`, `*`, `…`) and the example projects' sources (`src/a.py`) left out.
fn named_paths(text: &str) -> BTreeSet<String> {
    text.split(|c: char| c.is_whitespace() || "`()[]\"',;|".contains(c))
        .filter(|word| TOP_FOLDERS.iter().any(|top| word.starts_with(top)))
        .map(|word| {
            let word = word.split(':').next().unwrap_or(word);
            word.split('#')
                .next()
                .unwrap_or(word)
                .trim_end_matches(['.', '*'])
        })
        .filter(|word| {
            !word.contains(['<', '>', '*', '{', '}', '…', '$', '\\']) && !word.contains("..")
        })
        .filter(|word| {
            let file = word.rsplit('/').next().unwrap_or_default();
            let extension = Path::new(file).extension();
            word.ends_with('/') || extension.is_some_and(|e| e != "py")
        })
        .map(str::to_owned)
        .collect()
}

fn exists(base: &Path, path: &str) -> bool {
    base.join(path).exists() || repo().join(path).exists()
}

#[test]
fn every_path_the_docs_and_messages_name_exists() {
    let mut missing = Vec::new();
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(repo()).unwrap().display().to_string();
        let base = doc.parent().unwrap();
        for path in named_paths(&text) {
            if !exists(base, &path) {
                missing.push(format!("{name}: {path}"));
            }
        }
        // Markdown links: `](target)`, relative to the doc.
        for link in text.split("](").skip(1) {
            let target = link.split(')').next().unwrap_or_default();
            let target = target.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") {
                continue;
            }
            if !base.join(target).exists() {
                missing.push(format!("{name}: link {target}"));
            }
        }
    }
    // What the binary's messages send a user to read.
    let mut sources = vec![repo().join("src")];
    for entry in std::fs::read_dir(repo().join("crates")).unwrap() {
        sources.push(entry.unwrap().path().join("src"));
    }
    while let Some(dir) = sources.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for named in named_paths(&text)
                    .into_iter()
                    .filter(|p| p.starts_with("reference/"))
                {
                    if !repo().join(&named).exists() {
                        missing.push(format!("{}: {named}", path.display()));
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "named but missing:\n{}",
        missing.join("\n")
    );
}
