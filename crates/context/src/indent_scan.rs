//! The upward indentation scan that finds enclosing items in Python and Ruby.

use crate::enclosing_item::Declared;
use crate::item_pattern::match_item;
use crate::language::Language;

/// The declarations enclosing 1-based `line` (which must exist), innermost first.
pub(crate) fn enclosing_chain(language: Language, lines: &[String], line: u32) -> Vec<Declared> {
    let in_string = lines_inside_triple_quotes(language, lines);
    let target = line as usize - 1;
    let is_code = |index: usize| {
        let trimmed = lines[index].trim();
        !in_string[index] && !trimmed.is_empty() && !trimmed.starts_with('#')
    };
    let mut chain = Vec::new();
    let mut threshold = if in_string[target] {
        // Inside a docstring: it belongs where the string opened.
        (0..target)
            .rev()
            .find(|&index| !in_string[index])
            .map_or(0, |index| indent(&lines[index]) + 1)
    } else if is_code(target) {
        let text = &lines[target];
        if let Some(item) = match_item(language, text.trim_start(), false) {
            chain.push(Declared { item, line });
            indent(text)
        } else if language == Language::Ruby && text.trim() == "end" {
            // `end` closes the block it is indented with.
            indent(text) + 1
        } else {
            indent(text)
        }
    } else {
        // A blank or comment line belongs with the next code line.
        (target + 1..lines.len())
            .find(|&index| is_code(index))
            .map_or(0, |index| indent(&lines[index]))
    };
    for index in (0..target).rev() {
        if threshold == 0 {
            break;
        }
        if !is_code(index) {
            continue;
        }
        let text = &lines[index];
        let line_indent = indent(text);
        if line_indent >= threshold {
            continue;
        }
        threshold = line_indent;
        if let Some(item) = match_item(language, text.trim_start(), false) {
            chain.push(Declared {
                item,
                line: u32::try_from(index + 1).unwrap_or(u32::MAX),
            });
        }
    }
    chain
}

/// Indentation width, a tab counting as 8 (Python's rule).
fn indent(text: &str) -> usize {
    let mut width = 0;
    for character in text.chars() {
        match character {
            ' ' => width += 1,
            '\t' => width = (width / 8 + 1) * 8,
            _ => break,
        }
    }
    width
}

/// For each line, whether it starts inside a Python triple-quoted string.
fn lines_inside_triple_quotes(language: Language, lines: &[String]) -> Vec<bool> {
    const TRIPLE_QUOTES: [&str; 2] = ["\"\"\"", "'''"];
    let mut inside: Option<&str> = None;
    let mut flags = Vec::with_capacity(lines.len());
    for text in lines {
        flags.push(inside.is_some());
        if language != Language::Python {
            continue;
        }
        let mut rest = text.as_str();
        loop {
            if let Some(quote) = inside {
                let Some(at) = rest.find(quote) else {
                    break;
                };
                rest = &rest[at + 3..];
                inside = None;
            } else {
                let next = TRIPLE_QUOTES
                    .into_iter()
                    .filter_map(|quote| rest.find(quote).map(|at| (at, quote)))
                    .min();
                // A `#` before the quotes makes them part of a comment.
                let Some((at, quote)) = next.filter(|&(at, _)| !rest[..at].contains('#')) else {
                    break;
                };
                rest = &rest[at + 3..];
                inside = Some(quote);
            }
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use crate::enclosing_item::tests::chain;

    #[test]
    fn a_ruby_end_belongs_to_the_block_it_closes_and_a_python_line_not_to_a_sibling() {
        let ruby = "class A\n  def m\n    x\n  end\nend\n";
        assert_eq!(chain("a.rb", ruby, 4), "method m@2 < class A@1");
        assert_eq!(chain("a.rb", ruby, 5), "class A@1");
        let python = "def outer():\n    def helper():\n        pass\n    x = 1\n";
        assert_eq!(chain("a.py", python, 4), "function outer@1");
        assert_eq!(
            chain("a.py", python, 3),
            "function helper@2 < function outer@1"
        );
        // A docstring opened and closed on one line ends there.
        let one_line = "class A:\n    x = \"\"\"one\"\"\"\n    def m(self):\n        pass\n";
        assert_eq!(chain("a.py", one_line, 4), "method m@3 < class A@1");
        // In Python, a line reading `end` is a plain statement.
        let python_end = "def f():\n    def g():\n        pass\n    end\n";
        assert_eq!(chain("a.py", python_end, 4), "function f@1");
    }

    /// A docstring opened on the line that declares the item belongs to that item.
    #[test]
    fn a_docstring_opened_on_a_declaration_line_belongs_to_that_declaration() {
        let python = "class A:\n    def m(self): \"\"\"Doc\n    continues\n    \"\"\"\n";
        assert_eq!(chain("a.py", python, 3), "method m@2 < class A@1");
    }

    #[test]
    fn a_tab_indents_to_the_next_multiple_of_eight() {
        for (text, width) in [
            ("x", 0),
            ("    x", 4),
            ("\tx", 8),
            ("  \tx", 8),
            ("        \tx", 16),
            ("\t\tx", 16),
            ("\t  x", 10),
        ] {
            assert_eq!(super::indent(text), width, "{text:?}");
        }
    }
}
