//! The approach asked for in each fix attempt, derived from what the failure looks like and
//! from what earlier attempts did to it: a build error is made to build first, a wrong value is
//! traced to where it is computed, a crash on bad input is guarded where the value enters, and a
//! failure that an attempt left exactly as it was is approached another way.

use regex::RegexBuilder;
use serde::{Deserialize, Serialize};

use crate::{CheckRecord, RepairState};

/// What kind of fix an attempt should try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approach {
    /// Fix the cause the output points at (nothing more specific is recognised).
    Direct,
    /// The code does not build, compile or import: make it build first.
    Build,
    /// The code runs but computes the wrong result: trace the value, fix the computation.
    Logic,
    /// A crash on a missing, empty or malformed value: handle it where the value enters.
    Defensive,
    /// The last attempt changed code and left the failure exactly as it was: another way.
    Alternative,
    /// Attempt 4 and later (a stronger tier): start over from the failure.
    Rethink,
}

/// What a failing output looks like, tested in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Symptom {
    Build,
    WrongValue,
    BadInput,
    Other,
}

/// Case-insensitive patterns per symptom (Rust, Python, JavaScript/TypeScript, Go, Java and C
/// toolchains). A build error wins over everything: nothing else can be judged until it builds.
const SYMPTOMS: [(Symptom, &str); 3] = [
    (
        Symptom::Build,
        r"error\[E\d{4}\]|could not compile|SyntaxError|IndentationError|ModuleNotFoundError|ImportError|cannot find (symbol|module|type|value|function)|undefined reference|error TS\d{4}|compilation (failed|error)|build failed|NameError|undefined: \w|unresolved import",
    ),
    (
        Symptom::WrongValue,
        r"AssertionError|assertion (failed|`left == right` failed)|assert_eq|expected[: ].*(got|received|found|but was)|^\s*left: |Expected: |toEqual|toBe\(|not equal",
    ),
    (
        Symptom::BadInput,
        r"NoneType|null ?pointer|NullPointerException|KeyError|IndexError|index out of (range|bounds)|on a `None` value|on an `Err` value|Cannot read propert|undefined is not|ZeroDivisionError|division by zero|ValueError|nil pointer|is not iterable|TypeError",
    ),
];

fn symptom(output: &str) -> Symptom {
    for (symptom, pattern) in SYMPTOMS {
        let found = RegexBuilder::new(pattern)
            .case_insensitive(true)
            .multi_line(true)
            .build()
            .is_ok_and(|re| re.is_match(output));
        if found {
            return symptom;
        }
    }
    Symptom::Other
}

impl Approach {
    /// The approach of attempt `n` (1-based) of `state`: from attempt 4 on a fresh look; else
    /// from the failure it must fix and the attempt before it.
    pub fn choose(state: &RepairState, n: u32) -> Approach {
        if n >= 4 {
            return Approach::Rethink;
        }
        let Some(failing) = crate::feedback::failing_check(state, n) else {
            return Approach::Direct;
        };
        let symptom = symptom(&failing.tail);
        if symptom == Symptom::Build {
            return Approach::Build;
        }
        if stuck(state, n, failing) {
            return Approach::Alternative;
        }
        match symptom {
            Symptom::WrongValue => Approach::Logic,
            Symptom::BadInput => Approach::Defensive,
            Symptom::Build | Symptom::Other => Approach::Direct,
        }
    }

    /// Its name, as the attempts table shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            Approach::Direct => "direct",
            Approach::Build => "build",
            Approach::Logic => "logic",
            Approach::Defensive => "defensive",
            Approach::Alternative => "alternative",
            Approach::Rethink => "rethink",
        }
    }

    /// The instruction the feedback gives for it.
    pub fn instruction(self) -> &'static str {
        match self {
            Approach::Direct => {
                "Direct fix: find the cause the output points at and fix it in the code, in the \
                 smallest change that makes the check pass."
            }
            Approach::Build => {
                "Make it build: the code does not compile or import. Fix the first error the \
                 output names (later ones often follow from it), in the code, before anything \
                 else; if an earlier attempt's change caused it, repair that change rather than \
                 piling another on top."
            }
            Approach::Logic => {
                "Fix the logic: the code runs but computes the wrong result. Compare the expected \
                 and actual values in the output, trace where the actual value is computed, and \
                 fix that computation; the expected value in the test is the specification."
            }
            Approach::Defensive => {
                "Handle the bad value: the code crashes on a missing, empty or malformed value. \
                 Find where that value enters and handle it there (validate, default, or report \
                 an error), not only where it crashes."
            }
            Approach::Alternative => {
                "Alternative approach: the last attempt changed the code and the check fails \
                 exactly as before. Do not refine that change; re-read the failing code path \
                 from the start and solve it a different way."
            }
            Approach::Rethink => {
                "Fresh look: earlier attempts failed. Question their assumptions, read the whole \
                 output again, find the root cause, and fix that."
            }
        }
    }
}

/// The attempt before `n` changed files and the failure it left has the signature of the one
/// it was asked to fix.
fn stuck(state: &RepairState, n: u32, failing: &CheckRecord) -> bool {
    let Some(previous) = n.checked_sub(1).filter(|p| *p >= 1) else {
        return false;
    };
    let changed = state
        .attempts
        .iter()
        .any(|a| a.n == previous && !a.no_change);
    let before = crate::feedback::failing_check(state, previous);
    changed && before.is_some_and(|b| b.signature == failing.signature)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_symptom_is_recognised_in_real_toolchain_output() {
        let cases = [
            (
                "error[E0425]: cannot find value `x` in this scope\n --> src/lib.rs:3:5",
                Symptom::Build,
            ),
            (
                "E   ModuleNotFoundError: No module named 'parser'",
                Symptom::Build,
            ),
            (
                "src/a.ts(3,1): error TS2304: Cannot find name 'foo'.",
                Symptom::Build,
            ),
            (
                "thread 'tests::sum' panicked at src/lib.rs:9:9:\nassertion `left == right` failed\n  left: 3\n right: 4",
                Symptom::WrongValue,
            ),
            ("E       AssertionError: assert 3 == 4", Symptom::WrongValue),
            ("    Expected: 4\n    Received: 3", Symptom::WrongValue),
            (
                "E   TypeError: 'NoneType' object is not subscriptable",
                Symptom::BadInput,
            ),
            (
                "called `Option::unwrap()` on a `None` value",
                Symptom::BadInput,
            ),
            (
                "TypeError: Cannot read properties of undefined (reading 'id')",
                Symptom::BadInput,
            ),
            ("Segmentation fault (core dumped)", Symptom::Other),
        ];
        for (output, want) in cases {
            assert_eq!(symptom(output), want, "{output}");
        }
    }
}
