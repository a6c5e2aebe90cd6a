//! Calendar formatting of Unix seconds (UTC), on `jiff`.

use jiff::Timestamp;

/// The instant of Unix seconds; one past jiff's range (year 9999) is its last second.
fn instant(secs: u64) -> Timestamp {
    i64::try_from(secs)
        .ok()
        .and_then(|secs| Timestamp::from_second(secs).ok())
        .unwrap_or(Timestamp::MAX)
}

/// `2026-11-22T09:30:05Z`.
pub fn rfc3339(secs: u64) -> String {
    instant(secs).strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// `2026-11-22 09:30`, the form Backlog.md uses for `created_date`.
pub fn backlog_date(secs: u64) -> String {
    instant(secs).strftime("%Y-%m-%d %H:%M").to_string()
}

/// `20261122-0930`, the time part of a default run id.
pub fn compact(secs: u64) -> String {
    instant(secs).strftime("%Y%m%d-%H%M").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        // 2026-11-22T09:30:05Z
        assert_eq!(rfc3339(1_795_339_805), "2026-11-22T09:30:05Z");
        assert_eq!(backlog_date(1_795_339_805), "2026-11-22 09:30");
        assert_eq!(compact(1_795_339_805), "20261122-0930");
        // Leap day.
        assert_eq!(rfc3339(1_709_164_800), "2024-02-29T00:00:00Z");
    }
}
