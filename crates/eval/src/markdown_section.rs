//! `report.md`'s section on quality against labels, with the picture beside it.

use crate::EvalReport;
use crate::figure_format::{HEADERS, duration};

impl EvalReport {
    /// The section; `picture` is the SVG's path relative to report.md, when one was written.
    pub fn render_markdown(&self, picture: Option<&str>) -> String {
        let mut out = format!(
            "\n## Quality against labels\n\n{}.\n\n",
            capitalized(&self.provenance())
        );
        if let Some(picture) = picture {
            out.push_str(&format!(
                "![Confusion table and cost against quality per tier]({picture})\n\n"
            ));
        }
        out.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
        out.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
        for row in self.table_rows() {
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        out.push('\n');
        if !self.priced {
            out.push_str("Tokens and dollars were not read (the run has no transcripts).\n");
        }
        if let Some(seconds) = self.wall_seconds {
            out.push_str(&format!("Wall time {}.\n", duration(seconds)));
        }
        if let Some(protocol) = &self.protocol {
            out.push_str(&format!("Protocol: {}.\n", protocol.summary()));
        }
        out.push_str(
            "Unsafe closures: labelled real, closed as `false_positive` or `intended`. Every \
             figure is defined in reference/eval.md.\n",
        );
        out
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}
