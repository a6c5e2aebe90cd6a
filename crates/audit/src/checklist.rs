//! The audit as a Markdown checklist a person fills in their editor or in a pull request's
//! review: one section per finding with what they need to judge it and three boxes (agree,
//! disagree with a reason, skip); read back by `self-repair audit --read`.

use crate::{Answer, AuditCandidate, AuditError};

/// The marker that opens each finding's boxes; the parser keys answers on it.
const MARKER: &str = "<!-- self-repair audit: fingerprint ";

/// One finding's answer read from a checklist; `None`: no box ticked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChecklistAnswer {
    pub fingerprint: String,
    pub answer: Option<Answer>,
}

/// A fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

/// What a person sees of one finding (shared with the terminal prompts).
pub(crate) fn describe(candidate: &AuditCandidate) -> Vec<String> {
    let mut lines = vec![
        format!(
            "analyzer: {} {}: {}",
            candidate.tool,
            candidate.rule,
            candidate.message.trim()
        ),
        format!(
            "the run {} it ({}): {}",
            if candidate.closed() { "closed" } else { "kept" },
            candidate.verdict,
            candidate.decided_by()
        ),
    ];
    for agent in &candidate.agents {
        lines.push(format!(
            "{}{}: {}: {}",
            agent.who,
            agent
                .tier
                .as_deref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default(),
            agent.verdict,
            one_line(&agent.reason)
        ));
    }
    if candidate.agents.is_empty() {
        lines.push(format!("reason: {}", one_line(&candidate.reason)));
    }
    lines
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The question for one finding.
pub(crate) fn question(candidate: &AuditCandidate) -> &'static str {
    if candidate.closed() {
        "Is it right to close this finding (not a real problem, or intended)?"
    } else {
        "Is this finding a real problem, as the run says?"
    }
}

/// The checklist of `pending` (in order) for run `run`.
pub fn render_checklist(run: &str, seed: u64, pending: &[&AuditCandidate]) -> String {
    let mut out = format!(
        "# self-repair audit of run `{run}`: {} finding{}\n\n\
         For each finding, tick exactly one box (`[x]`): **agree** when the run's verdict is \
         right, **disagree** when it is wrong, writing why after `reason:` (a disagreement on a \
         closed finding reopens it as real), or **skip**. Leave the boxes empty to answer later. \
         Then run `self-repair audit {run} --read FILE` in your own terminal. Edit nothing but \
         the boxes and the reasons (sample seed {seed}).\n",
        pending.len(),
        if pending.len() == 1 { "" } else { "s" }
    );
    for (index, candidate) in pending.iter().enumerate() {
        out.push_str(&format!(
            "\n## {}. {} `{}`\n\n{MARKER}{} -->\n",
            index + 1,
            candidate.rule,
            candidate.place(),
            candidate.fingerprint
        ));
        for line in describe(candidate) {
            out.push_str(&format!("- {line}\n"));
        }
        if let Some(excerpt) = &candidate.excerpt {
            let fence = fence_for(excerpt);
            out.push_str(&format!("\n{fence}text\n{excerpt}"));
            if !excerpt.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!("{fence}\n"));
        }
        out.push_str(&format!(
            "\n{}\n\n- [ ] agree\n- [ ] disagree, reason: \n- [ ] skip\n",
            question(candidate)
        ));
    }
    out
}

/// Which box a line ticks, and the text after it.
fn ticked(line: &str) -> Option<(&'static str, &str)> {
    let rest = line.trim_start().strip_prefix("- [")?;
    let (mark, rest) = rest.split_at_checked(1)?;
    let rest = rest.strip_prefix(']')?.trim();
    if !matches!(mark, "x" | "X") {
        return None;
    }
    for choice in ["agree", "disagree", "skip"] {
        if let Some(after) = rest.strip_prefix(choice) {
            return Some((choice, after));
        }
    }
    None
}

/// One finding's section being read.
struct Section {
    fingerprint: String,
    line: usize,
    answer: Option<(Answer, usize)>,
    /// A disagreement whose reason goes on over the following lines.
    continues_reason: bool,
}

/// Reads a filled checklist: each finding's answer (`None` when no box is ticked). Two boxes
/// ticked for one finding, or a disagreement without a reason, stop the read at that line.
pub fn parse_checklist(source: &str, text: &str) -> Result<Vec<ChecklistAnswer>, AuditError> {
    let bad = |line: usize, message: String| AuditError::BadChecklist {
        source_name: source.to_owned(),
        line,
        message,
    };
    let mut answers = Vec::new();
    let mut open: Option<Section> = None;
    let mut fence: Option<String> = None;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = raw.trim();
        if let Some(f) = &fence {
            if line == f.as_str() {
                fence = None;
            }
            continue;
        }
        if line.starts_with("```") {
            fence = Some(line.chars().take_while(|c| *c == '`').collect());
            continue;
        }
        if let Some(rest) = line.strip_prefix(MARKER) {
            if let Some(done) = open.take() {
                answers.push(close(done, &bad)?);
            }
            let fingerprint = rest.trim_end_matches("-->").trim().to_owned();
            open = Some(Section {
                fingerprint,
                line: number,
                answer: None,
                continues_reason: false,
            });
            continue;
        }
        let Some(current) = open.as_mut() else {
            continue;
        };
        if line.starts_with('#') {
            current.continues_reason = false;
            continue;
        }
        if let Some((choice, after)) = ticked(line) {
            if let Some((_, first)) = &current.answer {
                return Err(bad(
                    number,
                    format!(
                        "two boxes ticked for finding {} (line {first} too): tick one",
                        current.fingerprint
                    ),
                ));
            }
            let answer = match choice {
                "agree" => Answer::Agree,
                "skip" => Answer::Skip,
                _ => Answer::Disagree(reason_text(after).to_owned()),
            };
            current.continues_reason = choice == "disagree";
            current.answer = Some((answer, number));
            continue;
        }
        if line.starts_with("- [") {
            current.continues_reason = false;
            continue;
        }
        if current.continues_reason
            && !line.is_empty()
            && let Some((Answer::Disagree(reason), _)) = current.answer.as_mut()
        {
            if !reason.is_empty() {
                reason.push(' ');
            }
            reason.push_str(line);
        }
    }
    if let Some(done) = open.take() {
        answers.push(close(done, &bad)?);
    }
    Ok(answers)
}

/// The text after `, reason:` (or after the box when the person wrote straight on).
fn reason_text(after: &str) -> &str {
    let after = after.trim_start_matches([',', ':', ' ']);
    after.strip_prefix("reason:").unwrap_or(after).trim()
}

fn close(
    open: Section,
    bad: &dyn Fn(usize, String) -> AuditError,
) -> Result<ChecklistAnswer, AuditError> {
    if let Some((Answer::Disagree(reason), line)) = &open.answer
        && reason.trim().is_empty()
    {
        return Err(bad(
            *line,
            format!(
                "finding {} is ticked disagree without a reason: write why after `reason:` \
                 (it becomes the finding's reason when it is reopened)",
                open.fingerprint
            ),
        ));
    }
    let _ = open.line;
    Ok(ChecklistAnswer {
        fingerprint: open.fingerprint,
        answer: open.answer.map(|(answer, _)| answer),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::known_answer_tests::candidate;

    fn three() -> Vec<AuditCandidate> {
        let mut a = candidate("aa", "B602", "security", "opus", "false_positive");
        a.excerpt = Some("  11 | x = 1\n> 12 | run(\"```\")\n".to_owned());
        let b = candidate("bb", "F401", "generic", "haiku", "intended");
        let c = candidate("cc", "B101", "security", "sonnet", "real");
        vec![a, b, c]
    }

    #[test]
    fn a_filled_checklist_reads_back_every_answer() {
        let candidates = three();
        let refs: Vec<&AuditCandidate> = candidates.iter().collect();
        let text = render_checklist("r1", 7, &refs);
        let empty = parse_checklist("c.md", &text).unwrap();
        assert_eq!(empty.len(), 3);
        assert!(empty.iter().all(|a| a.answer.is_none()));
        let filled = text
            .replacen("- [ ] agree", "- [x] agree", 1)
            .replacen(
                "- [ ] disagree, reason: \n- [ ] skip\n\n## 3",
                "- [X] disagree, reason: the import\n  is used by the plugin loader\n- [ ] skip\n\n## 3",
                1,
            )
            ;
        let at = filled.rfind("- [ ] skip").unwrap();
        let filled = format!("{}- [x] skip{}", &filled[..at], &filled[at + 10..]);
        let answers = parse_checklist("c.md", &filled).unwrap();
        assert_eq!(answers[0].answer, Some(Answer::Agree));
        assert_eq!(
            answers[1].answer,
            Some(Answer::Disagree(
                "the import is used by the plugin loader".to_owned()
            ))
        );
        assert_eq!(answers[2].answer, Some(Answer::Skip));
        assert_eq!(answers[2].fingerprint, "cc");
    }

    #[test]
    fn every_way_of_filling_the_checklist_reads_back_as_filled() {
        // Each of three findings left blank, agreed, disagreed (reason on the box's line or on
        // the next) or skipped: 5^3 checklists, each read back exactly.
        let candidates = three();
        let refs: Vec<&AuditCandidate> = candidates.iter().collect();
        let text = render_checklist("r1", 7, &refs);
        let sections: Vec<&str> = text.split("\n## ").collect();
        for code in 0..125 {
            let mut expected = Vec::new();
            let mut filled = sections[0].to_owned();
            for (index, section) in sections[1..].iter().enumerate() {
                let choice = code / 5_usize.pow(index as u32) % 5;
                let reason = format!("reason {code} {index}");
                let (section, answer) = match choice {
                    0 => ((*section).to_owned(), None),
                    1 => (
                        section.replacen("- [ ] agree", "- [x] agree", 1),
                        Some(Answer::Agree),
                    ),
                    2 => (
                        section.replacen(
                            "- [ ] disagree, reason: ",
                            &format!("- [x] disagree, reason: {reason}"),
                            1,
                        ),
                        Some(Answer::Disagree(reason.clone())),
                    ),
                    3 => (
                        section.replacen(
                            "- [ ] disagree, reason: ",
                            &format!("- [X] disagree, reason:\n   {reason}\n"),
                            1,
                        ),
                        Some(Answer::Disagree(reason.clone())),
                    ),
                    _ => (
                        section.replacen("- [ ] skip", "- [x] skip", 1),
                        Some(Answer::Skip),
                    ),
                };
                filled.push_str("\n## ");
                filled.push_str(&section);
                expected.push(answer);
            }
            let read: Vec<Option<Answer>> = parse_checklist("c.md", &filled)
                .unwrap_or_else(|e| panic!("{code}: {e}\n{filled}"))
                .into_iter()
                .map(|a| a.answer)
                .collect();
            assert_eq!(read, expected, "{code}\n{filled}");
        }
    }

    #[test]
    fn code_holding_a_ticked_box_or_backticks_is_not_read_as_an_answer() {
        let mut a = candidate("aa", "B602", "security", "opus", "false_positive");
        a.excerpt = Some("> 1 | s = \"\"\"\n- [x] agree\n```\n\"\"\"\n".to_owned());
        let text = render_checklist("r1", 7, &[&a]);
        assert_eq!(parse_checklist("c.md", &text).unwrap()[0].answer, None);
        // A blank line inside the code does not end it: only the fence's own backticks do.
        a.excerpt = Some("> 1 | a = 1\n\n- [x] agree\n".to_owned());
        let text = render_checklist("r1", 7, &[&a]);
        assert_eq!(parse_checklist("c.md", &text).unwrap()[0].answer, None);
    }

    #[test]
    fn two_boxes_or_a_disagreement_without_reason_are_refused_with_the_line() {
        let candidates = three();
        let refs: Vec<&AuditCandidate> = candidates.iter().collect();
        let text = render_checklist("r1", 7, &refs);
        let two =
            text.replacen("- [ ] agree", "- [x] agree", 1)
                .replacen("- [ ] skip", "- [x] skip", 1);
        let err = parse_checklist("c.md", &two).unwrap_err().to_string();
        assert!(err.contains("two boxes ticked"), "{err}");
        let no_reason = text.replacen("- [ ] disagree, reason: ", "- [x] disagree, reason:", 1);
        let err = parse_checklist("c.md", &no_reason).unwrap_err().to_string();
        assert!(
            err.contains("without a reason") && err.starts_with("c.md:"),
            "{err}"
        );
    }
}
