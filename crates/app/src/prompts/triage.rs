//! The data of a triage task, for one finding or a batch: each rule's text once, then the
//! findings file by file (in path order), findings whose code excerpts overlap sharing one
//! excerpt, so no code is shown twice.

use std::fmt::Write as _;
use std::path::Path;

use self_repair_context::{
    CodeContext, ContextOptions, Snippet, code_context, fence_tag, fenced_block,
};
use self_repair_engine::{FindingRecord, RunState};
use self_repair_store::RunDir;

/// One finding of the task: its triage item id and record.
pub(crate) struct TaskFinding<'a> {
    pub id: &'a str,
    pub record: &'a FindingRecord,
    /// Other triage items that may report the same thing (see [`candidate_duplicates`]).
    pub candidates: Vec<String>,
    /// On the security route, whether the file is test code under `test_paths` (see
    /// [`test_code_line`]); `None` elsewhere.
    pub test_code: Option<String>,
}

/// What a security task says of a finding's file: test code under the project's `test_paths`
/// rule (the pattern it matches), or not. Decided in code: the agent does not judge it from the
/// path (reference/routes.md, "Test code").
pub(crate) fn test_code_line(patterns: &[String], path: &str) -> String {
    match self_repair_engine::test_code_pattern(patterns, path) {
        Some(pattern) => format!("yes (matches `{pattern}` of the project's test_paths)"),
        None => "no (production code: the project's test_paths do not name it)".to_owned(),
    }
}

/// Lines apart within which two findings of one file may be one issue.
const NEAR_LINES: u32 = 3;

/// Most candidate duplicates listed per finding.
const MOST_CANDIDATES: usize = 5;

/// The characters a task's findings may take with their code and references. Claude Code
/// hands a tool output over 30,000 characters to the model as a short preview and a file to
/// Read (measured on the pyparsing corpus: 26 of 288 batches of a 2,936-finding run went over,
/// up to 41 KB, all on one 6,000-line file); the template, the rules' texts and the schema take
/// the rest. Excerpts past it are named, not shown: the agent reads them itself.
const FINDINGS_BUDGET: usize = 18_000;

/// The triage items of `state` whose findings sit in the same file as `record` and name the
/// same symbol, or come from another rule within a few lines (and name no other symbol): what
/// `duplicate_of` may point at. `item tool rule at
/// path:line`, nearest first.
pub(crate) fn candidate_duplicates(
    state: &RunState,
    findings: &[FindingRecord],
    id: &str,
    record: &FindingRecord,
) -> Vec<String> {
    let f = &record.finding;
    let mut near: Vec<(u32, String)> = Vec::new();
    for item in &state.items[..state.triage_items as usize] {
        if item.id == id {
            continue;
        }
        let Some(other) = item.finding.and_then(|n| findings.get(n as usize)) else {
            continue;
        };
        let o = &other.finding;
        if o.path != f.path {
            continue;
        }
        let distance = match (f.line, o.line) {
            (Some(a), Some(b)) => a.abs_diff(b),
            _ => u32::MAX,
        };
        // One defect reported twice: by two rules (two tools) at the same place, or on the same
        // symbol. Two findings of one rule a line apart (`os` and `sys` unused) are two
        // defects, and so are findings on two named symbols.
        let same_symbol = f.symbol.is_some() && f.symbol == o.symbol;
        let other_symbol = f.symbol.is_some() && o.symbol.is_some() && !same_symbol;
        let same_rule = f.tool == o.tool && f.rule_id == o.rule_id;
        let close = distance <= NEAR_LINES && !same_rule && !other_symbol;
        if !(same_symbol || close) {
            continue;
        }
        near.push((
            distance,
            format!(
                "{} {} {} at {}",
                item.id,
                o.tool,
                o.rule_id,
                location(&o.path, o.line, None)
            ),
        ));
    }
    near.sort();
    near.into_iter()
        .take(MOST_CANDIDATES)
        .map(|(_, text)| text)
        .collect()
}

/// The `{{rules}}` and `{{findings}}` of a triage template.
pub(crate) struct TriageData {
    pub rules: String,
    pub findings: String,
}

/// Renders the rules and findings of `members` (in their order; the findings sorted by path
/// and line).
pub(crate) fn triage_data(root: &Path, dir: &RunDir, members: &[TaskFinding<'_>]) -> TriageData {
    let mut rules = String::new();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for m in members {
        let f = &m.record.finding;
        if seen.contains(&(f.tool.as_str(), f.rule_id.as_str())) {
            continue;
        }
        seen.push((&f.tool, &f.rule_id));
        if let Some(text) = crate::run::inputs::rule_text(dir, &f.tool, &f.rule_id) {
            let _ = write!(
                rules,
                "## What {} says about {} (data)\n\n{}\n",
                f.tool,
                f.rule_id,
                fenced_block("markdown", &text)
            );
        }
    }
    let mut options = ContextOptions::default();
    options
        .references
        .skip_paths
        .extend(crate::run::inputs::run_input_paths(Some(dir)));
    let mut found: Vec<(&TaskFinding<'_>, CodeContext)> = members
        .iter()
        .map(|m| {
            let f = &m.record.finding;
            let context = code_context(
                root,
                &f.path,
                f.line.unwrap_or(0),
                f.symbol.as_deref(),
                &options,
            );
            (m, context)
        })
        .collect();
    found.sort_by(|(a, _), (b, _)| {
        let (a, b) = (&a.record.finding, &b.record.finding);
        (&a.path, a.line).cmp(&(&b.path, b.line))
    });
    let mut findings = String::new();
    let mut start = 0;
    while start < found.len() {
        let end = excerpt_end(&found, start);
        let mut excerpt = String::new();
        render_excerpt(&mut excerpt, &found[start..end]);
        if findings.len() + excerpt.len() > FINDINGS_BUDGET {
            excerpt.clear();
            render_excerpt_named(&mut excerpt, &found[start..end]);
        }
        findings.push_str(&excerpt);
        start = end;
    }
    TriageData { rules, findings }
}

/// One excerpt past the budget: the findings it holds, and where their code is.
fn render_excerpt_named(out: &mut String, group: &[(&TaskFinding<'_>, CodeContext)]) {
    let ids: Vec<&str> = group.iter().map(|(m, _)| m.id).collect();
    let _ = write!(out, "## {} (data)\n\n", ids.join(", "));
    let lines: Vec<String> = group.iter().map(|(m, c)| finding_lines(m, c)).collect();
    out.push_str(&fenced_block("text", &lines.join("\n")));
    let first = &group[0].1;
    let span =
        merged_snippet(group).and_then(|s| Some((s.lines.first()?.number, s.lines.last()?.number)));
    match span {
        Some((from, to)) => {
            let _ = writeln!(
                out,
                "\nCode not shown, to keep this task short: Read `{}` lines {from}-{to}.",
                first.path
            );
        }
        None => {
            let _ = writeln!(
                out,
                "\nCode not shown, to keep this task short: Read `{}`.",
                first.path
            );
        }
    }
    out.push('\n');
}

/// The end (exclusive) of the run of findings from `start` whose excerpts overlap or touch.
fn excerpt_end(found: &[(&TaskFinding<'_>, CodeContext)], start: usize) -> usize {
    let span = |c: &CodeContext| {
        c.snippet
            .as_ref()
            .and_then(|s| Some((s.lines.first()?.number, s.lines.last()?.number)))
    };
    let path = &found[start].1.path;
    let Some((_, mut last)) = span(&found[start].1) else {
        return start + 1;
    };
    let mut end = start + 1;
    while let Some((_, next)) = found.get(end) {
        match span(next) {
            Some((first, until)) if next.path == *path && first <= last + 1 => {
                last = last.max(until);
                end += 1;
            }
            _ => break,
        }
    }
    end
}

/// One excerpt: the findings it holds, then its code once, then each symbol's references.
fn render_excerpt(out: &mut String, group: &[(&TaskFinding<'_>, CodeContext)]) {
    let ids: Vec<&str> = group.iter().map(|(m, _)| m.id).collect();
    let _ = write!(out, "## {} (data)\n\n", ids.join(", "));
    let lines: Vec<String> = group.iter().map(|(m, c)| finding_lines(m, c)).collect();
    out.push_str(&fenced_block("text", &lines.join("\n")));
    let first = &group[0].1;
    for note in &first.notes {
        let _ = writeln!(out, "\n{note}");
    }
    if let Some(snippet) = merged_snippet(group) {
        if let Some(note) = &snippet.note {
            let _ = writeln!(out, "\nSnippet: {note}.");
        }
        if !snippet.lines.is_empty() {
            out.push('\n');
            out.push_str(&fenced_block(fence_tag(&snippet.path), &snippet.render()));
        }
    }
    for (_, context) in group {
        let (Some(symbol), Some(report)) = (&context.symbol, &context.references) else {
            continue;
        };
        let _ = write!(out, "\nReferences to `{symbol}`: {}.\n", report.summary());
        if !report.hits.is_empty() {
            out.push_str(&fenced_block("text", &report.render()));
        }
    }
    out.push('\n');
}

/// `t-00001 src/x.py:3:1 ruff F401 (warning)`, the symbol, the enclosing item, the message and
/// the other places with the identical finding.
fn finding_lines(m: &TaskFinding<'_>, context: &CodeContext) -> String {
    let f = &m.record.finding;
    let mut text = format!(
        "{} {} {} {} ({})",
        m.id,
        location(&f.path, f.line, f.column),
        f.tool,
        f.rule_id,
        f.level.as_str()
    );
    if let Some(symbol) = &f.symbol {
        let _ = write!(text, " symbol {symbol}");
    }
    if let Some(item) = &context.enclosing {
        let _ = write!(text, " in {}", item.describe());
    }
    let _ = write!(text, "\n  message: {}", f.message);
    if let Some(test_code) = &m.test_code {
        let _ = write!(text, "\n  test code: {test_code}");
    }
    if let Some(uri) = &f.help_uri {
        let _ = write!(text, "\n  help: {uri}");
    }
    if !m.candidates.is_empty() {
        let _ = write!(
            text,
            "\n  possible duplicates (`duplicate_of` if one reports the same defect): {}",
            m.candidates.join("; ")
        );
    }
    if m.record.occurrences.len() > 1 {
        let places: Vec<String> = m.record.occurrences[1..]
            .iter()
            .map(|o| location(&o.path, o.line, o.column))
            .collect();
        let _ = write!(text, "\n  identical at: {}", places.join(", "));
    }
    text
}

/// The excerpts of `group` (one file, overlapping) as one snippet, every finding line marked.
fn merged_snippet(group: &[(&TaskFinding<'_>, CodeContext)]) -> Option<Snippet> {
    let mut merged = group[0].1.snippet.clone()?;
    for (_, context) in &group[1..] {
        let Some(snippet) = &context.snippet else {
            continue;
        };
        for line in &snippet.lines {
            match merged.lines.iter_mut().find(|l| l.number == line.number) {
                Some(existing) => existing.is_finding |= line.is_finding,
                None => merged.lines.push(line.clone()),
            }
        }
    }
    merged.lines.sort_by_key(|l| l.number);
    Some(merged)
}

fn location(path: &str, line: Option<u32>, column: Option<u32>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{path}:{l}:{c}"),
        (Some(l), None) => format!("{path}:{l}"),
        _ => path.to_owned(),
    }
}
