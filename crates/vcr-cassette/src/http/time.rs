//! Recorded times of HTTP cassettes, for `verify --max-age`.
//!
//! Recorders write dates in two shapes: RFC 3339 (HAR's `startedDateTime`, talkback's
//! `createdAt`, go-vcr) and the HTTP date of RFC 9110 (Ruby VCR's `recorded_at`, every
//! response's `Date`). Both are read here without a calendar crate: the civil-date arithmetic
//! is a few lines (Howard Hinnant's `days_from_civil`).

use super::HttpCassette;

/// When a cassette was recorded, in seconds since the Unix epoch: the latest recorded time of
/// its interactions (`recorded_at`, `startedDateTime`), else the latest response `Date`;
/// gathered a window at a time, for a cassette read in windows.
#[derive(Debug, Default, Clone, Copy)]
pub struct Recorded {
    /// The latest recorded time of an interaction.
    at: Option<i64>,
    /// The latest response `Date`.
    date: Option<i64>,
}

impl Recorded {
    /// Takes in the times of one window.
    pub fn add(&mut self, cassette: &HttpCassette) {
        let at = cassette
            .interactions
            .iter()
            .filter_map(|i| i.recorded_at.as_ref())
            .filter_map(|field| parse(&field.text))
            .max();
        self.at = self.at.max(at);
        if self.at.is_none() {
            let date = cassette
                .interactions
                .iter()
                .filter_map(|i| i.response.as_ref())
                .flat_map(|r| &r.headers)
                .filter(|h| h.name.eq_ignore_ascii_case("date"))
                .filter_map(|h| parse(&h.value.text))
                .max();
            self.date = self.date.max(date);
        }
    }

    /// The time: the latest recorded one, else the latest response `Date`.
    pub fn time(&self) -> Option<i64> {
        self.at.or(self.date)
    }
}

/// Parses an RFC 3339 date-time (`2024-05-01T12:00:00.123Z`, `+02:00` offsets, a space for
/// `T`), an HTTP date (`Wed, 01 May 2024 12:00:00 GMT`) or seconds since the Unix epoch as
/// DVR and EasyVCR's Java writer record them (`1500000000.123`: 9 to 11 digits, a fraction).
pub fn parse(text: &str) -> Option<i64> {
    let text = text.trim();
    if let Some(seconds) = epoch(text) {
        return Some(seconds);
    }
    if text.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        rfc3339(text)
    } else {
        http_date(text)
    }
}

/// Seconds since the epoch, written as a number: 9 to 11 digits (1973 to 5138), maybe a
/// fraction, which is dropped.
fn epoch(text: &str) -> Option<i64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(whole) && digits(fraction) && (9..=11).contains(&whole.len()))
        .then(|| whole.parse().ok())
        .flatten()
}

fn number(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn rfc3339(text: &str) -> Option<i64> {
    let date = text.get(..10)?;
    let mut parts = date.split('-');
    let (y, m, d) = (
        number(parts.next()?)?,
        number(parts.next()?)?,
        number(parts.next()?)?,
    );
    let rest = text.get(10..).unwrap_or_default();
    let rest = rest.strip_prefix(['T', 't', ' ']).unwrap_or(rest);
    let (hh, mm, ss) = if rest.len() >= 8 {
        (
            number(rest.get(0..2)?)?,
            number(rest.get(3..5)?)?,
            number(rest.get(6..8)?)?,
        )
    } else {
        (0, 0, 0)
    };
    let zone = rest
        .get(8..)
        .unwrap_or_default()
        .trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    let offset = match zone.as_bytes().first() {
        Some(sign @ (b'+' | b'-')) => {
            let h = number(zone.get(1..3)?)?;
            let m = number(zone.get(zone.len() - 2..)?)?;
            let minutes = h * 60 + m;
            if *sign == b'+' { minutes } else { -minutes }
        }
        _ => 0,
    };
    civil(y, m, d, hh, mm, ss).map(|t| t - offset * 60)
}

fn http_date(text: &str) -> Option<i64> {
    // `Wed, 01 May 2024 12:00:00 GMT` (and the obsolete `Wednesday, 01-May-24 ...` is not
    // written by any recorder here).
    let text = text.split_once(',').map_or(text, |(_, rest)| rest).trim();
    let mut words = text.split_whitespace();
    let d = number(words.next()?)?;
    let month = words.next()?;
    let m = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .iter()
    .position(|name| month.len() >= 3 && month[..3].eq_ignore_ascii_case(name))? as i64
        + 1;
    let y = number(words.next()?)?;
    let mut clock = words.next()?.split(':');
    let (hh, mm, ss) = (
        number(clock.next()?)?,
        number(clock.next()?)?,
        number(clock.next()?)?,
    );
    civil(y, m, d, hh, mm, ss)
}

/// Seconds since the epoch of a UTC civil time, if it is a valid one.
fn civil(y: i64, m: i64, d: i64, hh: i64, mm: i64, ss: i64) -> Option<i64> {
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3_600 + mm * 60 + ss)
}

/// A time as `2024-05-01` (UTC), for messages.
pub fn format_date(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_shapes_of_date_are_read() {
        // Reference values from `date -u -d ... +%s`.
        let cases = [
            ("1970-01-01T00:00:00Z", Some(0)),
            ("2024-05-01T12:00:00.123Z", Some(1_714_564_800)),
            ("2024-05-01T14:00:00+02:00", Some(1_714_564_800)),
            ("2024-05-01 12:00:00", Some(1_714_564_800)),
            ("Wed, 01 May 2024 12:00:00 GMT", Some(1_714_564_800)),
            ("Thu, 29 Feb 2024 00:00:00 GMT", Some(1_709_164_800)),
            ("2024-13-01T00:00:00Z", None),
            // DVR's `recorded_at`, EasyVCR Java's `recordedAt`.
            ("1714564800.123456", Some(1_714_564_800)),
            ("1714564800", Some(1_714_564_800)),
            ("17145648", None),
            ("1714564800.", None),
            ("1714564800.1.2", None),
            ("yesterday", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text), expected, "{text}");
        }
    }

    #[test]
    fn dates_print_back() {
        for (seconds, text) in [
            (0, "1970-01-01"),
            (1_709_164_800, "2024-02-29"),
            (1_714_564_800, "2024-05-01"),
            (951_782_400, "2000-02-29"),
        ] {
            assert_eq!(format_date(seconds), text);
        }
    }
}
