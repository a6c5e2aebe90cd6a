//! One code scanning category per tool in an export: GitHub refuses an upload holding two runs
//! of the same tool under the same category ("The `CodeQL` Action does not support uploading
//! multiple SARIF runs with the same category"), which is what a run started on two SARIF files
//! of one tool (Ruff run in two folders of a monorepo) would otherwise export.
//!
//! GitHub's rules (github/codeql-action `src/sarif/index.ts` and `src/upload-lib.ts`; the
//! 2025-07-21 changelog "code scanning will stop combining multiple SARIF runs uploaded in the
//! same SARIF file"): `upload-sarif` refuses a file two of whose runs have the same driver
//! `name`, `fullName`, `version`, `semanticVersion`, `guid` and `automationDetails.id`; then it
//! gives every run without `automationDetails` the workflow's `category`, and code scanning
//! refuses two runs of one tool whose category (the `automationDetails.id` up to its last `/`)
//! is the same. So the runs that would share a tool and a category each get their own
//! `automationDetails.id`, named after the input they came from (stable from one export to the
//! next); every other run is written as it was, its category still the workflow's.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::github_limits::LimitNotice;
use crate::raw_object::{RawObject, push_key};

/// Where an exported run came from, to name its category when it needs one of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RunOrigin {
    /// `runs[run]` of the SARIF input `source` (as given to `start`).
    Copied { source: String, run: usize },
    /// The run built for a tool's findings read from other formats.
    Built,
}

/// The fields of a run that decide its code scanning category.
#[derive(Debug, Default, Deserialize)]
struct RunHeader {
    #[serde(default)]
    tool: Option<ToolHeader>,
    #[serde(default, rename = "automationDetails")]
    automation_details: Option<Map<String, Value>>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolHeader {
    #[serde(default)]
    driver: Option<Map<String, Value>>,
}

impl RunHeader {
    fn driver_name(&self) -> Option<&str> {
        self.tool.as_ref()?.driver.as_ref()?.get("name")?.as_str()
    }

    fn automation_id(&self) -> Option<&str> {
        self.automation_details.as_ref()?.get("id")?.as_str()
    }
}

/// The category part of an `automationDetails.id`: everything up to its last `/`.
pub(crate) fn category_of(id: &str) -> &str {
    id.rfind('/').map_or("", |at| &id[..=at])
}

/// Gives each run that shares its tool and category with another run of `runs` an
/// `automationDetails.id` of its own (`origins[i]` says where `runs[i]` came from), and says
/// so in a notice per tool. A run that cannot be read as an object is left as it is.
pub(crate) fn distinct_categories(runs: &mut [String], origins: &[RunOrigin]) -> Vec<LimitNotice> {
    let headers: Vec<Option<RunHeader>> = runs
        .iter()
        .map(|run| serde_json::from_str(run).ok())
        .collect();
    // The runs of one tool whose category is the same (a run without an id gets the
    // workflow's category, the same for all of them).
    let mut slots: BTreeMap<(String, Option<String>), Vec<usize>> = BTreeMap::new();
    for (index, header) in headers.iter().enumerate() {
        let Some(header) = header else { continue };
        let name = header.driver_name().unwrap_or_default().to_owned();
        let category = header.automation_id().map(|id| category_of(id).to_owned());
        slots.entry((name, category)).or_default().push(index);
    }
    let mut taken: HashSet<String> = headers
        .iter()
        .flatten()
        .filter_map(|h| h.automation_id().map(str::to_owned))
        .collect();
    let mut notices = Vec::new();
    for ((name, category), members) in slots {
        if members.len() < 2 {
            continue;
        }
        let prefix = match category.as_deref() {
            Some(category) if !category.is_empty() => category.to_owned(),
            _ => format!("{}/", name.to_lowercase()),
        };
        let mut given = Vec::with_capacity(members.len());
        for &index in &members {
            let origin = origins.get(index).cloned().unwrap_or(RunOrigin::Built);
            let several_of_source = members
                .iter()
                .filter(|&&other| same_source(origins.get(other), Some(&origin)))
                .count()
                > 1;
            let mut id = match &origin {
                RunOrigin::Copied { source, run } if several_of_source => {
                    format!("{prefix}{source}/run-{run}/")
                }
                RunOrigin::Copied { source, .. } => format!("{prefix}{source}/"),
                RunOrigin::Built => format!("{prefix}other-formats/"),
            };
            let base = id.trim_end_matches('/').to_owned();
            let mut n = 2;
            while taken.contains(&id) {
                id = format!("{base}-{n}/");
                n += 1;
            }
            taken.insert(id.clone());
            if let Some(rewritten) = with_automation_id(&runs[index], &id) {
                runs[index] = rewritten;
                given.push(id);
            }
        }
        notices.push(LimitNotice {
            message: format!(
                "{name}: {} runs would share one code scanning category ({}), which GitHub \
                 refuses; each got its own `automationDetails.id`: {} (its alerts are tracked \
                 in that category; reference/export.md)",
                members.len(),
                category
                    .as_deref()
                    .map_or("the workflow's `category`".to_owned(), |c| format!("`{c}`")),
                given.join(", ")
            ),
        });
    }
    notices
}

fn same_source(a: Option<&RunOrigin>, b: Option<&RunOrigin>) -> bool {
    match (a, b) {
        (Some(RunOrigin::Copied { source: x, .. }), Some(RunOrigin::Copied { source: y, .. })) => {
            x == y
        }
        (Some(RunOrigin::Built), Some(RunOrigin::Built)) => true,
        _ => false,
    }
}

/// `run` with `automationDetails.id` set to `id` (its other members kept), the rest of the
/// run copied as it was.
fn with_automation_id(run: &str, id: &str) -> Option<String> {
    let object: RawObject<'_> = serde_json::from_str(run).ok()?;
    let mut details = match object.get("automationDetails") {
        Some(raw) => serde_json::from_str::<Map<String, Value>>(raw.get()).ok()?,
        None => Map::new(),
    };
    details.insert("id".into(), Value::String(id.to_owned()));
    let details = Value::Object(details).to_string();
    let mut out = String::with_capacity(run.len() + details.len() + 24);
    out.push('{');
    let mut wrote = false;
    for (n, (key, value)) in object.0.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        push_key(&mut out, key);
        if key == "automationDetails" {
            out.push_str(&details);
            wrote = true;
        } else {
            out.push_str(value.get());
        }
    }
    if !wrote {
        if !object.0.is_empty() {
            out.push(',');
        }
        push_key(&mut out, "automationDetails");
        out.push_str(&details);
    }
    out.push('}');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copied(source: &str, run: usize) -> RunOrigin {
        RunOrigin::Copied {
            source: source.to_owned(),
            run,
        }
    }

    fn id_of(run: &str) -> Option<String> {
        let value: Value = serde_json::from_str(run).ok()?;
        value["automationDetails"]["id"].as_str().map(str::to_owned)
    }

    #[test]
    fn the_category_is_the_id_up_to_its_last_slash() {
        assert_eq!(category_of("ruff/"), "ruff/");
        assert_eq!(
            category_of("my-analysis/tool1/2022-01-02"),
            "my-analysis/tool1/"
        );
        assert_eq!(category_of("no-slash"), "");
    }

    #[test]
    fn only_runs_sharing_a_tool_and_a_category_get_an_id_and_other_members_stay() {
        let mut runs = vec![
            r#"{"tool":{"driver":{"name":"Ruff"}},"results":[]}"#.to_owned(),
            r#"{"tool":{"driver":{"name":"Ruff"}},"automationDetails":{"description":{"text":"d"}},"results":[]}"#.to_owned(),
            r#"{"tool":{"driver":{"name":"CodeQL"}},"automationDetails":{"id":"py/"},"results":[]}"#.to_owned(),
        ];
        let origins = [
            copied("a/ruff.sarif", 0),
            copied("b/ruff.sarif", 0),
            copied("codeql.sarif", 0),
        ];
        let notices = distinct_categories(&mut runs, &origins);
        assert_eq!(id_of(&runs[0]).as_deref(), Some("ruff/a/ruff.sarif/"));
        assert_eq!(id_of(&runs[1]).as_deref(), Some("ruff/b/ruff.sarif/"));
        assert!(
            runs[1].contains(r#""description":{"text":"d"}"#),
            "{}",
            runs[1]
        );
        assert_eq!(id_of(&runs[2]).as_deref(), Some("py/"));
        assert_eq!(notices.len(), 1);
        assert!(
            notices[0].message.starts_with("Ruff: 2 runs"),
            "{}",
            notices[0].message
        );
    }

    #[test]
    fn the_same_file_given_twice_still_gets_two_ids() {
        let run = r#"{"tool":{"driver":{"name":"ruff"}},"results":[]}"#;
        let mut runs = vec![run.to_owned(), run.to_owned()];
        let origins = [copied("ruff.sarif", 0), copied("ruff.sarif", 0)];
        distinct_categories(&mut runs, &origins);
        let ids: Vec<Option<String>> = runs.iter().map(|r| id_of(r)).collect();
        assert_eq!(ids[0].as_deref(), Some("ruff/ruff.sarif/run-0/"));
        assert_eq!(ids[1].as_deref(), Some("ruff/ruff.sarif/run-0-2/"));
    }
}
