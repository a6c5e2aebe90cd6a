//! What `hook session-start` tells the user once per session about the installation itself: a
//! binary the plugin's launcher found only in a fallback folder, a plugin and a binary of
//! different versions, and a Claude Code outside the tested range.

use std::io::{Read, Seek, SeekFrom};
use std::ops::RangeInclusive;
use std::path::Path;

use crate::command_env::Installation;
use crate::hooks::input::HookInput;

/// The Claude Code versions self-repair is tested on: the whole e2e suite on the newest, a
/// subset on the oldest (reference/e2e.md). Outside it, `hook session-start` says once per
/// session what may break. Bump it on purpose, with the e2e runs on the new end.
pub const TESTED_CLIENTS: RangeInclusive<ClientVersion> =
    ClientVersion::new(2, 1, 330)..=ClientVersion::new(2, 1, 337);

/// A Claude Code version, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClientVersion {
    major: u32,
    minor: u32,
    patch: u32,
}

impl ClientVersion {
    /// The version `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> ClientVersion {
        ClientVersion {
            major,
            minor,
            patch,
        }
    }

    /// Reads `2.1.330` (a transcript row's `version`) or `2-1-330` (inside `AI_AGENT`).
    pub fn parse(text: &str) -> Option<ClientVersion> {
        let mut parts = text.split(['.', '-']).map(|part| part.parse::<u32>().ok());
        let version = ClientVersion::new(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(version)
    }

    /// From `AI_AGENT`, which the client sets for its hooks: `claude-code_2-1-330_harness`.
    pub fn from_agent_variable(value: &str) -> Option<ClientVersion> {
        let rest = value.strip_prefix("claude-code_")?;
        ClientVersion::parse(rest.split('_').next()?)
    }
}

impl std::fmt::Display for ClientVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The notices for the user at this session start, one line each: none after a compaction
/// (the session already had them when it started), none when all is as tested.
pub fn session_notices(installation: &Installation, stdin: &[u8]) -> Vec<String> {
    let input = HookInput::parse(stdin).unwrap_or_default();
    if input.source.as_deref() == Some("compact") {
        return Vec::new();
    }
    let mut notices = Vec::new();
    if let Some(found) = &installation.launcher_fallback {
        notices.push(found_only_in_fallback(found));
    }
    let plugin = installation.plugin_root.as_deref().and_then(plugin_version);
    if let Some(plugin) = plugin.filter(|v| *v != installation.binary_version) {
        notices.push(version_mismatch(&plugin, &installation.binary_version));
    }
    let client = installation
        .agent_variable
        .as_deref()
        .and_then(ClientVersion::from_agent_variable)
        .or_else(|| {
            input
                .transcript_path
                .as_deref()
                .and_then(client_version_in_transcript)
        });
    if let Some(client) = client.filter(|v| !TESTED_CLIENTS.contains(v)) {
        notices.push(untested_client(client));
    }
    notices
}

fn found_only_in_fallback(found: &Path) -> String {
    let dir = found.parent().unwrap_or(found).display();
    format!(
        "self-repair: the hooks found the self-repair program only in {dir}, which is not on the \
         PATH Claude Code started with: its agents call `self-repair` by name and will fail with \
         command not found. Put {dir} on the PATH Claude Code starts with (your shell's profile, \
         or the IDE's environment), then start a new session; `self-repair doctor` checks the \
         setup."
    )
}

fn version_mismatch(plugin: &str, binary: &str) -> String {
    format!(
        "self-repair: the plugin is version {plugin} but the self-repair program is {binary}; \
         its hooks, agents and skill may not match (a hook's instruction or an agent's \
         submission can be refused). Bring the older one up to date: the program with `cargo \
         install --locked --path .` in an updated clone, the plugin with `claude plugin update self-repair@self-repair`; then start a \
         new session."
    )
}

fn untested_client(client: ClientVersion) -> String {
    format!(
        "self-repair: Claude Code {client} is outside the versions self-repair is tested on \
         ({} to {}). What may break: the Stop hook's block and `background_tasks`, by which \
         the run is driven, and the Agent tool's fields, by which its agents are launched. If \
         a run stalls or launches nothing, `self-repair status` says where it stands; a tested \
         Claude Code version runs it as measured.",
        TESTED_CLIENTS.start(),
        TESTED_CLIENTS.end()
    )
}

/// `version` of the plugin's `.claude-plugin/plugin.json`, when it can be read.
fn plugin_version(plugin_root: &Path) -> Option<String> {
    let text = std::fs::read(plugin_root.join(".claude-plugin/plugin.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_slice(&text).ok()?;
    manifest.get("version")?.as_str().map(str::to_owned)
}

/// The client's version from the last transcript row that names one (each row the client
/// writes carries `version`); reads at most the file's last 64 KiB. A new session has no
/// transcript yet when `SessionStart` runs; a resumed one has.
fn client_version_in_transcript(path: &Path) -> Option<ClientVersion> {
    const TAIL: u64 = 64 * 1024;
    let mut file = std::fs::File::open(path).ok()?;
    let length = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(length.saturating_sub(TAIL)))
        .ok()?;
    let mut tail = Vec::new();
    file.take(TAIL).read_to_end(&mut tail).ok()?;
    tail.split(|&byte| byte == b'\n')
        .rev()
        .filter_map(|line| serde_json::from_slice::<serde_json::Value>(line).ok())
        .find_map(|row| row.get("version")?.as_str().and_then(ClientVersion::parse))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn start(source: &str, transcript: Option<&Path>) -> Vec<u8> {
        serde_json::json!({
            "session_id": "s1",
            "hook_event_name": "SessionStart",
            "source": source,
            "transcript_path": transcript,
        })
        .to_string()
        .into_bytes()
    }

    fn plugin_at(version: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".claude-plugin")).unwrap();
        std::fs::write(
            dir.path().join(".claude-plugin/plugin.json"),
            format!(r#"{{"name": "self-repair", "version": "{version}"}}"#),
        )
        .unwrap();
        dir
    }

    fn installation(plugin: Option<&Path>, agent: Option<&str>) -> Installation {
        Installation {
            binary_version: "0.2.0".to_owned(),
            plugin_root: plugin.map(Path::to_path_buf),
            agent_variable: agent.map(str::to_owned),
            ..Installation::default()
        }
    }

    #[test]
    fn a_plugin_of_another_version_than_the_binary_is_said_once_with_what_to_do() {
        let plugin = plugin_at("0.3.0");
        let here = installation(Some(plugin.path()), Some("claude-code_2-1-331_harness"));
        let notices = session_notices(&here, &start("startup", None));
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0].contains("plugin is version 0.3.0"),
            "{}",
            notices[0]
        );
        assert!(notices[0].contains("program is 0.2.0"), "{}", notices[0]);
        assert!(
            notices[0].contains("cargo install --locked --path ."),
            "{}",
            notices[0]
        );
        assert!(
            notices[0].contains("claude plugin update"),
            "{}",
            notices[0]
        );
        // Not again after a compaction: the session had it when it started.
        assert!(session_notices(&here, &start("compact", None)).is_empty());
    }

    #[test]
    fn a_binary_found_only_in_a_fallback_folder_is_said_once_with_where_to_put_it() {
        let mut here = installation(None, Some("claude-code_2-1-331_harness"));
        here.launcher_fallback = Some(PathBuf::from("/home/u/.cargo/bin/self-repair"));
        let notices = session_notices(&here, &start("startup", None));
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0].contains("only in /home/u/.cargo/bin, which is not on the PATH"),
            "{}",
            notices[0]
        );
        assert!(
            notices[0].contains("Put /home/u/.cargo/bin on the PATH Claude Code starts with"),
            "{}",
            notices[0]
        );
        assert!(session_notices(&here, &start("compact", None)).is_empty());
    }

    #[test]
    fn the_same_versions_and_the_install_path_say_nothing() {
        let plugin = plugin_at("0.2.0");
        let agent = Some("claude-code_2-1-330_harness");
        assert!(
            session_notices(
                &installation(Some(plugin.path()), agent),
                &start("startup", None)
            )
            .is_empty()
        );
        // `install`'s hooks run without CLAUDE_PLUGIN_ROOT.
        assert!(session_notices(&installation(None, agent), &start("resume", None)).is_empty());
    }

    #[test]
    fn a_client_outside_the_tested_range_is_said_once_with_what_may_break() {
        for agent in ["claude-code_2-1-329_harness", "claude-code_2-2-0_harness"] {
            let notices =
                session_notices(&installation(None, Some(agent)), &start("startup", None));
            assert_eq!(notices.len(), 1, "{agent}: {notices:?}");
            assert!(
                notices[0]
                    .contains("outside the versions self-repair is tested on (2.1.330 to 2.1.337)"),
                "{}",
                notices[0]
            );
            assert!(notices[0].contains("What may break"), "{}", notices[0]);
            assert!(
                session_notices(&installation(None, Some(agent)), &start("compact", None))
                    .is_empty()
            );
        }
        for agent in [
            "claude-code_2-1-330_harness",
            "claude-code_2-1-332_harness",
            "someone-else",
            "claude-code_next_harness",
        ] {
            assert!(
                session_notices(&installation(None, Some(agent)), &start("startup", None))
                    .is_empty(),
                "{agent}"
            );
        }
    }

    #[test]
    fn a_resumed_session_without_the_variable_reads_the_client_version_from_its_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = dir.path().join("s1.jsonl");
        std::fs::write(
            &transcript,
            "{\"type\":\"queue-operation\"}\n\
             {\"type\":\"user\",\"version\":\"2.1.320\",\"message\":{\"content\":\"{\\\"version\\\":\\\"9.9.9\\\"}\"}}\n\
             {\"type\":\"last-prompt\"}\n",
        )
        .unwrap();
        let notices = session_notices(
            &installation(None, None),
            &start("resume", Some(&transcript)),
        );
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0].contains("Claude Code 2.1.320 is outside"),
            "{}",
            notices[0]
        );
    }

    #[test]
    fn client_versions_parse_from_rows_and_the_agent_variable() {
        assert_eq!(
            ClientVersion::parse("2.1.330"),
            Some(ClientVersion::new(2, 1, 330))
        );
        assert_eq!(ClientVersion::parse("2.1"), None);
        assert_eq!(ClientVersion::parse("2.1.330.1"), None);
        assert_eq!(
            ClientVersion::from_agent_variable("claude-code_2-1-332_harness"),
            Some(ClientVersion::new(2, 1, 332))
        );
        assert!(TESTED_CLIENTS.contains(&ClientVersion::new(2, 1, 331)));
        assert!(TESTED_CLIENTS.contains(&ClientVersion::new(2, 1, 337)));
        assert!(!TESTED_CLIENTS.contains(&ClientVersion::new(2, 1, 338)));
    }
}
