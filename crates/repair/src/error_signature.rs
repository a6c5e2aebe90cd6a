//! The error signature: a hash of the check's output with the volatile parts normalized away,
//! so the same failure has the same signature across attempts.

use std::sync::LazyLock;

use regex::Regex;
use self_repair_engine::StableHash;

/// Patterns replaced before hashing, in order, with what replaces them.
static VOLATILE: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        // ANSI colour codes.
        (r"\x1b\[[0-9;]*[A-Za-z]", ""),
        // Timestamps: 2026-11-22T09:30:05.123Z, 2026-11-22 09:30:05, 09:30:05.
        (
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?",
            "<time>",
        ),
        (r"\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b", "<time>"),
        // Hex addresses and long hashes.
        (r"0x[0-9a-fA-F]+", "<hex>"),
        (r"\b[0-9a-f]{12,}\b", "<hex>"),
        // Temporary paths.
        (
            r"(/private)?/(tmp|var/folders|var/tmp)/[^\s:'\x22)]*",
            "<tmp>",
        ),
        // Durations: 0.03s, 12 ms, 1.5 secs, 2m 3s.
        (
            r"\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|secs|seconds|m|min|minutes|h)\b",
            "<duration>",
        ),
        // Line and column numbers: file.rs:12:5, line 12, column 5.
        (r":\d+(:\d+)?\b", ":<n>"),
        (r"\b(line|column|col|ln)\s+\d+", "$1 <n>"),
        // Process ids and thread ids.
        (r"\b(pid|thread|tid)\s*[=:]?\s*\d+", "$1 <n>"),
    ]
    .into_iter()
    .filter_map(|(pattern, with)| Regex::new(pattern).ok().map(|re| (re, with)))
    .collect()
});

/// The output with volatile parts replaced; `root` (the project folder) becomes `<root>`.
pub fn normalize_output(output: &str, root: &str) -> String {
    let mut text = if root.len() > 1 {
        output.replace(root, "<root>")
    } else {
        output.to_owned()
    };
    for (re, with) in VOLATILE.iter() {
        text = re.replace_all(&text, *with).into_owned();
    }
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The signature of a failure: 12 hex digits over the exit code and the normalized output.
pub fn error_signature(exit_code: i32, output: &str, root: &str) -> String {
    let normalized = normalize_output(output, root);
    let mut hex = StableHash::of_fields([exit_code.to_string().as_str(), normalized.as_str()]);
    hex.truncate(12);
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volatile_parts_do_not_change_the_signature() {
        let a = "2026-11-22T09:30:05Z thread 'main' panicked at src/lib.rs:12:5\n\
                 left: 0x7ffd5e8c1a20\ntest result: FAILED. finished in 0.03s\n\
                 wrote /tmp/.tmpA1b2C3/out.txt\n/home/u/proj/src/a.rs line 40";
        let b = "2026-11-23T10:00:00Z thread 'main' panicked at src/lib.rs:14:9\n\
                 left: 0x7ffd00000000\ntest result: FAILED. finished in 12.5s\n\
                 wrote /tmp/.tmpZZZ/out.txt\n/work/p/src/a.rs line 41";
        assert_eq!(
            error_signature(101, a, "/home/u/proj"),
            error_signature(101, b, "/work/p")
        );
        assert_ne!(error_signature(101, a, "/x"), error_signature(1, a, "/x"));
        let other = a.replace("FAILED", "ok");
        assert_ne!(
            error_signature(101, a, "/x"),
            error_signature(101, &other, "/x")
        );
        assert_eq!(error_signature(1, a, "/x").len(), 12);
    }
}
