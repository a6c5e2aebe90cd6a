//! Snapshots of every output of an evaluation: the text table, `--json`, the markdown section
//! and the SVG, on the synthetic run of issue 34's error rates.

use crate::EvalReport;
use crate::synthetic_run::{ISSUE_34_PLAN, synthetic_run};

fn report(priced: bool) -> EvalReport {
    let (mut run, labels) = synthetic_run(&ISSUE_34_PLAN);
    run.priced = priced;
    EvalReport::of(&run, &labels).unwrap()
}

#[test]
fn text_table() {
    insta::assert_snapshot!("text", report(true).render_text());
    insta::assert_snapshot!("text_unpriced", report(false).render_text());
}

#[test]
fn json_carries_its_schema_version() {
    let json = serde_json::to_value(report(true)).unwrap();
    assert_eq!(json["schema_version"], crate::EVAL_SCHEMA_VERSION);
    insta::assert_json_snapshot!("json", json);
}

#[test]
fn markdown_section() {
    insta::assert_snapshot!("markdown", report(true).render_markdown(Some("eval.svg")));
}

#[test]
fn svg_picture() {
    let svg = report(true).render_svg();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(!svg.contains("http://") || svg.matches("http://").count() == 1);
    insta::assert_snapshot!("svg", svg);
    insta::assert_snapshot!("svg_unpriced", report(false).render_svg());
}

/// A run whose findings cost nothing still draws its points on the plot, at 0.
#[test]
fn a_run_that_cost_nothing_is_drawn_without_dividing_by_zero() {
    let mut report = report(true);
    let nothing = crate::SpendPer {
        agents: 0.0,
        tokens: 0.0,
        usd: 0.0,
    };
    for row in report.tiers.iter_mut().chain([&mut report.all]) {
        row.per_finding = Some(nothing);
    }
    let svg = report.render_svg();
    assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
}
