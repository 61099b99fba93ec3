//! The internal machine routes (`02-route-groups.md` §4.13) on the view `studio.internal()`:
//! the analyst's aggregate reads over what the service stores (here), replay evidence and its
//! render queue (`replay.rs`), the analyst's actions (`actions.rs`), experiments, feature flags
//! and long-horizon autonomy (`settings.rs`), and the AI reader's recorded outcomes
//! (`quality.rs`). Each read takes the verified [`Machine`] of its kind; the admin twins take
//! the [`PlatformAdmin`](crate::caller::PlatformAdmin). Designed in docs/internal.md.

pub(crate) mod actions;
pub(crate) mod quality;
pub(crate) mod replay;
pub(crate) mod settings;

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};

use crate::api::{
    AnalystFailures, AnalystFunnel, AnalystQuery, AnalystSnapshot, DEFAULT_INTERNAL_LIMIT, DEFAULT_WINDOW_HOURS,
    Deliverability, KeyCount, LearningClass, Learnings, MAX_INTERNAL_LIMIT, MAX_WINDOW_HOURS, MailCounts, MailDay,
    MailKind, PlatformTokens, ProductUsage, Rejections, ToolFailureGroup, UsageDay, Window,
};
use crate::caller::{Machine, MachineKind};
use crate::error::{Error, Result};
use crate::storage::{LetterStatus, StampRow};

crate::studio::view! {
    /// The internal routes' view of the studio.
    Internal over InternalStore
}

/// 401 unless the proof is of `kind` (the server's extractor already checked; this keeps a
/// proof of one kind from opening another kind's operation in any frontend).
pub(crate) fn require(machine: &Machine, kind: MachineKind) -> Result<()> {
    if machine.kind() == kind { Ok(()) } else { Err(Error::unauthenticated("No valid machine credential")) }
}

/// The window of `hours` back from now: default [`DEFAULT_WINDOW_HOURS`], clamped to
/// 1..=[`MAX_WINDOW_HOURS`].
pub(crate) fn window(hours: Option<i64>, default: i64) -> Window {
    let hours = hours.unwrap_or(default).clamp(1, MAX_WINDOW_HOURS);
    let until = crate::ids::now();
    Window { hours, since: until - Duration::hours(hours), until }
}

/// A list's `limit`: default [`DEFAULT_INTERNAL_LIMIT`], clamped to 1..=[`MAX_INTERNAL_LIMIT`].
pub(crate) fn limit(limit: Option<i64>) -> i64 {
    limit.unwrap_or(DEFAULT_INTERNAL_LIMIT).clamp(1, MAX_INTERNAL_LIMIT)
}

/// Counts by key, most first then by key.
fn counts<'a>(keys: impl Iterator<Item = &'a str>) -> Vec<KeyCount> {
    let mut map: BTreeMap<&str, i64> = BTreeMap::new();
    for k in keys {
        *map.entry(k).or_default() += 1;
    }
    let mut out: Vec<KeyCount> = map.into_iter().map(|(key, n)| KeyCount { key: key.to_string(), n }).collect();
    out.sort_by(|a, b| b.n.cmp(&a.n).then(a.key.cmp(&b.key)));
    out
}

fn day(at: DateTime<Utc>) -> NaiveDate {
    at.date_naive()
}

fn add_letter(c: &mut MailCounts, status: &str) {
    c.written += 1;
    match LetterStatus::parse(status) {
        Some(LetterStatus::Queued) => c.queued += 1,
        Some(LetterStatus::Sent) => c.sent += 1,
        Some(LetterStatus::Delivered) => c.delivered += 1,
        Some(LetterStatus::Bounced) => c.bounced += 1,
        Some(LetterStatus::Complained) => c.complained += 1,
        Some(LetterStatus::Failed) | None => c.failed += 1,
    }
}

fn no_mail() -> MailCounts {
    MailCounts { written: 0, queued: 0, sent: 0, delivered: 0, bounced: 0, complained: 0, failed: 0 }
}

impl Internal<'_> {
    /// `snapshot`: the platform right now, and develops and uploads in the window.
    pub async fn snapshot(&self, machine: &Machine, q: AnalystQuery) -> Result<AnalystSnapshot> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let s = &self.store;
        let totals = s.platform_totals().await?;
        let jobs = s.jobs_by_status_ever().await?;
        let develops = s.develop_stamps(w.since, None).await?.len() as i64;
        let uploads = s.upload_stamps(w.since, None).await?.len() as i64;
        Ok(AnalystSnapshot {
            window: w,
            houses: totals.houses,
            people: totals.people,
            live_keys: totals.live_keys,
            assets: totals.assets,
            jobs_by_status: jobs.into_iter().map(|c| KeyCount { key: c.key, n: c.n }).collect(),
            develops_in_window: develops,
            uploads_in_window: uploads,
            tokens: PlatformTokens {
                spendable: totals.spendable,
                held: totals.held,
                settled: totals.settled,
                credited: totals.credited,
            },
        })
    }

    /// `funnel`: the people who signed up in the window and how far each went.
    pub async fn funnel(&self, machine: &Machine, q: AnalystQuery) -> Result<AnalystFunnel> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let f = self.store.funnel(w.since).await?;
        Ok(AnalystFunnel {
            window: w,
            signed_up: f.signed_up,
            first_key: f.first_key,
            first_upload: f.first_upload,
            first_develop: f.first_develop,
            first_purchase: f.first_purchase,
        })
    }

    /// `product-usage`: develops by tool, uploads, packs and lane results, per day.
    pub async fn product_usage(&self, machine: &Machine, q: AnalystQuery) -> Result<ProductUsage> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let s = &self.store;
        let develops = s.develop_stamps(w.since, None).await?;
        let uploads = s.upload_stamps(w.since, None).await?;
        let packs = s.pack_stamps(w.since).await?;
        let lanes = s.lane_stamps(w.since).await?;
        let mut days: BTreeMap<NaiveDate, UsageDay> = BTreeMap::new();
        let mut bump = |rows: &[StampRow], f: fn(&mut UsageDay)| {
            for r in rows {
                let d = day(r.at);
                f(days.entry(d).or_insert(UsageDay { day: d, develops: 0, uploads: 0, packs: 0, lanes: 0 }));
            }
        };
        bump(&develops, |d| d.develops += 1);
        bump(&uploads, |d| d.uploads += 1);
        bump(&packs, |d| d.packs += 1);
        bump(&lanes, |d| d.lanes += 1);
        Ok(ProductUsage {
            window: w,
            develops_by_tool: counts(develops.iter().map(|r| r.key.as_str())),
            lanes_by_lane: counts(lanes.iter().map(|r| r.key.as_str())),
            develops: develops.len() as i64,
            uploads: uploads.len() as i64,
            packs: packs.len() as i64,
            lanes: lanes.len() as i64,
            days: days.into_values().collect(),
        })
    }

    /// `failures`: failed develops in the window by tool and stored reason, most first.
    pub async fn failures(&self, machine: &Machine, q: AnalystQuery) -> Result<AnalystFailures> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let rows = self.store.failure_counts(w.since, limit(q.limit)).await?;
        let groups: Vec<ToolFailureGroup> = rows
            .into_iter()
            .map(|r| ToolFailureGroup { tool: r.key, reason: r.detail, n: r.amount, last_at: r.at })
            .collect();
        Ok(AnalystFailures { window: w, total: groups.iter().map(|g| g.n).sum(), groups })
    }

    /// `deliverability`: the mail archive's letters of the window by outcome, kind and day.
    pub async fn deliverability(&self, machine: &Machine, q: AnalystQuery) -> Result<Deliverability> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let rows = self.store.letter_stamps(w.since).await?;
        let mut totals = no_mail();
        let mut kinds: BTreeMap<String, MailCounts> = BTreeMap::new();
        let mut days: BTreeMap<NaiveDate, MailCounts> = BTreeMap::new();
        for r in &rows {
            add_letter(&mut totals, &r.detail);
            add_letter(kinds.entry(r.key.clone()).or_insert_with(no_mail), &r.detail);
            add_letter(days.entry(day(r.at)).or_insert_with(no_mail), &r.detail);
        }
        Ok(Deliverability {
            window: w,
            totals,
            by_kind: kinds.into_iter().map(|(kind, counts)| MailKind { kind, counts }).collect(),
            by_day: days.into_iter().map(|(day, counts)| MailDay { day, counts }).collect(),
        })
    }

    /// `learnings`: memories created, corrected and retired in the window, by class.
    pub async fn learnings(&self, machine: &Machine, q: AnalystQuery) -> Result<Learnings> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let rows = self.store.memory_stamps(w.since).await?;
        let mut classes: BTreeMap<String, LearningClass> = BTreeMap::new();
        for r in &rows {
            let c = classes.entry(r.key.clone()).or_insert_with(|| LearningClass {
                memory_class: r.key.clone(),
                created: 0,
                corrected: 0,
                retired: 0,
            });
            match r.detail.as_str() {
                "created" => c.created += 1,
                "corrected" => c.corrected += 1,
                _ => c.retired += 1,
            }
        }
        let by_class: Vec<LearningClass> = classes.into_values().collect();
        Ok(Learnings {
            window: w,
            created: by_class.iter().map(|c| c.created).sum(),
            corrected: by_class.iter().map(|c| c.corrected).sum(),
            retired: by_class.iter().map(|c| c.retired).sum(),
            by_class,
        })
    }

    /// `rejections`: frames the houses took again (takes and redraws) in the window.
    pub async fn rejections(&self, machine: &Machine, q: AnalystQuery) -> Result<Rejections> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let rows = self.store.retake_stamps(w.since).await?;
        let days: Vec<String> = rows.iter().map(|r| day(r.at).to_string()).collect();
        let mut by_day = counts(days.iter().map(String::as_str));
        by_day.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Rejections {
            window: w,
            retakes: rows.len() as i64,
            by_tool: counts(rows.iter().map(|r| r.key.as_str())),
            by_day,
        })
    }
}
