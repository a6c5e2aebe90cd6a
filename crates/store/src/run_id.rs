//! Run ids are file names: checked before they ever touch a path.

use crate::StoreError;

/// Accepts 1 to 64 ASCII letters, digits, `.`, `_`, `-`, starting with a letter or digit.
pub fn check_run_id(id: &str) -> Result<(), StoreError> {
    let mut bytes = id.bytes();
    let first_ok = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric());
    let rest_ok = bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if first_ok && rest_ok && id.len() <= 64 {
        Ok(())
    } else {
        Err(StoreError::BadRunId(id.to_owned()))
    }
}

/// Item ids become file names under `items/`: the same alphabet, no dots.
pub fn is_safe_item_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && id.as_bytes()[0].is_ascii_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_cannot_escape_the_runs_folder() {
        for bad in [
            "",
            "..",
            "../x",
            "a/b",
            ".hidden",
            "a\\b",
            "a b",
            &"x".repeat(65),
        ] {
            assert!(check_run_id(bad).is_err(), "{bad:?} accepted");
        }
        for good in ["r-20261122-0930", "nightly.2", "A_b-3"] {
            assert!(check_run_id(good).is_ok(), "{good:?} refused");
        }
        assert!(!is_safe_item_id("../t-1"));
        assert!(is_safe_item_id("plan-g2-3"));
    }

    #[test]
    fn an_item_id_is_a_file_name_of_letters_digits_and_dashes_that_starts_with_no_dash() {
        let longest = format!("t-{}", "0".repeat(62));
        let too_long = format!("t-{}", "0".repeat(63));
        for (id, safe) in [
            ("t-00001", true),
            ("T9", true),
            (longest.as_str(), true),
            (too_long.as_str(), false),
            ("", false),
            ("-t-1", false),
            ("t_1", false),
            ("t.1", false),
            ("t/1", false),
            ("t 1", false),
        ] {
            assert_eq!(is_safe_item_id(id), safe, "{id:?}");
        }
        let longest_run = "r".repeat(64);
        assert!(check_run_id(&longest_run).is_ok());
        assert!(check_run_id("r_1").is_ok() && check_run_id("_r").is_err());
    }
}
