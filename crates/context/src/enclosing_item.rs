//! The function, class, impl or other item that encloses a line, found by cheap heuristics.
//!
//! The language family comes from the file extension (see `language.rs`), the declaration shapes
//! from a small per-language table (see `item_pattern.rs`). Two scans use them:
//!
//! - brace languages (Rust, JS/TS/PHP, Go, Java/C#/Kotlin/Scala/Swift, C/C++): a forward scan to
//!   the line, keeping a stack of open `{` each tagged with the declaration that opened it (a
//!   declaration line tags the next `{`, unless a `;` ends it first). Braces inside `"..."`
//!   strings, char literals, `//` and `/* */` comments are skipped; other string forms (raw
//!   strings, heredocs) can mislead it.
//! - indentation languages (Python, Ruby): an upward scan for the nearest less-indented line,
//!   repeated outwards; a `def`/`class`/`module` line found that way encloses the line. Lines
//!   inside triple-quoted strings are skipped.
//!
//! A line that is itself a declaration is enclosed by that declaration. A function directly
//! inside a class, impl, trait or interface is reported as a method. Unknown extensions, binary
//! and unreadable files give `None`.

use std::path::Path;

use crate::file_text::{FileText, MAX_FILE_BYTES};
use crate::item_kind::ItemKind;
use crate::item_pattern::ItemMatch;
use crate::language::{BlockStyle, Language};
use crate::project_path::resolve_in_project;
use crate::{brace_scan, indent_scan};

/// The item a line belongs to, with the items around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnclosingItem {
    /// Function, method, class, impl, ...
    pub kind: ItemKind,
    /// The declared name (`Display for Foo` for an impl, `Foo::bar` for a C++ method).
    pub name: String,
    /// The 1-based line of the declaration.
    pub start_line: u32,
    /// The item enclosing this one, if any (an impl around a method, a class around a class).
    pub parent: Option<Box<EnclosingItem>>,
}

impl EnclosingItem {
    /// `method `load` (line 8) in class `Loader` (line 3)`, innermost first.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        let mut current = Some(self);
        while let Some(item) = current {
            parts.push(format!(
                "{} {} (line {})",
                item.kind,
                crate::fence::inline_code(&item.name),
                item.start_line
            ));
            current = item.parent.as_deref();
        }
        parts.join(" in ")
    }
}

/// The item enclosing 1-based `line` of `rel_path` under `root`, when cheaply known.
///
/// `None` for unknown languages, missing, binary or unreadable files, paths outside the project,
/// and lines at top level.
pub fn enclosing_item(root: &Path, rel_path: &str, line: u32) -> Option<EnclosingItem> {
    ProjectSource::open(root, rel_path).enclosing_item(line)
}

/// One project file read once, for the enclosing items of many of its lines (a finalize of
/// 100,000 findings over 1,000 files reads each file once, not once per finding).
#[derive(Debug, Clone)]
pub struct ProjectSource {
    language: Option<Language>,
    /// Its lines; empty when it is missing, outside the project, binary or unreadable.
    lines: Vec<String>,
}

impl ProjectSource {
    /// `rel_path` under `root`, read at most once; a file that cannot be read (or is outside
    /// the project) gives a source with no enclosing items.
    pub fn open(root: &Path, rel_path: &str) -> ProjectSource {
        let lines = resolve_in_project(root, rel_path)
            .ok()
            .flatten()
            .and_then(|path| FileText::read(&path, MAX_FILE_BYTES).ok())
            .filter(|text| !text.binary)
            .map(|text| text.lines())
            .unwrap_or_default();
        ProjectSource {
            language: Language::from_path(rel_path),
            lines,
        }
    }

    /// The item enclosing 1-based `line`, as [`enclosing_item`] says.
    pub fn enclosing_item(&self, line: u32) -> Option<EnclosingItem> {
        enclosing_item_in_lines(self.language?, &self.lines, line)
    }
}

/// [`enclosing_item`] over a file already read.
pub(crate) fn enclosing_item_in_text(
    rel_path: &str,
    text: &FileText,
    line: u32,
) -> Option<EnclosingItem> {
    let language = Language::from_path(rel_path)?;
    if text.binary {
        return None;
    }
    enclosing_item_in_lines(language, &text.lines(), line)
}

/// [`enclosing_item`] over the lines of a text file of `language`.
fn enclosing_item_in_lines(
    language: Language,
    lines: &[String],
    line: u32,
) -> Option<EnclosingItem> {
    if line == 0 || line as usize > lines.len() {
        return None;
    }
    let chain = match language.block_style() {
        BlockStyle::Braces => brace_scan::enclosing_chain(language, lines, line),
        BlockStyle::Indentation => indent_scan::enclosing_chain(language, lines, line),
    };
    build(chain)
}

/// A declaration found by a scan, with its 1-based line.
#[derive(Debug, Clone)]
pub(crate) struct Declared {
    pub(crate) item: ItemMatch,
    pub(crate) line: u32,
}

/// Turns a chain (innermost first) into nested [`EnclosingItem`]s, promoting functions directly
/// inside method-holding items to methods.
fn build(chain: Vec<Declared>) -> Option<EnclosingItem> {
    let mut outer: Option<EnclosingItem> = None;
    for declared in chain.into_iter().rev() {
        let mut kind = declared.item.kind;
        if kind == ItemKind::Function
            && outer
                .as_ref()
                .is_some_and(|parent| parent.kind.holds_methods())
        {
            kind = ItemKind::Method;
        }
        outer = Some(EnclosingItem {
            kind,
            name: declared.item.name,
            start_line: declared.line,
            parent: outer.map(Box::new),
        });
    }
    outer
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn enclosing(rel_path: &str, source: &str, line: u32) -> Option<EnclosingItem> {
        enclosing_item_in_text(rel_path, &FileText::from_text(source), line)
    }

    /// `kind name@line` innermost first, joined by ` < ` (the brace and indent scans' tests
    /// read their answers with it too).
    pub(crate) fn chain(rel_path: &str, source: &str, line: u32) -> String {
        let mut parts = Vec::new();
        let mut current = enclosing(rel_path, source, line);
        while let Some(item) = current {
            parts.push(format!("{} {}@{}", item.kind, item.name, item.start_line));
            current = item.parent.map(|parent| *parent);
        }
        parts.join(" < ")
    }

    const RUST: &str = r#"use std::fmt;

pub struct Loader {
    path: String,
}

impl<T: Into<String>> fmt::Display for Wrapper<T> where T: Clone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let brace = '{';
        let text = "}}}";
        write!(f, "{}", brace)
    }
}

pub(crate) async fn load(
    path: &str,
) -> Result<(), Error> {
    // a comment with a } brace
    let items = [0u8; 4];
    Ok(())
}

mod inner {
    fn helper() {}
}
"#;

    #[test]
    fn rust_items() {
        assert_eq!(chain("a.rs", RUST, 4), "struct Loader@3");
        assert_eq!(
            chain("a.rs", RUST, 11),
            "method fmt@8 < impl fmt::Display for Wrapper<T>@7"
        );
        assert_eq!(chain("a.rs", RUST, 16), "function load@15");
        assert_eq!(chain("a.rs", RUST, 19), "function load@15");
        assert_eq!(chain("a.rs", RUST, 20), "function load@15");
        assert_eq!(
            chain("a.rs", RUST, 24),
            "function helper@24 < module inner@23"
        );
        assert_eq!(chain("a.rs", RUST, 1), "");
        assert_eq!(chain("a.rs", RUST, 22), "");
    }

    const PYTHON: &str = r#"import os

class Loader:
    """Loads things.
not indented docstring line
    """

    def load(self, path):
        if path:
            return os.path.join(path, "x")
        return None

    async def fetch(self):

        pass

def top():
    x = 1
y = 2
"#;

    #[test]
    fn python_items() {
        assert_eq!(chain("a.py", PYTHON, 10), "method load@8 < class Loader@3");
        assert_eq!(chain("a.py", PYTHON, 8), "method load@8 < class Loader@3");
        assert_eq!(chain("a.py", PYTHON, 5), "class Loader@3");
        assert_eq!(
            chain("a.py", PYTHON, 14),
            "method fetch@13 < class Loader@3"
        );
        assert_eq!(chain("a.py", PYTHON, 18), "function top@17");
        assert_eq!(chain("a.py", PYTHON, 19), "");
        assert_eq!(chain("a.py", PYTHON, 1), "");
    }

    const RUBY: &str =
        "module Shop\n  class Cart\n    def total\n      items.sum\n    end\n  end\nend\n";

    #[test]
    fn ruby_items() {
        assert_eq!(
            chain("cart.rb", RUBY, 4),
            "method total@3 < class Cart@2 < module Shop@1"
        );
    }

    const TYPESCRIPT: &str = r#"import { x } from "y";

export function parse(input: string): Node {
  const s = `template ${input} {`;
  return build(s);
}

export class Parser {
  private cache = new Map();

  async parseAll(items: string[]): Promise<void> {
    for (const item of items) {
      this.parse(item);
    }
  }

  handle = (event: Event) => {
    console.log(event);
  };
}

const toNode = (value) => {
  return { value };
};

describe("parser", () => {
  it("works", () => {
    expect(1).toBe(1);
  });
});

(function setup() {
  const handlers = {
    onClick: function (event) {
      track(event);
    },
    "onKey": async (event) => {
      track(event);
    },
  };
})();
"#;

    #[test]
    fn javascript_and_typescript_items() {
        assert_eq!(chain("p.ts", TYPESCRIPT, 5), "function parse@3");
        assert_eq!(
            chain("p.ts", TYPESCRIPT, 13),
            "method parseAll@11 < class Parser@8"
        );
        assert_eq!(chain("p.ts", TYPESCRIPT, 9), "class Parser@8");
        assert_eq!(
            chain("p.ts", TYPESCRIPT, 18),
            "method handle@17 < class Parser@8"
        );
        assert_eq!(chain("p.ts", TYPESCRIPT, 23), "function toNode@22");
        assert_eq!(chain("p.ts", TYPESCRIPT, 28), "");
        assert_eq!(
            chain("p.ts", TYPESCRIPT, 35),
            "function onClick@34 < function setup@32"
        );
        assert_eq!(
            chain("p.ts", TYPESCRIPT, 38),
            "function onKey@37 < function setup@32"
        );
        assert_eq!(chain("p.ts", TYPESCRIPT, 33), "function setup@32");
    }

    const GO: &str = r#"package main

type Server struct {
	addr string
}

func (s *Server) Start(ctx context.Context) error {
	go func() {
		s.serve("{")
	}()
	return nil
}

func main() {
	run()
}
"#;

    #[test]
    fn go_items() {
        assert_eq!(chain("main.go", GO, 4), "struct Server@3");
        assert_eq!(chain("main.go", GO, 9), "method Start@7");
        assert_eq!(chain("main.go", GO, 15), "function main@14");
    }

    const JAVA: &str = r#"package x;

@Service
public class OrderService extends Base {
    private final Repo repo;

    public OrderService(Repo repo) {
        this.repo = repo;
    }

    @Override
    public List<Order> findAll(String name,
                               int limit) throws IOException {
        if (name == null) {
            throw new IllegalArgumentException("name");
        }
        return repo.find(name);
    }
}
"#;

    #[test]
    fn java_items() {
        assert_eq!(
            chain("O.java", JAVA, 8),
            "method OrderService@7 < class OrderService@4"
        );
        assert_eq!(
            chain("O.java", JAVA, 15),
            "method findAll@12 < class OrderService@4"
        );
        assert_eq!(
            chain("O.java", JAVA, 13),
            "method findAll@12 < class OrderService@4"
        );
        assert_eq!(chain("O.java", JAVA, 5), "class OrderService@4");
    }

    const CSHARP: &str = "namespace Shop.Core\n{\n    public sealed class Cart\n    {\n        public async Task<int> Total()\n        {\n            return await Sum();\n        }\n    }\n}\n";

    #[test]
    fn csharp_items() {
        assert_eq!(
            chain("Cart.cs", CSHARP, 7),
            "method Total@5 < class Cart@3 < namespace Shop.Core@1"
        );
    }

    const KOTLIN: &str = "class Cart(val items: List<Item>) {\n    fun total(): Int {\n        return items.sumOf { it.price }\n    }\n}\n";

    #[test]
    fn kotlin_items() {
        assert_eq!(chain("Cart.kt", KOTLIN, 3), "method total@2 < class Cart@1");
    }

    const C: &str = r"#include <stdio.h>

/* a comment with { */
static int
parse_header(const char *s)
{
    if (s == NULL) {
        return -1;
    }
    list_for_each(pos, head) {
        count++;
    }
    return 0;
}

struct point {
    int x;
};
";

    #[test]
    fn c_items() {
        assert_eq!(chain("p.c", C, 8), "function parse_header@5");
        assert_eq!(chain("p.c", C, 11), "function parse_header@5");
        assert_eq!(chain("p.c", C, 17), "struct point@16");
        assert_eq!(chain("p.c", C, 1), "");
    }

    const CPP: &str = "namespace app {\nclass Widget : public Base {\npublic:\n    void draw() const {\n        paint();\n    }\n};\n}\n\nvoid Widget::resize(int w) {\n    width = w;\n}\n";

    #[test]
    fn cpp_items() {
        assert_eq!(
            chain("w.cpp", CPP, 5),
            "method draw@4 < class Widget@2 < namespace app@1"
        );
        assert_eq!(chain("w.cpp", CPP, 11), "function Widget::resize@10");
    }

    #[test]
    fn unknown_language_and_out_of_range_lines_give_none() {
        assert_eq!(enclosing("notes.txt", "fn main() {\n}\n", 2), None);
        assert_eq!(enclosing("a.rs", "fn main() {\n}\n", 9), None);
        assert_eq!(enclosing("a.rs", "fn main() {\n}\n", 0), None);
    }

    #[test]
    fn describe_lists_innermost_first() {
        let item = enclosing("a.py", PYTHON, 10);
        let described = item.map(|item| item.describe());
        assert_eq!(
            described.as_deref(),
            Some("method `load` (line 8) in class `Loader` (line 3)")
        );
    }
}
