//! The one picture of an evaluation, as a self-contained SVG (no script, no font file, no
//! network): the confusion table of the whole run, and each tier's cost against its strict
//! score.

use crate::figure_format::percent;
use crate::{EvalReport, ScoreRow};

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 360.0;
/// The plot's frame: left, top, right, bottom.
const PLOT: (f64, f64, f64, f64) = (450.0, 80.0, 730.0, 290.0);

impl EvalReport {
    /// The picture, as SVG text.
    pub fn render_svg(&self) -> String {
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
             viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"12\">\n\
             <rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>\n"
        );
        svg.push_str(&text(
            20.0,
            24.0,
            "start",
            "font-size=\"15\" font-weight=\"bold\"",
            &format!("self-repair eval of run {}: {}", self.run, self.corpus),
        ));
        svg.push_str(&text(
            20.0,
            44.0,
            "start",
            "fill=\"#555555\"",
            &format!(
                "labels {} ({} of {} findings labelled); model {}",
                self.labels.source,
                self.labels.labelled_findings,
                self.all.findings,
                self.model.describe()
            ),
        ));
        self.confusion_table(&mut svg);
        self.cost_plot(&mut svg);
        svg.push_str("</svg>\n");
        svg
    }

    fn confusion_table(&self, svg: &mut String) {
        let c = &self.all.confusion;
        let (left, top, cell_w, cell_h) = (130.0, 100.0, 90.0, 56.0);
        svg.push_str(&text(
            20.0,
            80.0,
            "start",
            "font-weight=\"bold\"",
            "All findings: label against end",
        ));
        for (i, head) in ["kept (real)", "closed", "abstained"].iter().enumerate() {
            svg.push_str(&text(
                left + cell_w * (i as f64 + 0.5),
                top - 8.0,
                "middle",
                "",
                head,
            ));
        }
        let rows = [
            (
                "labelled real",
                [
                    (c.real_kept, "correct", "#c8e6c9"),
                    (c.real_closed, "unsafe closure", "#ef9a9a"),
                    (c.real_abstained, "abstained", "#eeeeee"),
                ],
            ),
            (
                "labelled false",
                [
                    (c.false_kept, "false alarm", "#ffe0b2"),
                    (c.false_closed, "correct", "#c8e6c9"),
                    (c.false_abstained, "abstained", "#eeeeee"),
                ],
            ),
        ];
        for (r, (name, cells)) in rows.iter().enumerate() {
            let y = top + cell_h * r as f64;
            svg.push_str(&text(left - 8.0, y + cell_h / 2.0 + 4.0, "end", "", name));
            for (i, (count, meaning, fill)) in cells.iter().enumerate() {
                let x = left + cell_w * i as f64;
                svg.push_str(&format!(
                    "<rect x=\"{x}\" y=\"{y}\" width=\"{cell_w}\" height=\"{cell_h}\" fill=\"{fill}\" \
                     stroke=\"#ffffff\" stroke-width=\"2\"/>\n"
                ));
                svg.push_str(&text(
                    x + cell_w / 2.0,
                    y + 26.0,
                    "middle",
                    "font-size=\"18\" font-weight=\"bold\"",
                    &count.to_string(),
                ));
                svg.push_str(&text(
                    x + cell_w / 2.0,
                    y + 44.0,
                    "middle",
                    "fill=\"#444444\"",
                    meaning,
                ));
            }
        }
        let a = &self.all;
        let lines = [
            format!(
                "precision {}   recall {}",
                percent(a.precision),
                percent(a.recall)
            ),
            format!(
                "strict {}   decided-only {}",
                percent(a.strict_score),
                percent(a.decided_score)
            ),
            format!(
                "unsafe closures {} of {} real; false alarms {} of {} false",
                a.unsafe_closures,
                c.real(),
                a.false_alarms,
                c.false_()
            ),
        ];
        for (i, line) in lines.iter().enumerate() {
            svg.push_str(&text(
                20.0,
                top + 2.0 * cell_h + 30.0 + 18.0 * i as f64,
                "start",
                "",
                line,
            ));
        }
    }

    fn cost_plot(&self, svg: &mut String) {
        let (left, top, right, bottom) = PLOT;
        let unit = if self.priced {
            "$ per finding"
        } else {
            "agents per finding"
        };
        let cost = |row: &ScoreRow| {
            row.per_finding
                .map(|p| if self.priced { p.usd } else { p.agents })
        };
        // Each tier as a dot, the whole run as a square.
        let points: Vec<(&ScoreRow, bool, f64, f64)> = self
            .tiers
            .iter()
            .map(|row| (row, false))
            .chain([(&self.all, true)])
            .filter_map(|(row, all)| Some((row, all, cost(row)?, row.strict_score?)))
            .collect();
        let max = points.iter().map(|p| p.2).fold(0.0_f64, f64::max);
        let x_max = if max > 0.0 { max * 1.35 } else { 1.0 };
        let x_of = |v: f64| left + (right - left) * v / x_max;
        let y_of = |v: f64| bottom - (bottom - top) * v;
        svg.push_str(&text(
            left,
            top - 20.0,
            "start",
            "font-weight=\"bold\"",
            "Cost against quality, by tier",
        ));
        svg.push_str(&format!(
            "<path d=\"M{left} {top} V{bottom} H{right}\" fill=\"none\" stroke=\"#333333\"/>\n"
        ));
        for score in [0.0, 0.5, 1.0] {
            let y = y_of(score);
            svg.push_str(&format!(
                "<path d=\"M{left} {y} H{right}\" stroke=\"#dddddd\"/>\n"
            ));
            svg.push_str(&text(left - 6.0, y + 4.0, "end", "", &percent(Some(score))));
        }
        let x_label = |v: f64| {
            if self.priced {
                format!("${v:.3}")
            } else {
                format!("{v:.2}")
            }
        };
        svg.push_str(&text(left, bottom + 16.0, "middle", "", &x_label(0.0)));
        svg.push_str(&text(right, bottom + 16.0, "middle", "", &x_label(x_max)));
        svg.push_str(&text(
            left.midpoint(right),
            bottom + 34.0,
            "middle",
            "",
            unit,
        ));
        svg.push_str(&text(
            left - 54.0,
            top.midpoint(bottom),
            "middle",
            &format!(
                "transform=\"rotate(-90 {} {})\"",
                left - 54.0,
                top.midpoint(bottom)
            ),
            "strict score",
        ));
        if points.is_empty() {
            svg.push_str(&text(
                left.midpoint(right),
                top.midpoint(bottom),
                "middle",
                "fill=\"#777777\"",
                "no tier has both a cost and a score",
            ));
        }
        for (row, all, x, y) in points {
            let (px, py) = (x_of(x), y_of(y));
            if all {
                svg.push_str(&format!(
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"#333333\"/>\n",
                    px - 5.0,
                    py - 5.0
                ));
            } else {
                svg.push_str(&format!(
                    "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"6\" fill=\"#1565c0\"/>\n"
                ));
            }
            svg.push_str(&text(
                px + 9.0,
                py - 7.0,
                "start",
                "",
                &format!("{} {}", row.name, percent(Some(y))),
            ));
        }
    }
}

/// A `<text>` element; `extra` holds further attributes.
fn text(x: f64, y: f64, anchor: &str, extra: &str, content: &str) -> String {
    format!(
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" {extra}>{}</text>\n",
        escape(content)
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
