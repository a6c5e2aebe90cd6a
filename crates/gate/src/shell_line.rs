//! A Bash command line read strictly: plain words, single-quoted strings, double-quoted strings
//! with nothing to expand, stages joined by `|` or `&&`, at most one quoted heredoc, and the two
//! harmless stderr redirections models add by habit (`2>&1`, `2>/dev/null`). Anything else the
//! shell would interpret (`;`, `&`, `>`, `$`, backticks, subshells, comments, a second line) is
//! refused, so what the gate reads is exactly what Bash will run.

use std::fmt;

/// How two stages are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joint {
    /// `|`
    Pipe,
    /// `&&`
    And,
}

/// A quoted heredoc: its body reaches the command verbatim (no expansion).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heredoc {
    /// The stage whose stdin it is.
    pub stage: usize,
    /// The body, without the delimiter line.
    pub body: String,
}

/// A command line that holds nothing but words, joints and one quoted heredoc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellLine {
    /// The words of each stage, quotes removed.
    pub stages: Vec<Vec<String>>,
    /// `joints[i]` joins `stages[i]` and `stages[i + 1]`.
    pub joints: Vec<Joint>,
    /// The heredoc, when there is one.
    pub heredoc: Option<Heredoc>,
}

/// Why a command line is not one the gate can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellLineError {
    /// A character the shell would interpret.
    Forbidden(char),
    /// A quote that is never closed on its line.
    UnclosedQuote,
    /// A double-quoted string holding `$`, a backtick, `\` or `!`.
    ExpandingQuote,
    /// `<<WORD`: an unquoted heredoc expands `$(...)` in its body.
    UnquotedHeredoc,
    /// More than one heredoc.
    SecondHeredoc,
    /// The heredoc's delimiter line never comes.
    UnclosedHeredoc,
    /// Text after the heredoc's delimiter line.
    TextAfterHeredoc,
    /// More than one line without a heredoc.
    SecondLine,
    /// A joint with no command on one side.
    EmptyStage,
}

impl fmt::Display for ShellLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShellLineError::Forbidden(c) => write!(f, "it uses `{c}`"),
            ShellLineError::UnclosedQuote => f.write_str("a quote is not closed on its line"),
            ShellLineError::ExpandingQuote => {
                f.write_str("a double-quoted string holds `$`, a backtick, `\\` or `!`")
            }
            ShellLineError::UnquotedHeredoc => {
                f.write_str("its heredoc delimiter is not quoted (write <<'SELF_REPAIR_EOF')")
            }
            ShellLineError::SecondHeredoc => f.write_str("it has more than one heredoc"),
            ShellLineError::UnclosedHeredoc => {
                f.write_str("its heredoc's closing delimiter line is missing")
            }
            ShellLineError::TextAfterHeredoc => {
                f.write_str("it goes on after the heredoc's closing delimiter")
            }
            ShellLineError::SecondLine => f.write_str("it has more than one line"),
            ShellLineError::EmptyStage => f.write_str("a `|` or `&&` has no command on one side"),
        }
    }
}

/// Characters a plain (unquoted) word may hold.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_./:=@%+,-*?~^[]".contains(c)
}

/// `2>&1` and `2>/dev/null`: stderr redirections that change nothing a command does.
const HARMLESS_REDIRECTS: [&str; 2] = ["2>&1", "2>/dev/null"];

/// Where a heredoc opens: its stage, its delimiter, and whether `<<-` strips leading tabs.
struct HeredocStart {
    stage: usize,
    delimiter: String,
    strip_tabs: bool,
}

/// Reads the first line of a command up to its end, collecting stages and a heredoc start.
struct LineReader<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    text: &'a str,
    stages: Vec<Vec<String>>,
    joints: Vec<Joint>,
    words: Vec<String>,
    word: Option<String>,
    heredoc: Option<HeredocStart>,
}

impl<'a> LineReader<'a> {
    fn new(text: &'a str) -> Self {
        LineReader {
            chars: text.char_indices().peekable(),
            text,
            stages: Vec::new(),
            joints: Vec::new(),
            words: Vec::new(),
            word: None,
            heredoc: None,
        }
    }

    fn end_word(&mut self) {
        if let Some(word) = self.word.take() {
            self.words.push(word);
        }
    }

    fn end_stage(&mut self, joint: Option<Joint>) -> Result<(), ShellLineError> {
        self.end_word();
        if self.words.is_empty() {
            return Err(ShellLineError::EmptyStage);
        }
        self.stages.push(std::mem::take(&mut self.words));
        if let Some(joint) = joint {
            self.joints.push(joint);
        }
        Ok(())
    }

    /// Reads a quoted string after its opening quote; returns its content.
    fn quoted(&mut self, quote: char) -> Result<String, ShellLineError> {
        let mut content = String::new();
        for (_, c) in self.chars.by_ref() {
            if c == quote {
                if quote == '"' && content.chars().any(|c| "$`\\!".contains(c)) {
                    return Err(ShellLineError::ExpandingQuote);
                }
                return Ok(content);
            }
            content.push(c);
        }
        Err(ShellLineError::UnclosedQuote)
    }

    /// After `<<`: an optional `-`, blanks, then a quoted delimiter.
    fn heredoc_start(&mut self) -> Result<(), ShellLineError> {
        if self.heredoc.is_some() {
            return Err(ShellLineError::SecondHeredoc);
        }
        let strip_tabs = self.chars.next_if(|&(_, c)| c == '-').is_some();
        while self
            .chars
            .next_if(|&(_, c)| c == ' ' || c == '\t')
            .is_some()
        {}
        let delimiter = match self.chars.next() {
            Some((_, quote @ ('\'' | '"'))) => self.quoted(quote)?,
            Some((_, '\\')) => {
                let mut word = String::new();
                while let Some((_, c)) = self.chars.next_if(|&(_, c)| is_word_char(c)) {
                    word.push(c);
                }
                word
            }
            _ => return Err(ShellLineError::UnquotedHeredoc),
        };
        if delimiter.is_empty() || !delimiter.chars().all(is_word_char) {
            return Err(ShellLineError::UnquotedHeredoc);
        }
        self.heredoc = Some(HeredocStart {
            stage: self.stages.len(),
            delimiter,
            strip_tabs,
        });
        Ok(())
    }

    fn harmless_redirect(&mut self, at: usize) -> bool {
        if self.word.is_some() {
            return false;
        }
        let rest = &self.text[at..];
        for redirect in HARMLESS_REDIRECTS {
            let ends_word = rest[redirect.len().min(rest.len())..]
                .chars()
                .next()
                .is_none_or(|c| c == ' ' || c == '\t' || c == '|' || c == '&');
            if rest.starts_with(redirect) && ends_word {
                for _ in 1..redirect.chars().count() {
                    self.chars.next();
                }
                return true;
            }
        }
        false
    }

    /// The line's stages, and the heredoc it opens: (stage, delimiter, `<<-`).
    fn read(mut self) -> Result<(ShellLine, Option<HeredocStart>), ShellLineError> {
        while let Some((at, c)) = self.chars.next() {
            match c {
                ' ' | '\t' => self.end_word(),
                '\'' | '"' => {
                    let content = self.quoted(c)?;
                    self.word.get_or_insert_with(String::new).push_str(&content);
                }
                '|' if self.chars.next_if(|&(_, c)| c == '|').is_some() => {
                    return Err(ShellLineError::Forbidden('|'));
                }
                '|' => self.end_stage(Some(Joint::Pipe))?,
                '&' if self.chars.next_if(|&(_, c)| c == '&').is_some() => {
                    self.end_stage(Some(Joint::And))?;
                }
                '<' if self.chars.next_if(|&(_, c)| c == '<').is_some() => {
                    if self.chars.next_if(|&(_, c)| c == '<').is_some() {
                        return Err(ShellLineError::Forbidden('<'));
                    }
                    self.end_word();
                    self.heredoc_start()?;
                }
                '2' if self.harmless_redirect(at) => {}
                c if is_word_char(c) => self.word.get_or_insert_with(String::new).push(c),
                c => return Err(ShellLineError::Forbidden(c)),
            }
        }
        self.end_stage(None)?;
        let line = ShellLine {
            stages: self.stages,
            joints: self.joints,
            heredoc: None,
        };
        Ok((line, self.heredoc))
    }
}

impl ShellLine {
    /// Reads `command` strictly; `Err` says what the shell would interpret.
    pub fn parse(command: &str) -> Result<ShellLine, ShellLineError> {
        let (first, rest) = command.split_once('\n').unwrap_or((command, ""));
        let (line, heredoc) = LineReader::new(first).read()?;
        let Some(HeredocStart {
            stage,
            delimiter,
            strip_tabs,
        }) = heredoc
        else {
            if rest.trim().is_empty() {
                return Ok(line);
            }
            return Err(ShellLineError::SecondLine);
        };
        let mut body = String::new();
        let mut lines = rest.split('\n');
        let mut closed = false;
        for text in lines.by_ref() {
            let text = if strip_tabs {
                text.trim_start_matches('\t')
            } else {
                text
            };
            if text == delimiter.as_str() {
                closed = true;
                break;
            }
            body.push_str(text);
            body.push('\n');
        }
        if !closed {
            return Err(ShellLineError::UnclosedHeredoc);
        }
        if lines.any(|text| !text.trim().is_empty()) {
            return Err(ShellLineError::TextAfterHeredoc);
        }
        Ok(ShellLine {
            heredoc: Some(Heredoc { stage, body }),
            ..line
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &ShellLine) -> Vec<Vec<&str>> {
        line.stages
            .iter()
            .map(|s| s.iter().map(String::as_str).collect())
            .collect()
    }

    #[test]
    fn plain_words_and_quotes_are_read_as_the_shell_would() {
        let line = ShellLine::parse(r#"self-repair refs 'my func' "a b" x'y'z"#).unwrap();
        assert_eq!(
            words(&line),
            [vec!["self-repair", "refs", "my func", "a b", "xyz"]]
        );
        assert!(line.heredoc.is_none());
    }

    #[test]
    fn a_quoted_heredoc_body_is_kept_verbatim() {
        let command = "self-repair submit t-1 <<'SELF_REPAIR_EOF'\n{\"a\": \"$(rm -rf ~)\"}\nSELF_REPAIR_EOF\n";
        let line = ShellLine::parse(command).unwrap();
        assert_eq!(words(&line), [vec!["self-repair", "submit", "t-1"]]);
        let heredoc = line.heredoc.unwrap();
        assert_eq!(heredoc.stage, 0);
        assert_eq!(heredoc.body, "{\"a\": \"$(rm -rf ~)\"}\n");
    }

    #[test]
    fn a_command_after_the_heredoc_is_refused() {
        let command = "self-repair submit t-1 <<'E'\n{}\nE\nrm -rf ~";
        assert_eq!(
            ShellLine::parse(command),
            Err(ShellLineError::TextAfterHeredoc)
        );
        let command = "self-repair submit t-1 <<'E'\n{}\nE; rm -rf ~";
        assert_eq!(
            ShellLine::parse(command),
            Err(ShellLineError::UnclosedHeredoc)
        );
        let command = "self-repair submit t-1 <<'E'; rm -rf ~\n{}\nE";
        assert_eq!(
            ShellLine::parse(command),
            Err(ShellLineError::Forbidden(';'))
        );
    }

    /// The delimiter forms Bash reads as quoted (no expansion in the body): `'E'`, `"E"` and
    /// `\E`, after blanks; an empty one or one with other characters is refused.
    #[test]
    fn a_heredoc_delimiter_is_quoted_escaped_or_refused() {
        for command in [
            "self-repair submit t-1 << 'E'\n$(id)\nE",
            "self-repair submit t-1 <<\t\"E\"\n$(id)\nE",
            "self-repair submit t-1 <<\\E\n$(id)\nE",
        ] {
            let line = ShellLine::parse(command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
            assert_eq!(line.heredoc.unwrap().body, "$(id)\n", "{command:?}");
        }
        for command in [
            "self-repair submit t-1 <<''\n\n",
            "self-repair submit t-1 <<'a b'\nx\na b",
            "self-repair submit t-1 <<\\\nx\n",
        ] {
            assert_eq!(
                ShellLine::parse(command),
                Err(ShellLineError::UnquotedHeredoc),
                "{command:?}"
            );
        }
        assert_eq!(
            ShellLine::parse("self-repair submit t-1 <<'E' <<'F'\nE\nF"),
            Err(ShellLineError::SecondHeredoc)
        );
    }

    #[test]
    fn an_unquoted_heredoc_is_refused_because_its_body_expands() {
        assert_eq!(
            ShellLine::parse("self-repair submit t-1 <<EOF\n$(id)\nEOF"),
            Err(ShellLineError::UnquotedHeredoc)
        );
    }

    #[test]
    fn shell_syntax_that_runs_something_else_is_refused() {
        for (command, error) in [
            (
                "self-repair show t-1; rm -rf ~",
                ShellLineError::Forbidden(';'),
            ),
            ("self-repair show $(id)", ShellLineError::Forbidden('$')),
            ("self-repair show `id`", ShellLineError::Forbidden('`')),
            ("self-repair show t-1 > out", ShellLineError::Forbidden('>')),
            ("self-repair show t-1 & id", ShellLineError::Forbidden('&')),
            ("self-repair show t-1 || id", ShellLineError::Forbidden('|')),
            ("(self-repair show t-1)", ShellLineError::Forbidden('(')),
            ("self-repair show \"$HOME\"", ShellLineError::ExpandingQuote),
            ("self-repair show 't-1", ShellLineError::UnclosedQuote),
            ("self-repair show t-1\nid", ShellLineError::SecondLine),
            ("| grep x", ShellLineError::EmptyStage),
            ("grep x |", ShellLineError::EmptyStage),
            ("grep x < /etc/passwd", ShellLineError::Forbidden('<')),
            ("grep x 2>out", ShellLineError::Forbidden('>')),
        ] {
            assert_eq!(ShellLine::parse(command), Err(error), "{command}");
        }
    }

    /// What the gate tells an agent it refused, one message a reason.
    #[test]
    fn each_reason_a_line_is_not_read_says_what_it_is() {
        for (error, message) in [
            (ShellLineError::Forbidden(';'), "it uses `;`"),
            (
                ShellLineError::UnclosedQuote,
                "a quote is not closed on its line",
            ),
            (
                ShellLineError::ExpandingQuote,
                "a double-quoted string holds `$`, a backtick, `\\` or `!`",
            ),
            (
                ShellLineError::UnquotedHeredoc,
                "its heredoc delimiter is not quoted (write <<'SELF_REPAIR_EOF')",
            ),
            (
                ShellLineError::SecondHeredoc,
                "it has more than one heredoc",
            ),
            (
                ShellLineError::UnclosedHeredoc,
                "its heredoc's closing delimiter line is missing",
            ),
            (
                ShellLineError::TextAfterHeredoc,
                "it goes on after the heredoc's closing delimiter",
            ),
            (ShellLineError::SecondLine, "it has more than one line"),
            (
                ShellLineError::EmptyStage,
                "a `|` or `&&` has no command on one side",
            ),
        ] {
            assert_eq!(error.to_string(), message);
        }
    }

    #[test]
    fn pipes_joints_and_harmless_redirects_are_read() {
        let line =
            ShellLine::parse("cd /p && grep -rn foo src 2>/dev/null | head -20 2>&1").unwrap();
        assert_eq!(
            words(&line),
            [
                vec!["cd", "/p"],
                vec!["grep", "-rn", "foo", "src"],
                vec!["head", "-20"]
            ]
        );
        assert_eq!(line.joints, [Joint::And, Joint::Pipe]);
    }

    /// A harmless redirect is one only when a blank, `|` or `&&` ends it: glued to more text it
    /// is a write (`2>/dev/nullx` creates `/dev/nullx`), each case a mutant of
    /// `harmless_redirect` lets through (issue 47).
    #[test]
    fn a_redirect_glued_to_more_text_is_refused() {
        for command in [
            "grep x 2>/dev/nullx",
            "grep x 2>/dev/null/x",
            "grep x 2>/dev/null.log | head",
            "grep x 2>&1x",
            "grep x 2>&12",
            "grep x 2>",
            "grep x 2>/dev/nul",
            "grep x 2>/dev/null&",
            "grep x2>/dev/null",
        ] {
            assert!(
                matches!(ShellLine::parse(command), Err(ShellLineError::Forbidden(_))),
                "{command}: {:?}",
                ShellLine::parse(command)
            );
        }
    }

    #[test]
    fn a_harmless_redirect_ends_at_a_blank_a_pipe_an_and_or_the_line() {
        for command in [
            "grep x 2>/dev/null",
            "grep x 2>/dev/null\t| head",
            "grep x 2>/dev/null|head",
            "grep x 2>/dev/null&&head x",
            "grep x 2>&1 | head",
            "grep x 2>&1|head",
            "grep x 2>&1\t",
        ] {
            let line = ShellLine::parse(command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
            assert_eq!(line.stages[0], ["grep", "x"], "{command:?}");
        }
        assert_eq!(
            words(&ShellLine::parse("grep 2 x2 2").unwrap()),
            [vec!["grep", "2", "x2", "2"]],
            "a plain 2 is a word"
        );
    }

    #[test]
    fn a_heredoc_may_sit_before_a_pipe_and_strip_tabs() {
        let line = ShellLine::parse("self-repair submit t-1 <<-\"E\" 2>&1 | tail -3\n\t{}\n\tE\n")
            .unwrap();
        assert_eq!(line.heredoc.unwrap().body, "{}\n");
        assert_eq!(line.stages.len(), 2);
    }
}
