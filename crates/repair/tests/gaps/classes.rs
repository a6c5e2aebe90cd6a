//! Failure classes and the user's classification rules.

use self_repair_repair::{ClassRule, FailureClass};

fn rule(class: FailureClass, pattern: &str, exit_codes: &[i32]) -> ClassRule {
    ClassRule {
        class,
        pattern: pattern.to_owned(),
        exit_codes: exit_codes.to_vec(),
    }
}

#[test]
fn each_class_has_its_name() {
    let cases = [
        (FailureClass::Pass, "pass"),
        (FailureClass::Transient, "transient"),
        (FailureClass::Permanent, "permanent"),
        (FailureClass::Fixable, "fixable"),
    ];
    for (class, name) in cases {
        assert_eq!(class.as_str(), name);
    }
}

#[test]
fn a_rule_needs_a_pattern_or_exit_codes_and_cannot_say_pass() {
    use FailureClass::{Pass, Permanent, Transient};
    let cases = [
        (
            rule(Transient, "", &[]),
            Some("needs a `pattern` or `exit_codes`"),
        ),
        (rule(Transient, "", &[75]), None),
        (rule(Permanent, "quota", &[]), None),
        (
            rule(Pass, "ok", &[]),
            Some("cannot classify a failure as `pass`"),
        ),
        (rule(Permanent, "(", &[]), Some("is not a valid regex")),
    ];
    for (rule, error) in cases {
        match error {
            None => assert_eq!(rule.validate(), Ok(()), "{rule:?}"),
            Some(words) => assert!(
                rule.validate().is_err_and(|e| e.contains(words)),
                "{rule:?}: {:?}",
                rule.validate()
            ),
        }
    }
}
