//! The audit in the terminal: line-based prompts on standard input and output, so it works
//! over SSH and in any terminal, one finding at a time; each answer is recorded as it is
//! given, so quitting (or a dropped connection) loses nothing.

use std::io::{BufRead, Write};

use crate::checklist::{describe, question};
use crate::{Answer, AuditCandidate, AuditError};

/// Unreadable answers in a row to one question before the session stops.
const TRIES: usize = 5;

/// How the session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionEnd {
    /// Every finding was answered or skipped.
    Done,
    /// The person typed `q`.
    Quit,
    /// Standard input ended (or gave [`TRIES`] unreadable answers in a row).
    EndOfInput,
}

/// One line of input; `None` at the end.
fn read_line(input: &mut dyn BufRead) -> Result<Option<String>, AuditError> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim().to_owned()))
}

/// What the person typed for the main question.
enum Choice {
    Agree,
    Disagree,
    Skip,
    Quit,
}

fn choice(text: &str) -> Option<Choice> {
    match text.to_ascii_lowercase().as_str() {
        "a" | "agree" | "y" | "yes" => Some(Choice::Agree),
        "d" | "disagree" | "n" | "no" => Some(Choice::Disagree),
        "s" | "skip" => Some(Choice::Skip),
        "q" | "quit" => Some(Choice::Quit),
        _ => None,
    }
}

/// Shows one finding.
fn show(out: &mut dyn Write, at: usize, of: usize, c: &AuditCandidate) -> std::io::Result<()> {
    writeln!(out, "\n[{at}/{of}] {} {}  {}", c.tool, c.rule, c.place())?;
    for line in describe(c) {
        writeln!(out, "  {line}")?;
    }
    if let Some(excerpt) = &c.excerpt {
        writeln!(out, "  code:")?;
        for line in excerpt.lines() {
            writeln!(out, "    {line}")?;
        }
    }
    writeln!(out, "{}", question(c))
}

/// Asks one finding: its answer, or how the session ends.
fn ask_one(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    candidate: &AuditCandidate,
) -> Result<Result<Answer, SessionEnd>, AuditError> {
    for _ in 0..TRIES {
        write!(out, "[a]gree / [d]isagree / [s]kip / [q]uit > ")?;
        out.flush()?;
        let Some(text) = read_line(input)? else {
            return Ok(Err(SessionEnd::EndOfInput));
        };
        match choice(&text) {
            Some(Choice::Agree) => return Ok(Ok(Answer::Agree)),
            Some(Choice::Skip) => return Ok(Ok(Answer::Skip)),
            Some(Choice::Quit) => return Ok(Err(SessionEnd::Quit)),
            Some(Choice::Disagree) => return ask_reason(input, out, candidate),
            None => writeln!(out, "`{text}`: type a, d, s or q")?,
        }
    }
    writeln!(out, "{TRIES} unreadable answers in a row: stopping")?;
    Ok(Err(SessionEnd::EndOfInput))
}

/// The reason of a disagreement (required).
fn ask_reason(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    candidate: &AuditCandidate,
) -> Result<Result<Answer, SessionEnd>, AuditError> {
    let what = if candidate.closed() {
        "Why is it real? It reopens the finding with this reason"
    } else {
        "Why is it not real?"
    };
    for _ in 0..TRIES {
        write!(out, "{what} (one line) > ")?;
        out.flush()?;
        let Some(reason) = read_line(input)? else {
            return Ok(Err(SessionEnd::EndOfInput));
        };
        if !reason.is_empty() {
            return Ok(Ok(Answer::Disagree(reason)));
        }
        writeln!(
            out,
            "a disagreement needs its reason (or type it, then s to skip)"
        )?;
    }
    Ok(Err(SessionEnd::EndOfInput))
}

/// Asks each of `pending` in turn, calling `record` with every answer (a skip included) as it
/// is given; returns how the session ended and how many were answered (skips not counted).
pub fn ask_in_terminal(
    pending: &[&AuditCandidate],
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    record: &mut dyn FnMut(&AuditCandidate, &Answer) -> Result<(), AuditError>,
) -> Result<(SessionEnd, usize), AuditError> {
    let mut answered = 0;
    writeln!(
        output,
        "{} findings to audit. Answer each: a = the run is right, d = it is wrong (say why), \
         s = skip for now, q = stop (every answer is saved as you go).",
        pending.len()
    )?;
    for (index, candidate) in pending.iter().enumerate() {
        show(output, index + 1, pending.len(), candidate)?;
        match ask_one(input, output, candidate)? {
            Ok(answer) => {
                record(candidate, &answer)?;
                answered += usize::from(answer != Answer::Skip);
            }
            Err(end) => return Ok((end, answered)),
        }
    }
    Ok((SessionEnd::Done, answered))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::known_answer_tests::candidate;

    fn session(keys: &str) -> (SessionEnd, Vec<(String, Answer)>, String) {
        let a = candidate("aa", "B602", "security", "opus", "false_positive");
        let b = candidate("bb", "F401", "generic", "haiku", "intended");
        let c = candidate("cc", "B101", "security", "sonnet", "real");
        let mut got = Vec::new();
        let mut out = Vec::new();
        let (end, _) = ask_in_terminal(
            &[&a, &b, &c],
            &mut keys.as_bytes(),
            &mut out,
            &mut |c, answer| {
                got.push((c.fingerprint.clone(), answer.clone()));
                Ok(())
            },
        )
        .unwrap();
        (end, got, String::from_utf8(out).unwrap())
    }

    #[test]
    fn each_answer_is_recorded_as_given_and_a_disagreement_asks_why() {
        let (end, got, out) = session("a\nwhat\nd\n\nreads argv\ns\n");
        assert_eq!(end, SessionEnd::Done);
        assert_eq!(
            got,
            vec![
                ("aa".to_owned(), Answer::Agree),
                ("bb".to_owned(), Answer::Disagree("reads argv".to_owned())),
                ("cc".to_owned(), Answer::Skip),
            ]
        );
        assert!(out.contains("`what`: type a, d, s or q"));
        assert!(out.contains("needs its reason"));
        assert!(out.contains("[2/3] tool F401"));
    }

    #[test]
    fn quitting_or_the_end_of_input_keeps_what_was_answered() {
        let (end, got, _) = session("a\nq\n");
        assert_eq!((end, got.len()), (SessionEnd::Quit, 1));
        let (end, got, _) = session("a\n");
        assert_eq!((end, got.len()), (SessionEnd::EndOfInput, 1));
        let (end, got, _) = session("x\nx\nx\nx\nx\na\n");
        assert_eq!((end, got.len()), (SessionEnd::EndOfInput, 0));
    }
}
