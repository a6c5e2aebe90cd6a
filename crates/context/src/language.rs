//! Which language family a file belongs to (by extension), and the code-fence tag to show it with.

/// The families whose items [`crate::enclosing_item`] recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    Rust,
    Python,
    Ruby,
    /// JavaScript, TypeScript and PHP: `function`, `class`, methods, arrow functions.
    JavaScript,
    Go,
    /// Java, C#, Kotlin, Scala, Swift: classes and methods.
    JavaLike,
    /// Groovy and Dart: classes and methods as in Java, but `'` quotes a string.
    QuotingJavaLike,
    /// C, C++, Objective-C: functions, classes, structs, namespaces.
    CLike,
}

/// How a language delimits its blocks, which decides the scan used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockStyle {
    /// `{ ... }`: scan forward, matching braces.
    Braces,
    /// Indentation: scan upward for a less indented item line.
    Indentation,
}

impl Language {
    /// The family of `rel_path`, by its extension (case-insensitive); `None` when unknown.
    pub(crate) fn from_path(rel_path: &str) -> Option<Language> {
        let extension = extension(rel_path)?;
        let language = match extension.as_str() {
            "rs" => Language::Rust,
            "py" | "pyi" | "pyw" => Language::Python,
            "rb" | "rake" => Language::Ruby,
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "php" | "vue"
            | "svelte" => Language::JavaScript,
            "go" => Language::Go,
            "java" | "cs" | "kt" | "kts" | "scala" | "swift" => Language::JavaLike,
            "groovy" | "gradle" | "dart" => Language::QuotingJavaLike,
            "c" | "h" | "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp"
            | "m" | "mm" => Language::CLike,
            _ => return None,
        };
        Some(language)
    }

    /// How this language delimits blocks.
    pub(crate) fn block_style(self) -> BlockStyle {
        match self {
            Language::Python | Language::Ruby => BlockStyle::Indentation,
            _ => BlockStyle::Braces,
        }
    }

    /// Whether `'` opens a string that may hold braces (JavaScript, PHP, Groovy, Dart), rather
    /// than a char literal or a Rust lifetime.
    pub(crate) fn single_quote_strings(self) -> bool {
        matches!(self, Language::JavaScript | Language::QuotingJavaLike)
    }
}

/// The info string for a markdown code fence showing `rel_path` (`text` when unknown).
pub fn fence_tag(rel_path: &str) -> &'static str {
    let Some(extension) = extension(rel_path) else {
        return "text";
    };
    match extension.as_str() {
        "rs" => "rust",
        "py" | "pyi" | "pyw" => "python",
        "rb" | "rake" => "ruby",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "jsx",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "tsx",
        "php" => "php",
        "vue" => "vue",
        "svelte" => "svelte",
        "go" => "go",
        "java" => "java",
        "cs" => "csharp",
        "kt" | "kts" => "kotlin",
        "scala" => "scala",
        "swift" => "swift",
        "groovy" | "gradle" => "groovy",
        "dart" => "dart",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" => "cpp",
        "m" | "mm" => "objectivec",
        "sh" | "bash" => "bash",
        "toml" => "toml",
        "json" => "json",
        "yaml" | "yml" => "yaml",
        "md" => "markdown",
        "html" | "htm" => "html",
        "css" => "css",
        "sql" => "sql",
        _ => "text",
    }
}

fn extension(rel_path: &str) -> Option<String> {
    let file_name = rel_path.rsplit(['/', '\\']).next()?;
    let (stem, extension) = file_name.rsplit_once('.')?;
    if stem.is_empty() {
        return None;
    }
    Some(extension.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_path_reads_the_extension_case_insensitively() {
        assert_eq!(
            Language::from_path("src/Main.JAVA"),
            Some(Language::JavaLike)
        );
        assert_eq!(Language::from_path("a/b.tsx"), Some(Language::JavaScript));
        assert_eq!(Language::from_path("x.py"), Some(Language::Python));
        assert_eq!(Language::from_path("Makefile"), None);
        assert_eq!(Language::from_path(".rs"), None);
    }

    /// Every extension each table knows, one file a name: a family and a fence tag.
    #[test]
    fn every_known_extension_has_its_family_and_its_fence_tag() {
        use Language::{CLike, Go, JavaLike, JavaScript, Python, QuotingJavaLike, Ruby, Rust};
        let table: [(&str, Option<Language>, &str); 49] = [
            ("rs", Some(Rust), "rust"),
            ("py", Some(Python), "python"),
            ("pyi", Some(Python), "python"),
            ("pyw", Some(Python), "python"),
            ("rb", Some(Ruby), "ruby"),
            ("rake", Some(Ruby), "ruby"),
            ("js", Some(JavaScript), "javascript"),
            ("mjs", Some(JavaScript), "javascript"),
            ("cjs", Some(JavaScript), "javascript"),
            ("jsx", Some(JavaScript), "jsx"),
            ("ts", Some(JavaScript), "typescript"),
            ("mts", Some(JavaScript), "typescript"),
            ("cts", Some(JavaScript), "typescript"),
            ("tsx", Some(JavaScript), "tsx"),
            ("php", Some(JavaScript), "php"),
            ("vue", Some(JavaScript), "vue"),
            ("svelte", Some(JavaScript), "svelte"),
            ("go", Some(Go), "go"),
            ("java", Some(JavaLike), "java"),
            ("cs", Some(JavaLike), "csharp"),
            ("kt", Some(JavaLike), "kotlin"),
            ("kts", Some(JavaLike), "kotlin"),
            ("scala", Some(JavaLike), "scala"),
            ("swift", Some(JavaLike), "swift"),
            ("groovy", Some(QuotingJavaLike), "groovy"),
            ("gradle", Some(QuotingJavaLike), "groovy"),
            ("dart", Some(QuotingJavaLike), "dart"),
            ("c", Some(CLike), "c"),
            ("h", Some(CLike), "c"),
            ("cc", Some(CLike), "cpp"),
            ("cpp", Some(CLike), "cpp"),
            ("cxx", Some(CLike), "cpp"),
            ("c++", Some(CLike), "cpp"),
            ("hpp", Some(CLike), "cpp"),
            ("hh", Some(CLike), "cpp"),
            ("hxx", Some(CLike), "cpp"),
            ("h++", Some(CLike), "cpp"),
            ("ipp", Some(CLike), "cpp"),
            ("m", Some(CLike), "objectivec"),
            ("mm", Some(CLike), "objectivec"),
            ("sh", None, "bash"),
            ("bash", None, "bash"),
            ("toml", None, "toml"),
            ("json", None, "json"),
            ("yaml", None, "yaml"),
            ("yml", None, "yaml"),
            ("md", None, "markdown"),
            ("html", None, "html"),
            ("htm", None, "html"),
        ];
        for (extension, language, tag) in table {
            let path = format!("src/file.{extension}");
            assert_eq!(Language::from_path(&path), language, "{path}");
            assert_eq!(fence_tag(&path), tag, "{path}");
        }
        for (path, tag) in [("a.css", "css"), ("q.sql", "sql"), ("a.txt", "text")] {
            assert_eq!(Language::from_path(path), None, "{path}");
            assert_eq!(fence_tag(path), tag, "{path}");
        }
    }

    #[test]
    fn fence_tag_defaults_to_text() {
        assert_eq!(fence_tag("src/lib.rs"), "rust");
        assert_eq!(fence_tag("notes"), "text");
        assert_eq!(fence_tag("data.bin"), "text");
    }
}
