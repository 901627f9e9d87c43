//! Times as RFC 3339 in UTC, from milliseconds since the Unix epoch (the host's
//! `modified-ms`), without a date library: the civil-from-days algorithm.

/// `ms` as `YYYY-MM-DDTHH:MM:SSZ`, with `.mmm` when the milliseconds are not zero.
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let millis = ms % 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    let time = format!("{:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60);
    if millis == 0 {
        format!("{y:04}-{m:02}-{d:02}T{time}Z")
    } else {
        format!("{y:04}-{m:02}-{d:02}T{time}.{millis:03}Z")
    }
}

/// Year, month and day of the `days`-th day after 1970-01-01 (proleptic Gregorian).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_764_921_600_000), "2025-12-05T08:00:00Z");
        assert_eq!(rfc3339(1_709_251_199_999), "2024-02-29T23:59:59.999Z");
        assert_eq!(rfc3339(4_102_444_800_000), "2100-01-01T00:00:00Z");
    }
}
