//! A run's cost, kept up to date by the Stop hook: where each transcript was last read
//! (`cost.json`), what every read added (`cost.jsonl`, one line per part and model), and the
//! agent transcripts that can grow no more (`cost-closed.txt`). A stop reads only what the
//! transcripts grew by: the sub-agent folder is listed only when its mtime changed (a new
//! agent), and a transcript is stat'ed only while its agent may still write.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use self_repair_transcript::UsageCursor;

use crate::ledger_file::{read_ledger, write_ledger};
use crate::{CostError, CostRecord, MAIN_SESSION, PartCost, PriceTable};

/// Version of the `cost.json` layout.
pub const COST_SCHEMA_VERSION: u32 = 1;
/// Every read's usage, appended.
pub const RECORDS_FILE: &str = "cost.jsonl";
/// Agent transcripts read for the last time, one file name a line.
pub const CLOSED_FILE: &str = "cost-closed.txt";

/// Responses a saved cursor remembers: one transcript writes one response at a time, so only
/// the last can be split across two reads.
const SAVED_RESPONSES: usize = 2;

/// How long a file must have been left alone before its mtime is trusted to say it is done
/// changing: the client writes an agent's last response behind the stop that saw the agent
/// end, and a folder's mtime ticks coarsely (a file created in the tick of a listing leaves
/// it unchanged). Git's "racy" rule, with room for the client's buffered writes.
const QUIET: Duration = Duration::from_secs(2);

/// Whether `modified` is at least [`QUIET`] in the past.
fn quiet(modified: SystemTime) -> bool {
    SystemTime::now()
        .duration_since(modified)
        .is_ok_and(|age| age >= QUIET)
}

/// Where the main transcript was last read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MainCursor {
    pub path: PathBuf,
    pub cursor: UsageCursor,
}

/// The run's cost so far and where each transcript was last read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostLedger {
    pub schema_version: u32,
    /// The table that prices this run: the built-in one with the config's `prices`, frozen at
    /// `start`.
    pub prices: PriceTable,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main: Option<MainCursor>,
    /// The sub-agent folder's mtime (ns since the epoch) when it was last listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed_mtime_ns: Option<u64>,
    /// Agent transcripts that may still grow, by file name.
    #[serde(default)]
    pub open: BTreeMap<String, UsageCursor>,
    /// Agent transcripts read for the last time (their names are in `cost-closed.txt`).
    #[serde(default)]
    pub closed: u64,
    /// The whole run.
    #[serde(default)]
    pub total: PartCost,
    /// By part: `main session`, then each kind of item.
    #[serde(default)]
    pub parts: BTreeMap<String, PartCost>,
    /// Agents whose transcripts are closed, by part: what one finished agent of a kind costs
    /// on average (the budget's estimate).
    #[serde(default)]
    pub finished: BTreeMap<String, PartCost>,
    /// What each open agent transcript of this run has cost so far, by file name.
    #[serde(default)]
    pub open_cost: BTreeMap<String, PartCost>,
    /// Average USD of one agent by part, from the project's earlier runs (frozen at `start`).
    #[serde(default)]
    pub prior_per_agent: BTreeMap<String, f64>,
    /// Stops since the run ended. The reply to its closing line is written to the transcript
    /// after the stop that follows it: the hook reads through `READS_AFTER_END` stops and
    /// `status` reads on until the next one closes the run; what its session does after is
    /// not the run's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reads_after_end: u32,
    /// A run `merge` made: what each partition's run spent, by run id (already in `total`,
    /// `parts` and `finished`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub partitions: BTreeMap<String, PartCost>,
}

/// How the ledger tells which agent transcripts belong to the run and when they are final.
pub struct Attribution<'a> {
    pub run: &'a str,
    /// The part an item's cost rolls up into (its kind), or `None` for an id this run does not
    /// have.
    pub part_of: &'a dyn Fn(&str) -> Option<String>,
    /// Whether the item's agent has ended for good (not in flight, not listed as running):
    /// its transcript is read a last time and never stat'ed again.
    pub finished: &'a dyn Fn(&str) -> bool,
}

/// What one accounting pass found.
#[derive(Debug, Default)]
pub struct Accounted {
    pub records: Vec<CostRecord>,
    /// Agent transcripts read for the last time in this pass.
    pub closed: Vec<String>,
    /// Anything to save (an offset moved, a transcript opened or closed).
    pub changed: bool,
}

impl CostLedger {
    /// A new ledger pricing with `prices`.
    pub fn new(prices: PriceTable) -> CostLedger {
        CostLedger {
            schema_version: COST_SCHEMA_VERSION,
            prices,
            main: None,
            listed_mtime_ns: None,
            open: BTreeMap::new(),
            closed: 0,
            total: PartCost::default(),
            parts: BTreeMap::new(),
            finished: BTreeMap::new(),
            open_cost: BTreeMap::new(),
            prior_per_agent: BTreeMap::new(),
            reads_after_end: 0,
            partitions: BTreeMap::new(),
        }
    }

    /// The ledger of the run in `folder` (`cost.json`, else the previous one), or `None` when it
    /// has none (or an unreadable one: the caller starts a new one, and the run's cost is then
    /// read again from the transcripts).
    pub fn load(folder: &Path) -> Option<CostLedger> {
        read_ledger(folder)
    }

    /// Reads what the main transcript `main` and the agent transcripts beside it grew by since
    /// the last pass, and adds it to the totals. `folder` is the run folder (its
    /// `cost-closed.txt` is read when the agent folder must be listed again).
    pub fn account(&mut self, folder: &Path, main: &Path, who: &Attribution) -> Accounted {
        let mut out = Accounted::default();
        self.account_main(main, &mut out);
        let agents = main.with_extension("").join("subagents");
        self.list_new_agents(folder, &agents, &mut out);
        let names: Vec<String> = self.open.keys().cloned().collect();
        for name in names {
            self.account_agent(&agents, &name, who, &mut out);
        }
        out
    }

    fn account_main(&mut self, main: &Path, out: &mut Accounted) {
        if self.main.as_ref().is_none_or(|m| m.path != main) {
            // The first stop, or another session took the run over: its transcript is read from
            // its start; what the previous one cost stays counted.
            self.main = Some(MainCursor {
                path: main.to_path_buf(),
                cursor: UsageCursor::default(),
            });
            out.changed = true;
        }
        let Some(cursor) = self.main.as_mut().map(|m| &mut m.cursor) else {
            return;
        };
        if std::fs::metadata(main).is_ok_and(|m| m.len() == cursor.offset) {
            return;
        }
        let before = cursor.offset;
        let Ok(read) = cursor.read(main) else {
            return;
        };
        out.changed |= cursor.offset != before;
        for model in read {
            let usd = self.prices.cost(&model.model, &model.usage);
            self.add(MAIN_SESSION, &model.usage, usd);
            out.records.push(CostRecord {
                part: MAIN_SESSION.to_owned(),
                item: None,
                agent: None,
                model: model.model,
                usage: model.usage,
                usd,
            });
        }
    }

    /// Opens the agent transcripts that appeared since the last listing.
    fn list_new_agents(&mut self, folder: &Path, agents: &Path, out: &mut Accounted) {
        let Some(modified) = std::fs::metadata(agents).and_then(|m| m.modified()).ok() else {
            return;
        };
        let Some(mtime) = modified
            .duration_since(UNIX_EPOCH)
            .ok()
            .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        else {
            return;
        };
        if self.listed_mtime_ns == Some(mtime) {
            return;
        }
        let Ok(entries) = std::fs::read_dir(agents) else {
            return;
        };
        let closed = read_closed(folder);
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            // The client writes exactly `agent-<id>.jsonl`.
            if !(name.starts_with("agent-")
                && Path::new(&name).extension().is_some_and(|e| e == "jsonl"))
            {
                continue;
            }
            if self.open.contains_key(&name) || closed.contains(&name) {
                continue;
            }
            self.open.insert(name, UsageCursor::default());
            out.changed = true;
        }
        // A folder changed within QUIET may change again in the same mtime tick: list it again
        // at the next stop rather than trust its mtime.
        let listed = quiet(modified).then_some(mtime);
        out.changed |= listed != self.listed_mtime_ns;
        self.listed_mtime_ns = listed;
    }

    fn account_agent(&mut self, agents: &Path, name: &str, who: &Attribution, out: &mut Accounted) {
        let path = agents.join(name);
        let Some(cursor) = self.open.get_mut(name) else {
            return;
        };
        let Ok(metadata) = std::fs::metadata(&path) else {
            // Removed: nothing more to read.
            self.close(name, out);
            return;
        };
        let len = metadata.len();
        let attributed_before = cursor.item.is_some();
        let mut read = Vec::new();
        let grew = len != cursor.offset;
        if grew {
            let before = cursor.offset;
            match cursor.read(&path) {
                Ok(models) => read = models,
                Err(_) => return,
            }
            out.changed |= cursor.offset != before;
        }
        let item = cursor.item.clone();
        let ours = cursor.run.as_deref().is_none_or(|run| run == who.run);
        let part = item
            .as_deref()
            .filter(|_| ours)
            .and_then(|i| (who.part_of)(i));
        let Some(part) = part else {
            // Read past its first message and names no item of this run: not ours.
            if cursor.offset > 0 {
                self.close(name, out);
            }
            return;
        };
        let agent = name
            .strip_prefix("agent-")
            .and_then(|n| n.strip_suffix(".jsonl"))
            .unwrap_or(name)
            .to_owned();
        if !attributed_before {
            self.parts.entry(part.clone()).or_default().agents += 1;
            self.total.agents += 1;
        }
        for model in read {
            let usd = self.prices.cost(&model.model, &model.usage);
            self.add(&part, &model.usage, usd);
            self.open_cost
                .entry(name.to_owned())
                .or_default()
                .add_usage(&model.usage, usd);
            out.records.push(CostRecord {
                part: part.clone(),
                item: item.clone(),
                agent: Some(agent.clone()),
                model: model.model,
                usage: model.usage,
                usd,
            });
        }
        // Closed at the first stop that finds a finished agent's transcript unchanged and left
        // alone for QUIET: the client writes an agent's last lines behind the stop that saw it
        // end (release e2e runs on 2.1.330 lost a final response when it was closed sooner).
        let settled = !grew && metadata.modified().is_ok_and(quiet);
        if settled && item.as_deref().is_some_and(|i| (who.finished)(i)) {
            let mut cost = self.open_cost.remove(name).unwrap_or_default();
            cost.agents = 1;
            self.finished.entry(part).or_default().add(&cost);
            self.close(name, out);
        }
    }

    /// Average USD of one agent of each part: this run's finished agents', else all of this
    /// run's agents so far (some still running, so it may be low), else the earlier runs'.
    pub fn per_agent_usd(&self) -> BTreeMap<String, f64> {
        let mut average = self.prior_per_agent.clone();
        for (part, cost) in &self.parts {
            if part != MAIN_SESSION && cost.agents > 0 {
                average.insert(part.clone(), cost.usd / f64::from(cost.agents));
            }
        }
        for (part, cost) in &self.finished {
            if cost.agents > 0 {
                average.insert(part.clone(), cost.usd / f64::from(cost.agents));
            }
        }
        average
    }

    fn add(&mut self, part: &str, usage: &self_repair_transcript::Usage, usd: Option<f64>) {
        self.parts
            .entry(part.to_owned())
            .or_default()
            .add_usage(usage, usd);
        self.total.add_usage(usage, usd);
    }

    fn close(&mut self, name: &str, out: &mut Accounted) {
        self.open.remove(name);
        self.open_cost.remove(name);
        self.closed += 1;
        out.closed.push(name.to_owned());
        out.changed = true;
    }

    /// Appends `accounted`'s records and closed transcripts to the run folder, then replaces
    /// `cost.json` (in that order: a crash in between counts that read twice at worst, never
    /// loses it).
    pub fn save(&mut self, folder: &Path, accounted: &Accounted) -> Result<(), CostError> {
        if !accounted.records.is_empty() {
            let mut lines = Vec::new();
            for record in &accounted.records {
                serde_json::to_writer(&mut lines, record).map_err(CostError::encode)?;
                lines.push(b'\n');
            }
            append(&folder.join(RECORDS_FILE), &lines)?;
        }
        if !accounted.closed.is_empty() {
            let mut lines = String::new();
            for name in &accounted.closed {
                lines.push_str(name);
                lines.push('\n');
            }
            append(&folder.join(CLOSED_FILE), lines.as_bytes())?;
        }
        let cursors = self
            .open
            .values_mut()
            .chain(self.main.as_mut().map(|m| &mut m.cursor));
        for cursor in cursors {
            while cursor.recent.len() > SAVED_RESPONSES {
                cursor.recent.pop_front();
            }
        }
        let bytes = serde_json::to_vec(self).map_err(CostError::encode)?;
        write_ledger(folder, &bytes)
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Stops the hook reads after a run ended (see `reads_after_end`); the next one closes it.
pub const READS_AFTER_END: u32 = 2;

/// The records of every pass so far (`cost.jsonl`); a line that does not parse is skipped.
pub fn read_records(folder: &Path) -> Vec<CostRecord> {
    let Ok(text) = std::fs::read_to_string(folder.join(RECORDS_FILE)) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

fn read_closed(folder: &Path) -> HashSet<String> {
    std::fs::read_to_string(folder.join(CLOSED_FILE))
        .map(|text| text.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

pub(crate) fn append(path: &Path, bytes: &[u8]) -> Result<(), CostError> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(CostError::io("open", path))?;
    file.write_all(bytes)
        .map_err(CostError::io("append to", path))
}
