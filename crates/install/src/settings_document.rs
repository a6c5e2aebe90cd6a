//! A Claude Code `settings.json` being edited: our hooks and permission rules in, or out,
//! leaving every other key where it was.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::ser::PrettyFormatter;
use serde_json::{Map, Value};

use crate::hook_registration::{OUR_HOOKS, entry_has_args};
use crate::install_error::InstallError;
use crate::install_manifest::HookRecord;

/// A parsed settings file plus the formatting to write it back with.
#[derive(Debug, Clone)]
pub(crate) struct SettingsDocument {
    path: PathBuf,
    root: Map<String, Value>,
    indent: String,
    trailing_newline: bool,
    crlf: bool,
}

impl SettingsDocument {
    /// A document for a settings file that does not exist yet.
    pub(crate) fn empty(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            root: Map::new(),
            indent: "  ".to_owned(),
            trailing_newline: true,
            crlf: false,
        }
    }

    /// Parses `text`; refuses anything that is not a JSON object.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Self, InstallError> {
        let value: Value =
            serde_json::from_str(text).map_err(|err| InstallError::InvalidSettings {
                path: path.to_owned(),
                message: strip_position(&err),
                line: err.line(),
                column: err.column(),
            })?;
        let Value::Object(root) = value else {
            return Err(InstallError::UnexpectedShape {
                path: path.to_owned(),
                key: "(top level)".to_owned(),
                expected: "an object",
            });
        };
        Ok(Self {
            path: path.to_owned(),
            root,
            indent: detect_indent(text),
            trailing_newline: text.ends_with('\n'),
            crlf: text.contains("\r\n"),
        })
    }

    /// The JSON object.
    pub(crate) fn root(&self) -> &Map<String, Value> {
        &self.root
    }

    /// The JSON object, to edit.
    pub(crate) fn root_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.root
    }

    /// The document as text, in the file's own indent and line endings.
    pub(crate) fn render(&self) -> String {
        let mut bytes = Vec::new();
        let formatter = PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, formatter);
        // Serialising a Value into a Vec cannot fail.
        let _ = self.root.serialize(&mut serializer);
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if self.trailing_newline {
            text.push('\n');
        }
        if self.crlf {
            text = text.replace('\n', "\r\n");
        }
        text
    }

    /// Registers our hooks running `binary`. A hook of ours already present (running `binary`,
    /// one of `known_commands`, or any file named `self-repair`) is pointed at `binary` in
    /// place instead of being duplicated. Returns the hooks added or changed, and records the
    /// keys it had to create in `created_keys`.
    pub(crate) fn add_our_hooks(
        &mut self,
        binary: &str,
        known_commands: &[&str],
        created_keys: &mut Vec<String>,
    ) -> Result<Vec<HookRecord>, InstallError> {
        let mut commands = known_commands.to_vec();
        commands.push(binary);
        let mut touched = Vec::new();
        for registration in OUR_HOOKS {
            let groups = self.array_at("hooks", registration.event, created_keys)?;
            let mut found = false;
            for group in groups.iter_mut() {
                let Some(entries) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                    continue;
                };
                for entry in entries.iter_mut() {
                    if registration.is_ours(entry, &commands) {
                        found = true;
                        if entry.get("command").and_then(Value::as_str) != Some(binary) {
                            entry["command"] = Value::from(binary);
                            touched.push(hook_record(registration.event, &registration.args()));
                        }
                    }
                }
            }
            if !found {
                groups.push(registration.group(binary));
                touched.push(hook_record(registration.event, &registration.args()));
            }
        }
        Ok(touched)
    }

    /// Removes every `permissions.allow` rule listed in `rules`.
    pub(crate) fn remove_permissions(&mut self, rules: &[String]) {
        if let Some(allow) = self
            .root
            .get_mut("permissions")
            .and_then(|p| p.get_mut("allow"))
            .and_then(Value::as_array_mut)
        {
            allow.retain(|rule| !rule.as_str().is_some_and(|r| rules.iter().any(|x| x == r)));
        }
    }

    /// Removes the hook entries of `hooks` that run `binary`, then any group left without
    /// entries, then the keys of `created_keys` that ended up empty.
    pub(crate) fn remove_our_hooks(
        &mut self,
        binary: &str,
        hooks: &[HookRecord],
        created_keys: &[String],
    ) {
        for record in hooks {
            let Some(groups) = self
                .root
                .get_mut("hooks")
                .and_then(|h| h.get_mut(&record.event))
                .and_then(Value::as_array_mut)
            else {
                continue;
            };
            let args: Vec<&str> = record.args.iter().map(String::as_str).collect();
            for group in groups.iter_mut() {
                if let Some(entries) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                    let before = entries.len();
                    entries.retain(|entry| {
                        !(entry_has_args(entry, &args)
                            && entry.get("command").and_then(Value::as_str) == Some(binary))
                    });
                    if entries.is_empty() && before > 0 {
                        // Mark the group for removal below.
                        *group = Value::Null;
                    }
                }
            }
            groups.retain(|group| !group.is_null());
        }
        self.remove_empty_created_keys(created_keys);
    }

    /// Removes each created key (deepest first) whose value is an empty array or object.
    pub(crate) fn remove_empty_created_keys(&mut self, created_keys: &[String]) {
        let mut keys: Vec<&String> = created_keys.iter().collect();
        keys.sort_by_key(|key| std::cmp::Reverse(key.matches('.').count()));
        for key in keys {
            let (parent, child) = match key.split_once('.') {
                Some((parent, child)) => (Some(parent), child),
                None => (None, key.as_str()),
            };
            let container = match parent {
                Some(parent) => self.root.get_mut(parent).and_then(Value::as_object_mut),
                None => Some(&mut self.root),
            };
            if let Some(container) = container {
                let empty = match container.get(child) {
                    Some(Value::Array(items)) => items.is_empty(),
                    Some(Value::Object(map)) => map.is_empty(),
                    _ => false,
                };
                if empty {
                    container.shift_remove(child);
                }
            }
        }
    }

    /// `root[outer][inner]` as an array, creating `outer` (object) and `inner` (array) when
    /// missing and recording them in `created_keys`.
    fn array_at(
        &mut self,
        outer: &str,
        inner: &str,
        created_keys: &mut Vec<String>,
    ) -> Result<&mut Vec<Value>, InstallError> {
        let inner_key = format!("{outer}.{inner}");
        if !self.root.contains_key(outer) {
            self.root
                .insert(outer.to_owned(), Value::Object(Map::new()));
            push_unique(created_keys, outer.to_owned());
        }
        if !self.root.get(outer).is_some_and(Value::is_object) {
            return Err(self.shape_error(outer.to_owned(), "an object"));
        }
        let inner_ok = self
            .root
            .get(outer)
            .and_then(|o| o.get(inner))
            .is_none_or(Value::is_array);
        if !inner_ok {
            return Err(self.shape_error(inner_key, "an array"));
        }
        let Some(outer_map) = self.root.get_mut(outer).and_then(Value::as_object_mut) else {
            return Err(InstallError::UnexpectedShape {
                path: self.path.clone(),
                key: outer.to_owned(),
                expected: "an object",
            });
        };
        if !outer_map.contains_key(inner) {
            outer_map.insert(inner.to_owned(), Value::Array(Vec::new()));
            push_unique(created_keys, inner_key.clone());
        }
        match outer_map.get_mut(inner) {
            Some(Value::Array(items)) => Ok(items),
            _ => Err(InstallError::UnexpectedShape {
                path: self.path.clone(),
                key: inner_key,
                expected: "an array",
            }),
        }
    }

    fn shape_error(&self, key: String, expected: &'static str) -> InstallError {
        InstallError::UnexpectedShape {
            path: self.path.clone(),
            key,
            expected,
        }
    }
}

fn hook_record(event: &str, args: &[&str]) -> HookRecord {
    HookRecord {
        event: event.to_owned(),
        args: args.iter().map(|&a| a.to_owned()).collect(),
    }
}

/// Adds `item` unless already present.
pub(crate) fn push_unique<T: PartialEq>(items: &mut Vec<T>, item: T) {
    if !items.contains(&item) {
        items.push(item);
    }
}

/// `serde_json`'s message without its trailing " at line L column C" (we print both ourselves).
fn strip_position(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// The indent of the first indented line, or two spaces when the file has none.
fn detect_indent(text: &str) -> String {
    text.lines()
        .skip(1)
        .find_map(|line| {
            let trimmed = line.trim_start_matches([' ', '\t']);
            let indent = &line[..line.len() - trimmed.len()];
            (!indent.is_empty() && !trimmed.is_empty()).then(|| indent.to_owned())
        })
        .unwrap_or_else(|| "  ".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unindented_line_or_one_of_blanks_says_nothing_of_the_indent() {
        assert_eq!(detect_indent("{\n\"a\": 1\n}\n"), "  ");
        assert_eq!(detect_indent("{\n   \n\t\"a\": 1\n}\n"), "\t");
    }

    #[test]
    fn detects_four_space_tab_and_default_indent() {
        assert_eq!(detect_indent("{\n    \"a\": 1\n}\n"), "    ");
        assert_eq!(detect_indent("{\n\t\"a\": 1\n}"), "\t");
        assert_eq!(detect_indent("{\"a\": 1}"), "  ");
    }

    #[test]
    fn render_keeps_key_order_indent_and_missing_newline() {
        let text = "{\n    \"z\": 1,\n    \"a\": [\n        true\n    ]\n}";
        let doc = SettingsDocument::parse(Path::new("s.json"), text).unwrap();
        assert_eq!(doc.render(), text);
    }

    #[test]
    fn invalid_json_error_names_file_and_position() {
        let err =
            SettingsDocument::parse(Path::new("/p/.claude/settings.json"), "{\n  \"a\": 1,,\n}")
                .unwrap_err();
        let message = err.to_string();
        assert!(message.contains("/p/.claude/settings.json"), "{message}");
        assert!(message.contains("line 2, column 10"), "{message}");
        assert!(message.contains("Fix the file"), "{message}");
    }

    #[test]
    fn hooks_that_are_not_an_object_are_refused() {
        let mut doc = SettingsDocument::parse(Path::new("s.json"), "{\"hooks\": []}").unwrap();
        let err = doc
            .add_our_hooks("/b/self-repair", &[], &mut Vec::new())
            .unwrap_err();
        assert!(
            err.to_string().contains("`hooks` should be an object"),
            "{err}"
        );
    }
}
