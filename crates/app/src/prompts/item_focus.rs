//! What sets one item apart from its siblings of the same kind: a planner's emphasis and a
//! reviewer's angle. Only the item's own is rendered (issue 13: a planner's task used to list
//! all five emphases); what every planner or reviewer shares is in its agent definition.

/// The five planner emphases, by planner number (1-based, cycling after 5).
const EMPHASES: [&str; 5] = [
    "The **smallest safe change** that closes every real finding, touching as little code as \
     possible.",
    "**Fix the root cause properly**, even if that touches more code, so the findings cannot \
     come back from the same cause.",
    "**Prevent recurrence**: besides the fix, add the lint rule, test, type or check that would \
     catch the next instance automatically.",
    "The **simplest resulting code**: what would a reader of the code after the change find \
     clearest? Removing code beats adding it.",
    "The **contrarian alternative**: question the obvious fix, and propose a genuinely \
     different approach (change the design, the API, the configuration, or decide that the \
     right fix is elsewhere).",
];

/// What each default review angle asks.
const ANGLES: [(&str, &str); 4] = [
    (
        "root cause vs symptom",
        "does the plan remove the cause, or only silence the findings (suppressions, excludes, \
         a special case at each site)? Would the same cause produce new findings elsewhere?",
    ),
    (
        "simplicity",
        "is there a smaller or clearer change with the same effect? Any step that adds code, \
         options or layers the fix does not need?",
    ),
    (
        "tests and regressions",
        "do the named tests prove the fix and fail without it? What behaviour, caller or user \
         could break, and which test would notice?",
    ),
    (
        "architecture and naming",
        "does the change sit in the right module and layer, follow the project's patterns, and \
         use names a reader understands?",
    ),
];

/// Planner `n`'s emphasis; above 5 the emphasis of `n - 5` (6 → 1), with a different concrete
/// approach than the obvious one for it.
pub(crate) fn planner_emphasis(n: u32) -> String {
    let index = (n.max(1) - 1) as usize % EMPHASES.len();
    let text = EMPHASES[index];
    if n as usize > EMPHASES.len() {
        format!(
            "{text} Another planner has the same emphasis: choose a different concrete approach \
             than the obvious one for it."
        )
    } else {
        text.to_owned()
    }
}

/// The questions of a default angle; any other angle is read literally.
pub(crate) fn angle_guide(angle: &str) -> String {
    ANGLES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(angle.trim()))
        .map_or_else(
            || "Read the angle literally and stay within it.".to_owned(),
            |(_, asks)| format!("It asks: {asks}"),
        )
}

#[cfg(test)]
mod tests {
    use super::{angle_guide, planner_emphasis};

    #[test]
    fn a_planner_gets_its_own_emphasis_and_the_sixth_repeats_the_first() {
        assert!(planner_emphasis(1).contains("smallest safe change"));
        assert!(planner_emphasis(5).contains("contrarian"));
        let sixth = planner_emphasis(6);
        assert!(
            sixth.contains("smallest safe change") && sixth.contains("different concrete"),
            "{sixth}"
        );
    }

    #[test]
    fn a_default_angle_gets_its_questions_and_another_is_read_literally() {
        assert!(angle_guide("simplicity").contains("smaller or clearer change"));
        assert_eq!(
            angle_guide("security"),
            "Read the angle literally and stay within it."
        );
    }
}
