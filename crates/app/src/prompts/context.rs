//! What an item's prompt is rendered from: the run's state, its folder and the item, with the
//! sizes each part of a prompt may take (every prompt stays under the client's 30,000 characters).

use std::path::Path;

use self_repair_context::fenced_block;
use self_repair_engine::{
    FindingRecord, ItemKind, ItemStatus, PlanDepth, RunState, TriageResult, VerifyReason, WorkItem,
    ask_review, is_rework, needs_verification,
};
use self_repair_store::RunDir;
use serde_json::Value;

use crate::app_error::AppError;
use crate::prompts::finding_listing::{FINDINGS_PAGE, FindingListing};
use crate::prompts::item_focus::{angle_guide, planner_emphasis};
use crate::prompts::revision::Revision;
use crate::prompts::triage::{TaskFinding, candidate_duplicates, triage_data};
use crate::prompts::verdict_table::VerdictTable;

/// Most findings listed in a planner's prompt; above it, counts and a spread sample
/// (`FindingListing`).
const GROUP_FINDINGS: usize = FINDINGS_PAGE;

/// Most findings of an aggregator's slice listed in its prompt (the default slice is 40).
const SLICE_FINDINGS: usize = FINDINGS_PAGE;

/// Most findings listed in the prompts that also embed plans or reviews (synthesis, review,
/// task writing): the plans already say what the group is.
const GROUP_FINDINGS_WITH_PLANS: usize = 20;

/// Characters of other agents' documents (plans, reviews) one prompt embeds in all; each gets an
/// equal share, and a longer one is cut with a note naming its file (invariant 7: no prompt
/// grows with the size of the run or of a group).
const EMBEDDED_CHARS: usize = 18_000;

/// Most rows of the rule reviewer's verdict table (one row per rule and cause).
const RULE_REVIEW_ROWS: usize = 100;

/// Characters of the plan a revise step's prompt embeds, and of the reviews' points it lists
/// (shared equally; a longer point is cut with a note naming its review's file).
const REVISE_PLAN_CHARS: usize = 8_000;

const REVISE_ASK_CHARS: usize = 4_000;

const MIN_ASK_CHARS: usize = 100;

/// Characters of the revise step's answers (one line a point) in the task writer's prompt,
/// beside the revised plan's `REVISE_PLAN_CHARS`.
const OUTCOME_CHARS: usize = 5_000;

pub(crate) struct PromptContext<'a> {
    pub(crate) root: &'a Path,
    pub(crate) dir: &'a RunDir,
    pub(crate) state: &'a RunState,
    pub(crate) findings: &'a [FindingRecord],
}

impl PromptContext<'_> {
    pub(crate) fn vars(&self, item: &WorkItem) -> Result<(String, Vars), AppError> {
        match item.kind {
            ItemKind::Triage | ItemKind::TriageBatch | ItemKind::Verify => self.triage(item),
            ItemKind::RuleSurvey => crate::prompts::survey::survey_vars(
                self.root,
                self.dir,
                self.state,
                self.findings,
                item,
            ),
            ItemKind::Aggregate => Ok(self.aggregate_vars(item)),
            ItemKind::MergeLabels => Ok(self.merge_labels_vars(item)),
            ItemKind::RuleReview => Ok(self.rule_review_vars()),
            ItemKind::Plan => Ok(self.plan_vars(item)),
            ItemKind::Synthesize => Ok(self.synthesize_vars(item)),
            ItemKind::Review => Ok(self.review_vars(item)),
            ItemKind::Revise => Ok(self.revise_vars(item)),
            ItemKind::WriteTask => Ok(self.write_task_vars(item)),
        }
    }

    fn aggregate_vars(&self, item: &WorkItem) -> (String, Vars) {
        (
            "aggregate.md".to_owned(),
            vec![
                ("count", item.inputs().len().to_string()),
                (
                    "slice",
                    self.listing(item)
                        .render(SLICE_FINDINGS, &self.findings_command(item)),
                ),
            ],
        )
    }

    fn merge_labels_vars(&self, item: &WorkItem) -> (String, Vars) {
        let mut rows = String::new();
        for label in item.inputs() {
            let key = self_repair_engine::label_key(label);
            let (mut findings, mut cause) = (0, "");
            for p in &self.state.proposals {
                if self_repair_engine::label_key(&p.label) == key {
                    findings += p.members.len();
                    if cause.is_empty() {
                        cause = &p.root_cause;
                    }
                }
            }
            rows.push_str(&format!(
                "{label} | {findings} | {}\n",
                cause.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
        (
            "merge-labels.md".to_owned(),
            vec![
                ("count", item.inputs().len().to_string()),
                ("labels", fenced_block("text", &rows)),
            ],
        )
    }

    fn rule_review_vars(&self) -> (String, Vars) {
        let mut table = VerdictTable::default();
        let mut count = 0;
        for done in self.state.items[..self.state.triage_items as usize]
            .iter()
            .filter(|i| i.status == ItemStatus::Done)
        {
            table.add(done, self.record(done).map(|r| &r.finding));
            count += 1;
        }
        (
            "rule-review.md".to_owned(),
            vec![
                ("count", count.to_string()),
                (
                    "verdicts",
                    fenced_block("text", &table.render(RULE_REVIEW_ROWS)),
                ),
            ],
        )
    }

    fn plan_vars(&self, item: &WorkItem) -> (String, Vars) {
        let n = item.id.rsplit('-').next().unwrap_or("1").to_owned();
        let mut vars = self.group_vars(item, GROUP_FINDINGS);
        vars.push(("emphasis", planner_emphasis(n.parse().unwrap_or(1))));
        vars.push(("planner", n));
        let planners = self.planners(item);
        let peers = if planners > 1 {
            format!(
                "{planners} planners write competing plans for it; a synthesizer merges \
                 the best parts."
            )
        } else {
            "Yours is the group's only plan: a reviewer checks it, then it becomes the \
             task."
                .to_owned()
        };
        vars.push(("planners", planners.to_string()));
        vars.push(("peers", peers));
        ("plan.md".to_owned(), vars)
    }

    fn synthesize_vars(&self, item: &WorkItem) -> (String, Vars) {
        let mut vars = self.group_vars(item, GROUP_FINDINGS_WITH_PLANS);
        let share = EMBEDDED_CHARS / item.inputs().len().max(1);
        let plans: Vec<String> = item
            .inputs()
            .iter()
            .map(|p| match self.result_text(p, "md") {
                Some(text) => format!("### {p}\n\n{}", self.embed(&text, p, "md", share)),
                None => format!("### {p}\n\n(no plan: this planner failed)\n"),
            })
            .collect();
        vars.push(("plans", plans.join("\n")));
        ("synthesize.md".to_owned(), vars)
    }

    fn review_vars(&self, item: &WorkItem) -> (String, Vars) {
        let mut vars = self.group_vars(item, GROUP_FINDINGS_WITH_PLANS);
        let angle = show_angle(self.state, item);
        vars.push(("angle_guide", angle_guide(&angle)));
        vars.push(("angle", angle));
        vars.push(("plan", self.merged_plan(item, EMBEDDED_CHARS)));
        ("review.md".to_owned(), vars)
    }

    fn revise_vars(&self, item: &WorkItem) -> (String, Vars) {
        let mut vars = self.group_vars(item, GROUP_FINDINGS_WITH_PLANS);
        vars.push(("plan", self.merged_plan(item, REVISE_PLAN_CHARS)));
        vars.push(("points", self.asks(item)));
        vars.push(("approach", self.approach(item)));
        ("revise.md".to_owned(), vars)
    }

    fn write_task_vars(&self, item: &WorkItem) -> (String, Vars) {
        let mut vars = self.group_vars(item, GROUP_FINDINGS_WITH_PLANS);
        // The plan and its reviews share the room; the revise step adds no share.
        let reviews: Vec<&String> = item
            .depends_on()
            .iter()
            .skip(1)
            .filter(|d| ItemKind::of_id(d) == Some(ItemKind::Review))
            .collect();
        let share = EMBEDDED_CHARS / (reviews.len() + 1);
        let revision = self.group_id(item).and_then(|g| Revision::of(self.dir, &g));
        if let Some(revision) = revision {
            vars.push((
                "plan",
                format!(
                    "The plan as the revise step ({}) left it, the reviews' points \
                     answered:\n\n{}",
                    revision.item,
                    self.embed(&revision.plan, &revision.item, "json", REVISE_PLAN_CHARS)
                ),
            ));
            vars.push(("reviews", self.outcomes(&reviews, &revision)));
            return ("write-task.md".to_owned(), vars);
        }
        vars.push(("plan", self.merged_plan(item, share)));
        let reviews: Vec<String> = reviews
            .into_iter()
            .filter_map(|r| {
                let review = self.state.item(r)?;
                let angle = show_angle(self.state, review);
                Some(match self.result_text(r, "md") {
                    Some(text) => {
                        format!("### {angle} ({r})\n\n{}", self.embed(&text, r, "md", share))
                    }
                    None => {
                        format!("### {angle} ({r})\n\n(no review: this reviewer failed)\n")
                    }
                })
            })
            .collect();
        vars.push(("reviews", reviews.join("\n")));
        ("write-task.md".to_owned(), vars)
    }

    fn record(&self, item: &WorkItem) -> Option<&FindingRecord> {
        self.findings.get(item.finding? as usize)
    }

    /// `g1` for an item of group 1.
    fn group_id(&self, item: &WorkItem) -> Option<String> {
        let group = self
            .state
            .groups
            .get((item.group? as usize).checked_sub(1)?)?;
        Some(group.id.clone())
    }

    /// The points a revise step answers (`rev-g1-2.1`, `rev-g1-1.rework`), review by review:
    /// its angle and verdict, then each point under its id in one fenced block. They share
    /// `REVISE_ASK_CHARS` (at least `MIN_ASK_CHARS` each); a longer point is cut, and the
    /// heading names the file that holds the whole review.
    fn asks(&self, item: &WorkItem) -> String {
        let asks = item.inputs();
        if asks.is_empty() {
            return "(none: the reviews ask for no change)".to_owned();
        }
        let share = (REVISE_ASK_CHARS / asks.len()).max(MIN_ASK_CHARS);
        let mut by_review: Vec<(&str, Vec<&str>)> = Vec::new();
        for ask in asks {
            let review = ask_review(ask);
            match by_review.iter_mut().find(|(r, _)| *r == review) {
                Some((_, list)) => list.push(ask.as_str()),
                None => by_review.push((review, vec![ask.as_str()])),
            }
        }
        let mut out = Vec::with_capacity(by_review.len());
        for (review, list) in by_review {
            let parsed = crate::prompts::revision::review_asks(self.dir, review);
            let angle = self
                .state
                .item(review)
                .map(|r| show_angle(self.state, r))
                .unwrap_or_default();
            let mut cut_any = false;
            let mut lines = Vec::with_capacity(list.len());
            for ask in list {
                let text = match parsed.as_ref().and_then(|r| r.ask_text(ask)) {
                    // Its text is the verdict, already in the heading.
                    Some(_) if is_rework(ask) => "the verdict above: rework the plan".to_owned(),
                    Some(text) => text.to_owned(),
                    None => "(the review's text is missing)".to_owned(),
                };
                let shown = cut(&text, share);
                cut_any |= shown.ends_with('…');
                lines.push(format!("{ask}: {shown}"));
            }
            let whole = if cut_any {
                let file = self.dir.item_file(review, "md").map_or_else(
                    || format!("the result of {review}"),
                    |path| {
                        path.strip_prefix(self.root)
                            .unwrap_or(&path)
                            .display()
                            .to_string()
                    },
                );
                format!(" Points cut for length: the whole review is in `{file}`; Read it.")
            } else {
                String::new()
            };
            let verdict = parsed.map(|p| p.verdict_line).unwrap_or_default();
            out.push(format!(
                "### {review}: the {angle} review ({})\n\n{}{}",
                cut(&verdict, share),
                fenced_block("text", &lines.join("\n")),
                whole.trim_start()
            ));
        }
        out.join("\n")
    }

    /// How a revise step works on its plan: point by point, or reworked where a reviewer sent
    /// it back (its one trip back: no review follows).
    fn approach(&self, item: &WorkItem) -> String {
        let reworks: Vec<&str> = item
            .inputs()
            .iter()
            .filter(|a| is_rework(a))
            .map(|a| ask_review(a))
            .collect();
        if reworks.is_empty() {
            return "Apply each point to the plan as it stands and keep the rest of it.".to_owned();
        }
        let plans: Vec<String> = item
            .depends_on()
            .first()
            .and_then(|first| self.state.item(first))
            .map(|first| match first.kind {
                ItemKind::Synthesize => first.inputs().to_vec(),
                _ => Vec::new(),
            })
            .unwrap_or_default()
            .iter()
            .filter(|p| self.result_text(p, "md").is_some())
            .filter_map(|p| self.dir.item_file(p, "md"))
            .map(|path| {
                format!(
                    "`{}`",
                    path.strip_prefix(self.root).unwrap_or(&path).display()
                )
            })
            .collect();
        let sources = if plans.is_empty() {
            String::new()
        } else {
            format!(
                " The competing plans it was merged from are in {}, if a better start is there.",
                plans.join(", ")
            )
        };
        format!(
            "{} sent the plan back for rework: where a verdict says the approach is wrong, a \
             patch will not do, so rework those parts from the code (the whole plan if need \
             be), and answer the other points on the result. This is the plan's one trip back: \
             no review follows, and the revised plan goes to the task.{sources}",
            reworks.join(" and ")
        )
    }

    /// Each review's verdict and what the revise step did with each of its points, for the
    /// task writer: one line a point, the lines sharing `OUTCOME_CHARS` (the revised plan
    /// already says what each point became).
    fn outcomes(&self, reviews: &[&String], revision: &Revision) -> String {
        let share = (OUTCOME_CHARS / revision.points.len().max(1)).max(MIN_ASK_CHARS);
        let mut out = Vec::new();
        for review in reviews {
            let Some(item) = self.state.item(review) else {
                continue;
            };
            let angle = show_angle(self.state, item);
            let Some(asks) = crate::prompts::revision::review_asks(self.dir, review) else {
                out.push(format!(
                    "### {angle} ({review})\n\n(no review: this reviewer failed)\n"
                ));
                continue;
            };
            let verdict = if asks.verdict_line.is_empty() {
                "(not stated)".to_owned()
            } else {
                cut(&asks.verdict_line, share)
            };
            let mut lines = vec![format!("### {angle} ({review})\n\nVerdict: {verdict}")];
            for ask in asks.ask_ids(review) {
                let outcome = revision
                    .outcome_line(&ask)
                    .unwrap_or_else(|| "not answered by the revise step".to_owned());
                lines.push(format!("- {ask}: {}", cut(&outcome, share)));
            }
            out.push(lines.join("\n"));
        }
        out.join("\n\n")
    }

    /// A triage item's task, or a batch's: the members' rules and findings, on the template of
    /// the route.
    fn triage(&self, item: &WorkItem) -> Result<(String, Vars), AppError> {
        let ids: Vec<&str> = if matches!(item.kind, ItemKind::TriageBatch | ItemKind::Verify) {
            item.inputs().iter().map(std::ops::Deref::deref).collect()
        } else {
            vec![item.id.as_str()]
        };
        let mut members = Vec::with_capacity(ids.len());
        let security = item.route.as_deref() == Some("security");
        for id in ids {
            let record = self
                .state
                .item(id)
                .and_then(|m| self.record(m))
                .ok_or_else(|| {
                    AppError::NotFound(format!("{id}: its finding is missing from findings.json"))
                })?;
            let candidates = candidate_duplicates(self.state, self.findings, id, record);
            let test_code = security.then(|| {
                crate::prompts::triage::test_code_line(
                    &self.state.config.test_paths,
                    &record.finding.path,
                )
            });
            members.push(TaskFinding {
                id,
                record,
                candidates,
                test_code,
            });
        }
        let data = triage_data(self.root, self.dir, &members);
        let route = item.route.as_deref().unwrap_or("generic").to_owned();
        Ok((
            format!("triage-{route}.md"),
            vec![
                ("route", route),
                ("count", members.len().to_string()),
                ("rules", data.rules),
                ("findings", data.findings),
                (
                    "scope",
                    security_scope(&self.state.config.security_in_scope),
                ),
                ("claim", self.claim(item)),
                ("confidence", self.confidence_scale(item)),
            ],
        ))
    }

    /// For a first look (issue 48): what `confidence` means, so a model's number carries
    /// meaning, and what a low one costs. Neither the threshold (`verify_below`) nor which
    /// verdicts are checked whatever their confidence is said (issue 40: a published 0.8 was an
    /// invitation to answer 0.8). Empty for a second look: its confidence asks for nothing
    /// more.
    fn confidence_scale(&self, item: &WorkItem) -> String {
        let first_look = item.kind == ItemKind::Triage
            || (item.kind == ItemKind::TriageBatch
                && !self_repair_engine::holds_second_looks(item));
        if !first_look {
            return String::new();
        }
        let scale = "## How sure you are\n\n`confidence` is the chance your verdict is right: \
                     0.9 means you read what the finding needs and it settles it (wrong about one \
                     time in ten); 0.6 means a real doubt (something you could not read or check; \
                     wrong about four times in ten). Give the number you believe, not the one \
                     that sounds sure.";
        if self.state.config.verify_below <= 0.0 {
            return format!("{scale}\n\n");
        }
        format!(
            "{scale} A verdict given with low confidence, whatever it is, is checked by another \
             investigator before it stands (a `real` stays `real` only if that look agrees; \
             otherwise a person decides): a low number costs one more agent, an overstated one \
             lets a mistake stand unchecked.\n\n"
        )
    }

    /// What a verifier (`vf-`) is told of the first answer: a low-confidence dismissal is a
    /// claim to check, an `unsure` a look to deepen; a security second look, and the second
    /// look of a low-confidence `real` (issue 48), is blind: neither
    /// the first answer nor its direction is shown, and a batch of them is not said to share a
    /// rule (issue 40). Empty for the first investigation.
    fn claim(&self, item: &WorkItem) -> String {
        if self_repair_engine::holds_second_looks(item) {
            return format!(
                "## Decide each finding\n\nDecide each of these {} findings from its own code, \
                 on its own evidence: they are together to share one read of the code, not a \
                 verdict or a rule. If you cannot tell, answer `unsure`.\n\n",
                item.inputs().len()
            );
        }
        if item.kind != ItemKind::Verify {
            return String::new();
        }
        let Some(first_id) = item.inputs().first() else {
            return String::new();
        };
        let first = self
            .dir
            .read_result(first_id, "json")
            .and_then(|t| serde_json::from_str::<TriageResult>(&t).ok());
        let Some(first) = first else {
            return String::new();
        };
        let reason = needs_verification(
            self.state.config.verify_below,
            item.route.as_deref(),
            &first,
        );
        let stays_real = "If you cannot tell, answer `unsure`: a dismissal two investigators do \
                          not share does not stand, and the finding stays `real`.";
        match reason {
            Some(VerifyReason::SecurityDismissal | VerifyReason::LowConfidenceReal) => format!(
                "## Decide this finding\n\nDecide {first_id} from its own code, on your own \
                 evidence. If you cannot tell, answer `unsure`.\n\n"
            ),
            Some(VerifyReason::Unsure) => format!(
                "## A deeper look\n\nAn investigator could not decide {first_id} and answered \
                 `unsure`. Look deeper than it did, and decide on your own evidence; if you \
                 still cannot tell, answer `unsure`.\n\n\
                 ### What it found missing (data)\n\n{}\n",
                fenced_block("text", &first.reason)
            ),
            Some(VerifyReason::LowConfidence) | None => format!(
                "## A claim to check\n\nAnother investigator answered `{}` for {first_id} with \
                 confidence {}. Its reason is a claim, not evidence: check it against the code \
                 yourself, and answer `false_positive` or `intended` only when the code shows \
                 it; a right finding is `real`. {stays_real}\n\n### Its reason (data)\n\n{}\n",
                first.verdict.as_str(),
                first
                    .confidence
                    .map_or_else(|| "not given".to_owned(), |c| format!("{c:.2}")),
                fenced_block("text", &first.reason)
            ),
        }
    }

    fn group_vars(&self, item: &WorkItem, most: usize) -> Vars {
        let Some(group) = item
            .group
            .and_then(|g| self.state.groups.get(g as usize - 1))
        else {
            return vec![("group", String::new()), ("findings", String::new())];
        };
        vec![
            (
                "group",
                fenced_block(
                    "text",
                    &format!(
                        "group: {}\nlabel: {}\nroot cause: {}\nfindings: {}",
                        group.id,
                        group.label,
                        group.root_cause,
                        group.members.len()
                    ),
                ),
            ),
            (
                "findings",
                self.listing(item)
                    .render(most, &self.findings_command(item)),
            ),
        ]
    }

    fn listing<'s>(&'s self, item: &'s WorkItem) -> FindingListing<'s> {
        FindingListing::of(self.state, self.findings, self.dir, item)
    }

    /// `self-repair show ITEM --run RUN --findings`: how an agent pages through every finding.
    fn findings_command(&self, item: &WorkItem) -> String {
        format!(
            "self-repair show {} --run {} --findings",
            item.id, self.state.run
        )
    }

    /// Planners of the item's group: one for a light group (design note 22).
    fn planners(&self, item: &WorkItem) -> u32 {
        let group = item
            .group
            .and_then(|g| self.state.groups.get((g as usize).checked_sub(1)?));
        match group.map(|g| g.depth) {
            Some(PlanDepth::Light) => 1,
            _ => self.state.config.planners,
        }
    }

    /// The synthesizer's merged plan, or for a light group (one plan, no synthesis) its plan.
    fn merged_plan(&self, item: &WorkItem, share: usize) -> String {
        let Some(syn) = item.depends_on().first() else {
            return "(no merged plan)".to_owned();
        };
        if ItemKind::of_id(syn) == Some(ItemKind::Plan) {
            return self.result_text(syn, "md").map_or_else(
                || "(no plan: the planner failed)".to_owned(),
                |text| {
                    format!(
                        "The group's only plan ({syn}): a group this small gets one planner and \
                         no synthesis.\n\n{}",
                        self.embed(&text, syn, "md", share)
                    )
                },
            );
        }
        self.result_json(syn)
            .and_then(|v| {
                v["plan"]
                    .as_str()
                    .map(|p| self.embed(p, syn, "json", share))
            })
            .unwrap_or_else(|| "(no merged plan: the synthesizer failed)".to_owned())
    }

    /// Another agent's document as a fenced block of at most `share` characters; a longer one
    /// is cut at a line end, with a note naming the file that holds all of it.
    fn embed(&self, text: &str, id: &str, ext: &str, share: usize) -> String {
        let total = text.chars().count();
        if total <= share {
            return fenced_block("markdown", text);
        }
        let head: String = text.chars().take(share).collect();
        let head = head.rsplit_once('\n').map_or(head.as_str(), |(h, _)| h);
        let file = self.dir.item_file(id, ext).map_or_else(
            || format!("the result of {id}"),
            |path| {
                path.strip_prefix(self.root)
                    .unwrap_or(&path)
                    .display()
                    .to_string()
            },
        );
        format!(
            "{}(cut after {} of {total} characters: the whole text is in `{file}`; read it with \
             Read when the part above is not enough)\n",
            fenced_block("markdown", head),
            head.chars().count()
        )
    }

    fn result_text(&self, id: &str, ext: &str) -> Option<String> {
        self.dir.read_result(id, ext)
    }

    fn result_json(&self, id: &str) -> Option<Value> {
        serde_json::from_str(&self.result_text(id, "json")?).ok()
    }
}

/// The security template's scope paragraph: what is out of scope unless `security_in_scope`
/// names it.
fn security_scope(in_scope: &[self_repair_engine::SecurityScope]) -> String {
    let (inside, outside): (Vec<_>, Vec<_>) = self_repair_engine::SecurityScope::ALL
        .into_iter()
        .partition(|s| in_scope.contains(s));
    let mut text = String::new();
    if !outside.is_empty() {
        let names: Vec<&str> = outside.iter().map(|s| s.describe()).collect();
        text.push_str(&format!(
            "Out of scope in this project: {}. Answer such a finding `intended` with a reason \
             that starts \"out of scope:\" and says which; `submit` refuses \"out of scope: \
             test code\" for a finding that says `test code: no`.",
            names.join("; ")
        ));
    }
    if !inside.is_empty() {
        let names: Vec<&str> = inside.iter().map(|s| s.describe()).collect();
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&format!(
            "In scope here (the project's `security_in_scope`): {}.",
            names.join("; ")
        ));
    }
    text
}

/// `text` on one line, at most `most` characters (an ellipsis marks a cut).
pub(crate) fn cut(text: &str, most: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(most) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

pub(crate) type Vars = Vec<(&'static str, String)>;

/// The reviewer angle of a review item (`rev-g1-2` → the second configured angle).
pub(crate) fn show_angle(state: &RunState, item: &WorkItem) -> String {
    self_repair_engine::item_input(state, item)
        .angle
        .unwrap_or_default()
}

#[cfg(test)]
mod security_scope_tests {
    use self_repair_engine::SecurityScope;

    use super::security_scope;

    #[test]
    fn what_the_project_puts_in_scope_leaves_the_out_of_scope_list() {
        let default = security_scope(&[]);
        assert!(default.contains("test code") && default.contains("denial of service"));
        let dos = security_scope(&[SecurityScope::Dos]);
        let (out, inside) = dos.split_once("In scope here").unwrap();
        assert!(!out.contains("denial of service") && inside.contains("denial of service"));
        assert!(!security_scope(&SecurityScope::ALL).contains("Out of scope"));
    }
}
