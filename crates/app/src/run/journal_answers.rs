//! Every triage answer of a run in one sequential read of its journal, instead of one
//! `items/t-….json` a finding (100,000 opens and reads at 100,000 findings). The journal is
//! the record (reference/state-file.md, "The journal and folding"): an item's answer is what
//! its result copy holds, which is the first `submitted` line that answers it (its own, or a
//! member's verdict in its batch's result), except that a first answer asking for a re-route
//! gives way to the item's next one. A result the journal does not hold (a run `merge` made
//! holds its shares' answers as copied files) is read from its file, as before.

use std::collections::HashMap;

use self_repair_engine::{ItemKind, ItemStatus, RunState, TriageResult, Verdict};
use self_repair_store::{Journal, JournalLine, RunDir, is_safe_item_id};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// One journal line as the answers need it: a `submitted` line's item and result, the result
/// kept as its text until it is known to be a triage answer. Of any other line only its time is
/// kept; its other fields are skipped, not built.
#[derive(Serialize, Deserialize)]
struct AnswerLine {
    at: u64,
    event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    item: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Box<RawValue>>,
}

impl JournalLine for AnswerLine {
    fn at(&self) -> u64 {
        self.at
    }
}

/// A batch's result as its member copies are cut from it: each verdict's text.
#[derive(Deserialize)]
struct BatchAnswers<'a> {
    #[serde(borrow)]
    verdicts: Vec<&'a RawValue>,
}

/// A batch's result whose every verdict reads as a member's triage answer (the usual case):
/// read in one pass, instead of each verdict's text read again as a member, then as an answer
/// (at 100,000 findings, a fifth of the journal's read at the finalize).
#[derive(Deserialize)]
struct MemberAnswers {
    verdicts: Vec<MemberAnswer>,
}

/// A batch's verdict read as a triage result that names its member: [`TriageResult`]'s fields
/// and `item`, read as the result copy `items/<item>.json` would be.
#[derive(Deserialize)]
struct MemberAnswer {
    item: String,
    verdict: Verdict,
    root_cause: String,
    reason: String,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    duplicate_of: Option<String>,
    #[serde(default)]
    reroute: Option<String>,
}

impl MemberAnswer {
    /// The member's id and its answer. Every field named: a field added to [`TriageResult`]
    /// does not compile here until it is read here too.
    fn split(self) -> (String, Answer) {
        let result = TriageResult {
            verdict: self.verdict,
            root_cause: self.root_cause,
            reason: self.reason,
            confidence: self.confidence,
            duplicate_of: self.duplicate_of,
            reroute: self.reroute,
        };
        let rerouting = result.reroute.is_some();
        (
            self.item,
            Answer {
                result: Some(result),
                rerouting,
            },
        )
    }
}

/// The member a batch's verdict names (its copy is `items/<item>.json`).
#[derive(Deserialize)]
struct Member<'a> {
    #[serde(borrow)]
    item: std::borrow::Cow<'a, str>,
}

/// Whether an answer names a route (`reroute` present and not null), however it is written.
#[derive(Deserialize)]
struct Reroute {
    #[serde(default)]
    reroute: Option<serde::de::IgnoredAny>,
}

/// One triage item's answer as the journal gives it.
struct Answer {
    /// `None`: recorded, but not a triage result (its copy would not parse either).
    result: Option<TriageResult>,
    /// The first answer, and it asked for a re-route: the item's next answer replaces it.
    rerouting: bool,
}

impl Answer {
    /// The answer an object's text gives (a batch's verdict: its `item` is not a field of a
    /// triage result, and is ignored as the copy leaves it out).
    fn of(text: &str) -> Answer {
        let result = serde_json::from_str::<TriageResult>(text).ok();
        let rerouting = match &result {
            Some(r) => r.reroute.is_some(),
            None => serde_json::from_str::<Reroute>(text).is_ok_and(|r| r.reroute.is_some()),
        };
        Answer { result, rerouting }
    }
}

/// The answers of every triage item the journal of `dir` records, by item id.
fn answers_in_journal(dir: &RunDir) -> HashMap<String, Answer> {
    let journal = Journal::<AnswerLine>::new(dir.journal().path().to_path_buf());
    let Ok(tail) = journal.read_from(0) else {
        return HashMap::new();
    };
    fold_answers(tail.entries)
}

/// The answers `lines` (a journal's, in order) give each triage item.
fn fold_answers(lines: Vec<AnswerLine>) -> HashMap<String, Answer> {
    let mut answers: HashMap<String, Answer> = HashMap::new();
    for line in lines {
        let (Some(item), Some(result)) = (line.item, line.result) else {
            continue;
        };
        if line.event != "submitted" {
            continue;
        }
        let text = result.get();
        match ItemKind::of_id(&item) {
            Some(ItemKind::Triage) => match answers.get_mut(&item) {
                None => {
                    answers.insert(item, Answer::of(text));
                }
                // The re-routed item's own answer: the one that counts (and only one more).
                Some(first) if first.rerouting => {
                    *first = Answer {
                        rerouting: false,
                        ..Answer::of(text)
                    };
                }
                Some(_) => {}
            },
            Some(ItemKind::TriageBatch) => {
                if let Ok(batch) = serde_json::from_str::<MemberAnswers>(text) {
                    for verdict in batch.verdicts {
                        if is_safe_item_id(&verdict.item) && !answers.contains_key(&verdict.item) {
                            let (item, answer) = verdict.split();
                            answers.insert(item, answer);
                        }
                    }
                    continue;
                }
                // A verdict that does not read as an answer: each is read on its own.
                let Ok(batch) = serde_json::from_str::<BatchAnswers<'_>>(text) else {
                    continue;
                };
                for verdict in batch.verdicts {
                    // What the batch's member copies are cut from: an object naming its member
                    // (a member with an answer of its own keeps it).
                    let text = verdict.get();
                    let Some(member) = text
                        .starts_with('{')
                        .then(|| serde_json::from_str::<Member<'_>>(text).ok())
                        .flatten()
                    else {
                        continue;
                    };
                    if is_safe_item_id(&member.item) && !answers.contains_key(member.item.as_ref())
                    {
                        answers.insert(member.item.into_owned(), Answer::of(text));
                    }
                }
            }
            _ => {}
        }
    }
    answers
}

/// The recorded result of every answered (`done`) triage item of `state`, by item id: from the
/// journal, and from its file for an item the journal holds no answer of (a merged run's).
pub(crate) fn recorded_triage_answers(
    dir: &RunDir,
    state: &RunState,
) -> HashMap<String, TriageResult> {
    let triage = &state.items[..(state.triage_items as usize).min(state.items.len())];
    let mut journal = answers_in_journal(dir);
    let mut answers = HashMap::with_capacity(journal.len());
    let mut elsewhere = Vec::new();
    for item in triage.iter().filter(|i| i.status == ItemStatus::Done) {
        // The journal's key moves over: no second copy of 100,000 ids.
        match journal.remove_entry(item.id.as_str()) {
            Some((id, answer)) => {
                if let Some(result) = answer.result {
                    answers.insert(id, result);
                }
            }
            None => elsewhere.push(item.id.as_str()),
        }
    }
    if elsewhere.is_empty() {
        return answers;
    }
    // Read only the files there are: a finding its rule's survey decided has none, and a
    // listing of `items/` costs less than a failed open for each.
    let on_file = crate::run::item_files::items_with_files(dir, &[".json", ".pending"]);
    for id in elsewhere {
        if !on_file.contains(id) {
            continue;
        }
        if let Some(result) = dir
            .read_result(id, "json")
            .and_then(|text| serde_json::from_str(&text).ok())
        {
            answers.insert(id.to_owned(), result);
        }
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(lines: &[serde_json::Value]) -> HashMap<String, Answer> {
        fold_answers(
            lines
                .iter()
                .map(|l| serde_json::from_str(&l.to_string()).unwrap())
                .collect(),
        )
    }

    fn answer(verdict: &str, reason: &str) -> serde_json::Value {
        serde_json::json!({"verdict": verdict, "root_cause": "c", "reason": reason,
            "confidence": 0.9})
    }

    fn submitted(item: &str, result: &serde_json::Value) -> serde_json::Value {
        serde_json::json!({"at": 1, "event": "submitted", "item": item, "result": result})
    }

    fn reason(answers: &HashMap<String, Answer>, item: &str) -> Option<String> {
        answers[item].result.as_ref().map(|r| r.reason.clone())
    }

    /// What each member's copy `items/t-….json` holds, as `submit` writes them.
    #[test]
    fn each_item_takes_its_first_answer_a_batch_gives_each_member_its_own() {
        let member = |item: &str, why: &str| {
            let mut a = answer("real", why);
            a["item"] = serde_json::json!(item);
            a
        };
        let answers = fold(&[
            serde_json::json!({"at": 1, "event": "stop", "session": "s1", "running": []}),
            submitted("t-00003", &answer("real", "on its own")),
            submitted(
                "tb-00001",
                &serde_json::json!({"verdicts": [member("t-00001", "first"),
                    member("t-00002", "second"), member("t-00003", "in the batch")]}),
            ),
            // A later line for an item already answered changes nothing.
            submitted("t-00001", &answer("false_positive", "late")),
            submitted(
                "rs-00001",
                &serde_json::json!({"policy": "triage_each", "reason": "r"}),
            ),
            serde_json::json!({"at": 1, "event": "rejected", "item": "t-00004", "error": "e"}),
        ]);
        assert_eq!(reason(&answers, "t-00001").as_deref(), Some("first"));
        assert_eq!(reason(&answers, "t-00002").as_deref(), Some("second"));
        // A member already answered on its own keeps that answer.
        assert_eq!(reason(&answers, "t-00003").as_deref(), Some("on its own"));
        assert!(!answers.contains_key("t-00004"));
        assert!(!answers.contains_key("rs-00001"));
    }

    #[test]
    fn a_first_answer_asking_for_a_re_route_gives_way_to_the_next_once() {
        let mut reroute = answer("unsure", "not mine to judge");
        reroute["reroute"] = serde_json::json!("security");
        let mut member = reroute.clone();
        member["item"] = serde_json::json!("t-00002");
        let answers = fold(&[
            submitted("t-00001", &reroute),
            submitted("t-00001", &answer("real", "rerouted agent")),
            submitted("t-00001", &answer("false_positive", "a third")),
            submitted("tb-00001", &serde_json::json!({"verdicts": [member]})),
            submitted("t-00002", &answer("real", "its own after the batch")),
        ]);
        assert_eq!(
            reason(&answers, "t-00001").as_deref(),
            Some("rerouted agent")
        );
        assert_eq!(
            reason(&answers, "t-00002").as_deref(),
            Some("its own after the batch")
        );
    }

    #[test]
    fn an_answer_that_is_not_a_triage_result_counts_as_recorded_and_unreadable() {
        let answers = fold(&[submitted(
            "t-00001",
            &serde_json::json!({"verdict": "maybe"}),
        )]);
        assert!(answers["t-00001"].result.is_none());
    }

    /// The one-pass read of a batch (every verdict an answer) and the read of each verdict on
    /// its own (one verdict is not) give a member the same answer.
    #[test]
    fn a_batch_read_in_one_pass_gives_each_member_what_its_own_text_gives() {
        let with_item = |mut a: serde_json::Value, item: &str| {
            a["item"] = serde_json::json!(item);
            a
        };
        let mut full = answer("duplicate", "same as another");
        full["duplicate_of"] = serde_json::json!("fp-9");
        full["reroute"] = serde_json::json!("security");
        let plain = answer("real", "second");
        let members = [
            with_item(full.clone(), "t-00001"),
            with_item(plain.clone(), "t-00002"),
        ];
        let one_pass = fold(&[submitted(
            "tb-00001",
            &serde_json::json!({ "verdicts": members }),
        )]);
        let each_alone = fold(&[submitted(
            "tb-00001",
            &serde_json::json!({"verdicts": [members[0], members[1],
                {"item": "t-00003", "verdict": "maybe"}, with_item(plain.clone(), "../t-1"),
                "not an object"]}),
        )]);
        for (item, text) in [("t-00001", &full), ("t-00002", &plain)] {
            let own: TriageResult = serde_json::from_value(text.clone()).unwrap();
            for answers in [&one_pass, &each_alone] {
                assert_eq!(answers[item].result.as_ref(), Some(&own), "{item}");
                assert_eq!(answers[item].rerouting, own.reroute.is_some(), "{item}");
            }
        }
        assert!(each_alone["t-00003"].result.is_none());
        assert_eq!(each_alone.len(), 3);
        assert_eq!(one_pass.len(), 2);
    }
}
