//! `--until TIME`: Unix seconds, an RFC 3339 UTC instant (read by `jiff`), or `HH:MM` (UTC, the
//! next one).

fn number(text: &str, min: u32, max: u32) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|n| (min..=max).contains(n))
}

/// `HH:MM[:SS]` as seconds of the day.
fn time_of_day(text: &str) -> Option<u64> {
    let mut parts = text.split(':');
    let h = number(parts.next()?, 0, 23)?;
    let m = number(parts.next()?, 0, 59)?;
    let s = match parts.next() {
        Some(s) => number(s, 0, 59)?,
        None => 0,
    };
    if parts.next().is_some() {
        return None;
    }
    Some(u64::from(h) * 3600 + u64::from(m) * 60 + u64::from(s))
}

/// Parses `--until` against `now` (Unix seconds); the error says which forms are accepted.
pub fn parse_until(text: &str, now: u64) -> Result<u64, String> {
    let bad = || {
        format!(
            "--until {text:?}: give Unix seconds (1795500000), a UTC instant (2026-11-24T06:00:00Z) or a UTC time of day (06:00, the next one)"
        )
    };
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().map_err(|_| bad());
    }
    if let Some(secs) = time_of_day(text) {
        let midnight = now - now % 86_400;
        let at = midnight + secs;
        return Ok(if at > now { at } else { at + 86_400 });
    }
    // An RFC 3339 instant in UTC (`Z`); jiff also reads one without seconds.
    if !text.ends_with('Z') {
        return Err(bad());
    }
    let instant: jiff::Timestamp = text.parse().map_err(|_| bad())?;
    u64::try_from(instant.as_second()).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2026-11-22T09:30:05Z
    const NOW: u64 = 1_795_339_805;

    #[test]
    fn reads_each_form() {
        assert_eq!(parse_until("1795400000", NOW), Ok(1_795_400_000));
        assert_eq!(parse_until("2026-11-22T09:30:05Z", NOW), Ok(NOW));
        assert_eq!(parse_until("2024-02-29T00:00Z", NOW), Ok(1_709_164_800));
        // Later today, and a time already past today: tomorrow.
        assert_eq!(parse_until("10:00", NOW), Ok(NOW + 1795));
        assert_eq!(parse_until("09:00", NOW), Ok(NOW - 1805 + 86_400));
    }

    #[test]
    fn refuses_what_it_cannot_read_and_says_the_forms() {
        for bad in [
            "tomorrow",
            "25:00",
            "2026-13-01T00:00Z",
            "2026-11-22T09:30:05",
            "",
        ] {
            let error = parse_until(bad, NOW).unwrap_err();
            assert!(error.contains("UTC instant"), "{bad}: {error}");
        }
    }
}
