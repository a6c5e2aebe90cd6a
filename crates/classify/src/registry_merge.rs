//! The three-way merge of `known.json` or `rules.json` that git runs as the `self-repair-known`
//! merge driver (`self-repair known merge-driver %O %A %B %P`): by key (fingerprint, rule id),
//! not by line. A key one side changed takes that side's version (a removal included); a key
//! both sides changed differently keeps the later decision (`decided_at`; without one it is
//! the oldest; equal times keep ours), and when their verdicts differ the merge reports it.

use std::collections::BTreeSet;
use std::path::Path;

use crate::{ClassifyError, KnownEntry, KnownRegistry, Rule, RuleBook};

/// Which version of a key a merge kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeSide {
    /// The branch being merged into (`%A`).
    Ours,
    /// The branch being merged (`%B`).
    Theirs,
}

/// A key both branches decided differently: what each side said and which one stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeConflict {
    /// The fingerprint or rule id.
    pub key: String,
    /// Ours, as a person reads it (`intended (manual, 2026-11-26T10:00:00Z)`, `removed`).
    pub ours: String,
    pub theirs: String,
    pub kept: MergeSide,
}

impl MergeConflict {
    /// One line for the merge's report.
    pub fn render(&self) -> String {
        let kept = match self.kept {
            MergeSide::Ours => "ours",
            MergeSide::Theirs => "theirs",
        };
        format!(
            "{}: ours {}, theirs {}; kept {kept}",
            self.key, self.ours, self.theirs
        )
    }
}

/// Which registry a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegistryKind {
    Known,
    Rules,
}

/// One key's version in one file: the value and when it was decided.
type Version<'a, T> = Option<(&'a T, Option<&'a str>)>;

/// What to keep of one key.
enum Choice {
    Ours,
    Theirs,
}

/// The three-way choice for one key, and whether both sides changed it differently.
fn choose<T: PartialEq>(
    base: Version<'_, T>,
    ours: Version<'_, T>,
    theirs: Version<'_, T>,
) -> (Choice, bool) {
    if ours == theirs || theirs == base {
        return (Choice::Ours, false);
    }
    if ours == base {
        return (Choice::Theirs, false);
    }
    let choice = match (ours, theirs) {
        (None, Some(_)) => Choice::Theirs,
        (Some((_, ours_at)), Some((_, theirs_at))) if theirs_at > ours_at => Choice::Theirs,
        _ => Choice::Ours,
    };
    (choice, true)
}

fn side(choice: &Choice) -> MergeSide {
    match choice {
        Choice::Ours => MergeSide::Ours,
        Choice::Theirs => MergeSide::Theirs,
    }
}

fn describe<T>(
    version: Version<'_, T>,
    decision: impl Fn(&T) -> String,
    source: impl Fn(&T) -> String,
) -> String {
    match version {
        None => "removed".to_owned(),
        Some((value, at)) => format!(
            "{} ({}, {})",
            decision(value),
            source(value),
            at.unwrap_or("no decision time")
        ),
    }
}

fn known_version<'a>(known: &'a KnownRegistry, key: &str) -> Version<'a, KnownEntry> {
    known.get(key).map(|entry| (entry, known.decided_at(key)))
}

fn known_decision(entry: &KnownEntry) -> String {
    if entry.proposed {
        format!("{} (proposed)", entry.verdict.as_str())
    } else {
        entry.verdict.as_str().to_owned()
    }
}

/// Merges three versions of `known.json`; the conflicts are the keys both sides decided with
/// different verdicts (or one side removed while the other changed it).
pub fn merge_known(
    base: &KnownRegistry,
    ours: &KnownRegistry,
    theirs: &KnownRegistry,
) -> (KnownRegistry, Vec<MergeConflict>) {
    let keys: BTreeSet<&String> = [base, ours, theirs]
        .iter()
        .flat_map(|k| k.entries.keys())
        .collect();
    let mut merged = KnownRegistry::default();
    let mut conflicts = Vec::new();
    for key in keys {
        let (at_base, at_ours, at_theirs) = (
            known_version(base, key),
            known_version(ours, key),
            known_version(theirs, key),
        );
        let (choice, both_changed) = choose(at_base, at_ours, at_theirs);
        let verdicts_differ = match (at_ours, at_theirs) {
            (Some((mine, _)), Some((other, _))) => known_decision(mine) != known_decision(other),
            _ => true,
        };
        if both_changed && verdicts_differ {
            let source = |e: &KnownEntry| e.source.clone();
            conflicts.push(MergeConflict {
                key: key.clone(),
                ours: describe(at_ours, known_decision, source),
                theirs: describe(at_theirs, known_decision, source),
                kept: side(&choice),
            });
        }
        let kept = match choice {
            Choice::Ours => at_ours,
            Choice::Theirs => at_theirs,
        };
        if let Some((entry, at)) = kept {
            merged.put(key.clone(), entry.clone(), at.map(str::to_owned));
        }
    }
    (merged, conflicts)
}

fn rule_version<'a>(book: &'a RuleBook, id: &str) -> Version<'a, Rule> {
    book.rules
        .iter()
        .find(|r| r.id == id)
        .map(|rule| (rule, book.decided_at(id)))
}

fn rule_decision(rule: &Rule) -> String {
    let outcome = match (&rule.verdict, &rule.route) {
        (Some(verdict), _) => verdict.as_str().to_owned(),
        (None, Some(route)) => format!("route {route}"),
        (None, None) => "nothing".to_owned(),
    };
    format!("{} {outcome}", rule.status.as_str())
}

/// Merges three versions of `rules.json`. Order matters there (the first accepted match
/// wins): ours in its order, then the rules only theirs has, in theirs' order.
pub fn merge_rules(
    base: &RuleBook,
    ours: &RuleBook,
    theirs: &RuleBook,
) -> (RuleBook, Vec<MergeConflict>) {
    let mut ids: Vec<&String> = Vec::new();
    for book in [ours, theirs, base] {
        for rule in &book.rules {
            if !ids.contains(&&rule.id) {
                ids.push(&rule.id);
            }
        }
    }
    let mut merged = RuleBook::default();
    let mut conflicts = Vec::new();
    for id in ids {
        let (at_base, at_ours, at_theirs) = (
            rule_version(base, id),
            rule_version(ours, id),
            rule_version(theirs, id),
        );
        let (choice, both_changed) = choose(at_base, at_ours, at_theirs);
        let decisions_differ = match (at_ours, at_theirs) {
            (Some((mine, _)), Some((other, _))) => rule_decision(mine) != rule_decision(other),
            _ => true,
        };
        if both_changed && decisions_differ {
            let source = |r: &Rule| r.source.clone();
            conflicts.push(MergeConflict {
                key: id.clone(),
                ours: describe(at_ours, rule_decision, source),
                theirs: describe(at_theirs, rule_decision, source),
                kept: side(&choice),
            });
        }
        let kept = match choice {
            Choice::Ours => at_ours,
            Choice::Theirs => at_theirs,
        };
        if let Some((rule, at)) = kept {
            merged.put_at(merged.rules.len(), rule.clone(), at.map(str::to_owned));
        }
    }
    (merged, conflicts)
}

/// Git's merge driver: reads the base (`%O`), ours (`%A`) and theirs (`%B`), writes the merge
/// over ours and returns what both sides decided differently. `name` is the file's path in
/// the repository (`%P`), which says which registry it is; without it the content does.
/// Nothing is written when any version does not read.
pub fn merge_registry_files(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    name: Option<&str>,
) -> Result<(RegistryKind, Vec<MergeConflict>), ClassifyError> {
    let kind = match name {
        Some(n) if n.ends_with("rules.json") => RegistryKind::Rules,
        Some(n) if n.ends_with("known.json") => RegistryKind::Known,
        _ => {
            let all_known = [base, ours, theirs]
                .iter()
                .all(|p| KnownRegistry::load_file(p).is_ok());
            if all_known {
                RegistryKind::Known
            } else {
                RegistryKind::Rules
            }
        }
    };
    let conflicts = match kind {
        RegistryKind::Known => {
            let (merged, conflicts) = merge_known(
                &KnownRegistry::load_file(base)?,
                &KnownRegistry::load_file(ours)?,
                &KnownRegistry::load_file(theirs)?,
            );
            merged.save_file(ours)?;
            conflicts
        }
        RegistryKind::Rules => {
            let (merged, conflicts) = merge_rules(
                &RuleBook::load_file(base)?,
                &RuleBook::load_file(ours)?,
                &RuleBook::load_file(theirs)?,
            );
            merged.save_file(ours)?;
            conflicts
        }
    };
    Ok((kind, conflicts))
}
