//! `self-repair rules list|accept|reject` and `self-repair known add|list`: the deterministic
//! classification a user manages between runs.

use self_repair_classify::{KnownEntry, KnownRegistry, Rule, RuleBook, RuleStatus};
use self_repair_engine::Verdict;
use self_repair_store::Project;
use serde::Serialize;

use crate::{AppError, read_findings};

fn usage(e: self_repair_classify::ClassifyError) -> AppError {
    match e {
        self_repair_classify::ClassifyError::NoSuchRule(_) => AppError::NotFound(e.to_string()),
        other => AppError::Usage(other.to_string()),
    }
}

/// Every rule, hand-written and proposed.
pub fn rules_list(project: &Project) -> Result<Vec<Rule>, AppError> {
    Ok(RuleBook::load(&project.store_dir()).map_err(usage)?.rules)
}

/// The text of `rules list`.
pub fn render_rules(rules: &[Rule]) -> String {
    if rules.is_empty() {
        return "no rules yet: a finalized run proposes some; see reference/config.md for hand-written ones\n"
            .to_owned();
    }
    let mut out = String::new();
    for rule in rules {
        let outcome = rule
            .verdict
            .map(|v| format!("verdict {}", v.as_str()))
            .or_else(|| rule.route.as_ref().map(|r| format!("route {r}")))
            .unwrap_or_default();
        let when = serde_json::to_string(&rule.when).unwrap_or_default();
        out.push_str(&format!(
            "{}  [{}]  {}\n    when {when} → {outcome}\n",
            rule.id,
            rule.status.as_str(),
            rule.name
        ));
        if let Some(m) = &rule.measured {
            out.push_str(&format!(
                "    measured on {}: {} match(es), {} agreed with the agents, accuracy {:.0}%{}\n",
                m.run,
                m.matches,
                m.agreed,
                m.accuracy * 100.0,
                if m.disagreements.is_empty() {
                    String::new()
                } else {
                    format!("; disagreed on {}", m.disagreements.join(", "))
                }
            ));
        }
    }
    out
}

/// Accepts or rejects a rule; accepted rules apply from the next `start`.
pub fn rules_set(project: &Project, id: &str, status: RuleStatus) -> Result<String, AppError> {
    let store = project.store_dir();
    let mut book = RuleBook::load(&store).map_err(usage)?;
    book.set_status(id, status).map_err(usage)?;
    let line = format!(
        "rule {id} is now {}{}",
        status.as_str(),
        if status == RuleStatus::Accepted {
            ": it decides matching findings from the next `self-repair start`"
        } else {
            ""
        }
    );
    book.save(&store).map_err(usage)?;
    Ok(line)
}

/// One registry entry, for `known list`.
#[derive(Debug, Clone, Serialize)]
pub struct KnownLine {
    pub fingerprint: String,
    #[serde(flatten)]
    pub entry: KnownEntry,
}

/// Every entry of `known.json`.
pub fn known_list(project: &Project) -> Result<Vec<KnownLine>, AppError> {
    let known = KnownRegistry::load(&project.store_dir()).map_err(usage)?;
    Ok(known
        .entries
        .into_iter()
        .map(|(fingerprint, entry)| KnownLine { fingerprint, entry })
        .collect())
}

/// The text of `known list`.
pub fn render_known(lines: &[KnownLine]) -> String {
    if lines.is_empty() {
        return "known.json is empty: a finalized run or `self-repair known add` fills it\n"
            .to_owned();
    }
    let mut out = String::new();
    for l in lines {
        let proposed = if l.entry.proposed {
            " [proposed: `self-repair known accept` or `reject`]"
        } else {
            ""
        };
        let e = &l.entry;
        let mut by = vec![e.source.clone()];
        by.extend(e.item.clone());
        by.extend(e.model.clone());
        by.extend(e.confidence.map(|c| format!("confidence {c:.2}")));
        by.extend(e.lines.as_ref().map(|lines| format!("on {lines}")));
        out.push_str(&format!(
            "{} {}{proposed} ({}): {} — {}\n",
            l.fingerprint,
            e.verdict.as_str(),
            by.join(", "),
            e.summary,
            e.reason
        ));
    }
    out
}

/// Records a decision by hand: `target` is a fingerprint, or a triage item id of the active
/// (or given) run.
pub fn known_add(
    project: &Project,
    run: Option<&str>,
    target: &str,
    verdict: &str,
    reason: &str,
) -> Result<String, AppError> {
    let verdict = Verdict::parse(verdict).ok_or_else(|| {
        AppError::Usage(format!(
            "--verdict {verdict}: use one of {}",
            Verdict::ALL.map(Verdict::as_str).join(", ")
        ))
    })?;
    if reason.trim().is_empty() {
        return Err(AppError::Usage(
            "--reason: say why, for the next reader".to_owned(),
        ));
    }
    let (fingerprint, summary) = resolve_target(project, run, target)?;
    let store = project.store_dir();
    let mut known = KnownRegistry::load(&store).map_err(usage)?;
    known.insert(
        fingerprint.clone(),
        KnownEntry {
            verdict,
            reason: reason.trim().to_owned(),
            source: "manual".to_owned(),
            summary,
            proposed: false,
            // A person's decision holds until they remove it.
            item: None,
            model: None,
            confidence: None,
            lines: None,
            code: None,
            fixed: None,
        },
    );
    known.save(&store).map_err(usage)?;
    Ok(format!(
        "known: {fingerprint} is {} from the next `self-repair start`",
        verdict.as_str()
    ))
}

/// `known accept`: a proposed security dismissal decides from the next `start`.
pub fn known_accept(
    project: &Project,
    run: Option<&str>,
    target: &str,
) -> Result<String, AppError> {
    change_known(project, run, target, |known, fingerprint| {
        let entry = known.entries.get_mut(fingerprint)?;
        let verdict = entry.verdict.as_str();
        if !entry.proposed {
            return Some(format!("known: {fingerprint} already decides ({verdict})"));
        }
        entry.proposed = false;
        Some(format!(
            "known: {fingerprint} is {verdict} from the next `self-repair start` (accepted)"
        ))
    })
}

/// `known remove` (and `reject`): forgets a decision, so the finding is triaged again from the
/// next `start`.
pub fn known_remove(
    project: &Project,
    run: Option<&str>,
    target: &str,
) -> Result<String, AppError> {
    change_known(project, run, target, |known, fingerprint| {
        let entry = known.remove(fingerprint)?;
        Some(format!(
            "known: {fingerprint} forgotten (it was {} by {}); the next `self-repair start` \
             triages it again",
            entry.verdict.as_str(),
            entry.source
        ))
    })
}

/// Applies `change` to the entry of `target` and saves; `change` answers `None` when there is
/// no entry (exit 4, nothing written).
fn change_known(
    project: &Project,
    run: Option<&str>,
    target: &str,
    change: impl FnOnce(&mut KnownRegistry, &str) -> Option<String>,
) -> Result<String, AppError> {
    let (fingerprint, _) = resolve_target(project, run, target)?;
    let store = project.store_dir();
    let mut known = KnownRegistry::load(&store).map_err(usage)?;
    let Some(said) = change(&mut known, &fingerprint) else {
        return Err(AppError::NotFound(format!(
            "known.json has no decision for {fingerprint}; `self-repair known list` shows what it has"
        )));
    };
    known.save(&store).map_err(usage)?;
    Ok(said)
}

fn resolve_target(
    project: &Project,
    run: Option<&str>,
    target: &str,
) -> Result<(String, String), AppError> {
    let is_fingerprint = target.len() == 16 && target.bytes().all(|b| b.is_ascii_hexdigit());
    if is_fingerprint {
        return Ok((target.to_ascii_lowercase(), String::new()));
    }
    let dir = project.run_or_active(run)?;
    let findings = read_findings(&dir)?;
    let record = findings
        .iter()
        .find(|r| r.item.as_deref() == Some(target))
        .ok_or_else(|| {
            AppError::NotFound(format!(
                "`{target}` is neither a fingerprint (16 hex digits) nor a triage item of run {}",
                dir.id()
            ))
        })?;
    let f = &record.finding;
    Ok((
        record.fingerprint.clone(),
        format!("{} {} {}: {}", f.tool, f.rule_id, f.path, f.message),
    ))
}
