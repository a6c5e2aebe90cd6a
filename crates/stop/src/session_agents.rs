//! Which `Agent` calls the main session made since the previous stop, and at which model,
//! read from its transcript (`transcript_path`): the evidence of what really ran when a launch
//! drops the dispatch's `model`; which of this run's background agents have ended without
//! their notification reaching the session yet (each will wake it once more); and which of those
//! that ended the model provider refused (their own transcript, `subagents/agent-<id>.jsonl`,
//! ends with `stop_reason: "refusal"`). The read position and the awaited agents are kept in the
//! run's `transcript.json`.

use std::path::{Path, PathBuf};

use self_repair_engine::{AgentLaunch, ItemKind};
use self_repair_store::{RunDir, is_safe_item_id, write_atomic};
use self_repair_transcript::AgentActivity;
use serde::{Deserialize, Serialize};

/// Where the last read of the session transcript ended.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TranscriptCursor {
    path: PathBuf,
    offset: u64,
    /// This run's background agents launched in this session whose `<task-notification>` has
    /// not been read yet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    awaiting: Vec<AwaitedAgent>,
    /// The client version the transcript showed last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client: Option<String>,
}

/// A background `Agent` call of this run, by its `tool_use` id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct AwaitedAgent {
    tool_use: String,
    item: String,
    /// The client's `agentId`: names the agent's own transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agent: Option<String>,
}

/// What the main transcript showed since the previous stop.
#[derive(Debug, Default)]
pub struct SessionAgents {
    /// This run's `Agent` launches since the previous stop.
    pub launched: Vec<AgentLaunch>,
    /// Items whose background agent's notification has not been read yet: not delivered, or
    /// delivered and not on disk yet (the client writes the transcript behind the session).
    pub unnotified: Vec<String>,
    /// This run's notifications read at this stop.
    pub notified: u32,
    /// Items whose background agent ended (its notification read at this stop, or no longer
    /// listed as running) refused by the model provider.
    pub provider_refused: Vec<String>,
    /// The transcript was read on from the previous stop's read: `launched` is everything the
    /// session launched since.
    pub launches_read: bool,
    /// The client version the transcript showed, when it is new since the previous stop.
    pub client: Option<String>,
}

/// The launches of this run's items since the last call, and the background ones not yet
/// notified; nothing when the transcript is unknown or unreadable (the evidence is then missing,
/// never invented). The first time a transcript is seen it is read from its end: no item of the
/// run was launched before. `running`: the items the client lists as running (`None`: it sent
/// no `background_tasks`).
pub fn agents_since_last_stop(
    dir: &RunDir,
    transcript: Option<&Path>,
    run: &str,
    running: Option<&[String]>,
) -> SessionAgents {
    let Some(transcript) = transcript else {
        return SessionAgents::default();
    };
    let cursor_path = dir.path().join("transcript.json");
    let cursor: Option<TranscriptCursor> = std::fs::read_to_string(&cursor_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .filter(|c: &TranscriptCursor| c.path == transcript);
    let before = cursor.as_ref().map(|c| c.offset);
    let known_client = cursor.as_ref().and_then(|c| c.client.clone());
    let launches_read = cursor.is_some();
    let (mut activity, mut awaiting) = match cursor {
        Some(cursor) => {
            match self_repair_transcript::read_agent_activity(transcript, cursor.offset) {
                Ok(mut read) => {
                    wait_for_results(transcript, &mut read, run);
                    (read, cursor.awaiting)
                }
                Err(_) => return SessionAgents::default(),
            }
        }
        None => match std::fs::metadata(transcript) {
            Ok(meta) => (
                AgentActivity {
                    end: meta.len(),
                    client: self_repair_transcript::client_version(transcript),
                    ..AgentActivity::default()
                },
                Vec::new(),
            ),
            Err(_) => return SessionAgents::default(),
        },
    };
    let client = activity.client.take().or(known_client.clone());
    let new_client = client.clone().filter(|c| known_client.as_ref() != Some(c));
    // A foreground agent ends before the stop that reads its launch: its error result says
    // whether the provider's safeguards stopped it.
    let foreground_refused: Vec<String> = activity
        .calls
        .iter()
        .filter(|call| call.provider_refused && names_run(&call.prompt, run))
        .filter_map(|call| item_of(&call.description))
        .collect();
    let in_background: Vec<&str> = activity
        .async_launches
        .iter()
        .map(|l| l.tool_use.as_str())
        .collect();
    let launched = activity
        .calls
        .iter()
        .filter(|call| names_run(&call.prompt, run))
        .filter_map(|call| {
            let item = item_of(&call.description)?;
            Some(AgentLaunch {
                item,
                model: call.model.clone(),
                refused: call.refused.clone(),
                fork: call.subagent_type.is_none(),
                background: in_background.contains(&call.id.as_str()),
            })
        })
        .collect();
    for launch in activity.async_launches {
        if !names_run(&launch.prompt, run) {
            continue;
        }
        if let Some(item) = item_of(&launch.description) {
            awaiting.push(AwaitedAgent {
                tool_use: launch.tool_use,
                item,
                agent: launch.agent_id,
            });
        }
    }
    let mut provider_refused =
        refused_by_provider(transcript, &awaiting, &activity.notified, running);
    provider_refused.extend(foreground_refused);
    let awaited = awaiting.len();
    awaiting.retain(|agent| !activity.notified.contains(&agent.tool_use));
    let notified = u32::try_from(awaited - awaiting.len()).unwrap_or(u32::MAX);
    // A stop whose transcript did not grow writes nothing (design note 2): no rename, no flush.
    if before != Some(activity.end) || new_client.is_some() {
        let next = TranscriptCursor {
            path: transcript.to_path_buf(),
            offset: activity.end,
            awaiting: awaiting.clone(),
            client,
        };
        if let Ok(text) = serde_json::to_string(&next) {
            // Losing the cursor only means reading from the end next time: no write error
            // matters.
            let _ = write_atomic(&cursor_path, text.as_bytes());
        }
    }
    SessionAgents {
        launched,
        unnotified: awaiting.into_iter().map(|agent| agent.item).collect(),
        notified,
        provider_refused,
        launches_read,
        client: new_client,
    }
}

/// The items of `awaiting` whose agent ended (notified at this stop, or no longer running) and
/// whose own transcript shows the model provider refused it. An agent still running is not
/// read; an unreadable transcript is no evidence.
fn refused_by_provider(
    transcript: &Path,
    awaiting: &[AwaitedAgent],
    notified: &[String],
    running: Option<&[String]>,
) -> Vec<String> {
    awaiting
        .iter()
        .filter(|agent| {
            notified.contains(&agent.tool_use) || running.is_some_and(|r| !r.contains(&agent.item))
        })
        .filter(|agent| {
            agent.agent.as_deref().is_some_and(|id| {
                let path = self_repair_transcript::agent_transcript(transcript, id);
                self_repair_transcript::refused_by_provider(&path).unwrap_or(false)
            })
        })
        .map(|agent| agent.item.clone())
        .collect()
}

/// The client writes a call's result row a moment behind the session: measured on 2.1.330, a
/// `PreToolUse` hook denied four `Agent` calls of one message, and the stop's read found three
/// refusals (the fourth row landed after it), so that launch looked like an agent that ran and
/// died. While a call of this run read at this stop has no result row yet, read on a little
/// (every call has one by the time the turn ends: the agent's answer, `async_launched`, or the
/// refusal): at most 10 times 30 ms, and only then.
fn wait_for_results(transcript: &Path, activity: &mut AgentActivity, run: &str) {
    const TRIES: u32 = 10;
    for _ in 0..TRIES {
        let waiting = activity
            .calls
            .iter()
            .any(|call| !call.answered && names_run(&call.prompt, run));
        if !waiting {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(30));
        if self_repair_transcript::read_more(transcript, activity).is_err() {
            return;
        }
    }
}

/// A prompt `self-repair item <id> --run <run>` of another run is not ours; one without
/// `--run` (an older dispatch) is taken as ours.
fn names_run(prompt: &str, run: &str) -> bool {
    let mut words = prompt.split_whitespace();
    while let Some(word) = words.next() {
        if word == "--run" {
            return words.next() == Some(run);
        }
    }
    true
}

/// The item id a dispatch `description` names (`triage t-00042`).
fn item_of(description: &str) -> Option<String> {
    description
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .find(|token| is_safe_item_id(token) && ItemKind::of_id(token).is_some())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use self_repair_store::Project;

    /// An `Agent` call and its tool result, as the client writes them.
    fn call(id: &str, item: &str, background: bool) -> String {
        call_in(id, item, background, "r-t")
    }

    /// [`call`] of an item of run `run`.
    fn call_in(id: &str, item: &str, background: bool, run: &str) -> String {
        let input = serde_json::json!({
            "description": format!("write task {item}"),
            "prompt": format!("self-repair item {item} --run {run}"),
        });
        let call = serde_json::json!({"type": "assistant", "message": {"role": "assistant",
            "content": [{"type": "tool_use", "id": id, "name": "Agent", "input": input}]}});
        let mut result = serde_json::json!({"type": "user", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id, "content": "done"}]},
            "toolUseResult": {"status": "completed"}});
        if background {
            result["toolUseResult"] = serde_json::json!({"status": "async_launched",
                "agentId": format!("agent{id}"),
                "description": input["description"], "prompt": input["prompt"]});
        }
        format!("{call}\n{result}\n")
    }

    fn notification(id: &str) -> String {
        let text = format!(
            "<task-notification>\n<tool-use-id>{id}</tool-use-id>\n<status>completed</status>\n</task-notification>"
        );
        let row = serde_json::json!({"type": "user", "message": {"role": "user", "content": text}});
        format!("{row}\n")
    }

    fn append(path: &Path, text: &str) {
        let mut all = std::fs::read_to_string(path).unwrap_or_default();
        all.push_str(text);
        std::fs::write(path, all).unwrap();
    }

    #[test]
    fn a_background_agent_is_awaited_across_stops_until_its_notification_is_read() {
        let root = tempfile::tempdir().unwrap();
        let run_path = root.path().join(".self-repair/runs/r-t");
        std::fs::create_dir_all(&run_path).unwrap();
        std::fs::write(run_path.join("state.json"), "{}").unwrap();
        let dir = Project::find_or_choose(root.path()).run("r-t").unwrap();
        let transcript = root.path().join("session.jsonl");
        append(&transcript, "{\"type\":\"user\"}\n");
        // First sight: read from the end.
        let first = agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        assert!(first.launched.is_empty() && first.unnotified.is_empty());
        append(&transcript, &call("toolu_1", "tw-g1", true));
        append(&transcript, &call("toolu_2", "tw-g2", true));
        append(&transcript, &call("toolu_3", "t-00001", false));
        let launches = agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        assert_eq!(launches.launched.len(), 3);
        assert_eq!(launches.unnotified, ["tw-g1", "tw-g2"]);
        append(&transcript, &notification("toolu_1"));
        let one_left = agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        assert!(one_left.launched.is_empty());
        assert_eq!(
            one_left.unnotified,
            ["tw-g2"],
            "kept in transcript.json between stops"
        );
        assert_eq!(one_left.notified, 1);
        let unchanged = agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        assert_eq!(
            unchanged.unnotified,
            ["tw-g2"],
            "a stop with nothing new keeps it"
        );
        append(&transcript, &notification("toolu_2"));
        let none = agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        assert!(none.unnotified.is_empty());
        assert_eq!(none.notified, 1);
    }

    #[test]
    fn a_background_agent_the_provider_refused_is_named_once_it_ended() {
        let root = tempfile::tempdir().unwrap();
        let run_path = root.path().join(".self-repair/runs/r-t");
        std::fs::create_dir_all(&run_path).unwrap();
        std::fs::write(run_path.join("state.json"), "{}").unwrap();
        let dir = Project::find_or_choose(root.path()).run("r-t").unwrap();
        let transcript = root.path().join("session.jsonl");
        append(&transcript, "{\"type\":\"user\"}\n");
        agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        append(&transcript, &call("toolu_1", "t-00001", true));
        append(&transcript, &call("toolu_2", "t-00002", true));
        let running = ["t-00001".to_owned(), "t-00002".to_owned()];
        let launched = agents_since_last_stop(&dir, Some(&transcript), "r-t", Some(&running));
        assert!(launched.provider_refused.is_empty());
        // Each agent's own transcript: t-00001's ends refused (the transcript crate's fixture),
        // t-00002's answered.
        let agents = root.path().join("session/subagents");
        std::fs::create_dir_all(&agents).unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../transcript/tests/fixtures");
        std::fs::copy(
            fixtures.join("agent-refused.jsonl"),
            agents.join("agent-agenttoolu_1.jsonl"),
        )
        .unwrap();
        std::fs::copy(
            fixtures.join("agent-refused-then-answered.jsonl"),
            agents.join("agent-agenttoolu_2.jsonl"),
        )
        .unwrap();
        // Still running: not read yet.
        let still = agents_since_last_stop(&dir, Some(&transcript), "r-t", Some(&running));
        assert!(still.provider_refused.is_empty());
        // Both ended; t-00001's notification is read, t-00002's not yet.
        append(&transcript, &notification("toolu_1"));
        let ended = agents_since_last_stop(&dir, Some(&transcript), "r-t", Some(&[]));
        assert_eq!(ended.provider_refused, ["t-00001"]);
        assert_eq!(ended.unnotified, ["t-00002"]);
    }

    /// A run folder `r-t` under a new project, and its session's transcript path.
    fn run_and_transcript() -> (tempfile::TempDir, RunDir, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let run_path = root.path().join(".self-repair/runs/r-t");
        std::fs::create_dir_all(&run_path).unwrap();
        std::fs::write(run_path.join("state.json"), "{}").unwrap();
        let dir = Project::find_or_choose(root.path()).run("r-t").unwrap();
        let transcript = root.path().join("session.jsonl");
        (root, dir, transcript)
    }

    fn version_row(version: &str) -> String {
        format!(
            "{{\"type\":\"user\",\"version\":\"{version}\",\"message\":{{\"role\":\"user\",\"content\":\"go on\"}}}}\n"
        )
    }

    #[test]
    fn launches_before_the_first_sight_are_not_read_and_a_client_version_is_said_once() {
        let (_root, dir, transcript) = run_and_transcript();
        append(&transcript, &version_row("2.1.330"));
        append(&transcript, &call("toolu_0", "t-00009", false));
        let first = agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        assert!(first.launched.is_empty() && !first.launches_read);
        assert_eq!(first.client.as_deref(), Some("2.1.330"));
        append(&transcript, &call("toolu_1", "t-00001", false));
        let second = agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        let items: Vec<&str> = second.launched.iter().map(|l| l.item.as_str()).collect();
        assert_eq!(items, ["t-00001"], "only what came after the first sight");
        assert!(second.launches_read);
        assert_eq!(second.client, None, "the same client is not new");
        append(&transcript, &version_row("2.1.332"));
        let third = agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        assert_eq!(third.client.as_deref(), Some("2.1.332"));
    }

    #[test]
    fn a_notified_agent_the_provider_refused_is_named_when_the_client_lists_no_tasks() {
        let (root, dir, transcript) = run_and_transcript();
        append(&transcript, "{\"type\":\"user\"}\n");
        agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        append(&transcript, &call("toolu_1", "t-00001", true));
        agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        let agents = root.path().join("session/subagents");
        std::fs::create_dir_all(&agents).unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../transcript/tests/fixtures");
        std::fs::copy(
            fixtures.join("agent-refused.jsonl"),
            agents.join("agent-agenttoolu_1.jsonl"),
        )
        .unwrap();
        append(&transcript, &notification("toolu_1"));
        let ended = agents_since_last_stop(&dir, Some(&transcript), "r-t", None);
        assert_eq!(ended.provider_refused, ["t-00001"]);
        assert_eq!(ended.notified, 1);
    }

    #[test]
    fn only_a_call_of_this_run_without_its_result_yet_is_read_on_for() {
        let (_root, _dir, transcript) = run_and_transcript();
        let ours = call_in("toolu_1", "t-00001", false, "r-t");
        let (call_row, result_row) = ours.split_once('\n').unwrap();
        append(&transcript, &format!("{call_row}\n"));
        let mut activity = self_repair_transcript::read_agent_activity(&transcript, 0).unwrap();
        assert!(!activity.calls[0].answered);
        // The client writes the result row behind the stop's first read.
        append(&transcript, result_row);
        wait_for_results(&transcript, &mut activity, "r-t");
        assert!(activity.calls[0].answered, "read on until it has one");
        let theirs = call_in("toolu_2", "t-00002", false, "r-other");
        let (call_row, result_row) = theirs.split_once('\n').unwrap();
        append(&transcript, &format!("{call_row}\n"));
        let mut other =
            self_repair_transcript::read_agent_activity(&transcript, activity.end).unwrap();
        append(&transcript, result_row);
        let end = other.end;
        wait_for_results(&transcript, &mut other, "r-t");
        assert!(
            !other.calls[0].answered,
            "another run's call is not waited for"
        );
        assert_eq!(other.end, end);
    }

    #[test]
    fn a_prompt_names_this_run_by_its_run_option_or_by_having_none() {
        for (prompt, ours) in [
            ("self-repair item t-00001 --run r-t", true),
            ("self-repair item t-00001 --run r-other", false),
            ("self-repair item t-00001 --run", false),
            ("self-repair item t-00001 --run-id r-t", true),
            ("self-repair item t-00001", true),
            ("r-t --run r-other", false),
        ] {
            assert_eq!(names_run(prompt, "r-t"), ours, "{prompt}");
        }
    }

    #[test]
    fn a_description_names_the_first_item_id_of_a_known_kind() {
        let long = format!("triage t-{}", "0".repeat(70));
        for (description, item) in [
            ("triage t-00042", Some("t-00042")),
            ("write task (tw-g1), then t-00001", Some("tw-g1")),
            ("triage x-1 run", None),
            ("triage", None),
            (long.as_str(), None),
        ] {
            assert_eq!(item_of(description).as_deref(), item, "{description}");
        }
    }
}
