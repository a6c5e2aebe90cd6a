//! Turns the paths and `file://` URIs analyzers print into project-relative `/` paths.

use std::cell::{OnceCell, RefCell};
use std::collections::HashSet;
use std::path::Path;

use crate::ingest_error::{IngestError, PathRefusal};
use crate::ingest_options::IngestOptions;
use crate::project_files::project_files;

/// Makes finding paths project-relative. Built once per input; all checks are lexical (no file
/// system access per path), so a path is accepted only if it provably stays under the root.
pub(crate) struct PathResolver<'a> {
    input: &'a str,
    /// Absolute prefixes to strip, best first: the root as given, the root canonicalized
    /// (when it differs), then `--base`. Each is `/`-separated without a trailing `/`.
    prefixes: Vec<String>,
    root_display: String,
    /// Folder (project-relative) that relative paths are under.
    relative_to: Option<&'a str>,
    /// The project root, for listing its files.
    root: &'a Path,
    /// Whether `--base` was given: then nothing is inferred.
    explicit_base: bool,
    /// The base inferred from the first absolute path outside the project (see
    /// [`PathResolver::infer_base`]); every later such path must be under it.
    inferred: RefCell<Option<String>>,
    /// The project's files, listed on the first path that needs them.
    files: OnceCell<HashSet<String>>,
}

impl<'a> PathResolver<'a> {
    /// A resolver for the project and base named in `options`.
    pub(crate) fn new(options: &'a IngestOptions) -> PathResolver<'a> {
        let mut prefixes = Vec::new();
        let root = normalized_prefix(&options.project_root);
        prefixes.push(root);
        if let Ok(canonical) = std::fs::canonicalize(&options.project_root) {
            let canonical = normalized_prefix(&canonical);
            if !prefixes.contains(&canonical) {
                prefixes.push(canonical);
            }
        }
        if let Some(base) = &options.base {
            prefixes.push(normalized_prefix(base));
        }
        PathResolver {
            input: &options.source,
            prefixes,
            root_display: options.project_root.display().to_string(),
            relative_to: options.relative_to.as_deref(),
            root: &options.project_root,
            explicit_base: options.base.is_some(),
            inferred: RefCell::new(None),
            files: OnceCell::new(),
        }
    }

    /// The base inferred for this input's absolute paths, if one was needed.
    pub(crate) fn inferred_base(&self) -> Option<String> {
        self.inferred.borrow().as_ref().map(|base| {
            if base.is_empty() {
                "/".to_owned()
            } else {
                base.clone()
            }
        })
    }

    /// `path` (absolute, outside the root and `--base`) made relative through the inferred
    /// base: the one inferred before, or one inferred now when none was. A base is inferred
    /// from the longest tail of `path` that names a file of the project: the analyzer ran in
    /// the folder before that tail (`/home/runner/work/app/app` for
    /// `/home/runner/work/app/app/src/x.py` when `src/x.py` exists here).
    fn through_inferred_base(&self, path: &str) -> Result<String, PathRefusal> {
        if self.explicit_base {
            return Err(PathRefusal::AbsoluteOutside);
        }
        if let Some(base) = self.inferred.borrow().as_deref() {
            return strip_dir_prefix(path, base)
                .map(str::to_owned)
                .ok_or(PathRefusal::OutsideInferredBase);
        }
        let files = self.files.get_or_init(|| project_files(self.root));
        let base = infer_base(path, files).ok_or(PathRefusal::AbsoluteOutside)?;
        let rest = strip_dir_prefix(path, &base)
            .map(str::to_owned)
            .ok_or(PathRefusal::AbsoluteOutside)?;
        *self.inferred.borrow_mut() = Some(base);
        Ok(rest)
    }

    /// The input's name, for messages.
    pub(crate) fn input(&self) -> &str {
        self.input
    }

    /// Resolves a plain file path (native JSON and text formats: no percent-decoding).
    pub(crate) fn resolve_path(
        &self,
        raw: &str,
        location: impl FnOnce() -> String,
    ) -> Result<String, IngestError> {
        self.resolve_decoded(raw, raw, location)
    }

    /// Resolves a URI reference as SARIF writes them: `file://` URIs or relative references,
    /// both percent-encoded.
    pub(crate) fn resolve_uri(
        &self,
        uri: &str,
        location: impl FnOnce() -> String,
    ) -> Result<String, IngestError> {
        let path = match uri_scheme(uri) {
            Some(scheme) if scheme.eq_ignore_ascii_case("file") => file_uri_path(uri),
            Some(_) => return Err(self.refuse(uri, PathRefusal::NotAFileUri, location)),
            None => uri,
        };
        let decoded = percent_decode(path);
        self.resolve_decoded(&decoded, uri, location)
    }

    fn resolve_decoded(
        &self,
        path: &str,
        as_written: &str,
        location: impl FnOnce() -> String,
    ) -> Result<String, IngestError> {
        let slashed;
        let path = if path.contains('\\') {
            slashed = path.replace('\\', "/");
            slashed.as_str()
        } else {
            path
        };
        let joined;
        let inferred;
        let relative = if is_absolute(path) {
            let stripped = self
                .prefixes
                .iter()
                .find_map(|prefix| strip_dir_prefix(path, prefix));
            match stripped {
                Some(rest) => rest,
                None => match self.through_inferred_base(path) {
                    Ok(rest) => {
                        inferred = rest;
                        inferred.as_str()
                    }
                    Err(refusal) => return Err(self.refuse(as_written, refusal, location)),
                },
            }
        } else if let Some(dir) = self.relative_to {
            joined = format!("{dir}/{path}");
            joined.as_str()
        } else {
            path
        };
        match normalize_relative(relative) {
            Some(normal) => Ok(normal),
            None => Err(self.refuse(as_written, PathRefusal::EscapesRoot, location)),
        }
    }

    fn refuse(
        &self,
        path: &str,
        refusal: PathRefusal,
        location: impl FnOnce() -> String,
    ) -> IngestError {
        let root = match self.inferred_base() {
            Some(base) if refusal == PathRefusal::OutsideInferredBase => format!(
                "{}; base inferred from the input's earlier paths: {base}",
                self.root_display
            ),
            _ => self.root_display.clone(),
        };
        IngestError::PathOutsideProject {
            input: self.input.to_owned(),
            location: location(),
            path: path.to_owned(),
            refusal,
            root,
        }
    }
}

/// The folder `path` is under such that the rest is the longest tail naming a project file.
fn infer_base(path: &str, files: &HashSet<String>) -> Option<String> {
    let normal = normalized_prefix(Path::new(path));
    let mut at = 0;
    while let Some(slash) = normal[at..].find('/') {
        let cut = at + slash;
        let tail = &normal[cut + 1..];
        if !tail.is_empty() && files.contains(tail) {
            // The file system root is the empty prefix, as `normalized_prefix` writes it.
            return Some(normal[..cut].to_owned());
        }
        at = cut + 1;
    }
    None
}

/// `path` as a `/`-separated absolute prefix without trailing `/` (lexically normalized).
fn normalized_prefix(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let drive_or_root = if text.starts_with('/') { "/" } else { "" };
    let body = normalize_relative(text.trim_start_matches('/')).unwrap_or_default();
    if body == "." {
        drive_or_root.trim_end_matches('/').to_owned()
    } else {
        format!("{drive_or_root}{body}")
    }
}

/// The rest of `path` after the directory `prefix`, or `None` when `path` is not under it.
fn strip_dir_prefix<'p>(path: &'p str, prefix: &str) -> Option<&'p str> {
    let rest = path.strip_prefix(prefix)?;
    if rest.is_empty() {
        Some(".")
    } else {
        rest.strip_prefix('/')
    }
}

/// `/x`, `//server/x` and `C:/x` are absolute.
fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || (bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && bytes[2] == b'/')
}

/// Drops `.` and empty components and applies `..`; `None` when `..` climbs above the start.
/// The empty path becomes `.`.
pub(crate) fn normalize_relative(path: &str) -> Option<String> {
    // Fast path: most paths are already normal.
    if !path.is_empty() && path.split('/').all(|part| !matches!(part, "" | "." | "..")) {
        return Some(path.to_owned());
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        Some(".".to_owned())
    } else {
        Some(parts.join("/"))
    }
}

/// The scheme of an absolute URI (`file`, `https`), not mistaking a drive letter for one.
fn uri_scheme(uri: &str) -> Option<&str> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let valid = first.is_ascii_alphabetic()
        && scheme.len() > 1
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

/// The path part of a `file:` URI: `file:///a/b`, `file://localhost/a/b`, `file:/a/b`,
/// `file:///C:/a` (-> `C:/a`).
fn file_uri_path(uri: &str) -> &str {
    let after_scheme = &uri[5..];
    let path = match after_scheme.strip_prefix("//") {
        Some(authority_and_path) => match authority_and_path.find('/') {
            Some(slash) => &authority_and_path[slash..],
            None => "",
        },
        None => after_scheme,
    };
    let bytes = path.as_bytes();
    if bytes.len() >= 4 && bytes[0] == b'/' && bytes[1].is_ascii_alphabetic() && bytes[2] == b':' {
        &path[1..]
    } else {
        path
    }
}

/// Decodes `%XX` escapes (invalid escapes stay as written; invalid UTF-8 is replaced).
pub(crate) fn percent_decode(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('%') {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(index + 1).and_then(|b| hex_value(*b)),
                bytes.get(index + 2).and_then(|b| hex_value(*b)),
            )
        {
            out.push(high * 16 + low);
            index += 3;
            continue;
        }
        out.push(bytes[index]);
        index += 1;
    }
    std::borrow::Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> IngestOptions {
        IngestOptions::new("in.sarif", "/work/project").with_base("/home/dev/samples")
    }

    fn uri(raw: &str) -> Result<String, String> {
        let options = options();
        PathResolver::new(&options)
            .resolve_uri(raw, || "here".to_owned())
            .map_err(|e| e.to_string())
    }

    fn path(raw: &str) -> Result<String, String> {
        let options = options();
        PathResolver::new(&options)
            .resolve_path(raw, || "here".to_owned())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn file_uris_are_decoded_and_made_relative() {
        assert_eq!(uri("file:///work/project/src/a.py"), Ok("src/a.py".into()));
        assert_eq!(
            uri("file://localhost/work/project/a%20b.py"),
            Ok("a b.py".into())
        );
        assert_eq!(
            uri("file:/home/dev/samples/py/mod.py"),
            Ok("py/mod.py".into())
        );
        assert_eq!(uri("src/caf%C3%A9.py"), Ok("src/café.py".into()));
        assert_eq!(uri("src/caf%c3%a9.py"), Ok("src/café.py".into()));
        assert_eq!(uri("./src//x/../a.py"), Ok("src/a.py".into()));
    }

    #[test]
    fn plain_paths_are_not_percent_decoded() {
        assert_eq!(path("src/a%20b.py"), Ok("src/a%20b.py".into()));
        assert_eq!(path("./mod.py"), Ok("mod.py".into()));
        assert_eq!(path("src\\win\\a.py"), Ok("src/win/a.py".into()));
        assert_eq!(path("/work/project"), Ok(".".into()));
    }

    #[test]
    fn root_prefix_must_end_at_a_directory_boundary() {
        assert!(path("/work/project-other/a.py").is_err());
    }

    #[test]
    fn escaping_and_foreign_paths_are_refused() {
        assert!(path("../outside.py").is_err_and(|e| e.contains("climbs out")));
        assert!(path("/etc/passwd").is_err_and(|e| e.contains("is absolute")));
        assert!(uri("https://example.org/a.py").is_err_and(|e| e.contains("scheme")));
    }

    #[test]
    fn relative_paths_are_taken_under_the_folder_the_tool_ran_in() {
        let options = IngestOptions::new("in", "/work/project").with_relative_to("rs/");
        let resolver = PathResolver::new(&options);
        assert_eq!(
            resolver.resolve_path("src/main.rs", String::new).unwrap(),
            "rs/src/main.rs"
        );
        assert_eq!(
            resolver.resolve_path("./lib.rs", String::new).unwrap(),
            "rs/lib.rs"
        );
        assert_eq!(
            resolver.resolve_path("../py/mod.py", String::new).unwrap(),
            "py/mod.py"
        );
        assert!(resolver.resolve_path("../../x", String::new).is_err());
        assert_eq!(
            resolver
                .resolve_path("/work/project/js/a.ts", String::new)
                .unwrap(),
            "js/a.ts"
        );
    }

    #[test]
    fn the_inferred_base_leaves_the_longest_tail_that_names_a_project_file() {
        let files: HashSet<String> = ["src/x.py", "x.py", "app/src/x.py"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(
            infer_base("/home/runner/work/app/app/src/x.py", &files).as_deref(),
            Some("/home/runner/work/app")
        );
        assert_eq!(infer_base("/ci/y.py", &files), None);
        assert_eq!(infer_base("/x.py", &files).as_deref(), Some(""));
        let options = IngestOptions::new("in", "/nonexistent-project");
        let resolver = PathResolver::new(&options);
        resolver.files.get_or_init(|| files.clone());
        assert_eq!(
            resolver.resolve_path("/x.py", String::new).as_deref(),
            Ok("x.py")
        );
        assert_eq!(resolver.inferred_base().as_deref(), Some("/"));
    }

    /// A path outside the base inferred from the input's earlier paths is refused naming that
    /// base; a refusal of another kind does not name it.
    #[test]
    fn only_a_path_outside_the_inferred_base_names_it_in_its_refusal() {
        let files: HashSet<String> = std::iter::once("src/x.py".to_owned()).collect();
        let options = IngestOptions::new("in", "/nonexistent-project");
        let resolver = PathResolver::new(&options);
        resolver.files.get_or_init(|| files.clone());
        assert_eq!(
            resolver
                .resolve_path("/ci/app/src/x.py", String::new)
                .as_deref(),
            Ok("src/x.py")
        );
        let refusal = |raw: &str| {
            resolver
                .resolve_path(raw, String::new)
                .expect_err(raw)
                .to_string()
        };
        let outside = refusal("/other/src/x.py");
        assert!(
            outside.contains("base inferred from the input's earlier paths: /ci/app"),
            "{outside}"
        );
        let climbs = refusal("../x.py");
        assert!(!climbs.contains("base inferred"), "{climbs}");
    }

    /// Only `..` that climbs above the start is refused; `.` and empty parts go, and a path of
    /// nothing else is `.`.
    #[test]
    fn normalize_relative_drops_dots_and_refuses_a_climb_above_the_start() {
        for (path, expected) in [
            ("a/b", Some("a/b")),
            ("", Some(".")),
            (".", Some(".")),
            ("./.", Some(".")),
            ("//", Some(".")),
            ("a/./b//c/", Some("a/b/c")),
            ("a/..", Some(".")),
            ("a/../b", Some("b")),
            ("..", None),
            ("../..", None),
            ("./..", None),
            ("a/../..", None),
        ] {
            assert_eq!(normalize_relative(path).as_deref(), expected, "{path:?}");
        }
    }

    #[test]
    fn windows_drive_letters_are_absolute() {
        let options = IngestOptions::new("x", "C:\\proj");
        let resolver = PathResolver::new(&options);
        assert_eq!(
            resolver.resolve_uri("file:///C:/proj/src/a.rs", String::new),
            Ok("src/a.rs".into())
        );
        assert_eq!(
            resolver.resolve_path("C:\\proj\\src\\a.rs", String::new),
            Ok("src/a.rs".into())
        );
        // A one-letter "scheme" is a drive letter, in a URI field too.
        assert_eq!(
            resolver.resolve_uri("C:/proj/src/a.rs", String::new),
            Ok("src/a.rs".into())
        );
        assert_eq!(uri_scheme("C:/proj"), None);
        assert_eq!(uri_scheme("ab:x"), Some("ab"));
    }
}
