//! Micro benchmark: parse + fingerprint a generated SARIF log with many results.
//!
//! `cargo run --release -p self-repair-ingest --example sarif_bench -- [RESULTS] [FILES] [--no-auto]`
//! (defaults 100000 results over 1000 files; `--no-auto` skips the extra sniffing parse, so
//! peak memory is that of one parse + fingerprint). Generates the SARIF in memory and a temp project
//! holding the referenced files, then prints the time of each step. Measure peak memory with
//! `/usr/bin/time -v`.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use self_repair_ingest::{Format, IngestOptions, fingerprint_all, parse};

const LINES_PER_FILE: usize = 200;
const RULES: usize = 50;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let results: usize = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let files: usize = args.next().map_or(Ok(1_000), |a| a.parse())?;
    let auto = args.next().as_deref() != Some("--no-auto");

    let project = tempfile::tempdir()?;
    write_project(project.path(), files)?;
    let started = Instant::now();
    let sarif = generate_sarif(project.path(), results, files);
    println!(
        "generated {results} results over {files} files: {:.1} MB in {:.0} ms",
        sarif.len() as f64 / 1e6,
        started.elapsed().as_secs_f64() * 1e3
    );

    let options = IngestOptions::new("bench.sarif", project.path());
    let started = Instant::now();
    let parsed = parse(&sarif, Format::Sarif, &options)?;
    let parse_ms = started.elapsed().as_secs_f64() * 1e3;
    println!(
        "parse (format sarif): {parse_ms:.0} ms, {} findings",
        parsed.findings.len()
    );

    if auto {
        let stdin_options = IngestOptions::new("stdin", project.path());
        let started = Instant::now();
        let sniffed = parse(&sarif, Format::Auto, &stdin_options)?;
        println!(
            "parse (format auto, content sniffed as {}): {:.0} ms",
            sniffed.format,
            started.elapsed().as_secs_f64() * 1e3
        );
    }

    let started = Instant::now();
    let prints = fingerprint_all(&parsed.findings, project.path());
    let fingerprint_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut distinct = prints.clone();
    distinct.sort_unstable();
    distinct.dedup();
    println!(
        "fingerprint_all: {fingerprint_ms:.0} ms, {} distinct of {}",
        distinct.len(),
        prints.len()
    );
    println!("parse + fingerprint: {:.0} ms", parse_ms + fingerprint_ms);
    Ok(())
}

fn write_project(root: &Path, files: usize) -> std::io::Result<()> {
    for file in 0..files {
        let dir = root.join(format!("src/pkg{}", file % 20));
        std::fs::create_dir_all(&dir)?;
        let mut text = String::new();
        for line in 0..LINES_PER_FILE {
            let _ = writeln!(
                text,
                "    value_{line} = compute({file}, {line})  # line {line}"
            );
        }
        std::fs::write(dir.join(format!("module_{file}.py")), text)?;
    }
    Ok(())
}

fn generate_sarif(root: &Path, results: usize, files: usize) -> String {
    let root = root.display();
    let mut out = String::with_capacity(results * 420);
    out.push_str(r#"{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"BenchLint","version":"1.0","rules":["#);
    for rule in 0..RULES {
        if rule > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            r#"{{"id":"B{rule:03}","name":"bench-rule-{rule}","shortDescription":{{"text":"Bench rule {rule}"}},"helpUri":"https://example.org/rules/B{rule:03}","defaultConfiguration":{{"level":"warning"}}}}"#
        );
    }
    out.push_str(r#"]}},"results":["#);
    for index in 0..results {
        if index > 0 {
            out.push_str(",\n");
        }
        let rule = index % RULES;
        let file = index % files;
        let line = (index / files) % LINES_PER_FILE + 1;
        let level = if index % 2 == 0 {
            r#""level":"error","#
        } else {
            ""
        };
        let _ = write!(
            out,
            r#"{{"ruleId":"B{rule:03}","ruleIndex":{rule},{level}"message":{{"text":"Value `value_{line}` looks suspicious (seen {index} times)"}},"locations":[{{"physicalLocation":{{"artifactLocation":{{"uri":"file://{root}/src/pkg{pkg}/module_{file}.py"}},"region":{{"startLine":{line},"startColumn":5,"endLine":{line},"endColumn":17}}}}}}],"partialFingerprints":{{"primaryLocationLineHash":"{index:016x}:1"}}}}"#,
            pkg = file % 20,
        );
    }
    out.push_str("]}]}\n");
    out
}
