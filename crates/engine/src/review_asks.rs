//! What a plan review asks of the plan, read from its markdown (the shape agents/plan-reviewer.md
//! asks for): the verdict (`approve`, `approve with changes`, `rework`) and the numbered
//! must-fix points. Each ask gets an id the revise step answers: `rev-g1-2.3` for point 3 of
//! review `rev-g1-2`, `rev-g1-2.rework` for its rework verdict (design note 35).

/// Most must-fix points one review is split into: the rest of a longer list joins the last, so
/// the revise step's prompt and schema stay bounded.
pub const MOST_POINTS: usize = 6;

/// Suffix of the ask a `rework` verdict makes.
const REWORK: &str = "rework";

/// A review's verdict, from the first line of its `## Verdict` section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewVerdict {
    Approve,
    ApproveWithChanges,
    Rework,
    /// No verdict section, or a first line that starts with none of the three.
    Unstated,
}

/// What one review asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewAsks {
    pub verdict: ReviewVerdict,
    /// The verdict section's first line as written (`rework, the plan fixes the symptom`).
    pub verdict_line: String,
    /// The must-fix points, in order, each without its list marker; at most [`MOST_POINTS`].
    pub must_fix: Vec<String>,
}

impl ReviewAsks {
    /// Reads a review's markdown.
    pub fn of(markdown: &str) -> ReviewAsks {
        let verdict_line = review_section(markdown, "verdict")
            .and_then(|v| {
                v.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let must_fix = review_section(markdown, "must fix")
            .filter(|m| !says_none(m))
            .map(|m| split_points(&m))
            .unwrap_or_default();
        ReviewAsks {
            verdict: verdict_of(&verdict_line),
            verdict_line,
            must_fix,
        }
    }

    /// The ids of what this review (item `review`) asks, rework first: what the revise step
    /// answers one by one.
    pub fn ask_ids(&self, review: &str) -> Vec<String> {
        let rework = (self.verdict == ReviewVerdict::Rework).then(|| format!("{review}.{REWORK}"));
        rework
            .into_iter()
            .chain((1..=self.must_fix.len()).map(|n| format!("{review}.{n}")))
            .collect()
    }

    /// The text an ask id of this review stands for: a must-fix point, or the rework verdict's
    /// line; `None` for an id it does not make.
    pub fn ask_text(&self, ask: &str) -> Option<&str> {
        let (_, what) = ask.rsplit_once('.')?;
        if what == REWORK {
            return (self.verdict == ReviewVerdict::Rework).then_some(self.verdict_line.as_str());
        }
        let n: usize = what.parse().ok()?;
        self.must_fix.get(n.checked_sub(1)?).map(String::as_str)
    }
}

/// The review item an ask id belongs to (`rev-g1-2` of `rev-g1-2.3`).
pub fn ask_review(ask: &str) -> &str {
    ask.rsplit_once('.').map_or(ask, |(review, _)| review)
}

/// Whether an ask id is a rework verdict rather than a must-fix point.
pub fn is_rework(ask: &str) -> bool {
    ask.rsplit_once('.').is_some_and(|(_, what)| what == REWORK)
}

/// Where an ask sorts: by review number, the rework first, then the points in order.
pub(crate) fn ask_order(ask: &str) -> (u32, u32) {
    let (review, what) = ask.rsplit_once('.').unwrap_or((ask, ""));
    let number = review
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(u32::MAX);
    let point = if what == REWORK {
        0
    } else {
        what.parse().unwrap_or(u32::MAX)
    };
    (number, point)
}

/// The body of the `## NAME` section of a review (case-insensitive), up to the next `## `.
pub fn review_section(markdown: &str, name: &str) -> Option<String> {
    let mut body: Option<Vec<&str>> = None;
    for line in markdown.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            if body.is_some() {
                break;
            }
            if heading
                .trim()
                .trim_end_matches(':')
                .eq_ignore_ascii_case(name)
            {
                body = Some(Vec::new());
            }
            continue;
        }
        if let Some(lines) = body.as_mut() {
            lines.push(line);
        }
    }
    body.map(|lines| lines.join("\n").trim().to_owned())
        .filter(|b| !b.is_empty())
}

/// "none", "- none", "n/a", "None." and the like: a section with nothing in it.
fn says_none(text: &str) -> bool {
    let t = text
        .trim()
        .trim_start_matches(['-', '*'])
        .trim()
        .trim_end_matches('.')
        .to_lowercase();
    t.is_empty() || t == "none" || t == "n/a" || t == "nothing"
}

fn verdict_of(line: &str) -> ReviewVerdict {
    let words = line
        .trim_start_matches(|c: char| !c.is_alphabetic())
        .to_lowercase();
    if words.starts_with("rework") {
        ReviewVerdict::Rework
    } else if words.starts_with("approve with changes") {
        ReviewVerdict::ApproveWithChanges
    } else if words.starts_with("approve") {
        ReviewVerdict::Approve
    } else {
        ReviewVerdict::Unstated
    }
}

/// A line that opens a numbered point (`1.`, `2)`) or a bullet (`-`, `*`, `+`), with the rest of
/// the line; only at the margin (nested lists stay inside their point).
fn marker(line: &str) -> Option<(bool, &str)> {
    if line.starts_with("  ") || line.starts_with('\t') {
        return None;
    }
    let line = line.trim_start();
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &line[digits..];
        if let Some(text) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some((true, text));
        }
    }
    ["- ", "* ", "+ "]
        .iter()
        .find_map(|b| line.strip_prefix(b))
        .map(|text| (false, text))
}

/// Splits a must-fix section into its points: at numbered lines when there are any, else at
/// bullets, else the whole section is one point. Text before the first marker opens the first
/// point; points past [`MOST_POINTS`] join the last.
fn split_points(body: &str) -> Vec<String> {
    let numbered = body.lines().any(|l| marker(l).is_some_and(|(n, _)| n));
    let mut points: Vec<Vec<&str>> = Vec::new();
    let mut preamble: Vec<&str> = Vec::new();
    for line in body.lines() {
        match marker(line) {
            Some((is_number, text)) if is_number == numbered => points.push(vec![text]),
            _ => match points.last_mut() {
                Some(point) => point.push(line),
                None => preamble.push(line),
            },
        }
    }
    let preamble = preamble.join("\n").trim().to_owned();
    let mut texts: Vec<String> = points
        .into_iter()
        .map(|lines| lines.join("\n").trim().to_owned())
        .filter(|t| !t.is_empty())
        .collect();
    match texts.first_mut() {
        Some(first) if !preamble.is_empty() => *first = format!("{preamble}\n{first}"),
        None if !preamble.is_empty() => texts.push(preamble),
        _ => {}
    }
    if texts.len() > MOST_POINTS {
        let rest = texts.split_off(MOST_POINTS - 1);
        texts.push(rest.join("\n"));
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_must_fix_points_and_the_verdict_are_read() {
        let review = "## Verdict\napprove with changes, one step is unsafe.\n\n## Must fix\n1. Step 2: keep the `os` import in `cli.py`, it is re-exported.\n   - it is imported by `tools/run.py`\n2) Step 4 names no test.\n\n## Should consider\nnothing";
        let asks = ReviewAsks::of(review);
        assert_eq!(asks.verdict, ReviewVerdict::ApproveWithChanges);
        assert_eq!(
            asks.verdict_line,
            "approve with changes, one step is unsafe."
        );
        assert_eq!(
            asks.must_fix,
            [
                "Step 2: keep the `os` import in `cli.py`, it is re-exported.\n   - it is imported by `tools/run.py`",
                "Step 4 names no test."
            ]
        );
        assert_eq!(asks.ask_ids("rev-g1-2"), ["rev-g1-2.1", "rev-g1-2.2"]);
        assert_eq!(asks.ask_text("rev-g1-2.2"), Some("Step 4 names no test."));
        assert_eq!(asks.ask_text("rev-g1-2.3"), None);
    }

    #[test]
    fn none_asks_nothing_and_rework_is_an_ask_of_its_own() {
        for none in ["None.", "- none", "n/a", "Nothing"] {
            let asks = ReviewAsks::of(&format!("## Verdict\napprove\n\n## Must fix\n{none}\n"));
            assert_eq!(asks.verdict, ReviewVerdict::Approve);
            assert!(asks.ask_ids("rev-g1-1").is_empty(), "{none}");
        }
        let asks = ReviewAsks::of(
            "## Verdict\n**Rework**: the plan fixes the symptom.\n\n## Must fix\nnone\n",
        );
        assert_eq!(asks.verdict, ReviewVerdict::Rework);
        assert_eq!(asks.ask_ids("rev-g3-1"), ["rev-g3-1.rework"]);
        assert_eq!(
            asks.ask_text("rev-g3-1.rework"),
            Some("**Rework**: the plan fixes the symptom.")
        );
        assert!(is_rework("rev-g3-1.rework") && !is_rework("rev-g3-1.1"));
        assert_eq!(ask_review("rev-g3-1.rework"), "rev-g3-1");
        // "no rework needed" later in the line does not make it one.
        let asks = ReviewAsks::of("## Verdict\napprove, no rework needed\n");
        assert_eq!(asks.verdict, ReviewVerdict::Approve);
        assert_eq!(
            ReviewAsks::of("no sections at all").verdict,
            ReviewVerdict::Unstated
        );
    }

    #[test]
    fn bullets_or_plain_text_are_points_too_and_a_long_list_is_bounded() {
        let asks = ReviewAsks::of("## Must fix\nTwo things:\n- keep `os`\n- add a test\n");
        assert_eq!(asks.must_fix, ["Two things:\nkeep `os`", "add a test"]);
        let asks = ReviewAsks::of("## Must fix\nThe plan deletes a public function.\n");
        assert_eq!(asks.must_fix, ["The plan deletes a public function."]);
        let long = (1..=14)
            .map(|n| format!("{n}. point {n}"))
            .collect::<Vec<_>>()
            .join("\n");
        let asks = ReviewAsks::of(&format!("## Must fix\n{long}"));
        assert_eq!(asks.must_fix.len(), MOST_POINTS);
        assert_eq!(
            asks.must_fix[MOST_POINTS - 1],
            "point 6\npoint 7\npoint 8\npoint 9\npoint 10\npoint 11\npoint 12\npoint 13\npoint 14"
        );
    }

    #[test]
    fn asks_sort_by_review_then_rework_then_point() {
        let mut asks = vec![
            "rev-g1-2.2",
            "rev-g1-10.1",
            "rev-g1-2.rework",
            "rev-g1-2.1",
            "rev-g1-1.3",
        ];
        asks.sort_by_key(|a| ask_order(a));
        assert_eq!(
            asks,
            [
                "rev-g1-1.3",
                "rev-g1-2.rework",
                "rev-g1-2.1",
                "rev-g1-2.2",
                "rev-g1-10.1"
            ]
        );
    }
}
