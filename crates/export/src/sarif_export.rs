//! `export sarif`: a run's findings as SARIF 2.1.0. A SARIF input's runs are copied through
//! verbatim (driver, rules, locations, `partialFingerprints`, code flows) with each decided
//! result given its verdict; findings of other formats become one run per tool. Runs that would
//! share a tool and a code scanning category get one each (`run_categories`).

use std::collections::{HashMap, HashSet};

use self_repair_engine::{FindingRecord, Level};
use self_repair_report::RunReport;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::disposition::Disposition;
use crate::export_error::ExportError;
use crate::github_limits::{LOCATIONS_PER_RESULT, LimitNotice, check_file, fit_results};
use crate::input_index::IndexedInput;
use crate::raw_object::{RawObject, push_key};
use crate::result_entry::ResultEntry;
use crate::run_categories::{RunOrigin, distinct_categories};

/// The schema every export names.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The key under which findings of non-SARIF inputs carry self-repair's fingerprint.
const FINGERPRINT_KEY: &str = "selfRepair/v1";

/// A SARIF input of the run: its index entry and the text of its verbatim copy.
#[derive(Debug, Clone, Copy)]
pub struct SarifSource<'a> {
    pub input: &'a IndexedInput,
    pub text: &'a str,
}

/// What an export holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportCounts {
    /// SARIF runs written.
    pub runs: usize,
    /// Of them, copied from a SARIF input.
    pub copied_runs: usize,
    /// Results written.
    pub results: usize,
    /// Results given a suppression (`false_positive`, `intended`).
    pub suppressed: usize,
    /// Real results linked to their task.
    pub linked: usize,
}

/// The SARIF text, what it holds, and the GitHub limits it met.
#[derive(Debug, Clone)]
pub struct SarifExport {
    pub text: String,
    pub counts: ExportCounts,
    pub notices: Vec<LimitNotice>,
}

/// Writes `report`'s verdicts onto the run's findings (`records`, the run's `findings.json`):
/// the results of each of `sources` in place, every other occurrence in a run of its tool.
pub fn export_sarif(
    report: &RunReport,
    records: &[FindingRecord],
    sources: &[SarifSource<'_>],
) -> Result<SarifExport, ExportError> {
    export_sarif_audited(report, records, sources, None)
}

/// [`export_sarif`] for a run whose dismissals a team's audit gate holds back (`unaudited`
/// says why): each is written with no suppression, its verdict kept and
/// `properties["self-repair"].audit` set to `unaudited`, with the reason in `auditNote`.
pub fn export_sarif_audited(
    report: &RunReport,
    records: &[FindingRecord],
    sources: &[SarifSource<'_>],
    unaudited: Option<&str>,
) -> Result<SarifExport, ExportError> {
    let tasks = report.tasks.iter().map(|t| (t.group.as_str(), t)).collect();
    let outcome_of: HashMap<&str, usize> = report
        .findings
        .iter()
        .enumerate()
        .map(|(i, o)| (&*o.fingerprint, i))
        .collect();
    let dispositions: Vec<Option<Disposition>> = records
        .iter()
        .map(|r| {
            let outcome = &report.findings[*outcome_of.get(r.fingerprint.as_str())?];
            let mut disposition = Disposition::of(&report.run, outcome, &tasks);
            if let Some(note) = unaudited {
                disposition.hold_unaudited(note);
            }
            Some(disposition)
        })
        .collect();
    let mut writer = Writer {
        records,
        dispositions: &dispositions,
        runs: Vec::new(),
        origins: Vec::new(),
        counts: ExportCounts::default(),
        notices: Vec::new(),
    };
    let mut covered: HashSet<[u32; 2]> = HashSet::new();
    for source in sources {
        writer.copy_source(source)?;
        covered.extend(source.input.findings.iter().copied());
    }
    writer.build_runs(&covered);
    let categories = distinct_categories(&mut writer.runs, &writer.origins);
    writer.notices.extend(categories);
    let mut text = String::with_capacity(writer.runs.iter().map(String::len).sum::<usize>() + 128);
    text.push_str(&format!(
        "{{\"$schema\":\"{SCHEMA}\",\"version\":\"2.1.0\",\"runs\":[\n"
    ));
    text.push_str(&writer.runs.join(",\n"));
    text.push_str("\n]}\n");
    writer.counts.runs = writer.runs.len();
    let mut notices = writer.notices;
    notices.extend(check_file(writer.counts.runs, text.len()));
    Ok(SarifExport {
        text,
        counts: writer.counts,
        notices,
    })
}

/// The runs written so far and their counts.
struct Writer<'r> {
    records: &'r [FindingRecord],
    dispositions: &'r [Option<Disposition>],
    runs: Vec<String>,
    /// Where each of `runs` came from (parallel to it).
    origins: Vec<RunOrigin>,
    counts: ExportCounts,
    notices: Vec<LimitNotice>,
}

/// Only the driver's name, for messages.
#[derive(Deserialize)]
struct ToolName {
    driver: DriverName,
}

#[derive(Deserialize)]
struct DriverName {
    #[serde(default)]
    name: Option<String>,
}

impl Writer<'_> {
    /// Copies every run of a SARIF input, writing each decided result's verdict onto it.
    fn copy_source(&mut self, source: &SarifSource<'_>) -> Result<(), ExportError> {
        let bad = |problem: String| ExportError::BadCopy {
            input: source.input.source.clone(),
            copy: source.input.copy.clone().unwrap_or_default(),
            problem,
        };
        let log: RawObject<'_> =
            serde_json::from_str(source.text).map_err(|e| bad(e.to_string()))?;
        let runs: Vec<RawObject<'_>> = match log.get("runs") {
            Some(raw) => serde_json::from_str(raw.get()).map_err(|e| bad(e.to_string()))?,
            None => return Err(bad("it has no `runs`".to_owned())),
        };
        let record_at: HashMap<[u32; 2], [u32; 2]> = source
            .input
            .results
            .iter()
            .copied()
            .zip(source.input.findings.iter().copied())
            .collect();
        let mut members: Vec<Option<String>> = vec![None; self.records.len()];
        for (run_index, run) in runs.iter().enumerate() {
            let tool = run
                .get("tool")
                .and_then(|raw| serde_json::from_str::<ToolName>(raw.get()).ok())
                .and_then(|t| t.driver.name)
                .unwrap_or_else(|| "sarif".to_owned());
            let results: Vec<&RawValue> = match run.get("results") {
                Some(raw) => serde_json::from_str::<Option<Vec<&RawValue>>>(raw.get())
                    .map_err(|e| bad(format!("runs[{run_index}].results: {e}")))?
                    .unwrap_or_default(),
                None => Vec::new(),
            };
            let mut entries = Vec::with_capacity(results.len());
            for (index, raw) in results.into_iter().enumerate() {
                let at = [run_index as u32, index as u32];
                let decided = record_at.get(&at).and_then(|[record, _]| {
                    let record = *record as usize;
                    Some((
                        record,
                        self.records.get(record)?,
                        self.dispositions.get(record)?.as_ref()?,
                    ))
                });
                let Some((at_record, record, disposition)) = decided else {
                    entries.push(match record_at.get(&at) {
                        Some([record, _]) => ResultEntry::open(
                            raw.get(),
                            self.records
                                .get(*record as usize)
                                .map_or(Level::Warning, |r| r.finding.level),
                        ),
                        None => ResultEntry::closed(raw.get()),
                    });
                    continue;
                };
                let json = self
                    .decided_result(&tool, raw, disposition, &mut members[at_record])
                    .map_err(|e| bad(format!("runs[{run_index}].results[{index}]: {e}")))?;
                entries.push(ResultEntry::decided(
                    json,
                    record.finding.level,
                    disposition,
                ));
            }
            let results = self.finish_results(&tool, entries);
            let mut out = String::from("{");
            let mut first = true;
            let mut wrote_results = false;
            for (key, value) in &run.0 {
                if !first {
                    out.push(',');
                }
                first = false;
                push_key(&mut out, key);
                if key == "results" {
                    out.push_str(&results);
                    wrote_results = true;
                } else {
                    out.push_str(value.get());
                }
            }
            if !wrote_results {
                if !first {
                    out.push(',');
                }
                push_key(&mut out, "results");
                out.push_str(&results);
            }
            out.push('}');
            self.runs.push(out);
            self.origins.push(RunOrigin::Copied {
                source: source.input.source.clone(),
                run: run_index,
            });
            self.counts.copied_runs += 1;
        }
        Ok(())
    }

    /// A decided result's JSON: the original text with the disposition's members appended when
    /// it has none of them and few enough locations (no parse into values), else rewritten.
    fn decided_result(
        &mut self,
        tool: &str,
        raw: &RawValue,
        disposition: &Disposition,
        members: &mut Option<String>,
    ) -> Result<String, serde_json::Error> {
        let object: RawObject<'_> = serde_json::from_str(raw.get())?;
        let locations = match object.get("locations") {
            Some(list) => {
                serde_json::from_str::<Option<Vec<&RawValue>>>(list.get())?.map_or(0, |l| l.len())
            }
            None => 0,
        };
        let text = raw.get().trim_end();
        let plain = !object.0.is_empty()
            && object.get("suppressions").is_none()
            && object.get("properties").is_none()
            && locations <= LOCATIONS_PER_RESULT
            && text.ends_with('}');
        if plain {
            let added = members.get_or_insert_with(|| disposition.members_text());
            let mut json = String::with_capacity(text.len() + added.len() + 1);
            json.push_str(&text[..text.len() - 1]);
            json.push(',');
            json.push_str(added);
            json.push('}');
            return Ok(json);
        }
        let mut value: Value = serde_json::from_str(raw.get())?;
        disposition.apply(&mut value);
        self.fit_locations(tool, &mut value);
        Ok(value.to_string())
    }

    /// Cuts a result's `locations` to what GitHub accepts.
    fn fit_locations(&mut self, tool: &str, result: &mut Value) {
        let Some(Value::Array(locations)) = result.get_mut("locations") else {
            return;
        };
        if locations.len() <= LOCATIONS_PER_RESULT {
            return;
        }
        let total = locations.len();
        locations.truncate(LOCATIONS_PER_RESULT);
        self.notices.push(LimitNotice {
            message: format!(
                "{tool}: a result has {total} locations, but GitHub code scanning accepts at most \
                 {LOCATIONS_PER_RESULT}: the first {LOCATIONS_PER_RESULT} were kept"
            ),
        });
    }

    /// Fits a run's results to GitHub's limit, counts them and joins them into a JSON array.
    fn finish_results(&mut self, tool: &str, entries: Vec<ResultEntry<'_>>) -> String {
        let (entries, notice) = fit_results(tool, entries);
        self.notices.extend(notice);
        self.counts.results += entries.len();
        self.counts.suppressed += entries.iter().filter(|e| e.dismissed).count();
        self.counts.linked += entries.iter().filter(|e| e.linked).count();
        let mut out = String::from("[\n");
        for (i, entry) in entries.iter().enumerate() {
            if i > 0 {
                out.push_str(",\n");
            }
            out.push_str(&entry.json);
        }
        out.push_str("\n]");
        out
    }

    /// One run per tool for the occurrences no SARIF input holds, in first-seen order.
    fn build_runs(&mut self, covered: &HashSet<[u32; 2]>) {
        let mut tools: Vec<BuiltRun<'_>> = Vec::new();
        for (record_index, record) in self.records.iter().enumerate() {
            for occurrence in 0..record.occurrences.len().max(1) {
                if covered.contains(&[record_index as u32, occurrence as u32]) {
                    continue;
                }
                let tool = record.finding.tool.as_str();
                let at = tools
                    .iter()
                    .position(|t| t.tool == tool)
                    .unwrap_or_else(|| {
                        tools.push(BuiltRun {
                            tool,
                            rules: Vec::new(),
                            results: Vec::new(),
                        });
                        tools.len() - 1
                    });
                tools[at].results.push((record_index, occurrence));
            }
        }
        for mut built in tools {
            let places = std::mem::take(&mut built.results);
            let mut entries = Vec::with_capacity(places.len());
            for (record_index, occurrence) in places {
                let record = &self.records[record_index];
                let rule_index = built.rule_index(record);
                let mut result = built_result(record, occurrence, rule_index);
                let disposition = self.dispositions[record_index].as_ref();
                if let Some(disposition) = disposition {
                    disposition.apply(&mut result);
                }
                let json = result.to_string();
                entries.push(match disposition {
                    Some(disposition) => {
                        ResultEntry::decided(json, record.finding.level, disposition)
                    }
                    None => ResultEntry::open(json, record.finding.level),
                });
            }
            let results = self.finish_results(built.tool, entries);
            let driver = json!({
                "name": built.tool,
                "rules": built.rules,
            });
            let mut out = String::from("{\"tool\":{\"driver\":");
            out.push_str(&driver.to_string());
            out.push_str("},\"results\":");
            out.push_str(&results);
            out.push('}');
            self.runs.push(out);
            self.origins.push(RunOrigin::Built);
        }
    }
}

/// A run made for one tool's findings.
struct BuiltRun<'r> {
    tool: &'r str,
    rules: Vec<Value>,
    results: Vec<(usize, usize)>,
}

impl BuiltRun<'_> {
    /// The index of the record's rule in this run's `rules`, added when new.
    fn rule_index(&mut self, record: &FindingRecord) -> usize {
        let id = record.finding.rule_id.as_str();
        if let Some(at) = self
            .rules
            .iter()
            .position(|r| r.get("id").and_then(Value::as_str) == Some(id))
        {
            return at;
        }
        let mut rule = Map::new();
        rule.insert("id".into(), json!(id));
        if let Some(uri) = record
            .finding
            .help_uri
            .as_deref()
            .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
        {
            rule.insert("helpUri".into(), json!(uri));
        }
        self.rules.push(Value::Object(rule));
        self.rules.len() - 1
    }
}

/// The SARIF result of a record's `occurrence` (the first one carries the end of its region).
fn built_result(record: &FindingRecord, occurrence: usize, rule_index: usize) -> Value {
    let finding = &record.finding;
    let place = record.occurrences.get(occurrence);
    let path = place.map_or(finding.path.as_str(), |o| o.path.as_str());
    let line = place.map_or(finding.line, |o| o.line);
    let column = place.map_or(finding.column, |o| o.column);
    let mut result = json!({
        "ruleId": finding.rule_id,
        "ruleIndex": rule_index,
        "level": finding.level.as_str(),
        "message": {"text": finding.message},
        "partialFingerprints": {FINGERPRINT_KEY: record.fingerprint},
    });
    if path != "." && !path.is_empty() {
        let mut physical = json!({"artifactLocation": {"uri": path_to_uri(path)}});
        if let Some(line) = line.filter(|l| *l > 0) {
            let mut region = Map::new();
            region.insert("startLine".into(), json!(line));
            if let Some(column) = column.filter(|c| *c > 0) {
                region.insert("startColumn".into(), json!(column));
            }
            if occurrence == 0 {
                let end_line = finding.end_line.filter(|e| *e >= line);
                if let Some(end_line) = end_line {
                    region.insert("endLine".into(), json!(end_line));
                }
                let end_column = finding.end_column.filter(|e| {
                    end_line.is_some_and(|l| l > line) || column.is_none_or(|c| *e > c)
                });
                if let (Some(end_column), true) = (end_column, column.is_some()) {
                    region.insert("endColumn".into(), json!(end_column));
                }
            }
            physical["region"] = Value::Object(region);
        }
        result["locations"] = json!([{ "physicalLocation": physical }]);
    }
    result
}

/// A project-relative path as a relative URI reference: bytes outside RFC 3986's unreserved
/// and sub-delimiter sets (and `/`, `:`, `@`) percent-encoded.
fn path_to_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        let plain = byte.is_ascii_alphanumeric()
            || matches!(
                byte,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'/'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'@'
            );
        if plain {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
