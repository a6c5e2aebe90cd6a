//! `--until` forms: cases the crate's mutation run found untested (reference/mutants.md).

use self_repair_drive::parse_until;
use self_repair_test_support::NOW;

#[test]
fn a_time_of_day_with_seconds_is_the_next_such_instant() {
    // NOW is 2026-11-22T09:30:05Z.
    let cases = [
        ("09:30:06", NOW + 1),
        ("09:31:00", NOW + 55),
        ("10:30:05", NOW + 3600),
        ("09:30:05", NOW + 86_400),
        ("09:30:04", NOW + 86_399),
    ];
    for (text, at) in cases {
        assert_eq!(parse_until(text, NOW), Ok(at), "{text}");
    }
}

#[test]
fn a_time_of_day_takes_plain_digits_only() {
    for bad in [
        "+9:00",
        "09:+5",
        "09:00:+1",
        "09:00:00:00",
        "24:00",
        "09:60",
        "09:00:60",
    ] {
        assert!(parse_until(bad, NOW).is_err(), "{bad}");
    }
}
