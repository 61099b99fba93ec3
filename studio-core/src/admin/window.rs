//! What the console's reads share: the `since` window in days, page sizes, `(time, id)`
//! cursors and day/week/month buckets.

use crate::ids::OrgId;
use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};

use crate::error::{Error, Result};

/// The longest window, in days.
pub(crate) const MAX_SINCE_DAYS: i64 = 366;
/// The default page.
pub(crate) const DEFAULT_PAGE: i64 = 50;
/// The largest page.
pub(crate) const MAX_PAGE: i64 = 200;

/// `since` in days (1 to 366), `default` when left out.
pub(crate) fn since_days(since: Option<i64>, default: i64) -> Result<i64> {
    let days = since.unwrap_or(default);
    if !(1..=MAX_SINCE_DAYS).contains(&days) {
        return Err(Error::invalid("BAD_SINCE", format!("since is a number of days, 1 to {MAX_SINCE_DAYS}."))
            .with("max", MAX_SINCE_DAYS));
    }
    Ok(days)
}

/// An optional `since`: None stays all time.
pub(crate) fn optional_since(since: Option<i64>) -> Result<Option<DateTime<Utc>>> {
    match since {
        None => Ok(None),
        Some(d) => Ok(Some(days_back(since_days(Some(d), d)?))),
    }
}

/// The instant `days` days ago.
pub(crate) fn days_back(days: i64) -> DateTime<Utc> {
    crate::ids::now() - Duration::days(days)
}

/// A page size, 1 to 200 (50 when left out).
pub(crate) fn page_limit(limit: Option<i64>) -> Result<i64> {
    let limit = limit.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_PAGE}.")).with("max", MAX_PAGE));
    }
    Ok(limit)
}

/// A `nextCursor` we gave: `(time, id)`.
pub(crate) fn cursor(c: Option<&str>) -> Result<Option<(DateTime<Utc>, String)>> {
    let Some(c) = c.map(str::trim).filter(|c| !c.is_empty()) else { return Ok(None) };
    let bad = || Error::invalid("BAD_CURSOR", "That cursor is not one we gave.");
    let (at, id) = c.split_once('|').ok_or_else(bad)?;
    let at = DateTime::parse_from_rfc3339(at).map_err(|_| bad())?.with_timezone(&Utc);
    if id.is_empty() {
        return Err(bad());
    }
    Ok(Some((at, id.to_string())))
}

/// The cursor of a page's last row.
pub(crate) fn next_cursor(at: DateTime<Utc>, id: &str) -> String {
    format!("{}|{id}", at.to_rfc3339())
}

/// A text filter: trimmed, None when empty.
pub(crate) fn filter(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// A house filter: trimmed, None when empty.
pub(crate) fn house_filter(v: &Option<String>) -> Option<OrgId> {
    filter(v).map(OrgId::from)
}

/// How figures are grouped over time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bucket {
    /// UTC days.
    Day,
    /// ISO weeks, from Monday.
    Week,
    /// Calendar months.
    Month,
}

impl Bucket {
    /// `day`, `week` or `month` (day when left out); 400 `BAD_BUCKET` otherwise.
    pub(crate) fn parse(v: &Option<String>) -> Result<Bucket> {
        match filter(v) {
            None | Some("day") => Ok(Bucket::Day),
            Some("week") => Ok(Bucket::Week),
            Some("month") => Ok(Bucket::Month),
            Some(_) => Err(Error::invalid("BAD_BUCKET", "bucket is day, week or month.")),
        }
    }

    /// Its name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Bucket::Day => "day",
            Bucket::Week => "week",
            Bucket::Month => "month",
        }
    }

    /// The first UTC day of the bucket holding `at`, `YYYY-MM-DD`.
    pub(crate) fn start(self, at: DateTime<Utc>) -> String {
        let day = at.date_naive();
        let start = match self {
            Bucket::Day => day,
            Bucket::Week => day - Duration::days(i64::from(day.weekday().num_days_from_monday())),
            Bucket::Month => NaiveDate::from_ymd_opt(day.year(), day.month(), 1).unwrap_or(day),
        };
        start.format("%Y-%m-%d").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_start_on_their_first_day() {
        let at = DateTime::parse_from_rfc3339("2026-11-26T06:52:48Z").unwrap().with_timezone(&Utc);
        assert_eq!(Bucket::Day.start(at), "2026-11-26");
        assert_eq!(Bucket::Week.start(at), "2026-11-23");
        assert_eq!(Bucket::Month.start(at), "2026-11-01");
        assert!(Bucket::parse(&Some("year".into())).is_err());
        assert!(since_days(Some(0), 30).is_err());
        assert_eq!(cursor(Some(&next_cursor(at, "job_1"))).unwrap(), Some((at, "job_1".to_string())));
    }
}
