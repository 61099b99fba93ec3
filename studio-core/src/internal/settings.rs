//! What admins set and the analyst reads: experiments (a key, variants and a status moved
//! along fixed transitions), feature flags (on or off, with a rollout share), and each
//! house's long-horizon autonomy level (revised with an expected revision, 409 when stale),
//! read with the house's weekly series.

use crate::ids::{ExperimentId, OrgId, UserId};
use std::collections::BTreeMap;

use chrono::{Datelike, Duration, NaiveDate};

use crate::api::{
    Autonomy, AutonomyQuery, AutonomyRevision, Experiment, ExperimentCreate, ExperimentList, ExperimentPatch,
    ExperimentsQuery, FeatureFlag, FlagList, FlagPut, FlagsQuery, HouseWeek, LongHorizon, LongHorizonQuery,
};
use crate::caller::{Machine, MachineKind, PlatformAdmin};
use crate::error::{Error, Result};
use crate::storage::{AutonomyRow, ExperimentRow, ExperimentStatus, FlagRow, StorageError};

use super::{Internal, limit, require, window};

/// Every experiment status.
pub const EXPERIMENT_STATUSES: [&str; 6] = ["draft", "running", "paused", "exposure_frozen", "stopped", "complete"];
/// The autonomy levels, least to most: the agent only reports (`manual`), proposes
/// (`suggest`), acts with a person approving each step (`supervised`), acts alone
/// (`autonomous`).
pub const AUTONOMY_LEVELS: [&str; 4] = ["manual", "suggest", "supervised", "autonomous"];
/// The longhorizon window when `hours` is not given: twelve weeks.
pub const LONGHORIZON_HOURS: i64 = 12 * 7 * 24;

/// The moves an experiment may make.
fn allowed(from: ExperimentStatus, to: ExperimentStatus) -> bool {
    use ExperimentStatus::{Complete, Draft, ExposureFrozen, Paused, Running, Stopped};
    matches!(
        (from, to),
        (Draft, Running)
            | (Draft, Stopped)
            | (Running, Paused | ExposureFrozen | Stopped | Complete)
            | (Paused, Running | Stopped)
            | (ExposureFrozen, Running | Stopped | Complete)
    )
}

fn experiment_view(r: ExperimentRow) -> Experiment {
    Experiment {
        variants: serde_json::from_str(&r.variants).unwrap_or_default(),
        id: r.id.into(),
        key: r.key,
        name: r.name,
        description: r.description,
        status: r.status.to_string(),
        created_at: r.created_at,
        updated_at: r.updated_at,
        started_at: r.started_at,
        ended_at: r.ended_at,
    }
}

fn flag_view(r: FlagRow) -> FeatureFlag {
    FeatureFlag {
        key: r.key,
        description: r.description,
        active: r.active,
        rollout_percent: r.rollout_percent,
        updated_by: r.updated_by,
        created_at: r.created_at,
        updated_at: r.updated_at,
    }
}

/// A key of `a-z`, `0-9`, `_`, `-`, `.`, 2 to 64 long.
fn good_key(key: &str) -> bool {
    (2..=64).contains(&key.len())
        && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'.'))
}

fn experiment_not_found() -> Error {
    Error::not_found("EXPERIMENT_NOT_FOUND", "No experiment has that id.")
}

fn house_id(raw: Option<&str>) -> Result<OrgId> {
    let id = raw.map(str::trim).filter(|i| !i.is_empty()).map(OrgId::from);
    id.ok_or_else(|| Error::invalid("ORGANIZATION_REQUIRED", "Name the house with organizationId."))
}

fn autonomy_view(org_id: &OrgId, row: Option<AutonomyRow>) -> Autonomy {
    match row {
        Some(r) => Autonomy {
            organization_id: r.org_id.to_string(),
            level: r.level,
            note: r.note,
            revision: r.revision,
            revised_by: Some(r.revised_by),
            revised_at: Some(r.revised_at),
        },
        None => Autonomy {
            organization_id: org_id.to_string(),
            level: AUTONOMY_LEVELS[0].to_string(),
            note: String::new(),
            revision: 0,
            revised_by: None,
            revised_at: None,
        },
    }
}

fn monday(d: NaiveDate) -> NaiveDate {
    d - Duration::days(i64::from(d.weekday().num_days_from_monday()))
}

impl Internal<'_> {
    /// Experiments, newest first: `status` (`all` or one of [`EXPERIMENT_STATUSES`], else 400
    /// `BAD_STATUS`), `experimentId` (only it), `before` (400 `BAD_CURSOR`).
    async fn list_experiments(&self, q: ExperimentsQuery) -> Result<ExperimentList> {
        let status = match q.status.as_deref().map(str::trim) {
            None | Some("" | "all") => None,
            Some(s) => Some(ExperimentStatus::parse(s).ok_or_else(|| {
                Error::invalid("BAD_STATUS", "status is all or one of the experiment statuses.")
                    .with("statuses", EXPERIMENT_STATUSES.to_vec())
            })?),
        };
        if let Some(id) = q.experiment_id.as_deref().map(str::trim).filter(|i| !i.is_empty()) {
            let one =
                self.store.experiment(&ExperimentId::from(id)).await?.filter(|e| status.is_none_or(|s| e.status == s));
            return Ok(ExperimentList {
                experiments: one.into_iter().map(experiment_view).collect(),
                next_cursor: None,
            });
        }
        let before = match q.before.as_deref().map(str::trim).filter(|b| !b.is_empty()) {
            None => None,
            Some(id) => Some(
                self.store
                    .experiment(&ExperimentId::from(id))
                    .await?
                    .ok_or_else(|| Error::invalid("BAD_CURSOR", "before names no experiment."))?,
            ),
        };
        let n = limit(q.limit);
        let rows =
            self.store.experiments(status, n + 1, before.as_ref().map(|r| (r.created_at, r.id.as_str()))).await?;
        let more = rows.len() as i64 > n;
        let experiments: Vec<Experiment> = rows.into_iter().take(n as usize).map(experiment_view).collect();
        let next_cursor = if more { experiments.last().map(|e| e.id.clone()) } else { None };
        Ok(ExperimentList { experiments, next_cursor })
    }

    /// Analyst `experiments`.
    pub async fn analyst_experiments(&self, machine: &Machine, q: ExperimentsQuery) -> Result<ExperimentList> {
        require(machine, MachineKind::Analyst)?;
        self.list_experiments(q).await
    }

    /// Admin: the experiments.
    pub async fn experiments(&self, _admin: &PlatformAdmin, q: ExperimentsQuery) -> Result<ExperimentList> {
        self.list_experiments(q).await
    }

    /// Admin: create an experiment, a draft. 400 `BAD_KEY`, `NAME_REQUIRED`, `TOO_LONG`,
    /// `BAD_VARIANTS`; 409 `EXPERIMENT_KEY_TAKEN`.
    pub async fn create_experiment(&self, admin: &PlatformAdmin, req: ExperimentCreate) -> Result<Experiment> {
        let key = req.key.as_deref().map(str::trim).unwrap_or_default();
        if !good_key(key) {
            return Err(Error::invalid("BAD_KEY", "key is 2 to 64 of a-z, 0-9, '_', '-', '.'."));
        }
        let name = req.name.as_deref().map(str::trim).filter(|n| !n.is_empty());
        let name = name.ok_or_else(|| Error::invalid("NAME_REQUIRED", "Give the experiment a name."))?;
        let description = req.description.as_deref().map(str::trim).unwrap_or_default();
        if name.chars().count() > 200 || description.chars().count() > 2000 {
            return Err(Error::invalid("TOO_LONG", "name is at most 200 characters, description 2000."));
        }
        let variants: Vec<String> = match req.variants {
            None => vec!["control".into(), "treatment".into()],
            Some(v) => v.into_iter().map(|v| v.trim().to_string()).collect(),
        };
        let mut distinct = variants.clone();
        distinct.sort();
        distinct.dedup();
        if !(2..=10).contains(&variants.len())
            || distinct.len() != variants.len()
            || !variants.iter().all(|v| good_key(v))
        {
            return Err(Error::invalid(
                "BAD_VARIANTS",
                "variants are 2 to 10 distinct keys of a-z, 0-9, '_', '-', '.'.",
            ));
        }
        let now = crate::ids::now();
        let row = ExperimentRow {
            id: ExperimentId::generate(),
            key: key.to_string(),
            name: name.to_string(),
            description: description.to_string(),
            status: ExperimentStatus::Draft,
            variants: serde_json::to_string(&variants).map_err(Error::internal)?,
            created_by: Some(UserId::from(admin.user_id().to_string())),
            created_at: now,
            updated_at: now,
            started_at: None,
            ended_at: None,
        };
        match self.store.insert_experiment(&row).await {
            Ok(()) => Ok(experiment_view(row)),
            Err(StorageError::Conflict(_)) => {
                Err(Error::conflict("EXPERIMENT_KEY_TAKEN", format!("An experiment already has the key {key}.")))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Admin: move an experiment's status. 400 `STATUS_REQUIRED`, `BAD_STATUS`; 404
    /// `EXPERIMENT_NOT_FOUND`; 409 `BAD_TRANSITION` (with `from` and `to`).
    pub async fn patch_experiment(
        &self,
        _admin: &PlatformAdmin,
        id: &ExperimentId,
        req: ExperimentPatch,
    ) -> Result<Experiment> {
        let to = req.status.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let to = to.ok_or_else(|| Error::invalid("STATUS_REQUIRED", "Say which status to move to."))?;
        let to = ExperimentStatus::parse(to).ok_or_else(|| {
            Error::invalid("BAD_STATUS", "status is one of the experiment statuses.")
                .with("statuses", EXPERIMENT_STATUSES.to_vec())
        })?;
        let current = self.store.experiment(&ExperimentId::from(id.trim())).await?.ok_or_else(experiment_not_found)?;
        let refused = || {
            Error::conflict("BAD_TRANSITION", format!("An experiment cannot move from {} to {to}.", current.status))
                .with("from", current.status.as_str())
                .with("to", to.as_str())
        };
        if !allowed(current.status, to) {
            return Err(refused());
        }
        let moved = self.store.move_experiment(&current.id, current.status, to, crate::ids::now()).await?;
        moved.map(experiment_view).ok_or_else(refused)
    }

    /// Flags by key: `active` `true`, `false` or `all` (else 400 `BAD_ACTIVE`), `after` a key.
    async fn list_flags(&self, q: FlagsQuery) -> Result<FlagList> {
        let active = match q.active.as_deref().map(str::trim) {
            None | Some("" | "all") => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(_) => return Err(Error::invalid("BAD_ACTIVE", "active is true, false or all.")),
        };
        let n = limit(q.limit);
        let rows = self.store.flags(active, n + 1, q.after.as_deref().filter(|a| !a.is_empty())).await?;
        let more = rows.len() as i64 > n;
        let flags: Vec<FeatureFlag> = rows.into_iter().take(n as usize).map(flag_view).collect();
        let next_cursor = if more { flags.last().map(|f| f.key.clone()) } else { None };
        Ok(FlagList { flags, next_cursor })
    }

    /// Analyst `feature-flags`.
    pub async fn analyst_flags(&self, machine: &Machine, q: FlagsQuery) -> Result<FlagList> {
        require(machine, MachineKind::Analyst)?;
        self.list_flags(q).await
    }

    /// Admin: the flags.
    pub async fn flags(&self, _admin: &PlatformAdmin, q: FlagsQuery) -> Result<FlagList> {
        self.list_flags(q).await
    }

    /// Admin: set a flag (created when new). 400 `BAD_KEY`, `ACTIVE_REQUIRED`, `BAD_ROLLOUT`,
    /// `TOO_LONG`.
    pub async fn put_flag(&self, admin: &PlatformAdmin, key: &str, req: FlagPut) -> Result<FeatureFlag> {
        let key = key.trim();
        if !good_key(key) {
            return Err(Error::invalid("BAD_KEY", "A flag key is 2 to 64 of a-z, 0-9, '_', '-', '.'."));
        }
        let active = req.active.ok_or_else(|| Error::invalid("ACTIVE_REQUIRED", "Say whether it is on: active."))?;
        let rollout = req.rollout_percent.unwrap_or(100);
        if !(0..=100).contains(&rollout) {
            return Err(Error::invalid("BAD_ROLLOUT", "rolloutPercent is 0 to 100."));
        }
        let description = req.description.as_deref().map(str::trim).unwrap_or_default();
        if description.chars().count() > 2000 {
            return Err(Error::invalid("TOO_LONG", "description is at most 2000 characters."));
        }
        let now = crate::ids::now();
        let row = FlagRow {
            key: key.to_string(),
            description: description.to_string(),
            active,
            rollout_percent: rollout,
            updated_by: Some(admin.user_id().to_string()),
            created_at: now,
            updated_at: now,
        };
        Ok(flag_view(self.store.put_flag(&row).await?))
    }

    async fn house_autonomy(&self, org_id: &OrgId) -> Result<Autonomy> {
        if !self.store.house_exists(org_id).await? {
            return Err(Error::not_found("ORGANIZATION_NOT_FOUND", "No house has that id."));
        }
        Ok(autonomy_view(org_id, self.store.autonomy(org_id).await?))
    }

    /// Admin: a house's autonomy. 400 `ORGANIZATION_REQUIRED`; 404 `ORGANIZATION_NOT_FOUND`.
    pub async fn autonomy(&self, _admin: &PlatformAdmin, q: AutonomyQuery) -> Result<Autonomy> {
        self.house_autonomy(&house_id(q.organization_id.as_deref())?).await
    }

    /// Admin: revise a house's autonomy from the revision read. 400 `ORGANIZATION_REQUIRED`,
    /// `BAD_LEVEL` (with `levels`), `TOO_LONG`, `EXPECTED_REVISION_REQUIRED`; 404
    /// `ORGANIZATION_NOT_FOUND`; 409 `STALE_REVISION` (with the current `revision`).
    pub async fn revise_autonomy(&self, admin: &PlatformAdmin, req: AutonomyRevision) -> Result<Autonomy> {
        let org_id = &house_id(req.organization_id.as_deref())?;
        let level = req.level.as_deref().map(str::trim).unwrap_or_default();
        if !AUTONOMY_LEVELS.contains(&level) {
            return Err(Error::invalid("BAD_LEVEL", "level is manual, suggest, supervised or autonomous.")
                .with("levels", AUTONOMY_LEVELS.to_vec()));
        }
        let note = req.note.as_deref().map(str::trim).unwrap_or_default();
        if note.chars().count() > 1000 {
            return Err(Error::invalid("TOO_LONG", "note is at most 1000 characters."));
        }
        let expected = req.expected_revision.ok_or_else(|| {
            Error::invalid(
                "EXPECTED_REVISION_REQUIRED",
                "Send the revision you read as expectedRevision (0 when none).",
            )
        })?;
        let current = self.house_autonomy(org_id).await?;
        let row = AutonomyRow {
            org_id: org_id.clone(),
            level: level.to_string(),
            note: note.to_string(),
            revision: expected + 1,
            revised_by: admin.user_id().to_string(),
            revised_at: crate::ids::now(),
        };
        let stale = |revision: i64| {
            Error::conflict("STALE_REVISION", "The autonomy was revised since you read it; read it again.")
                .with("revision", revision)
        };
        if expected != current.revision || expected < 0 {
            return Err(stale(current.revision));
        }
        match self.store.revise_autonomy(&row, expected).await? {
            Some(r) => Ok(autonomy_view(org_id, Some(r))),
            None => Err(stale(self.house_autonomy(org_id).await?.revision)),
        }
    }

    /// Analyst `longhorizon`: one house's weekly spend, develops and uploads over the window
    /// (default twelve weeks), with its autonomy. 400 `ORGANIZATION_REQUIRED`; 404
    /// `ORGANIZATION_NOT_FOUND`.
    pub async fn longhorizon(&self, machine: &Machine, q: LongHorizonQuery) -> Result<LongHorizon> {
        require(machine, MachineKind::Analyst)?;
        let org_id = &house_id(q.organization_id.as_deref())?;
        let autonomy = self.house_autonomy(org_id).await?;
        let w = window(q.hours, LONGHORIZON_HOURS);
        let s = &self.store;
        let mut weeks: BTreeMap<NaiveDate, HouseWeek> = BTreeMap::new();
        let mut d = monday(w.since.date_naive());
        while d <= w.until.date_naive() {
            weeks.insert(d, HouseWeek { week_start: d, spend: 0, develops: 0, uploads: 0 });
            d += Duration::days(7);
        }
        for r in s.spend_stamps(org_id, w.since).await? {
            if let Some(entry) = weeks.get_mut(&monday(r.at.date_naive())) {
                entry.spend += r.amount;
            }
        }
        for r in s.develop_stamps(w.since, Some(org_id)).await? {
            if let Some(entry) = weeks.get_mut(&monday(r.at.date_naive())) {
                entry.develops += 1;
            }
        }
        for r in s.upload_stamps(w.since, Some(org_id)).await? {
            if let Some(entry) = weeks.get_mut(&monday(r.at.date_naive())) {
                entry.uploads += 1;
            }
        }
        Ok(LongHorizon {
            organization_id: org_id.to_string(),
            window: w,
            autonomy,
            weeks: weeks.into_values().collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listed_statuses_are_the_enum_s() {
        let names: Vec<&str> = ExperimentStatus::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, EXPERIMENT_STATUSES);
    }

    #[test]
    fn stopped_and_complete_are_final() {
        for from in [ExperimentStatus::Stopped, ExperimentStatus::Complete] {
            assert!(ExperimentStatus::ALL.iter().all(|to| !allowed(from, *to)), "{from}");
        }
        assert!(allowed(ExperimentStatus::Draft, ExperimentStatus::Running));
        assert!(!allowed(ExperimentStatus::Draft, ExperimentStatus::Paused));
    }
}
