//! The forward brace scan that finds enclosing items in `{ }` languages.

use crate::enclosing_item::Declared;
use crate::item_pattern::match_item;
use crate::language::Language;

/// The declarations enclosing 1-based `line` (which must exist), innermost first.
pub(crate) fn enclosing_chain(language: Language, lines: &[String], line: u32) -> Vec<Declared> {
    let target = line as usize;
    let mut scanner = BraceScanner::new(language);
    for (index, text) in lines[..target - 1].iter().enumerate() {
        scanner.declare(text, index + 1);
        scanner.count_braces(text);
    }
    let mut chain = Vec::new();
    if !scanner.in_block_comment
        && let Some(item) = scanner.match_declaration(&lines[target - 1])
    {
        chain.push(Declared { item, line });
    }
    if chain.is_empty() {
        // The line lies inside a signature whose `{` has not come yet.
        chain.extend(scanner.pending.take());
    }
    chain.extend(scanner.stack.into_iter().rev().flatten());
    chain
}

/// State carried from line to line.
struct BraceScanner {
    language: Language,
    /// Open `{`, each with the declaration it opened (if any).
    stack: Vec<Option<Declared>>,
    /// A declaration seen whose `{` has not come yet.
    pending: Option<Declared>,
    in_block_comment: bool,
    /// `(` and `[` open, so a `;` inside them (Rust array types, C `for`) does not end a signature.
    paren_depth: usize,
}

impl BraceScanner {
    fn new(language: Language) -> BraceScanner {
        BraceScanner {
            language,
            stack: Vec::new(),
            pending: None,
            in_block_comment: false,
            paren_depth: 0,
        }
    }

    fn inside_function(&self) -> bool {
        self.stack
            .iter()
            .flatten()
            .any(|declared| declared.item.kind.is_function())
    }

    fn match_declaration(&self, text: &str) -> Option<crate::item_pattern::ItemMatch> {
        match_item(self.language, text.trim_start(), self.inside_function())
    }

    /// Records a declaration on this line, to be tagged onto the next `{`.
    fn declare(&mut self, text: &str, number: usize) {
        if self.in_block_comment {
            return;
        }
        if let Some(item) = self.match_declaration(text) {
            self.pending = Some(Declared {
                item,
                line: u32::try_from(number).unwrap_or(u32::MAX),
            });
            self.paren_depth = 0;
        }
    }

    /// Pushes and pops braces outside strings, char literals and comments.
    fn count_braces(&mut self, text: &str) {
        let chars: Vec<char> = text.chars().collect();
        let at = |index: usize| chars.get(index).copied();
        let mut index = 0;
        while index < chars.len() {
            let character = chars[index];
            if self.in_block_comment {
                if character == '*' && at(index + 1) == Some('/') {
                    self.in_block_comment = false;
                    index += 1;
                }
                index += 1;
                continue;
            }
            match character {
                '/' if at(index + 1) == Some('/') => return,
                '/' if at(index + 1) == Some('*') => {
                    self.in_block_comment = true;
                    index += 1;
                }
                '"' => index = skip_string(&chars, index, '"'),
                // A template literal (JavaScript), a raw string (Go) or a name in backticks
                // (Kotlin, Scala, Swift): braces inside are text. No other brace language has a
                // backtick in its code.
                '`' => index = skip_string(&chars, index, '`'),
                '\'' if self.language.single_quote_strings() => {
                    index = skip_string(&chars, index, '\'');
                }
                '\'' => index = skip_char_literal(&chars, index),
                '(' | '[' => self.paren_depth += 1,
                ')' | ']' => self.paren_depth = self.paren_depth.saturating_sub(1),
                ';' if self.paren_depth == 0 => self.pending = None,
                '{' => {
                    self.stack.push(self.pending.take());
                    self.paren_depth = 0;
                }
                '}' => {
                    self.stack.pop();
                }
                _ => {}
            }
            index += 1;
        }
    }
}

/// The index of the closing `quote` of the string opening at `start` (or the last index).
fn skip_string(chars: &[char], start: usize, quote: char) -> usize {
    let mut index = start + 1;
    while index < chars.len() {
        match chars[index] {
            '\\' => index += 2,
            character if character == quote => return index,
            _ => index += 1,
        }
    }
    chars.len()
}

/// Past a char literal (`'{'`, `'\n'`, `'\u{7b}'`) opening at `start`; a lone `'` (a Rust
/// lifetime) is left as is.
fn skip_char_literal(chars: &[char], start: usize) -> usize {
    match chars.get(start + 1) {
        // The escaped character (at `start + 2`) may itself be a quote: `'\''`.
        Some('\\') => (start + 3..chars.len().min(start + 12))
            .find(|&index| chars[index] == '\'')
            .unwrap_or(start),
        Some(_) if chars.get(start + 2) == Some(&'\'') => start + 2,
        _ => start,
    }
}

#[cfg(test)]
mod tests {
    use crate::enclosing_item::tests::chain;

    /// A division is not a comment; a block comment may close at the start of a line; a
    /// lifetime is not a string in Rust (it is in JavaScript); braces in comments and strings
    /// do not count.
    const RUST: &str = r"fn outer() {
    let half = total / 2; if half > 0 {
        inner();
    }
    after();
}
fn second() {
    body();
}
/* a comment {
*/
impl Store {
    fn get(&self) -> &'static str {
        NAME
    }
    fn put(&self) {
        x(); /* { */ y(); // {
    }
}
";

    #[test]
    fn what_looks_like_a_comment_or_a_string_in_a_line_of_code_is_read_as_it_is() {
        for (line, expected) in [
            (3, "function outer@1"),
            (5, "function outer@1"),
            (8, "function second@7"),
            (14, "method get@13 < impl Store@12"),
            (17, "method put@16 < impl Store@12"),
            (11, ""),
        ] {
            assert_eq!(chain("a.rs", RUST, line), expected, "line {line}");
        }
    }

    const JAVASCRIPT: &str = "function quote() {\n  const s = 'it { is';\n  return s;\n}\nfunction next() {\n  go();\n}\n";

    #[test]
    fn a_single_quote_opens_a_string_in_javascript() {
        assert_eq!(chain("a.js", JAVASCRIPT, 3), "function quote@1");
        assert_eq!(chain("a.js", JAVASCRIPT, 6), "function next@5");
    }

    /// A string with an escaped quote, an escaped char literal beside a plain one, and a char
    /// literal holding a brace, each inside `first`: none of their braces opens a block.
    const LITERALS: &str = r#"fn first() {
"\"{";
    f('\n', '{');
    let b = '{';
}
fn second() {
    x();
}"#;

    #[test]
    fn braces_in_escaped_strings_and_char_literals_do_not_open_a_block() {
        assert_eq!(chain("a.rs", LITERALS, 4), "function first@1");
        assert_eq!(chain("a.rs", LITERALS, 7), "function second@6");
        // The last line of a file without a final newline is a line of it.
        assert_eq!(chain("a.rs", LITERALS, 8), "function second@6");
        assert_eq!(chain("a.rs", LITERALS, 9), "");
    }

    /// Two comments back to back, a brace inside a comment, and an escaped char literal at the
    /// start of a line, each inside a function.
    const COMMENTS: &str = "fn f() {\n    if x /* one *//* two */ {\n    }\n    after();\n}\nfn g() {\n    /* { */\n'\\n';\n}\nfn h() {\n    x();\n}\n";

    #[test]
    fn braces_after_back_to_back_comments_count_and_braces_inside_comments_do_not() {
        assert_eq!(chain("a.rs", COMMENTS, 4), "function f@1");
        assert_eq!(chain("a.rs", COMMENTS, 8), "function g@6");
        assert_eq!(chain("a.rs", COMMENTS, 11), "function h@10");
        // The brace after a char literal on its line opens a block.
        let after_literal = "fn m() {\n    if c == '}' {\n        y();\n    }\n    z();\n}\n";
        assert_eq!(chain("a.rs", after_literal, 5), "function m@1");
    }

    /// A string left open at the end of its line (Rust strings may span lines) ends the line's
    /// scan without reading past it.
    #[test]
    fn a_string_open_at_the_end_of_a_line_ends_its_scan() {
        let source = "fn f() {\n    let s = \"open\nclose\";\n    x();\n}\n";
        assert_eq!(chain("a.rs", source, 4), "function f@1");
    }

    /// `'\''` ends at its third quote, not at the escaped one: read that way, the next quote
    /// opened a literal that ended in the middle of `'{'`, whose brace then opened a block.
    #[test]
    fn an_escaped_quote_char_literal_followed_by_a_brace_literal_opens_no_block() {
        let escaped = "fn f() {\n    let pair = ['\\'','{'];\n    x();\n}\nfn g() {\n    y();\n}\n";
        assert_eq!(chain("a.rs", escaped, 3), "function f@1");
        assert_eq!(chain("a.rs", escaped, 6), "function g@5");
    }

    /// An escaped char literal ends at its own closing quote: a brace right after it counts.
    #[test]
    fn a_brace_right_after_an_escaped_char_literal_counts() {
        let source = "fn f() {\n    if c == '\\t'{ a(); }\n    x();\n}\nfn g() {\n    y();\n}\n";
        assert_eq!(chain("a.rs", source, 3), "function f@1");
        assert_eq!(chain("a.rs", source, 6), "function g@5");
    }

    /// A `'\` with no closing quote within an escape's length is no char literal: the braces
    /// after it count.
    #[test]
    fn an_overlong_escape_is_no_char_literal() {
        let overlong = "fn f() {\n    let s = '\\ x; if a { b('c'); }\n    z();\n}\n";
        assert_eq!(chain("a.rs", overlong, 3), "function f@1");
    }

    /// A Kotlin (or Scala, Swift) name in backticks may hold braces: they are part of the
    /// name, not blocks, so the class still ends where it ends.
    #[test]
    fn a_kotlin_name_in_backticks_holding_a_brace_does_not_open_a_block() {
        let source = "class Spec {\n    fun `keeps { open`() {\n        check()\n    }\n}\nfun top() {\n    other()\n}\n";
        assert_eq!(chain("a.kt", source, 3), "class Spec@1");
        assert_eq!(chain("a.kt", source, 7), "function top@6");
    }

    /// A `'` before a brace that is no char literal (a Scala 3 quote, `'{ ... }`) leaves the
    /// brace to count: read as a char literal it skipped the `{` and the quote's `}` closed
    /// the object.
    #[test]
    fn a_quote_before_a_brace_that_is_no_char_literal_leaves_the_brace_to_count() {
        let source = "object Macros {\n  def twice(x: Expr[Int]): Expr[Int] = '{ $x * 2 }\n  def next(): Unit = {\n    step()\n  }\n}\n";
        assert_eq!(
            chain("a.scala", source, 4),
            "method next@3 < class Macros@1"
        );
    }

    /// Dart and Groovy quote strings with `'`: a brace inside one is text. It was read as a
    /// char literal that did not end, so the string's `}` closed the method and the next one
    /// was taken for a function outside the class.
    #[test]
    fn a_brace_in_a_single_quoted_dart_or_groovy_string_does_not_close_a_block() {
        let dart = "class Parser {\n  void fail() {\n    throw FormatException('missing }');\n  }\n  void next() {\n    step();\n  }\n}\n";
        assert_eq!(chain("a.dart", dart, 6), "method next@5 < class Parser@1");
        let groovy = "class Build {\n  def fail() {\n    println 'open { here'\n  }\n  def next() {\n    step()\n  }\n}\n";
        assert_eq!(
            chain("a.groovy", groovy, 6),
            "method next@5 < class Build@1"
        );
        assert_eq!(
            chain("build.gradle", groovy, 6),
            "method next@5 < class Build@1"
        );
    }

    /// A block comment ends at `*/` only: a `*` at the start of its lines (the C style) or a
    /// `/` inside it does not end it, so a brace after them is still comment (here one that
    /// would close the namespace).
    #[test]
    fn a_block_comment_ends_only_at_its_closing_pair() {
        for comment in ["/*\n * It closes with }\n */", "/* a/b } */"] {
            let source =
                format!("namespace app {{\n{comment}\nint f() {{\n    return 1;\n}}\n}}\n");
            let line = comment.lines().count() + 3;
            assert_eq!(
                chain("a.cpp", &source, u32::try_from(line).unwrap()),
                format!("function f@{} < namespace app@1", line - 1),
                "{source:?}"
            );
        }
    }

    /// A `;` inside `( )` or `[ ]` of a signature (an array type) does not end it, and a brace
    /// after a closed string on its line counts.
    #[test]
    fn a_semicolon_in_brackets_keeps_the_signature_and_a_brace_after_a_string_counts() {
        for (source, line, expected) in [
            ("fn f(a: [u8; 4]) {\n    body();\n}\n", 2, "function f@1"),
            (
                "fn f(a: (u8, [u8; 4])) -> u8 {\n    body()\n}\n",
                2,
                "function f@1",
            ),
            (
                "fn g() {\n    if s == \"a\" {\n        y();\n    }\n    z();\n}\n",
                5,
                "function g@1",
            ),
        ] {
            assert_eq!(
                chain("a.rs", source, line),
                expected,
                "{source:?} line {line}"
            );
        }
    }
}
