//! `errors.jsonl` as `self-repair errors` reads it: cases the crate's mutation run found
//! untested (reference/mutants.md).

use self_repair_drive::ErrorCatalog;

#[test]
fn an_unreadable_catalog_is_an_error_not_an_empty_one() {
    let dir = tempfile::tempdir().unwrap();
    // A folder where the catalog should be.
    assert!(ErrorCatalog::load(dir.path()).is_err());
}

#[test]
fn an_empty_catalog_says_where_errors_come_from_and_a_detail_is_shown_only_when_there_is_one() {
    let mut catalog = ErrorCatalog::default();
    assert_eq!(
        catalog.render(),
        "No errors recorded: `self-repair drive` writes errors.jsonl when a session fails.\n"
    );
    catalog.record("claude killed by signal 9", "crashed", 2, 200, "");
    catalog.record(
        "API 529 overloaded",
        "overloaded",
        3,
        300,
        "overloaded_error",
    );
    assert_eq!(
        catalog.render(),
        "count  category           sessions     signature\n    1  crashed            2            claude killed by signal 9\n    1  overloaded         3            API 529 overloaded\n       last: overloaded_error\n"
    );
}
