//! `self-repair man`: one man page in roff, rendered by `clap_mangen` from the command
//! definitions, with a COMMANDS section that names no page that does not exist and an EXIT
//! STATUS section.

/// `man`: the man page `clap_mangen` renders from the same definitions. Its COMMANDS section
/// lists each command with its one line (no `self-repair-<cmd>(1)` page exists to point to:
/// `self-repair <cmd> --help` is the command's page), and an EXIT STATUS section follows.
pub fn man_page(command: &clap::Command) -> String {
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    let _ = man.render_title(&mut page);
    let _ = man.render_name_section(&mut page);
    let _ = man.render_synopsis_section(&mut page);
    let _ = man.render_description_section(&mut page);
    let _ = man.render_options_section(&mut page);
    let mut out = String::from_utf8_lossy(&page).into_owned();
    out.push_str(".SH COMMANDS\n");
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        out.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            roff_text(sub.get_name()),
            roff_text(&about)
        ));
    }
    out.push_str(
        ".PP\nEach command's options: \\fBself\\-repair \\fICOMMAND\\fB \\-\\-help\\fR.\n",
    );
    out.push_str(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in EXIT_CODES {
        out.push_str(&format!(".TP\n\\fB{code}\\fR\n{}\n", roff_text(meaning)));
    }
    let mut version = Vec::new();
    let _ = man.render_version_section(&mut version);
    out.push_str(&String::from_utf8_lossy(&version));
    // Each section rendered alone repeats roff's two-line preamble: keep the first.
    let mut seen = std::collections::HashSet::new();
    let mut page = String::with_capacity(out.len());
    for line in out.lines() {
        let preamble = line.starts_with(".ie \\n(.g") || line.starts_with(".el .ds");
        if !preamble || seen.insert(line) {
            page.push_str(line);
            page.push('\n');
        }
    }
    page
}

/// The exit codes in one line each (reference/cli.md, "Exit codes", has the whole table).
const EXIT_CODES: [(u8, &str); 17] = [
    (0, "done; a clean analyzer report too (nothing to triage)"),
    (
        1,
        "failure: I/O, an unreadable state, a program it ran that failed",
    ),
    (
        2,
        "usage or bad input: arguments, a findings file that is not a report, config",
    ),
    (3, "a submission was rejected: the message says what to fix"),
    (4, "no such project, folder, run or item"),
    (
        5,
        "conflict: a different result for a done item, a run id taken",
    ),
    (
        6,
        "a task or fix was not made: the message says which and why",
    ),
    (7, "another run is still in progress; nothing was created"),
    (8, "submit: the item was never dispatched in that run"),
    (
        9,
        "merge: the folders are not one job's finished partitions",
    ),
    (
        10,
        "doctor: a check of the setup failed; each line says what to do",
    ),
    (
        20,
        "drive: the API refused the credentials; a human must act",
    ),
    (21, "drive: the circuit opened (sessions without progress)"),
    (22, "drive: a limit the user set was reached"),
    (23, "the run waits for the user's go on its estimate"),
    (
        24,
        "drive --fail-on-real: the run completed with real findings",
    ),
    (130, "drive: interrupted; the run is kept"),
];

/// `text` safe as roff body text: backslashes doubled, hyphens escaped, and a leading `.` or
/// `'` (a roff request) guarded.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::EXIT_CODES;
    use crate::ExitStatus;

    #[test]
    fn the_exit_status_section_lists_every_exit_code_once_in_order() {
        let listed: Vec<u8> = EXIT_CODES.iter().map(|(code, _)| *code).collect();
        let codes: Vec<u8> = ExitStatus::ALL.iter().map(|s| s.code()).collect();
        assert_eq!(listed, codes);
    }
}
