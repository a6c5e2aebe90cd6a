//! Adds the commit and its date to `self-repair --version` (`self-repair 0.1.0 (abc1234
//! 2026-11-29)`) when the build runs in a git clone; from a tarball, a wheel's sdist or a
//! crate without `.git` the version is the plain semver.

use std::path::Path;
use std::process::Command;

fn main() {
    let suffix =
        commit_and_date().map_or_else(String::new, |(commit, date)| format!(" ({commit} {date})"));
    println!("cargo:rustc-env=SELF_REPAIR_BUILD_SUFFIX={suffix}");
    // Rebuilt when HEAD moves: its file, and the branch it points to.
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    for name in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        if let Some(file) = git(&["rev-parse", "--git-path", name]) {
            let file = Path::new(&dir()).join(file);
            if file.exists() {
                println!("cargo:rerun-if-changed={}", file.display());
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// The short commit of HEAD and its committer date (`YYYY-MM-DD`), when git answers here.
fn commit_and_date() -> Option<(String, String)> {
    // Only this package's own clone: not a repository the sources were unpacked into.
    let top = git(&["rev-parse", "--show-toplevel"])?;
    if Path::new(&top).canonicalize().ok()? != Path::new(&dir()).canonicalize().ok()? {
        return None;
    }
    let commit = git(&["rev-parse", "--short=7", "HEAD"])?;
    let date = git(&["log", "-1", "--format=%cs", "HEAD"])?;
    Some((commit, date))
}

/// `git ARGS` in the package's folder: its trimmed stdout when it exits 0 and prints something.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir())
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (output.status.success() && !text.is_empty()).then_some(text)
}

/// The package's folder.
fn dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned())
}
