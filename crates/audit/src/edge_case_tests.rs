//! Edge cases the known-answer tests do not reach, each pinned by a table of inputs and
//! answers so that a one-spot change to the code (reference/mutants.md) fails one of them:
//! the policy's limits, the record's growth and skips, the figure's wording at its edges, the
//! terminal's words and counts, and the checklist's fences and reasons.

use std::path::Path;

use crate::known_answer_tests::{answers_at_rate, candidate};
use crate::{
    Answer, AuditCandidate, AuditFigure, AuditLabel, AuditLabels, AuditPolicy, AuditRecord,
    GateStatus, SessionEnd, agent_marker, ask_in_terminal, parse_checklist, render_checklist,
    sample_size_for, upper_bound,
};

#[test]
fn the_policy_accepts_only_a_confidence_above_a_half_a_bound_inside_0_1_and_a_size_of_1_or_more() {
    let base = AuditPolicy::default();
    for (policy, ok) in [
        (base.clone(), true),
        (
            AuditPolicy {
                confidence: 0.5,
                ..base.clone()
            },
            false,
        ),
        (
            AuditPolicy {
                confidence: 0.51,
                ..base.clone()
            },
            true,
        ),
        (
            AuditPolicy {
                confidence: 0.999,
                ..base.clone()
            },
            true,
        ),
        (
            AuditPolicy {
                confidence: 1.0,
                ..base.clone()
            },
            false,
        ),
        (
            AuditPolicy {
                bound: 0.0,
                ..base.clone()
            },
            false,
        ),
        (
            AuditPolicy {
                bound: 0.001,
                ..base.clone()
            },
            true,
        ),
        (
            AuditPolicy {
                bound: 0.999,
                ..base.clone()
            },
            true,
        ),
        (
            AuditPolicy {
                bound: 1.0,
                ..base.clone()
            },
            false,
        ),
        (
            AuditPolicy {
                size: Some(0),
                ..base.clone()
            },
            false,
        ),
        (
            AuditPolicy {
                size: Some(1),
                ..base.clone()
            },
            true,
        ),
    ] {
        assert_eq!(policy.check().is_ok(), ok, "{policy:?}");
    }
    let err = AuditPolicy {
        bound: 1.0,
        ..base.clone()
    }
    .check()
    .unwrap_err();
    assert!(err.contains("audit.bound 1"), "{err}");
    let err = AuditPolicy {
        size: Some(0),
        ..base.clone()
    }
    .check()
    .unwrap_err();
    assert!(err.contains("audit.size"), "{err}");
    assert_eq!(
        AuditPolicy {
            size: Some(7),
            ..base.clone()
        }
        .size(),
        7
    );
    assert_eq!(base.size(), 29);
}

#[test]
fn the_gate_needs_the_size_or_every_closure_and_counts_only_closed_answers() {
    let on = AuditPolicy {
        gate: true,
        size: Some(3),
        ..AuditPolicy::default()
    };
    let closed: Vec<AuditCandidate> = (0..3)
        .map(|i| {
            candidate(
                &format!("c{i}"),
                "B602",
                "security",
                "opus",
                "false_positive",
            )
        })
        .collect();
    let kept: Vec<AuditCandidate> = (0..5)
        .map(|i| candidate(&format!("k{i}"), "B602", "security", "opus", "real"))
        .collect();
    let mut labels = answers_at_rate(&closed[..2], "r", 0);
    for label in answers_at_rate(&kept, "r", 0).labels.into_values() {
        labels.put(label);
    }
    // Two closed answers (the five kept ones do not count) of the three asked.
    assert_eq!(
        GateStatus::of(&on, &labels, "r", 10),
        GateStatus::Unaudited {
            answered: 2,
            needed: 3
        }
    );
    assert!(!GateStatus::of(&on, &labels, "r", 10).passes());
    // A run that closed only two needs only two.
    assert_eq!(
        GateStatus::of(&on, &labels, "r", 2),
        GateStatus::Audited {
            answered: 2,
            needed: 2
        }
    );
    assert!(GateStatus::Off.passes());
    assert_eq!(
        GateStatus::of(&AuditPolicy::default(), &labels, "r", 10),
        GateStatus::Off
    );
}

#[test]
fn the_sample_size_is_1_for_a_nonsense_policy_and_capped_for_a_tiny_bound() {
    for (bound, confidence) in [
        (0.0, 0.95),
        (1.0, 0.95),
        (-0.1, 0.95),
        (0.1, 0.0),
        (0.1, 1.0),
        (f64::NAN, 0.95),
    ] {
        assert_eq!(
            sample_size_for(bound, confidence),
            1,
            "{bound} {confidence}"
        );
    }
    assert_eq!(sample_size_for(1e-9, 0.95), 100_000);
    // Large bounds: the smallest n whose bound is at most it, checked against the bound.
    for (bound, confidence) in [(0.5, 0.95), (0.9, 0.95), (0.3, 0.8), (0.01, 0.99)] {
        let n = sample_size_for(bound, confidence);
        assert!(upper_bound(0, n, confidence) <= bound, "{bound}: {n}");
        assert!(
            n == 1 || upper_bound(0, n - 1, confidence) > bound,
            "{bound}: {n}"
        );
    }
    assert_eq!(sample_size_for(0.9, 0.95), 2);
    assert_eq!(sample_size_for(0.99, 0.95), 1);
}

fn record_candidates() -> Vec<AuditCandidate> {
    (0..40)
        .map(|i| candidate(&format!("f{i:02}"), "B602", "security", "opus", "intended"))
        .collect()
}

#[test]
fn a_record_grows_only_to_a_larger_size_keeping_its_order_and_notes_a_skip_once() {
    let candidates = record_candidates();
    let mut record = AuditRecord::draw("r1", &candidates, 3, 5);
    assert_eq!(
        (record.run.as_str(), record.seed, record.size),
        ("r1", 3, 5)
    );
    assert_eq!(record.sample.len(), 5);
    let first = record.sample.clone();
    record.grow(&candidates, 5);
    record.grow(&candidates, 4);
    assert_eq!((record.size, &record.sample), (5, &first));
    record.grow(&candidates, 9);
    assert_eq!(record.size, 9);
    assert_eq!(record.sample.len(), 9);
    assert_eq!(record.sample[..5], first[..]);
    let mut unique = record.sample.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 9);
    record.skip("f01");
    record.skip("f02");
    record.skip("f01");
    assert_eq!(record.skipped, ["f01", "f02"]);
    assert_eq!(
        AuditRecord::path(Path::new("runs/r1")),
        Path::new("runs/r1/audit.json")
    );
    let text = serde_json::to_string(&record).unwrap();
    assert_eq!(
        AuditRecord::parse(&text, Path::new("a.json")).unwrap(),
        record
    );
    let err = AuditRecord::parse("{", Path::new("runs/r1/audit.json"))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("runs/r1/audit.json: "), "{err}");
}

fn label_at(fingerprint: &str, run: &str, answer: &Answer, verdict: &str, at: &str) -> AuditLabel {
    let c = candidate(fingerprint, "B602", "security", "opus", verdict);
    AuditLabel::of(&c, run, answer, "alice", at).unwrap()
}

#[test]
fn of_two_answers_the_later_stands_and_on_a_tie_the_one_read_last() {
    let disagree = Answer::Disagree("  reads argv ".into());
    let mut labels = AuditLabels::default();
    labels.put(label_at(
        "aa",
        "r1",
        &Answer::Agree,
        "false_positive",
        "2026-12-02T00:00:00Z",
    ));
    labels.put(label_at(
        "aa",
        "r1",
        &disagree,
        "false_positive",
        "2026-12-01T00:00:00Z",
    ));
    assert_eq!(labels.labels[&("aa".into(), "r1".into())].answer, "agree");
    labels.put(label_at(
        "aa",
        "r1",
        &disagree,
        "false_positive",
        "2026-12-02T00:00:00Z",
    ));
    let aa = &labels.labels[&("aa".into(), "r1".into())];
    assert_eq!(
        (aa.answer.as_str(), aa.note.as_str()),
        ("disagree", "reads argv")
    );
    assert!(labels.answered("aa", "r1"));
    assert!(!labels.answered("aa", "r2"));
    assert!(!labels.answered("bb", "r1"));
    let skip = candidate("aa", "B602", "security", "opus", "intended");
    assert_eq!(AuditLabel::of(&skip, "r1", &Answer::Skip, "a", "t"), None);
}

#[test]
fn a_label_is_real_when_the_person_disagrees_with_a_closure_or_agrees_with_a_kept_finding() {
    for (verdict, answer, label, reopens) in [
        ("false_positive", Answer::Agree, "not_real", false),
        ("intended", Answer::Disagree("x".into()), "real", true),
        ("real", Answer::Agree, "real", false),
        ("real", Answer::Disagree("x".into()), "not_real", false),
    ] {
        let l = label_at("aa", "r1", &answer, verdict, "2026-12-01T00:00:00Z");
        assert_eq!(l.label, label, "{verdict} {answer:?}");
        assert_eq!(l.reopens(), reopens, "{verdict} {answer:?}");
        assert_eq!(l.closed(), verdict != "real");
    }
}

#[test]
fn a_finding_reopened_in_two_runs_keeps_the_latest_disagreement() {
    let mut labels = AuditLabels::default();
    let early = Answer::Disagree("early".into());
    let late = Answer::Disagree("late".into());
    labels.put(label_at(
        "aa",
        "r2",
        &early,
        "intended",
        "2026-12-01T00:00:00Z",
    ));
    labels.put(label_at(
        "aa",
        "r1",
        &late,
        "intended",
        "2026-12-03T00:00:00Z",
    ));
    labels.put(label_at(
        "bb",
        "r1",
        &late,
        "intended",
        "2026-12-01T00:00:00Z",
    ));
    labels.put(label_at(
        "bb",
        "r2",
        &early,
        "intended",
        "2026-12-01T00:00:00Z",
    ));
    labels.put(label_at(
        "cc",
        "r1",
        &Answer::Agree,
        "intended",
        "2026-12-01T00:00:00Z",
    ));
    labels.put(label_at("dd", "r1", &late, "real", "2026-12-01T00:00:00Z"));
    let reopened = labels.reopened();
    assert_eq!(reopened.keys().copied().collect::<Vec<_>>(), ["aa", "bb"]);
    assert_eq!(reopened["aa"].note, "late");
    // A tie: the one read last (runs in order, r2 after r1).
    assert_eq!(reopened["bb"].note, "early");
    assert_eq!(labels.of_run("r2").count(), 2);
}

#[test]
fn the_figure_s_words_at_its_edges() {
    let none = AuditLabels::default();
    let empty = AuditFigure::of(none.labels.values(), 0.95);
    assert!(
        empty.headline().starts_with("audit: no answer yet"),
        "{}",
        empty.headline()
    );
    assert_eq!(
        empty.render_markdown(),
        format!("## Audit by a person\n\n{}.\n\n", empty.headline())
    );
    assert_eq!(empty.all.sentence(0.95), "no dismissal audited yet");
    assert_eq!(empty.all.bound, None);
    assert!(
        empty.render_text().contains("  -  "),
        "{}",
        empty.render_text()
    );

    // One kept finding, agreed, and no closure: a bound of none, an agreement of 1 of 1.
    let kept = [candidate("k", "B602", "security", "opus", "real")];
    let labels = answers_at_rate(&kept, "r", 0);
    let figure = AuditFigure::of(labels.labels.values(), 0.975);
    assert_eq!(
        figure.headline(),
        "audit: no dismissal audited yet; agreement 1 of 1 (100.0 %); 1 kept finding checked, \
         0 not real"
    );
    assert!(
        figure.render_text().contains("bound (97.5 %)"),
        "{}",
        figure.render_text()
    );
    assert!(
        figure
            .render_markdown()
            .contains("| all | 0 | 0 | - | 1 of 1 (100.0 %) |")
    );
    assert!(
        figure
            .render_markdown()
            .contains("rate below (97.5 % confidence)")
    );
    // Only security-routed findings get a rule row; a finding without a tier is `tier none`.
    let mut generic = candidate("g", "F401", "generic", "haiku", "false_positive");
    generic.tier = None;
    let labels = answers_at_rate(&[generic], "r", 1);
    let figure = AuditFigure::of(labels.labels.values(), 0.95);
    assert!(figure.rules.is_empty());
    assert_eq!(figure.tiers[0].name, "tier none");
    assert_eq!(
        (
            figure.all.unsafe_closures,
            figure.all.agreed,
            figure.all.wrongly_kept
        ),
        (1, 0, 0)
    );
    assert!(figure.headline().contains("0 kept findings checked"));
    // A kept finding the person says is not real counts as wrongly kept, not as unsafe.
    let kept = [candidate("k", "B602", "security", "opus", "real")];
    let labels = answers_at_rate(&kept, "r", 1);
    let figure = AuditFigure::of(labels.labels.values(), 0.95);
    assert_eq!(
        (
            figure.all.audited_kept,
            figure.all.wrongly_kept,
            figure.all.unsafe_closures
        ),
        (1, 1, 0)
    );
    assert!(
        figure
            .headline()
            .ends_with("1 kept finding checked, 1 not real")
    );
}

#[test]
fn an_agent_marker_is_the_first_variable_set_and_not_empty() {
    let set = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    };
    assert_eq!(
        agent_marker(set(&[("CURSOR_AGENT", "1"), ("CLAUDECODE", "1")])).as_deref(),
        Some("CLAUDECODE=1")
    );
    assert_eq!(
        agent_marker(set(&[("CLAUDECODE", ""), ("GEMINI_CLI", "1")])).as_deref(),
        Some("GEMINI_CLI=1")
    );
    assert_eq!(agent_marker(set(&[("HOME", "/root")])), None);
}

/// Runs a terminal session over `pending` with `keys` typed; the end, the count and the output.
fn terminal(pending: &[&AuditCandidate], keys: &str) -> (SessionEnd, usize, Vec<Answer>, String) {
    let mut got = Vec::new();
    let mut out = Vec::new();
    let (end, answered) = ask_in_terminal(pending, &mut keys.as_bytes(), &mut out, &mut |_, a| {
        got.push(a.clone());
        Ok(())
    })
    .unwrap();
    (end, answered, got, String::from_utf8(out).unwrap())
}

#[test]
fn the_terminal_reads_every_spelling_of_an_answer_and_counts_skips_out() {
    let closed = candidate("aa", "B602", "security", "opus", "intended");
    let kept = candidate("bb", "B101", "security", "opus", "real");
    for (keys, answers) in [
        ("A\nY\nyes\nagree\n", vec![Answer::Agree; 4]),
        ("S\nskip\ns\ns\n", vec![Answer::Skip; 4]),
        (
            "n\nr1\nNO\nr2\nD\nr3\ndisagree\nr4\n",
            ["r1", "r2", "r3", "r4"]
                .map(|r| Answer::Disagree(r.into()))
                .to_vec(),
        ),
    ] {
        let pending = [&closed, &kept, &closed, &kept];
        let (end, answered, got, _) = terminal(&pending, keys);
        assert_eq!(end, SessionEnd::Done, "{keys}");
        assert_eq!(got, answers, "{keys}");
        let skips = answers.iter().filter(|a| **a == Answer::Skip).count();
        assert_eq!(answered, 4 - skips, "{keys}");
    }
    let (end, answered, _, _) = terminal(&[&closed, &kept], "a\nQUIT\n");
    assert_eq!((end, answered), (SessionEnd::Quit, 1));
    let (end, answered, _, _) = terminal(&[&closed, &kept], "a\ns\n");
    assert_eq!((end, answered), (SessionEnd::Done, 1));
}

#[test]
fn the_terminal_asks_why_in_the_words_of_the_verdict_and_gives_up_after_five_blank_reasons() {
    let closed = candidate("aa", "B602", "security", "opus", "intended");
    let kept = candidate("bb", "B101", "security", "opus", "real");
    let (_, _, _, out) = terminal(&[&closed], "d\nwhy\n");
    assert!(out.contains("Why is it real? It reopens"), "{out}");
    assert!(out.contains("Is it right to close this finding"), "{out}");
    let (_, _, _, out) = terminal(&[&kept], "d\nwhy\n");
    assert!(out.contains("Why is it not real? (one line) > "), "{out}");
    assert!(out.contains("Is this finding a real problem"), "{out}");
    let (end, answered, got, out) = terminal(&[&closed, &kept], "d\n\n\n\n\n\na\n");
    assert_eq!((end, answered, got), (SessionEnd::EndOfInput, 0, vec![]));
    assert_eq!(out.matches("needs its reason").count(), 5, "{out}");
    let (end, _, got, _) = terminal(&[&closed], "d\n");
    assert_eq!((end, got), (SessionEnd::EndOfInput, vec![]));
    let (_, _, _, out) = terminal(&[&closed], "x\nx\nx\nx\nx\n");
    assert!(
        out.contains("5 unreadable answers in a row: stopping"),
        "{out}"
    );
    let (_, _, got, _) = terminal(&[&closed], "x\nx\nx\nx\na\n");
    assert_eq!(got, [Answer::Agree]);
}

#[test]
fn the_terminal_shows_the_code_and_each_agent() {
    let mut c = candidate("aa", "B602", "security", "opus", "intended");
    c.excerpt = Some("  1 | a\n> 2 | b\n".to_owned());
    let (_, _, _, out) = terminal(&[&c], "a\n");
    assert!(out.starts_with("1 findings to audit."), "{out}");
    assert!(out.contains("\n[1/1] tool B602  src/aa.py:3\n"), "{out}");
    assert!(out.contains("  code:\n      1 | a\n    > 2 | b\n"), "{out}");
    assert!(out.contains("  reason: the agent's reason\n"), "{out}");
}

#[test]
fn the_checklist_s_title_fences_and_reasons() {
    let mut a = candidate("aa", "B602", "security", "opus", "false_positive");
    a.excerpt = Some("x = 1".to_owned());
    a.line = None;
    a.route = None;
    a.tier = None;
    let text = render_checklist("r9", 1, &[&a]);
    assert!(
        text.starts_with("# self-repair audit of run `r9`: 1 finding\n"),
        "{text}"
    );
    assert!(text.contains("## 1. B602 `src/aa.py`\n"), "{text}");
    assert!(text.contains("\n```text\nx = 1\n```\n"), "{text}");
    assert!(
        text.contains("route none (no agent), tier none (no agent)"),
        "{text}"
    );
    let mut b = candidate("bb", "B602", "security", "opus", "real");
    b.excerpt = Some("a ```` b\n".to_owned());
    let text = render_checklist("r9", 1, &[&a, &b]);
    assert!(
        text.starts_with("# self-repair audit of run `r9`: 2 findings\n"),
        "{text}"
    );
    assert!(text.contains("\n`````text\na ```` b\n`````\n"), "{text}");
    // A reason written straight after the box, or on the following lines until a heading.
    for (line, reason) in [
        ("- [x] disagree: it runs", "it runs"),
        ("- [x] disagree reason: it runs", "it runs"),
        ("- [x] disagree,reason:it runs", "it runs"),
        (
            "- [x] disagree, reason:\nit runs\n\nas root\n# heading\nnot this",
            "it runs as root",
        ),
        (
            "- [x] disagree, reason: it runs\n- [ ] skip\nnot this",
            "it runs",
        ),
    ] {
        let filled = format!("<!-- self-repair audit: fingerprint aa -->\n{line}\n");
        let read = parse_checklist("c.md", &filled).unwrap();
        assert_eq!(
            read[0].answer,
            Some(Answer::Disagree(reason.into())),
            "{line}"
        );
    }
    // Boxes that are not ticked, or not ours, are not answers.
    for line in [
        "- [ ] agree",
        "- [y] agree",
        "- [x] maybe",
        "- [x",
        "* [x] agree",
    ] {
        let filled = format!("<!-- self-repair audit: fingerprint aa -->\n{line}\n");
        let read = parse_checklist("c.md", &filled).unwrap();
        assert_eq!(read[0].answer, None, "{line}");
    }
    // A box before any finding's marker answers nothing; the two-box error names both lines.
    let read = parse_checklist("c.md", "- [x] agree\n").unwrap();
    assert!(read.is_empty());
    let two = "<!-- self-repair audit: fingerprint aa -->\n- [x] agree\n\n- [x] skip\n";
    let err = parse_checklist("c.md", two).unwrap_err().to_string();
    assert!(
        err.starts_with("c.md:4: two boxes ticked for finding aa (line 2 too)"),
        "{err}"
    );
}
