//! Embeds every file under the plugin's `agents/` and `skill/` directories (`plugin/` in the
//! repository) into the crate,
//! so `self-repair install` can copy the bundle without the source tree at run time.

use std::env;
use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Bundle roots, relative to the repository root.
const ROOTS: [&str; 2] = ["agents", "skill"];
/// Where the plugin lives in the repository: the bundle roots are inside it.
const PLUGIN: &str = "plugin";

fn main() -> Result<(), Box<dyn Error>> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    let repo_root = manifest_dir.join("..").join("..").join(PLUGIN);
    let mut files = Vec::new();
    for root in ROOTS {
        let dir = repo_root.join(root);
        // A directory is scanned recursively by cargo; a missing one makes the script rerun,
        // which is what we want until the bundle exists.
        println!("cargo:rerun-if-changed={}", dir.display());
        if dir.is_dir() {
            collect(&dir, root, &mut files)?;
        }
    }
    files.sort();

    let mut out = String::from("&[\n");
    for (rel_path, abs_path) in &files {
        let abs = abs_path
            .to_str()
            .ok_or_else(|| format!("bundle path is not UTF-8: {}", abs_path.display()))?;
        writeln!(
            out,
            "    BundleFile {{ rel_path: {rel_path:?}, contents: include_str!({abs:?}) }},"
        )?;
    }
    out.push_str("]\n");
    let out_path = PathBuf::from(env::var("OUT_DIR")?).join("bundle.rs");
    fs::write(out_path, out)?;
    Ok(())
}

/// Adds every regular, non-hidden file under `dir` as (`prefix/relative/path`, absolute path).
fn collect(
    dir: &Path,
    prefix: &str,
    files: &mut Vec<(String, PathBuf)>,
) -> Result<(), Box<dyn Error>> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name
            .to_str()
            .ok_or_else(|| format!("bundle file name is not UTF-8 in {}", dir.display()))?;
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let rel = format!("{prefix}/{name}");
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            collect(&path, &rel, files)?;
        } else if file_type.is_file() {
            files.push((rel, fs::canonicalize(&path)?));
        }
    }
    Ok(())
}
