//! The text `eval` prints: what was scored against what, then one aligned table of rows.

use crate::figure_format::{HEADERS, duration, row_cells};
use crate::{EvalReport, ScoreRow};

impl EvalReport {
    /// One line naming the corpus, the labels and the model, as every figure must.
    pub fn provenance(&self) -> String {
        format!(
            "corpus {}; labels {} ({}, {} labels, {} matched; {} of {} findings labelled{}); model {}",
            self.corpus,
            self.labels.source,
            self.labels.format.as_str(),
            self.labels.labels,
            self.labels.matched_labels,
            self.labels.labelled_findings,
            self.all.findings,
            match self.labels.conflicts {
                0 => String::new(),
                n => format!(", {n} with conflicting labels left out"),
            },
            self.model.describe()
        )
    }

    /// The rows in table order: all, then routes, then tiers, then the findings a second look
    /// checked by what their first look said (named `route X`, `tier X`, `checked X`).
    pub(crate) fn table_rows(&self) -> Vec<Vec<String>> {
        let named = |prefix: &str, row: &ScoreRow| {
            let mut cells = row_cells(row, self.priced);
            cells[0] = format!("{prefix}{}", row.name);
            cells
        };
        let mut rows = vec![named("", &self.all)];
        rows.extend(self.routes.iter().map(|r| named("route ", r)));
        rows.extend(self.tiers.iter().map(|r| named("tier ", r)));
        rows.extend(self.checked.iter().map(|r| named("checked ", r)));
        rows
    }

    /// What `eval` prints.
    pub fn render_text(&self) -> String {
        let mut out = format!("eval of run {}\n{}\n\n", self.run, self.provenance());
        let rows = self.table_rows();
        let widths: Vec<usize> = (0..HEADERS.len())
            .map(|c| {
                rows.iter()
                    .map(|r| r[c].chars().count())
                    .chain([HEADERS[c].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let mut text = String::new();
            for (c, cell) in cells.iter().enumerate() {
                if c == 0 {
                    text.push_str(&format!("{cell:<width$}", width = widths[c]));
                } else {
                    text.push_str(&format!("  {cell:>width$}", width = widths[c]));
                }
            }
            text.trim_end().to_owned() + "\n"
        };
        let headers: Vec<String> = HEADERS.iter().map(|h| (*h).to_owned()).collect();
        out.push_str(&line(&headers));
        for row in &rows {
            out.push_str(&line(row));
        }
        out.push('\n');
        if !self.priced {
            out.push_str(
                "tokens and dollars: not read (the run has no transcripts); agents are launches\n",
            );
        }
        if let Some(seconds) = self.wall_seconds {
            out.push_str(&format!("wall time {}\n", duration(seconds)));
        }
        if let Some(protocol) = &self.protocol {
            out.push_str(&format!("protocol: {}\n", protocol.summary()));
        }
        out.push_str("definitions: reference/eval.md\n");
        out
    }
}
