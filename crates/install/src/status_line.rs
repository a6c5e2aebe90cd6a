//! Claude Code's `statusLine` setting, which only settings files can set (a plugin cannot):
//! `install` points it at `self-repair statusline`, composing with a status line the user
//! already has (their command runs first, through `self-repair statusline --compose`, and our
//! row follows), and `uninstall` puts back exactly what was there.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// File names of our binary.
const BINARY_FILE_NAMES: [&str; 2] = ["self-repair", "self-repair.exe"];

/// Seconds between refreshes: the client's event refreshes go quiet while the main session
/// waits on background agents, so the line would freeze without it. Claude Code 2.1.330's
/// settings schema has `refreshInterval` (seconds, at least 1).
pub const REFRESH_SECONDS: u64 = 5;

/// What `install` did to `statusLine`, for `uninstall`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusLineRecord {
    /// The `command` install wrote.
    pub command: String,
    /// The whole `statusLine` value before install; absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Value>,
}

/// What happened to `statusLine`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StatusLineChange {
    /// Written (new, composed, or pointed at another binary): the record for the manifest.
    Written(StatusLineRecord),
    /// Already what install would write.
    Unchanged,
    /// Left alone, with the reason for the user.
    LeftAlone(String),
}

/// `word` quoted for `sh` when it needs it.
pub(crate) fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Our status-line command run by `binary`, composed with the user's `theirs` when given.
pub(crate) fn our_command(binary: &str, theirs: Option<&str>) -> String {
    match theirs {
        None => format!("{} statusline", shell_quote(binary)),
        Some(theirs) => format!(
            "{} statusline --compose {}",
            shell_quote(binary),
            shell_quote(theirs)
        ),
    }
}

/// A `self-repair statusline` command: alone, or composed with the user's command.
enum OurCommand {
    Alone,
    Composed(String),
}

/// Whether `command` is a `self-repair statusline` (run by any `self-repair` binary: PATH's,
/// an absolute path, an earlier install's), and with which user command.
fn ours(command: &str) -> Option<OurCommand> {
    let (program, rest) = match command.strip_prefix('\'') {
        Some(quoted) => {
            let end = quoted.find('\'')?;
            (&quoted[..end], &quoted[end + 1..])
        }
        None => command.split_at(command.find(' ').unwrap_or(command.len())),
    };
    let name = std::path::Path::new(program).file_name()?.to_str()?;
    if !BINARY_FILE_NAMES.contains(&name) {
        return None;
    }
    let rest = rest.strip_prefix(" statusline")?;
    if rest.is_empty() {
        return Some(OurCommand::Alone);
    }
    let quoted = rest.strip_prefix(" --compose ")?;
    shell_unquote(quoted).map(OurCommand::Composed)
}

/// The inverse of [`shell_quote`] for the words it writes.
fn shell_unquote(word: &str) -> Option<String> {
    match word.strip_prefix('\'').and_then(|w| w.strip_suffix('\'')) {
        Some(inner) => Some(inner.replace(r"'\''", "'")),
        None => (!word.contains(['\'', '"', ' '])).then(|| word.to_owned()),
    }
}

/// Points `root`'s `statusLine` at `binary statusline`: added when there is none, composed with
/// the user's command when there is one, re-pointed when it is an earlier install's (any
/// `self-repair` binary's). `previous` is the earlier install's record, kept so `uninstall`
/// restores the value from before the first install.
pub(crate) fn add_status_line(
    root: &mut Map<String, Value>,
    binary: &str,
    previous: Option<&StatusLineRecord>,
) -> StatusLineChange {
    let Some(current) = root.get("statusLine").cloned() else {
        let command = our_command(binary, None);
        root.insert(
            "statusLine".to_owned(),
            json!({"type": "command", "command": command, "refreshInterval": REFRESH_SECONDS}),
        );
        return StatusLineChange::Written(StatusLineRecord {
            command,
            previous: None,
        });
    };
    let Some(theirs) = current
        .get("command")
        .and_then(Value::as_str)
        .filter(|_| current.get("type").and_then(Value::as_str) == Some("command"))
    else {
        return StatusLineChange::LeftAlone(
            "your `statusLine` is not a command: kept as it is; to see self-repair's progress \
             too, make it `{\"type\": \"command\", \"command\": \"self-repair statusline\"}`"
                .to_owned(),
        );
    };
    let (composed_with, before) = match ours(theirs) {
        Some(OurCommand::Alone) => (None, previous.and_then(|p| p.previous.clone())),
        Some(OurCommand::Composed(with)) => (Some(with), previous.and_then(|p| p.previous.clone())),
        None => (Some(theirs.to_owned()), Some(current.clone())),
    };
    let command = our_command(binary, composed_with.as_deref());
    if command == theirs {
        return StatusLineChange::Unchanged;
    }
    let mut value = current;
    value["command"] = Value::from(command.clone());
    if value.get("refreshInterval").is_none() {
        value["refreshInterval"] = Value::from(REFRESH_SECONDS);
    }
    root.insert("statusLine".to_owned(), value);
    StatusLineChange::Written(StatusLineRecord {
        command,
        previous: before,
    })
}

/// Takes our `statusLine` out of `root` when it is still the one install wrote: the value from
/// before install comes back (or the key goes). One the user changed since is left alone.
pub(crate) fn remove_status_line(root: &mut Map<String, Value>, record: &StatusLineRecord) {
    let is_ours = root
        .get("statusLine")
        .and_then(|s| s.get("command"))
        .and_then(Value::as_str)
        == Some(record.command.as_str());
    if !is_ours {
        return;
    }
    match &record.previous {
        Some(previous) => {
            root.insert("statusLine".to_owned(), previous.clone());
        }
        None => {
            root.shift_remove("statusLine");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str) -> Map<String, Value> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn a_settings_file_without_a_status_line_gets_ours_with_a_refresh_interval() {
        let mut settings = root("{}");
        let change = add_status_line(&mut settings, "self-repair", None);
        assert_eq!(
            settings["statusLine"],
            json!({"type": "command", "command": "self-repair statusline", "refreshInterval": 5})
        );
        assert_eq!(
            change,
            StatusLineChange::Written(StatusLineRecord {
                command: "self-repair statusline".to_owned(),
                previous: None
            })
        );
        remove_status_line(
            &mut settings,
            &StatusLineRecord {
                command: "self-repair statusline".to_owned(),
                previous: None,
            },
        );
        assert!(settings.get("statusLine").is_none());
    }

    #[test]
    fn a_users_status_line_is_composed_with_ours_and_comes_back_exactly() {
        let theirs = json!({"type": "command", "command": "~/bin/my line.sh 'x'", "padding": 2});
        let mut settings = root("{}");
        settings.insert("statusLine".to_owned(), theirs.clone());
        let StatusLineChange::Written(record) =
            add_status_line(&mut settings, "/opt/sr bin/self-repair", None)
        else {
            panic!("not written");
        };
        assert_eq!(
            settings["statusLine"]["command"],
            r"'/opt/sr bin/self-repair' statusline --compose '~/bin/my line.sh '\''x'\'''"
        );
        assert_eq!(settings["statusLine"]["padding"], 2, "their keys stay");
        assert_eq!(settings["statusLine"]["refreshInterval"], 5);
        // Installing again changes nothing; from another binary, it re-points and still
        // remembers theirs.
        assert_eq!(
            add_status_line(&mut settings, "/opt/sr bin/self-repair", Some(&record)),
            StatusLineChange::Unchanged
        );
        let StatusLineChange::Written(moved) =
            add_status_line(&mut settings, "self-repair", Some(&record))
        else {
            panic!("not re-pointed");
        };
        assert_eq!(
            settings["statusLine"]["command"],
            r"self-repair statusline --compose '~/bin/my line.sh '\''x'\'''"
        );
        assert_eq!(moved.previous, Some(theirs.clone()));
        remove_status_line(&mut settings, &moved);
        assert_eq!(settings["statusLine"], theirs);
    }

    #[test]
    fn a_plain_user_command_composed_unquoted_is_read_back_as_theirs() {
        let theirs = json!({"type": "command", "command": "ccline"});
        let mut settings = root("{}");
        settings.insert("statusLine".to_owned(), theirs.clone());
        let StatusLineChange::Written(record) = add_status_line(&mut settings, "self-repair", None)
        else {
            panic!("not written");
        };
        assert_eq!(record.command, "self-repair statusline --compose ccline");
        assert_eq!(
            add_status_line(&mut settings, "self-repair", Some(&record)),
            StatusLineChange::Unchanged,
            "installing again does not compose ours with ours"
        );
        remove_status_line(&mut settings, &record);
        assert_eq!(settings["statusLine"], theirs);
    }

    #[test]
    fn a_status_line_the_user_changed_after_install_is_not_taken_out() {
        let mut settings = root(r#"{"statusLine": {"type": "command", "command": "mine"}}"#);
        remove_status_line(
            &mut settings,
            &StatusLineRecord {
                command: "self-repair statusline".to_owned(),
                previous: None,
            },
        );
        assert_eq!(settings["statusLine"]["command"], "mine");
    }
}
