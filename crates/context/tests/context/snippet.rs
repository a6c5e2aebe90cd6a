//! `snippet`: radius at the file's edges, marking, refusals, odd files.

use self_repair_context::{ContextError, SnippetNote, snippet};

use crate::project::{Project, numbered_lines};

#[test]
fn radius_is_clipped_at_the_start_of_the_file() {
    let project = Project::new();
    project.file("a.txt", numbered_lines(20));
    let shown = snippet(project.root(), "a.txt", 2, 3)
        .expect("snippet")
        .expect("file exists");
    assert_eq!(
        shown.render(),
        "  1 | line 1\n> 2 | line 2\n  3 | line 3\n  4 | line 4\n  5 | line 5\n"
    );
}

#[test]
fn radius_is_clipped_at_the_end_of_the_file_and_numbers_align() {
    let project = Project::new();
    project.file("a.txt", numbered_lines(100));
    let shown = snippet(project.root(), "a.txt", 99, 2)
        .expect("snippet")
        .expect("file exists");
    assert_eq!(
        shown.render(),
        "   97 | line 97\n   98 | line 98\n>  99 | line 99\n  100 | line 100\n"
    );
    let marked: Vec<u32> = shown
        .lines
        .iter()
        .filter(|line| line.is_finding)
        .map(|line| line.number)
        .collect();
    assert_eq!(marked, vec![99]);
}

#[test]
fn line_past_the_end_says_the_file_changed() {
    let project = Project::new();
    project.file("a.txt", numbered_lines(5));
    let shown = snippet(project.root(), "a.txt", 9, 2)
        .expect("snippet")
        .expect("file exists");
    assert!(shown.lines.is_empty());
    assert_eq!(shown.note, Some(SnippetNote::LinePastEnd { line_count: 5 }));
}

#[test]
fn line_zero_shows_the_top_unmarked() {
    let project = Project::new();
    project.file("a.txt", numbered_lines(50));
    let shown = snippet(project.root(), "a.txt", 0, 2)
        .expect("snippet")
        .expect("file exists");
    let numbers: Vec<u32> = shown.lines.iter().map(|line| line.number).collect();
    assert_eq!(numbers, vec![1, 2, 3, 4, 5]);
    assert!(shown.lines.iter().all(|line| !line.is_finding));
}

#[test]
fn missing_file_is_none() {
    let project = Project::new();
    assert_eq!(
        snippet(project.root(), "src/gone.py", 3, 2).expect("no error"),
        None
    );
}

#[test]
fn leading_dot_slash_is_accepted_and_crlf_is_stripped() {
    let project = Project::new();
    project.file("src/a.py", "one\r\ntwo\r\nthree\r\n");
    let shown = snippet(project.root(), "./src/a.py", 2, 1)
        .expect("snippet")
        .expect("file exists");
    assert_eq!(shown.render(), "  1 | one\n> 2 | two\n  3 | three\n");
}

#[test]
fn paths_leaving_the_project_are_refused() {
    let project = Project::new();
    project.file("inside/a.txt", "x\n");
    for path in [
        "../a.txt",
        "inside/../../etc/passwd",
        "/etc/passwd",
        "\\\\server\\share",
        "C:\\x",
        "",
        "a\0b.txt",
    ] {
        let result = snippet(&project.root().join("inside"), path, 1, 1);
        assert!(
            matches!(result, Err(ContextError::PathOutsideProject { .. })),
            "{path}: {result:?}"
        );
    }
}

#[cfg(unix)]
#[test]
fn symlink_escaping_the_root_is_refused_but_one_inside_is_followed() {
    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::write(outside.path().join("secret.txt"), "secret\n").expect("write");
    let project = Project::new();
    project.file("real.txt", "real\n");
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        project.root().join("leak.txt"),
    )
    .expect("symlink");
    std::os::unix::fs::symlink(outside.path(), project.root().join("leakdir")).expect("symlink");
    std::os::unix::fs::symlink(
        project.root().join("real.txt"),
        project.root().join("alias.txt"),
    )
    .expect("symlink");

    for path in ["leak.txt", "leakdir/secret.txt"] {
        let result = snippet(project.root(), path, 1, 1);
        assert!(
            matches!(result, Err(ContextError::PathOutsideProject { .. })),
            "{path}: {result:?}"
        );
    }
    let shown = snippet(project.root(), "alias.txt", 1, 1)
        .expect("snippet")
        .expect("exists");
    assert_eq!(shown.render(), "> 1 | real\n");
}

#[test]
fn directory_is_not_a_file() {
    let project = Project::new();
    project.file("src/a.txt", "x\n");
    assert_eq!(
        snippet(project.root(), "src", 1, 1).expect("no error"),
        None
    );
}

#[test]
fn binary_file_is_not_shown() {
    let project = Project::new();
    project.file("blob.bin", b"\x7fELF\x00\x01\x02\nmore\n");
    let shown = snippet(project.root(), "blob.bin", 1, 1)
        .expect("snippet")
        .expect("exists");
    assert!(shown.lines.is_empty());
    assert_eq!(shown.note, Some(SnippetNote::Binary));
}

#[test]
fn long_lines_are_capped_with_an_ellipsis() {
    let project = Project::new();
    project.file("min.js", format!("{}\n", "x".repeat(5000)));
    let shown = snippet(project.root(), "min.js", 1, 0)
        .expect("snippet")
        .expect("exists");
    let text = &shown.lines[0].text;
    assert_eq!(text.chars().count(), 301);
    assert!(text.ends_with('…'));
}

#[test]
fn line_beyond_the_read_cap_of_a_huge_file_is_noted() {
    let project = Project::new();
    // 3 MB of short lines: line 300,000 lies past the 2 MB read.
    project.file("huge.txt", "abcdefghi\n".repeat(300_000));
    let near = snippet(project.root(), "huge.txt", 10, 1)
        .expect("snippet")
        .expect("exists");
    assert_eq!(near.lines.len(), 3);
    let far = snippet(project.root(), "huge.txt", 299_999, 1)
        .expect("snippet")
        .expect("exists");
    assert_eq!(far.note, Some(SnippetNote::LineBeyondReadLimit));
}

#[test]
fn invalid_utf8_is_replaced_not_refused() {
    let project = Project::new();
    project.file("latin1.txt", b"caf\xe9\n");
    let shown = snippet(project.root(), "latin1.txt", 1, 0)
        .expect("snippet")
        .expect("exists");
    assert_eq!(shown.lines[0].text, "caf\u{fffd}");
}

/// A missing file, or a path through a file, is no file (`None`); a symlink loop is a read
/// error, not a missing file.
#[cfg(unix)]
#[test]
fn a_symlink_loop_is_a_read_error_and_a_path_through_a_file_is_none() {
    let project = Project::new();
    project.file("a.txt", "x\n");
    assert_eq!(
        snippet(project.root(), "a.txt/b.txt", 1, 1).expect("no error"),
        None
    );
    std::os::unix::fs::symlink(project.root().join("b"), project.root().join("a"))
        .expect("symlink");
    std::os::unix::fs::symlink(project.root().join("a"), project.root().join("b"))
        .expect("symlink");
    let result = snippet(project.root(), "a", 1, 1);
    assert!(
        matches!(result, Err(ContextError::Read { .. })),
        "{result:?}"
    );
}

/// Each note reads as the sentence shown in place of the lines.
#[test]
fn each_note_says_why_lines_are_missing() {
    for (note, text) in [
        (SnippetNote::Binary, "binary file: content not shown"),
        (
            SnippetNote::LinePastEnd { line_count: 5 },
            "the file has only 5 lines: it may have changed since the finding was reported",
        ),
        (
            SnippetNote::LineBeyondReadLimit,
            "the line is past the first 2 MB of a very large file: not shown",
        ),
    ] {
        assert_eq!(note.to_string(), text);
    }
}
