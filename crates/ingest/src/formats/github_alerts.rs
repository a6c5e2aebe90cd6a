//! GitHub code scanning alerts → findings: the JSON of the "List code scanning alerts for a
//! repository" endpoint as `gh api --paginate` prints it.
//!
//! One page is a JSON array of alerts; `--paginate` prints the pages one after another
//! (`[...][...]`, or one array a line), `--slurp` wraps them in one more array, and `--jq '.[]'`
//! prints the alerts as objects one after another: all four are read. Only `open` alerts are
//! findings (dismissed, fixed and closed ones were decided already); an alert listed twice (the
//! list moved while it was paged) counts once.
//!
//! Each finding is what the analyzer's own SARIF result gives for the same problem (tool name
//! lowercased, rule id, path, start line, message text), so both fingerprint alike; the alert's
//! `number` and `html_url` go along, so `export github-dismissals` dismisses by number.

use std::collections::{BTreeSet, HashSet};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use self_repair_engine::{Finding, Level};

use crate::format::Format;
use crate::formats::borrowed_text::Text;
use crate::ingest_error::IngestError;
use crate::json_document::{parse_document, without_position};
use crate::parsed::{RULE_TEXT_CHARS, RuleText};
use crate::path_resolver::PathResolver;

/// The shape the input must have, for error messages.
pub(crate) const EXPECTED: &str = r#"the JSON of `gh api --paginate repos/OWNER/REPO/code-scanning/alerts`: one or more arrays of alerts such as [{"number":4,"html_url":"https://github.com/o/r/security/code-scanning/4","state":"open","rule":{"id":"js/zipslip","severity":"error"},"tool":{"name":"CodeQL"},"most_recent_instance":{"message":{"text":"..."},"location":{"path":"src/a.js","start_line":3}}}]"#;

/// How deep pages may nest (`--slurp` adds one array around the pages).
const MAX_NESTING: usize = 2;

/// What the alerts gave.
pub(crate) struct AlertsRead {
    pub(crate) findings: Vec<Finding>,
    /// Each finding's alert number (`findings[i]` came from alert `alerts[i]`).
    pub(crate) alerts: Vec<u64>,
    pub(crate) rule_texts: Vec<RuleText>,
    /// Alerts left out because they are not open (dismissed or fixed), each counted once.
    pub(crate) not_open: usize,
}

/// One alert; only what a finding needs is read, everything else is ignored.
#[derive(Debug, Deserialize)]
struct Alert<'a> {
    number: u64,
    #[serde(default, borrow)]
    html_url: Option<Text<'a>>,
    #[serde(default, borrow)]
    state: Option<Text<'a>>,
    #[serde(default, borrow)]
    rule: Option<AlertRule<'a>>,
    #[serde(default, borrow)]
    tool: Option<AlertTool<'a>>,
    #[serde(default, borrow)]
    most_recent_instance: Option<AlertInstance<'a>>,
}

#[derive(Debug, Default, Deserialize)]
struct AlertRule<'a> {
    #[serde(default, borrow)]
    id: Option<Text<'a>>,
    #[serde(default, borrow)]
    name: Option<Text<'a>>,
    #[serde(default, borrow)]
    severity: Option<Text<'a>>,
    #[serde(default, borrow)]
    security_severity_level: Option<Text<'a>>,
    #[serde(default, borrow)]
    tags: Option<Vec<Text<'a>>>,
    #[serde(default, borrow)]
    description: Option<Text<'a>>,
    #[serde(default, borrow)]
    full_description: Option<Text<'a>>,
    #[serde(default, borrow)]
    help: Option<Text<'a>>,
    #[serde(default, borrow)]
    help_uri: Option<Text<'a>>,
}

#[derive(Debug, Default, Deserialize)]
struct AlertTool<'a> {
    #[serde(default, borrow)]
    name: Option<Text<'a>>,
    #[serde(default, borrow)]
    version: Option<Text<'a>>,
}

#[derive(Debug, Default, Deserialize)]
struct AlertInstance<'a> {
    #[serde(default, borrow)]
    message: Option<AlertMessage<'a>>,
    #[serde(default)]
    location: Option<AlertLocation<'a>>,
}

#[derive(Debug, Default, Deserialize)]
struct AlertMessage<'a> {
    #[serde(default, borrow)]
    text: Option<Text<'a>>,
}

#[derive(Debug, Default, Deserialize)]
struct AlertLocation<'a> {
    #[serde(default, borrow)]
    path: Option<Text<'a>>,
    #[serde(default)]
    start_line: Option<u32>,
    #[serde(default)]
    end_line: Option<u32>,
    #[serde(default)]
    start_column: Option<u32>,
    #[serde(default)]
    end_column: Option<u32>,
}

/// Reads every page of alerts in `text`.
pub(crate) fn parse_github_alerts(
    text: &str,
    paths: &PathResolver,
) -> Result<AlertsRead, IngestError> {
    let mut read = AlertsRead {
        findings: Vec::new(),
        alerts: Vec::new(),
        rule_texts: Vec::new(),
        not_open: 0,
    };
    let mut seen = HashSet::new();
    let mut described = BTreeSet::new();
    let stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    for (page, value) in stream.enumerate() {
        let value = value.map_err(|error| IngestError::BadDocument {
            input: paths.input().to_owned(),
            format: Format::GithubAlerts,
            location: format!(
                "page {}, line {} column {}",
                page + 1,
                error.line(),
                error.column()
            ),
            problem: without_position(&error),
            expected: EXPECTED,
        })?;
        let mut alerts = Vec::new();
        collect_alerts(value, &format!("page {}", page + 1), 0, paths, &mut alerts)?;
        for (place, alert) in alerts {
            if !seen.insert(alert.number) {
                continue;
            }
            if !is_open(&alert) {
                read.not_open += 1;
                continue;
            }
            let finding = finding_of(&alert, paths, &place)?;
            if let Some(text) = rule_text(&alert, &finding, &mut described) {
                read.rule_texts.push(text);
            }
            read.alerts.push(alert.number);
            read.findings.push(finding);
        }
    }
    Ok(read)
}

/// The alerts in one JSON value: an alert object, or an array of alerts or of pages.
fn collect_alerts<'a>(
    value: &'a RawValue,
    place: &str,
    depth: usize,
    paths: &PathResolver,
    out: &mut Vec<(String, Alert<'a>)>,
) -> Result<(), IngestError> {
    let text = value.get();
    let located = |error: IngestError| match error {
        IngestError::BadDocument {
            input,
            format,
            location,
            problem,
            expected,
        } => IngestError::BadDocument {
            input,
            format,
            location: format!("{place}: {location}"),
            problem,
            expected,
        },
        other => other,
    };
    if text.starts_with('{') {
        let alert: Alert<'a> =
            parse_document(text, Format::GithubAlerts, paths.input(), EXPECTED).map_err(located)?;
        out.push((place.to_owned(), alert));
        return Ok(());
    }
    if !text.starts_with('[') || depth >= MAX_NESTING {
        return Err(IngestError::BadDocument {
            input: paths.input().to_owned(),
            format: Format::GithubAlerts,
            location: place.to_owned(),
            problem: "neither an alert object nor an array of alerts".to_owned(),
            expected: EXPECTED,
        });
    }
    let items: Vec<&'a RawValue> =
        parse_document(text, Format::GithubAlerts, paths.input(), EXPECTED).map_err(located)?;
    for (index, item) in items.into_iter().enumerate() {
        collect_alerts(item, &format!("{place}[{index}]"), depth + 1, paths, out)?;
    }
    Ok(())
}

/// An alert without a state is taken as open: the endpoint lists open ones by default.
fn is_open(alert: &Alert<'_>) -> bool {
    alert.state.as_deref().is_none_or(|state| state == "open")
}

/// The finding of an open alert, as the analyzer's own SARIF result would give it.
fn finding_of(
    alert: &Alert<'_>,
    paths: &PathResolver,
    place: &str,
) -> Result<Finding, IngestError> {
    let rule = alert.rule.as_ref();
    let rule_id = rule
        .and_then(|r| r.id.as_deref().or(r.name.as_deref()))
        .filter(|id| !id.is_empty())
        .unwrap_or("unknown")
        .to_owned();
    let tool = alert
        .tool
        .as_ref()
        .and_then(|t| t.name.as_deref())
        .map_or_else(|| "sarif".to_owned(), str::to_lowercase);
    let instance = alert.most_recent_instance.as_ref();
    let message = instance
        .and_then(|i| i.message.as_ref())
        .and_then(|m| m.text.as_deref())
        .or_else(|| rule.and_then(|r| r.description.as_deref()))
        .map_or_else(|| rule_id.clone(), str::to_owned);
    let location = instance.and_then(|i| i.location.as_ref());
    let path = match location.and_then(|l| l.path.as_deref()) {
        Some(path) => paths.resolve_path(path, || {
            format!(
                "{place} (alert {}): most_recent_instance.location.path",
                alert.number
            )
        })?,
        None => ".".to_owned(),
    };
    let level = rule
        .and_then(|r| r.severity.as_deref())
        .and_then(Level::parse)
        .unwrap_or(Level::Warning);
    let symbol = crate::symbol_hint::infer_symbol(&tool, &rule_id, &message);
    Ok(Finding {
        raw: Some(raw_of(alert)),
        help_uri: rule
            .and_then(|r| r.help_uri.as_deref())
            .filter(|uri| !uri.is_empty())
            .map(str::to_owned),
        line: location.and_then(|l| l.start_line),
        column: location.and_then(|l| l.start_column),
        end_line: location.and_then(|l| l.end_line),
        end_column: location.and_then(|l| l.end_column),
        fix: None,
        tool,
        rule_id,
        level,
        message,
        path,
        symbol,
    })
}

/// What routing and the investigator read (as SARIF's rule properties give them: `tags`, and a
/// `security-severity` score: the lower bound of GitHub's band for the alert's level, since
/// the alert names the band, not the score), plus the alert itself.
fn raw_of(alert: &Alert<'_>) -> Value {
    let mut raw = Map::new();
    let rule = alert.rule.as_ref();
    if let Some(tags) = rule.and_then(|r| r.tags.as_ref()) {
        let tags: Vec<&str> = tags.iter().map(|t| &**t).collect();
        raw.insert("tags".into(), json!(tags));
    }
    let level = rule.and_then(|r| r.security_severity_level.as_deref());
    if let Some(score) = level.and_then(band_floor) {
        raw.insert("security-severity".into(), json!(score));
    }
    let mut github = Map::new();
    github.insert("number".into(), json!(alert.number));
    if let Some(url) = &alert.html_url {
        github.insert("url".into(), json!(&**url));
    }
    if let Some(level) = level {
        github.insert("securitySeverityLevel".into(), json!(level));
    }
    if let Some(version) = alert.tool.as_ref().and_then(|t| t.version.as_deref()) {
        github.insert("toolVersion".into(), json!(version));
    }
    raw.insert("githubAlert".into(), Value::Object(github));
    Value::Object(raw)
}

/// The lowest `security-severity` score of GitHub's band: critical over 9.0, high 7.0 to 8.9,
/// medium 4.0 to 6.9, low 0.1 to 3.9.
fn band_floor(level: &str) -> Option<&'static str> {
    match level.to_ascii_lowercase().as_str() {
        "critical" => Some("9.0"),
        "high" => Some("7.0"),
        "medium" => Some("4.0"),
        "low" => Some("0.1"),
        _ => None,
    }
}

/// The rule's own description, once a rule: `help` when it says more than a line, else
/// `full_description`, else `help`, else `description`; cut to [`RULE_TEXT_CHARS`].
fn rule_text(
    alert: &Alert<'_>,
    finding: &Finding,
    described: &mut BTreeSet<(String, String)>,
) -> Option<RuleText> {
    let rule = alert.rule.as_ref()?;
    let pick = |text: &Option<Text<'_>>| {
        text.as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    };
    let help = pick(&rule.help);
    let text = help
        .clone()
        .filter(|h| h.len() > 80)
        .or_else(|| pick(&rule.full_description))
        .or(help)
        .or_else(|| pick(&rule.description))?;
    if !described.insert((finding.tool.clone(), finding.rule_id.clone())) {
        return None;
    }
    let mut kept: String = text.chars().take(RULE_TEXT_CHARS).collect();
    if kept.len() < text.len() {
        kept.push('…');
    }
    Some(RuleText {
        tool: finding.tool.clone(),
        rule_id: finding.rule_id.clone(),
        text: kept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest_options::IngestOptions;

    fn read(text: &str) -> Result<AlertsRead, IngestError> {
        let options = IngestOptions::new("alerts.json", "/proj");
        parse_github_alerts(text, &PathResolver::new(&options))
    }

    fn alert(number: u64, state: &str) -> String {
        format!(
            r#"{{"number":{number},"state":"{state}","rule":{{"id":"py/x","severity":"warning"}},
               "tool":{{"name":"CodeQL"}},"most_recent_instance":{{"message":{{"text":"m {number}"}},
               "location":{{"path":"a.py","start_line":{number}}}}}}}"#
        )
    }

    #[test]
    fn pages_back_to_back_on_lines_slurped_or_as_objects_all_read() -> Result<(), IngestError> {
        let (a, b, c) = (alert(1, "open"), alert(2, "open"), alert(3, "open"));
        for text in [
            format!("[{a},{b}][{c}]"),
            format!("[{a},{b}]\n[{c}]\n"),
            format!("[[{a},{b}],[{c}]]"),
            format!("{a}\n{b}\n{c}\n"),
        ] {
            let read = read(&text)?;
            assert_eq!(read.alerts, [1, 2, 3], "{text}");
            assert_eq!(read.findings[2].line, Some(3));
        }
        Ok(())
    }

    #[test]
    fn only_open_alerts_are_findings_and_a_repeated_alert_counts_once() -> Result<(), IngestError> {
        let text = format!(
            "[{},{},{}][{},{}]",
            alert(1, "open"),
            alert(2, "dismissed"),
            alert(3, "fixed"),
            alert(1, "open"),
            alert(4, "open")
        );
        let read = read(&text)?;
        assert_eq!(read.alerts, [1, 4]);
        assert_eq!(
            read.not_open, 2,
            "the dismissed and the fixed alert are counted"
        );
        Ok(())
    }

    #[test]
    fn a_bad_alert_is_named_by_page_and_place() {
        let text = format!(
            r#"[{}][{},{{"number":"x"}}]"#,
            alert(1, "open"),
            alert(2, "open")
        );
        let error = read(&text).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("page 2[1]"), "{error}");
        assert!(error.contains("number"), "{error}");
        let error = read("[1]").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("page 1[0]"), "{error}");
        assert!(error.contains("neither an alert object"), "{error}");
    }

    #[test]
    fn security_severity_level_becomes_a_score_routing_reads() -> Result<(), IngestError> {
        let text = r#"[{"number":9,"state":"open","html_url":"https://github.com/o/r/security/code-scanning/9",
            "rule":{"id":"js/xss","severity":"error","security_severity_level":"high","tags":["security"]},
            "tool":{"name":"CodeQL","version":"2.20.0"},
            "most_recent_instance":{"message":{"text":"m"},"location":{"path":"a.js","start_line":1}}}]"#;
        let finding = &read(text)?.findings[0];
        assert_eq!(finding.level, Level::Error);
        assert_eq!(
            finding.raw,
            Some(json!({
                "tags": ["security"],
                "security-severity": "7.0",
                "githubAlert": {"number": 9, "url": "https://github.com/o/r/security/code-scanning/9",
                                "securitySeverityLevel": "high", "toolVersion": "2.20.0"}
            }))
        );
        Ok(())
    }

    /// A rule's help link is kept unless empty, and its text is cut to
    /// [`RULE_TEXT_CHARS`] with an ellipsis only when it is longer.
    #[test]
    fn an_empty_help_link_is_none_and_only_a_long_rule_text_is_cut() -> Result<(), IngestError> {
        let long = "x".repeat(RULE_TEXT_CHARS + 1);
        // Help of more than a line (80 characters) wins over the full description; one of a
        // line does not.
        let line = "h".repeat(80);
        let help = "h".repeat(81);
        let text = format!(
            r#"[{{"number":1,"state":"open","rule":{{"id":"py/a","help":"short help","help_uri":""}},
               "tool":{{"name":"CodeQL"}},"most_recent_instance":{{"message":{{"text":"m"}},
               "location":{{"path":"a.py","start_line":1}}}}}},
               {{"number":2,"state":"open","rule":{{"id":"py/b","description":"{long}","help_uri":"https://x.example/b"}},
               "tool":{{"name":"CodeQL"}},"most_recent_instance":{{"message":{{"text":"m"}},
               "location":{{"path":"a.py","start_line":2}}}}}},
               {{"number":3,"state":"open","rule":{{"id":"py/c","help":"{line}","full_description":"the full one"}},
               "tool":{{"name":"CodeQL"}},"most_recent_instance":{{"message":{{"text":"m"}},
               "location":{{"path":"a.py","start_line":3}}}}}},
               {{"number":4,"state":"open","rule":{{"id":"py/d","help":"{help}","full_description":"the full one"}},
               "tool":{{"name":"CodeQL"}},"most_recent_instance":{{"message":{{"text":"m"}},
               "location":{{"path":"a.py","start_line":4}}}}}}]"#
        );
        let read = read(&text)?;
        let links: Vec<Option<&str>> = read
            .findings
            .iter()
            .map(|f| f.help_uri.as_deref())
            .collect();
        assert_eq!(links, [None, Some("https://x.example/b"), None, None]);
        let texts: Vec<(&str, String)> = read
            .rule_texts
            .iter()
            .map(|t| (t.rule_id.as_str(), t.text.clone()))
            .collect();
        let mut cut = "x".repeat(RULE_TEXT_CHARS);
        cut.push('…');
        assert_eq!(
            texts,
            [
                ("py/a", "short help".to_owned()),
                ("py/b", cut),
                ("py/c", "the full one".to_owned()),
                ("py/d", help)
            ]
        );
        Ok(())
    }

    /// Each of GitHub's severity bands becomes the lowest score of its band, whatever its
    /// case; another word gives none.
    #[test]
    fn each_severity_band_becomes_its_lowest_score() {
        for (level, score) in [
            ("critical", Some("9.0")),
            ("high", Some("7.0")),
            ("Medium", Some("4.0")),
            ("low", Some("0.1")),
            ("none", None),
            ("", None),
        ] {
            assert_eq!(band_floor(level), score, "{level}");
        }
    }

    /// Pages may hold pages (`--slurp` of `--paginate`), no deeper.
    #[test]
    fn alerts_nested_deeper_than_pages_of_pages_are_refused() {
        let a = alert(1, "open");
        assert!(read(&format!("[[{a}]]")).is_ok());
        let error = read(&format!("[[[{a}]]]"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("neither an alert object"), "{error}");
    }
}
