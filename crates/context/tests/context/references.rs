//! `references`: ignore rules, skipped directories, caps, boundaries, metacharacters, order.

use self_repair_context::{ContextError, RefLocation, RefOptions, ScanLimit, references};

use crate::project::Project;

fn rendered(project: &Project, symbol: &str, options: &RefOptions) -> String {
    references(project.root(), symbol, options)
        .expect("search")
        .render()
}

#[test]
fn gitignore_and_skipped_directories_are_honoured() {
    let project = Project::new();
    project
        .file(".gitignore", "ignored/\n*.log\n")
        .file("src/app.py", "load()\n")
        .file("ignored/copy.py", "load()\n")
        .file("debug.log", "load\n")
        .file("node_modules/pkg/index.js", "load()\n")
        .file("target/debug/out.rs", "load()\n")
        .file(".self-repair/runs/r1/findings.json", "\"load\"\n")
        .file(".git/HEAD", "load\n")
        .file(".github/workflows/ci.yml", "run: load\n");
    assert_eq!(
        rendered(&project, "load", &RefOptions::default()),
        ".github/workflows/ci.yml:1: run: load\nsrc/app.py:1: load()\n"
    );
}

#[test]
fn nested_gitignore_applies_below_its_directory() {
    let project = Project::new();
    project
        .file("pkg/.gitignore", "gen.py\n")
        .file("pkg/gen.py", "load\n")
        .file("gen.py", "load\n");
    assert_eq!(
        rendered(&project, "load", &RefOptions::default()),
        "gen.py:1: load\n"
    );
}

#[test]
fn results_cap_keeps_the_first_hits_and_counts_all() {
    let project = Project::new();
    project
        .file("a.py", "use_it(thing)\n".repeat(40))
        .file("b.py", "thing\n".repeat(40));
    let report = references(project.root(), "thing", &RefOptions::default()).expect("search");
    assert_eq!(report.total_hits, 80);
    assert_eq!(report.hits.len(), 50);
    assert!(report.is_truncated());
    assert_eq!(report.files_with_hits, 2);
    let last = report.hits.last().expect("hits");
    assert_eq!((last.path.as_str(), last.line), ("b.py", 10));
    assert_eq!(
        report.summary(),
        "80 lines in 2 files; showing the first 50"
    );
}

#[test]
fn file_and_byte_caps_stop_the_scan_and_say_so() {
    let project = Project::new();
    for name in ["a", "b", "c", "d"] {
        project.file(&format!("{name}.txt"), "needle\n");
    }
    let few_files = RefOptions {
        max_files_scanned: 2,
        ..RefOptions::default()
    };
    let report = references(project.root(), "needle", &few_files).expect("search");
    assert_eq!((report.files_scanned, report.total_hits), (2, 2));
    assert_eq!(report.stopped_by, Some(ScanLimit::Files));
    assert!(
        report
            .summary()
            .ends_with("; scan stopped after 2 files (cap)"),
        "{}",
        report.summary()
    );

    let few_bytes = RefOptions {
        max_bytes_scanned: 15,
        ..RefOptions::default()
    };
    let report = references(project.root(), "needle", &few_bytes).expect("search");
    assert_eq!((report.files_scanned, report.bytes_scanned), (2, 14));
    assert_eq!(report.stopped_by, Some(ScanLimit::Bytes));

    // A budget of exactly what the files hold reads them all and stops nothing.
    let exact_bytes = RefOptions {
        max_bytes_scanned: 28,
        ..RefOptions::default()
    };
    let report = references(project.root(), "needle", &exact_bytes).expect("search");
    assert_eq!((report.files_scanned, report.bytes_scanned), (4, 28));
    assert_eq!(report.stopped_by, None);
}

#[test]
fn oversized_and_binary_files_are_skipped() {
    let project = Project::new();
    project
        .file("big.js", format!("needle\n{}", "x".repeat(100)))
        .file("blob.bin", b"needle\x00\n")
        .file("small.js", "needle\n")
        // Exactly the limit (50 bytes) is not over it.
        .file("edge.js", format!("needle\n{}", "x".repeat(43)));
    let options = RefOptions {
        max_file_bytes: 50,
        ..RefOptions::default()
    };
    let report = references(project.root(), "needle", &options).expect("search");
    assert_eq!(report.render(), "edge.js:1: needle\nsmall.js:1: needle\n");
    assert_eq!((report.skipped_large, report.skipped_binary), (1, 1));
}

#[test]
fn word_boundaries_os_does_not_match_posix() {
    let project = Project::new();
    project.file(
        "a.py",
        "import posix\nimport os\nos_name = 1\nkos = os.name\n",
    );
    assert_eq!(
        rendered(&project, "os", &RefOptions::default()),
        "a.py:2: import os\na.py:4: kos = os.name\n"
    );
}

#[test]
fn symbols_with_regex_metacharacters_are_literal() {
    let project = Project::new();
    project.file("a.txt", "axb\na.b\n(a+b)*\na+bb\n[x]\nx\n");
    assert_eq!(
        rendered(&project, "a.b", &RefOptions::default()),
        "a.txt:2: a.b\n"
    );
    assert_eq!(
        rendered(&project, "(a+b)*", &RefOptions::default()),
        "a.txt:3: (a+b)*\n"
    );
    assert_eq!(
        rendered(&project, "[x]", &RefOptions::default()),
        "a.txt:5: [x]\n"
    );
}

#[test]
fn excluded_location_is_left_out_and_counted() {
    let project = Project::new();
    project
        .file("src/lib.rs", "pub fn open() {}\n")
        .file("src/main.rs", "fn main() { open(); }\n");
    let options = RefOptions {
        exclude: vec![RefLocation {
            path: "./src/lib.rs".to_owned(),
            line: 1,
        }],
        ..RefOptions::default()
    };
    let report = references(project.root(), "open", &options).expect("search");
    assert_eq!(report.render(), "src/main.rs:1: fn main() { open(); }\n");
    assert_eq!((report.total_hits, report.excluded_hits), (1, 1));
}

#[test]
fn order_is_by_path_then_line_and_each_line_once() {
    let project = Project::new();
    project
        .file("b.py", "\n\nrun(run)\n")
        .file("a/z.py", "run\n")
        .file("a.py", "x\nrun\n")
        .file("A.py", "run\n");
    assert_eq!(
        rendered(&project, "run", &RefOptions::default()),
        "A.py:1: run\na.py:2: run\na/z.py:1: run\nb.py:3: run(run)\n"
    );
}

#[test]
fn hit_text_is_trimmed_and_long_lines_show_the_hit() {
    let project = Project::new();
    project.file(
        "min.js",
        format!("    {} needle {}\r\n", "a".repeat(1000), "b".repeat(1000)),
    );
    let report = references(project.root(), "needle", &RefOptions::default()).expect("search");
    let text = &report.hits[0].text;
    assert!(
        text.contains("needle") && text.starts_with('…') && text.ends_with('…'),
        "{text}"
    );
    assert!(text.chars().count() <= 202);
}

#[cfg(unix)]
#[test]
fn symlinks_are_not_followed_out_of_the_project() {
    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::write(outside.path().join("secret.py"), "needle\n").expect("write");
    let project = Project::new();
    project.file("a.py", "needle\n");
    std::os::unix::fs::symlink(outside.path(), project.root().join("linked")).expect("symlink");
    std::os::unix::fs::symlink(
        outside.path().join("secret.py"),
        project.root().join("s.py"),
    )
    .expect("symlink");
    assert_eq!(
        rendered(&project, "needle", &RefOptions::default()),
        "a.py:1: needle\n"
    );
}

#[test]
fn empty_or_multiline_symbols_are_refused() {
    let project = Project::new();
    for symbol in ["", "   ", "a\nb"] {
        let result = references(project.root(), symbol, &RefOptions::default());
        assert!(
            matches!(result, Err(ContextError::InvalidSymbol { .. })),
            "{symbol:?}"
        );
    }
}

#[test]
fn no_hits_summary_names_the_files_scanned() {
    let project = Project::new();
    project.file("a.py", "x\n").file("b.py", "y\n");
    let report = references(project.root(), "absent", &RefOptions::default()).expect("search");
    assert_eq!(report.summary(), "no references in 2 files");
    assert!(!report.is_truncated());
}

/// A skipped path ending in `/` or `\` is a folder (everything under it); without one, a file.
#[test]
fn a_skipped_path_with_a_trailing_slash_or_backslash_is_a_folder() {
    let project = Project::new();
    project
        .file("gen/a.py", "load\n")
        .file("out/b.py", "load\n")
        .file("one.py", "load\n")
        .file("two.py", "load\n");
    let options = RefOptions {
        skip_paths: vec!["gen/".to_owned(), "out\\".to_owned(), "./one.py".to_owned()],
        ..RefOptions::default()
    };
    assert_eq!(rendered(&project, "load", &options), "two.py:1: load\n");
}

/// A long line after the first is cut around its hit too, not around the line's start: a
/// third of the window before the hit (its indent not counted), the rest after it.
#[test]
fn a_long_line_below_the_first_is_cut_around_its_hit() {
    let project = Project::new();
    project.file(
        "min.js",
        format!(
            "first\n    {} needle {}\n",
            "a".repeat(1000),
            "b".repeat(1000)
        ),
    );
    let report = references(project.root(), "needle", &RefOptions::default()).expect("search");
    let hit = &report.hits[0];
    assert_eq!(hit.line, 2);
    assert_eq!(
        hit.text,
        format!("…{} needle {}…", "a".repeat(65), "b".repeat(127))
    );
}

/// A one-letter symbol ending a line: the search goes on past the line's end, each line once.
#[test]
fn a_one_letter_symbol_at_the_end_of_lines_is_found_once_a_line() {
    let project = Project::new();
    project.file("a.py", "x = y\ny\nz = y\n");
    assert_eq!(
        rendered(&project, "y", &RefOptions::default()),
        "a.py:1: x = y\na.py:2: y\na.py:3: z = y\n"
    );
}
