//! The labels readers: every shape corpora ship, and the line of the first bad label.

use crate::{EvalError, LabelFormat, LabelKey, LabelSet};

/// The head of the OWASP Benchmark's `expectedresults-1.2.csv`, in its own layout.
const OWASP_HEAD: &str =
    "# test name, category, real vulnerability, cwe, Benchmark version: 1.2, 2016-06-1
BenchmarkTest00001,pathtraver,true,22
BenchmarkTest00002,pathtraver,true,22
BenchmarkTest00003,hash,true,328
BenchmarkTest00006,cmdi,false,78
";

#[test]
fn reads_the_owasp_benchmark_expected_results() {
    let set = LabelSet::parse("expectedresults-1.2.csv", OWASP_HEAD).unwrap();
    assert_eq!(set.format, LabelFormat::Csv);
    assert_eq!(set.labels.len(), 4);
    let last = &set.labels[3];
    assert_eq!(
        last.key,
        LabelKey::Case {
            name: "BenchmarkTest00006".to_owned(),
            rule: None
        }
    );
    assert!(!last.real);
    assert_eq!(last.cwe, Some(78));
    assert_eq!(last.category.as_deref(), Some("cmdi"));
    assert_eq!(last.source_line, 5);
}

#[test]
fn reads_per_finding_csv_with_quotes_and_any_column_order() {
    let text = "label,path,line,rule_id,cwe,note\r\n\
                real,src/app.py,12,B602,CWE-78,\"shell=True with user input, from argv\"\r\n\
                \r\n\
                # a comment row\r\n\
                false_positive,src/util.py,,B101,,\"assert in a test, \"\"fine\"\"\"\r\n";
    let set = LabelSet::parse("labels.csv", text).unwrap();
    assert_eq!(set.labels.len(), 2);
    assert_eq!(
        set.labels[0].key,
        LabelKey::Location {
            path: "src/app.py".to_owned(),
            line: Some(12),
            rule: Some("B602".to_owned())
        }
    );
    assert_eq!(
        set.labels[0].note.as_deref(),
        Some("shell=True with user input, from argv")
    );
    assert_eq!(set.labels[0].cwe, Some(78));
    assert_eq!(
        set.labels[1].note.as_deref(),
        Some("assert in a test, \"fine\"")
    );
    assert_eq!(set.labels[1].source_line, 5);
}

#[test]
fn reads_jsonl_of_every_key_shape() {
    let text = "\u{feff}{\"fingerprint\":\"abc\",\"real\":true,\"extra\":[1]}\n\
                {\"path\":\"a.py\",\"line\":3,\"rule\":\"F401\",\"label\":\"fp\",\"cwe\":null}\n\
                \n\
                {\"test_name\":\"BenchmarkTest00001\",\"real_vulnerability\":\"true\",\"cwe\":22}\n";
    let set = LabelSet::parse("labels.jsonl", text).unwrap();
    assert_eq!(set.format, LabelFormat::Jsonl);
    let keys: Vec<String> = set.labels.iter().map(|l| l.key.describe()).collect();
    assert_eq!(
        keys,
        ["fingerprint abc", "a.py:3 F401", "case BenchmarkTest00001"]
    );
    assert_eq!(
        set.labels.iter().map(|l| l.real).collect::<Vec<_>>(),
        [true, false, true]
    );
    assert_eq!(set.labels[2].source_line, 4);
}

fn error(source: &str, text: &str) -> String {
    match LabelSet::parse(source, text) {
        Err(e) => e.to_string(),
        Ok(set) => panic!("parsed {set:?}"),
    }
}

#[test]
fn names_the_line_of_a_bad_label() {
    insta::assert_snapshot!(
        "bad_truth",
        error("labels.csv", "path,label\na.py,real\nb.py,maybe\n")
    );
    insta::assert_snapshot!(
        "bad_json",
        error(
            "labels.jsonl",
            "{\"fingerprint\":\"a\",\"real\":true}\n{\"fingerprint\": \n"
        )
    );
    insta::assert_snapshot!(
        "no_key",
        error("labels.jsonl", "{\"real\":true,\"cwe\":78}\n")
    );
    insta::assert_snapshot!(
        "bad_cwe",
        error(
            "labels.csv",
            "# test name, category, real vulnerability, cwe\nT1,sqli,true,injection\n"
        )
    );
    insta::assert_snapshot!(
        "unclosed_quote",
        error("labels.csv", "path,label,note\na.py,real,\"never closed\n")
    );
}

/// A header needs both a key column and a label column: either alone is refused at line 1.
#[test]
fn refuses_a_csv_header_without_a_key_or_without_a_label_column() {
    for text in [
        "fingerprint,note\nabc,x\n",
        "path,line,rule\na.py,3,F401\n",
        "label,note\nreal,x\n",
        "category,cwe\nsqli,89\n",
    ] {
        let e = LabelSet::parse("labels.csv", text).unwrap_err();
        let message = e.to_string();
        assert!(
            message.contains("line 1") && message.contains("is not a header naming"),
            "{text:?}: {message}"
        );
    }
    for text in [
        "fingerprint,label\nabc,real\n",
        "path,label\na.py,fp\n",
        "# test name, category, real vulnerability\nT1,sqli,true\n",
    ] {
        assert_eq!(
            LabelSet::parse("labels.csv", text).unwrap().labels.len(),
            1,
            "{text:?}"
        );
    }
}

/// Blank lines and `//` or `#` comment lines of a JSONL labels file are skipped, and the lines
/// after them keep their own numbers.
#[test]
fn jsonl_labels_skip_blank_and_comment_lines() {
    let text = "// labels of the sample\n\
                # reviewed by hand\n\
                \x20\x20\n\
                {\"fingerprint\":\"a\",\"real\":true}\n\
                \t# an indented comment\n\
                {\"fingerprint\":\"b\",\"real\":false}\n";
    let set = LabelSet::parse("labels.jsonl", text).unwrap();
    let lines: Vec<usize> = set.labels.iter().map(|l| l.source_line).collect();
    assert_eq!(lines, [4, 6]);
    assert_eq!(
        set.labels.iter().map(|l| l.real).collect::<Vec<_>>(),
        [true, false]
    );
}

#[test]
fn refuses_a_csv_without_a_header() {
    insta::assert_snapshot!(
        "no_header",
        error("expected.csv", "BenchmarkTest00001,pathtraver,true,22\n")
    );
}

#[test]
fn refuses_an_empty_labels_file() {
    let e = LabelSet::parse("empty.csv", "fingerprint,label\n\n").unwrap_err();
    assert!(matches!(e, EvalError::Empty { .. }), "{e}");
    let e = LabelSet::parse("empty.jsonl", "").unwrap_err();
    assert!(matches!(e, EvalError::Empty { .. }), "{e}");
}

fn corpus_labels(name: &str) -> LabelSet {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/eval")
        .join(name)
        .join("labels.csv");
    LabelSet::read(&path).unwrap()
}

#[test]
fn the_shipped_corpora_labels_parse_with_a_reason_each() {
    let bandit = corpus_labels("bandit-bottle-0.13.2");
    assert_eq!(bandit.labels.len(), 15);
    assert_eq!(bandit.labels.iter().filter(|l| l.real).count(), 7);
    let vulture = corpus_labels("vulture-invoke-2.2.0");
    assert_eq!(vulture.labels.len(), 29);
    assert!(vulture.labels.iter().all(|l| !l.real));
    for label in bandit.labels.iter().chain(&vulture.labels) {
        assert!(label.note.is_some(), "{label:?}");
        assert!(matches!(
            label.key,
            LabelKey::Location {
                line: Some(_),
                rule: Some(_),
                ..
            }
        ));
    }
}
