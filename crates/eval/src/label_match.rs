//! Which label holds for which finding: by fingerprint, else by location, else by test case;
//! a labels file that matches nothing is refused with what the two sides look like.

use std::collections::{HashMap, HashSet};

use crate::{EvalError, FindingResult, Label, LabelKey, LabelSet, RunOutcome};

/// The labels, as they hold for the run's findings.
#[derive(Debug, Clone, Default)]
pub(crate) struct Matching {
    /// Per finding (in the run's order): its label's truth, `None` when unlabelled.
    pub(crate) truth: Vec<Option<bool>>,
    /// Labels that matched at least one finding.
    pub(crate) matched_labels: usize,
    /// Findings whose most specific labels disagree (left unlabelled).
    pub(crate) conflicts: usize,
}

/// Matches `labels` to `run`'s findings; refuses labels that match none of them.
pub(crate) fn match_labels(labels: &LabelSet, run: &RunOutcome) -> Result<Matching, EvalError> {
    let index = LabelIndex::of(&labels.labels);
    let mut matching = Matching::default();
    let mut used: HashSet<usize> = HashSet::new();
    for finding in &run.findings {
        let candidates = index.candidates(&labels.labels, finding);
        let best = candidates
            .iter()
            .map(|&i| labels.labels[i].key.rank())
            .min();
        let chosen: Vec<usize> = candidates
            .into_iter()
            .filter(|&i| Some(labels.labels[i].key.rank()) == best)
            .collect();
        used.extend(chosen.iter().copied());
        let mut truths = chosen.iter().map(|&i| labels.labels[i].real);
        let truth = match truths.next() {
            Some(first) if truths.all(|t| t == first) => Some(first),
            Some(_) => {
                matching.conflicts += 1;
                None
            }
            None => None,
        };
        matching.truth.push(truth);
    }
    matching.matched_labels = used.len();
    if used.is_empty() {
        return Err(EvalError::NoMatch {
            source_name: labels.source.clone(),
            labels: labels.labels.len(),
            findings: run.findings.len(),
            why: why_nothing_matched(&labels.labels, &run.findings),
        });
    }
    Ok(matching)
}

/// The labels by what finds them fast: fingerprint, file name, case name.
struct LabelIndex<'a> {
    fingerprints: HashMap<&'a str, Vec<usize>>,
    file_names: HashMap<String, Vec<usize>>,
    cases: HashMap<&'a str, Vec<usize>>,
    /// Case names holding characters other than letters, digits, `_` and `-`: scanned.
    odd_cases: Vec<usize>,
}

impl<'a> LabelIndex<'a> {
    fn of(labels: &'a [Label]) -> LabelIndex<'a> {
        let mut index = LabelIndex {
            fingerprints: HashMap::new(),
            file_names: HashMap::new(),
            cases: HashMap::new(),
            odd_cases: Vec::new(),
        };
        for (i, label) in labels.iter().enumerate() {
            match &label.key {
                LabelKey::Fingerprint { fingerprint } => {
                    index.fingerprints.entry(fingerprint).or_default().push(i);
                }
                LabelKey::Location { path, .. } => {
                    let name = file_name(&normalize(path)).to_owned();
                    index.file_names.entry(name).or_default().push(i);
                }
                LabelKey::Case { name, .. } if name.chars().all(is_word) => {
                    index.cases.entry(name).or_default().push(i);
                }
                LabelKey::Case { .. } => index.odd_cases.push(i),
            }
        }
        index
    }

    fn candidates(&self, labels: &[Label], finding: &FindingResult) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .fingerprints
            .get(finding.fingerprint.as_str())
            .cloned()
            .unwrap_or_default();
        let path = normalize(&finding.path);
        if let Some(hits) = self.file_names.get(file_name(&path)) {
            out.extend(
                hits.iter()
                    .filter(|&&i| location_holds(&labels[i], finding, &path)),
            );
        }
        let words: HashSet<&str> = path.split(|c: char| !is_word(c)).collect();
        for word in words {
            if let Some(hits) = self.cases.get(word) {
                out.extend(hits.iter().filter(|&&i| case_holds(&labels[i], finding)));
            }
        }
        out.extend(self.odd_cases.iter().filter(|&&i| {
            matches!(&labels[i].key, LabelKey::Case { name, .. } if names_case(&path, name))
                && case_holds(&labels[i], finding)
        }));
        out
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// `path` holds `name` with no word character either side.
fn names_case(path: &str, name: &str) -> bool {
    path.match_indices(name).any(|(at, _)| {
        let before = path[..at].chars().next_back();
        let after = path[at + name.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// A path as both sides are compared: no `file://`, forward slashes, no leading `./`.
fn normalize(path: &str) -> String {
    let path = path.trim();
    let path = path
        .strip_prefix("file://")
        .unwrap_or(path)
        .replace('\\', "/");
    let mut rest = path.as_str();
    while let Some(stripped) = rest.strip_prefix("./") {
        rest = stripped;
    }
    rest.to_owned()
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// One path ends with the other, at a `/`: labels written from another root still match.
fn same_file(a: &str, b: &str) -> bool {
    let ends = |long: &str, short: &str| {
        long.strip_suffix(short)
            .is_some_and(|head| head.is_empty() || head.ends_with('/'))
    };
    ends(a, b) || ends(b, a)
}

fn same_rule(label: Option<&str>, finding: &str) -> bool {
    label.is_none_or(|rule| rule.trim().eq_ignore_ascii_case(finding.trim()))
}

fn location_holds(label: &Label, finding: &FindingResult, path: &str) -> bool {
    let LabelKey::Location {
        path: at,
        line,
        rule,
    } = &label.key
    else {
        return false;
    };
    same_file(&normalize(at), path)
        && line.is_none_or(|l| finding.line == Some(l))
        && same_rule(rule.as_deref(), &finding.rule)
}

/// A case label holds for a finding in its case of its rule, and of its CWE when both say one.
fn case_holds(label: &Label, finding: &FindingResult) -> bool {
    let LabelKey::Case { rule, .. } = &label.key else {
        return false;
    };
    let cwe_agrees = match (label.cwe, finding.cwe) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    cwe_agrees && same_rule(rule.as_deref(), &finding.rule)
}

/// Why no label matched: what the run's paths and the labels look like, and near misses.
fn why_nothing_matched(labels: &[Label], findings: &[FindingResult]) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for label in labels {
        let kind = match label.key {
            LabelKey::Fingerprint { .. } => "fingerprint",
            LabelKey::Location { .. } => "path, line and rule",
            LabelKey::Case { .. } => "case name in the path (with its CWE)",
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    let run_side: Vec<String> = if kinds == ["fingerprint"] {
        findings
            .iter()
            .take(3)
            .map(|f| f.fingerprint.clone())
            .collect()
    } else {
        let mut paths: Vec<String> = Vec::new();
        for f in findings {
            if !paths.contains(&f.path) {
                paths.push(f.path.clone());
            }
            if paths.len() == 3 {
                break;
            }
        }
        paths
    };
    let label_side: Vec<String> = labels.iter().take(3).map(|l| l.key.describe()).collect();
    let quote = |v: &[String]| {
        v.iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let what = if kinds == ["fingerprint"] {
        "fingerprints"
    } else {
        "paths"
    };
    let mut why = format!(
        "no label matches a finding by its {}; the run's {what} look like {}, the labels like {}",
        kinds.join(", nor by its "),
        quote(&run_side),
        quote(&label_side)
    );
    let near = near_misses(labels, findings);
    if !near.is_empty() {
        why.push_str(&format!(" ({near})"));
    }
    why
}

/// Labels whose path or case name is found but whose line, rule or CWE is not.
fn near_misses(labels: &[Label], findings: &[FindingResult]) -> String {
    let paths: Vec<String> = findings.iter().map(|f| normalize(&f.path)).collect();
    let mut located = 0;
    let mut cased = 0;
    for label in labels {
        match &label.key {
            LabelKey::Location { path, .. } => {
                let path = normalize(path);
                located += usize::from(paths.iter().any(|p| same_file(p, &path)));
            }
            LabelKey::Case { name, .. } => {
                cased += usize::from(paths.iter().any(|p| names_case(p, name)));
            }
            LabelKey::Fingerprint { .. } => {}
        }
    }
    let mut parts = Vec::new();
    if located > 0 {
        parts.push(format!(
            "{located} labels name a finding's path but not its line or rule"
        ));
    }
    if cased > 0 {
        parts.push(format!(
            "{cased} case names appear in finding paths but not with their CWE or rule"
        ));
    }
    parts.join("; ")
}
