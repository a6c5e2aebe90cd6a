//! The per-language table of item-declaration patterns, matched against one trimmed line.
//!
//! Each pattern captures `name`, and either has a fixed kind or captures the declaring keyword as
//! `kw`. A `recv` capture (Go receivers) makes a function a method. A `pre` capture holds the
//! words before a method name (return type, modifiers); a statement keyword there (`return`,
//! `new`, `throw`, ...) means the line is a statement, not a declaration. Patterns marked
//! `declarations_only` (methods recognised by shape, not by keyword) are ignored inside function
//! bodies, where that shape is a call or a control statement.

use std::sync::LazyLock;

use regex::Regex;

use crate::item_kind::ItemKind;
use crate::language::Language;

/// Words that are never an item name: control flow and operators shaped like calls.
const NOT_NAMES: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "foreach",
    "using",
    "lock",
    "fixed",
    "sizeof",
    "typeof",
    "alignof",
    "decltype",
    "when",
    "synchronized",
    "else",
    "elif",
    "do",
    "new",
    "throw",
    "delete",
    "with",
    "await",
    "yield",
    "case",
    "super",
    "this",
    "function",
    "assert",
    "defined",
    "static_assert",
    "try",
    "match",
    "loop",
    "unless",
    "until",
    "guard",
];

/// Words that make the text before a name a statement rather than a declaration.
const STATEMENT_WORDS: &[&str] = &[
    "return",
    "new",
    "throw",
    "else",
    "case",
    "await",
    "yield",
    "goto",
    "using",
    "delete",
    "co_return",
    "co_await",
    "co_yield",
    "echo",
    "print",
];

/// One declaration shape of one language.
#[derive(Debug)]
pub(crate) struct ItemPattern {
    regex: Regex,
    kind: Option<ItemKind>,
    declarations_only: bool,
}

/// What a line declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemMatch {
    pub(crate) kind: ItemKind,
    pub(crate) name: String,
}

/// Matches `trimmed` (leading whitespace removed) against `language`'s patterns, first hit wins.
/// `inside_function` is true when the line lies inside a function body.
pub(crate) fn match_item(
    language: Language,
    trimmed: &str,
    inside_function: bool,
) -> Option<ItemMatch> {
    for pattern in patterns(language) {
        if pattern.declarations_only && inside_function {
            continue;
        }
        let Some(captures) = pattern.regex.captures(trimmed) else {
            continue;
        };
        let Some(name) = captures.name("name") else {
            continue;
        };
        let name = name.as_str().trim();
        if name.is_empty() || NOT_NAMES.contains(&name) {
            continue;
        }
        if let Some(pre) = captures.name("pre") {
            let statement = pre
                .as_str()
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| STATEMENT_WORDS.contains(&word));
            if statement {
                continue;
            }
        }
        let kind = if let Some(kind) = pattern.kind {
            kind
        } else {
            let keyword = captures.name("kw").map_or("", |kw| kw.as_str());
            let keyword = keyword.split_whitespace().collect::<Vec<_>>().join(" ");
            let Some(kind) = ItemKind::from_keyword(&keyword) else {
                continue;
            };
            kind
        };
        let kind = if captures.name("recv").is_some() {
            ItemKind::Method
        } else {
            kind
        };
        let name = if kind == ItemKind::Impl {
            impl_name(name)
        } else {
            name.to_owned()
        };
        if name.is_empty() {
            continue;
        }
        return Some(ItemMatch { kind, name });
    }
    None
}

/// `impl<T: A<B>> Display for Foo<T> where T: C {` -> `Display for Foo<T>`.
fn impl_name(rest: &str) -> String {
    let mut rest = rest.trim_start();
    if rest.starts_with('<') {
        let mut depth = 0_usize;
        let mut end = rest.len();
        for (index, character) in rest.char_indices() {
            match character {
                '<' => depth += 1,
                '>' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = index + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    let rest = rest.split('{').next().unwrap_or_default();
    let rest = rest.split(" where").next().unwrap_or_default();
    rest.trim().to_owned()
}

/// Patterns for `language`, compiled once.
fn patterns(language: Language) -> &'static [ItemPattern] {
    static TABLE: LazyLock<[Vec<ItemPattern>; 7]> = LazyLock::new(|| {
        [
            compile(RUST),
            compile(PYTHON),
            compile(RUBY),
            compile(JAVASCRIPT),
            compile(GO),
            compile(JAVA_LIKE),
            compile(C_LIKE),
        ]
    });
    let index = match language {
        Language::Rust => 0,
        Language::Python => 1,
        Language::Ruby => 2,
        Language::JavaScript => 3,
        Language::Go => 4,
        Language::JavaLike | Language::QuotingJavaLike => 5,
        Language::CLike => 6,
    };
    &TABLE[index]
}

/// (regex, fixed kind or `None` for "from `kw`", declarations only)
type PatternSource = (&'static str, Option<ItemKind>, bool);

fn compile(sources: &[PatternSource]) -> Vec<ItemPattern> {
    // A pattern that fails to compile is a bug caught by `every_pattern_compiles`; at run time it
    // is skipped rather than taking `show` down.
    sources
        .iter()
        .filter_map(|&(source, kind, declarations_only)| {
            Regex::new(source).ok().map(|regex| ItemPattern {
                regex,
                kind,
                declarations_only,
            })
        })
        .collect()
}

const RUST: &[PatternSource] = &[
    (
        r#"^(?:pub(?:\s*\([^)]*\))?\s+)?(?:(?:default|const|async|unsafe|safe|extern(?:\s+"[^"]*")?)\s+)*fn\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)"#,
        Some(ItemKind::Function),
        false,
    ),
    (
        r"^(?:unsafe\s+)?impl\b(?P<name>.*)",
        Some(ItemKind::Impl),
        false,
    ),
    (
        r"^(?:pub(?:\s*\([^)]*\))?\s+)?(?:(?:unsafe|auto)\s+)*(?P<kw>struct|enum|union|trait|mod)\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)",
        None,
        false,
    ),
    (
        r"^macro_rules!\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)",
        Some(ItemKind::Macro),
        false,
    ),
];

const PYTHON: &[PatternSource] = &[
    (
        r"^(?:async\s+)?def\s+(?P<name>\w+)",
        Some(ItemKind::Function),
        false,
    ),
    (r"^class\s+(?P<name>\w+)", Some(ItemKind::Class), false),
];

const RUBY: &[PatternSource] = &[
    (
        r"^def\s+(?P<name>(?:self\.)?[\w?!=\[\]<>+\-*/%]+)",
        Some(ItemKind::Function),
        false,
    ),
    (
        r"^(?P<kw>class|module)\s+(?P<name>[A-Z][\w:]*)",
        None,
        false,
    ),
];

const JAVASCRIPT: &[PatternSource] = &[
    (
        r"^[(!]?\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:(?:public|private|protected|static|final|abstract)\s+)*(?:async\s+)?function\b\s*\*?\s*&?\s*(?P<name>[A-Za-z_$][\w$]*)",
        Some(ItemKind::Function),
        false,
    ),
    (
        r"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:(?:abstract|final|readonly)\s+)*(?P<kw>class|interface|enum|namespace|module|trait)\s+(?P<name>[A-Za-z_$][\w$.]*)",
        None,
        false,
    ),
    (
        r"^(?:export\s+)?(?:declare\s+)?(?:const\s+)(?P<kw>enum)\s+(?P<name>[A-Za-z_$][\w$]*)",
        None,
        false,
    ),
    (
        r"^(?:export\s+)?(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=>|\([^)]*$)",
        Some(ItemKind::Function),
        false,
    ),
    (
        r#"^['"]?(?P<name>[A-Za-z_$][\w$]*)['"]?\s*:\s*(?:async\s+)?(?:function\b|(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>)"#,
        Some(ItemKind::Function),
        false,
    ),
    (
        r"^(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*\*?\s*(?P<name>#?[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?::\s*[^{=]+)?\{\s*$",
        Some(ItemKind::Function),
        true,
    ),
    (
        r"^(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*(?P<name>#?[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=>",
        Some(ItemKind::Function),
        true,
    ),
];

const GO: &[PatternSource] = &[
    (
        r"^func\s+(?:\((?P<recv>[^)]*)\)\s*)?(?P<name>[A-Za-z_]\w*)",
        Some(ItemKind::Function),
        false,
    ),
    (
        r"^type\s+(?P<name>[A-Za-z_]\w*)(?:\[[^\]]*\])?\s+(?P<kw>struct|interface)\b",
        None,
        false,
    ),
];

const JAVA_LIKE: &[PatternSource] = &[
    (
        r"^(?:\[[^\]]*\]\s*)*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|internal|static|final|abstract|sealed|open|data|inner|partial|readonly|unsafe|annotation|companion|case|override|fileprivate|value|implicit|lazy|non-sealed|strictfp|ref)\s+)*(?P<kw>class|interface|enum|record|struct|object|trait|protocol|extension|namespace)\s+(?P<name>[A-Za-z_][\w.]*)",
        None,
        false,
    ),
    (
        r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|internal|static|final|abstract|open|override|suspend|inline|operator|infix|tailrec|external|private\(set\)|fileprivate|mutating|class|async|implicit|lazy)\s+)*(?:fun|func|def)\s+(?:<[^>]*>\s*)?(?:[\w.<>]+\.)?(?P<name>[A-Za-z_]\w*)",
        Some(ItemKind::Function),
        false,
    ),
    (
        r"^(?:\[[^\]]*\]\s*)*(?:@\w+(?:\([^)]*\))?\s+)*(?P<pre>(?:[\w$.<>\[\],?]+\s+|[\w$.]+<[^=;()]*>\s+)+)(?P<name>[A-Za-z_$][\w$]*)\s*\([^;]*$",
        Some(ItemKind::Function),
        true,
    ),
    (
        r"^(?:(?:public|private|protected|internal)\s+)(?P<name>[A-Z][\w$]*)\s*\([^;]*$",
        Some(ItemKind::Function),
        true,
    ),
];

const C_LIKE: &[PatternSource] = &[
    (
        r"^(?:template\s*<.*>\s*)?(?:typedef\s+)?(?P<kw>class|struct|union|enum\s+class|enum|namespace)\s+(?:[A-Z_][A-Z0-9_]*\s+)*(?P<name>[A-Za-z_][\w:]*)\s*(?:final\s*)?(?::[^;{]*)?(?:\{.*)?$",
        None,
        false,
    ),
    (
        r"^(?:template\s*<.*>\s*)?(?P<pre>(?:[\w:<>,]+[\s*&]+)*)(?P<name>~?[A-Za-z_]\w*(?:::~?[A-Za-z_]\w*)*(?:::operator\s*\S+?)?)\s*\([^;]*$",
        Some(ItemKind::Function),
        true,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [(&str, &[PatternSource]); 7] = [
        ("rust", RUST),
        ("python", PYTHON),
        ("ruby", RUBY),
        ("javascript", JAVASCRIPT),
        ("go", GO),
        ("java-like", JAVA_LIKE),
        ("c-like", C_LIKE),
    ];

    #[test]
    fn every_pattern_compiles() {
        for (language, sources) in ALL {
            for (source, _, _) in sources {
                assert!(Regex::new(source).is_ok(), "{language}: {source}");
            }
        }
    }

    #[test]
    fn impl_name_drops_generics_and_where_clauses() {
        assert_eq!(
            impl_name("<T: A<B>> Display for Foo<T> where T: C {"),
            "Display for Foo<T>"
        );
        assert_eq!(impl_name(" Foo {"), "Foo");
    }

    #[test]
    fn statements_are_not_declarations() {
        assert_eq!(match_item(Language::JavaLike, "return foo(x,", false), None);
        assert_eq!(
            match_item(Language::JavaLike, "} else if (x) {", false),
            None
        );
        assert_eq!(match_item(Language::CLike, "if (x) {", false), None);
        assert_eq!(match_item(Language::CLike, "foo(bar);", false), None);
    }

    #[test]
    fn c_declarations_are_recognised() {
        let matched = match_item(
            Language::CLike,
            "static int parse_header(const char *s)",
            false,
        );
        assert_eq!(
            matched,
            Some(ItemMatch {
                kind: ItemKind::Function,
                name: "parse_header".to_owned()
            })
        );
        let matched = match_item(Language::CLike, "void Foo::bar() const {", false);
        assert_eq!(matched.map(|m| m.name), Some("Foo::bar".to_owned()));
        let matched = match_item(Language::CLike, "struct node *make_node(int v) {", false);
        assert_eq!(matched.map(|m| m.name), Some("make_node".to_owned()));
    }
}
