//! Times `references` over a generated tree of about 5,000 files and 50 MB.
//!
//! `cargo run --release -p self-repair-context --example refs_bench [FILES] [KB_PER_FILE]`

use std::error::Error;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use self_repair_context::{RefOptions, references};

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let files: usize = args.next().map_or(Ok(5_000), |text| text.parse())?;
    let kilobytes: usize = args.next().map_or(Ok(10), |text| text.parse())?;
    let dir = tempfile::tempdir()?;
    let started = Instant::now();
    let bytes = generate(dir.path(), files, kilobytes)?;
    println!(
        "generated {files} files, {:.1} MB in {:.2?}",
        bytes as f64 / 1e6,
        started.elapsed()
    );
    for (label, symbol) in [
        ("rare symbol", "target_symbol"),
        ("value, a candidate on every line", "value"),
        ("absent", "no_such_symbol_anywhere"),
    ] {
        for run in 1..=3 {
            let started = Instant::now();
            let report = references(dir.path(), symbol, &RefOptions::default())?;
            println!(
                "{label:<34} run {run}: {:>8.2?}  {} (files scanned {}, {:.1} MB)",
                started.elapsed(),
                report.summary(),
                report.files_scanned,
                report.bytes_scanned as f64 / 1e6
            );
        }
    }
    Ok(())
}

/// Writes `files` source files of about `kilobytes` KB under `root`, in 50 directories, plus an
/// ignored directory; returns the bytes written outside the ignored part.
fn generate(root: &Path, files: usize, kilobytes: usize) -> Result<u64, Box<dyn Error>> {
    std::fs::write(root.join(".gitignore"), "generated/\n")?;
    std::fs::create_dir_all(root.join("generated"))?;
    std::fs::write(
        root.join("generated/copy.py"),
        "target_symbol\n".repeat(1000),
    )?;
    let mut total = 0_u64;
    for index in 0..files {
        let dir = root.join(format!("pkg{:02}/sub{}", index % 50, index % 7));
        std::fs::create_dir_all(&dir)?;
        let mut text = String::with_capacity(kilobytes * 1024 + 100);
        let mut line = 0_usize;
        while text.len() < kilobytes * 1024 {
            line += 1;
            match (index + line) % 997 {
                0 => text.push_str("    result = target_symbol(value, other)\n"),
                1 => {
                    text.push_str("    target_symbolic = compute(value)  # not a whole-word hit\n");
                }
                _ => {
                    let _ = writeln!(
                        text,
                        "    let item_{line} = helper_{}(value_{line}, \"string {index}\");",
                        line % 13
                    );
                }
            }
        }
        total += text.len() as u64;
        std::fs::write(dir.join(format!("file{index}.py")), text)?;
    }
    Ok(total)
}
