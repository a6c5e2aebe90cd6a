//! Markdown fences and inline code that stay intact whatever backticks the content holds.

/// The longest run of backticks in `text`.
fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut current = 0;
    for character in text.chars() {
        if character == '`' {
            current += 1;
            longest = longest.max(current);
        } else {
            current = 0;
        }
    }
    longest
}

/// `body` in a fenced block tagged `tag`, the fence one backtick longer than any run inside
/// (at least three), so the content cannot close it early.
pub fn fenced_block(tag: &str, body: &str) -> String {
    let fence = "`".repeat((longest_backtick_run(body) + 1).max(3));
    let mut block = format!("{fence}{tag}\n{body}");
    if !body.is_empty() && !body.ends_with('\n') {
        block.push('\n');
    }
    block.push_str(&fence);
    block.push('\n');
    block
}

/// `text` as inline code, with a delimiter longer than any backtick run inside it.
pub(crate) fn inline_code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let delimiter = "`".repeat(longest_backtick_run(&text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{delimiter}{pad}{text}{pad}{delimiter}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_outgrows_backtick_runs_in_the_body() {
        assert_eq!(
            fenced_block("rust", "let x = 1;\n"),
            "```rust\nlet x = 1;\n```\n"
        );
        // A body without a final newline gets one before the closing fence; an empty one
        // gets none.
        assert_eq!(fenced_block("rust", "x"), "```rust\nx\n```\n");
        assert_eq!(fenced_block("", ""), "```\n```\n");
        let body = "doc: ```` example ````\n";
        assert_eq!(
            fenced_block("text", body),
            format!("`````text\n{body}`````\n")
        );
    }

    #[test]
    fn inline_code_pads_backticks_at_the_edges() {
        assert_eq!(inline_code("load"), "`load`");
        assert_eq!(inline_code("a`b"), "``a`b``");
        assert_eq!(inline_code("`x"), "`` `x ``");
    }
}
