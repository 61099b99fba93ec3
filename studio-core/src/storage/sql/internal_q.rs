//! The declared statements of the internal routes, `storage::sql::internal::q` (see stmt.rs and
//! internal.rs, whose store runs them): replay evidence and renders, experiments, flags, each
//! house's autonomy, invite requests and their research, AI reader calls and the analyst's
//! aggregates. They live apart from the store so that neither file outgrows the storage files'
//! size (.ci/invariants 6).

use chrono::{DateTime, Utc};

use crate::ids::{EvidenceId, ExperimentId, InviteRequestId, OrgId, RenderId, UserId};
use crate::storage::sql::stmt::statements;
use crate::storage::{
    AutonomyRow, CountRow, EvidenceRow, ExperimentRow, ExperimentStatus, FlagRow, FunnelRow, InviteRequestRow,
    InviteRequestStatus, PlatformTotals, RenderRow, RenderStatus, ResearchRow, StampRow,
};

/// The columns of `replay_evidence` in [`EvidenceRow`](crate::storage::EvidenceRow) order.
macro_rules! evidence_columns {
    () => {
        "id, job_id, org_id, tool, job_status, snapshot, summary, summary_focus, summarized_at, opened_by, created_at"
    };
}

/// The columns of `replay_renders` in [`RenderRow`](crate::storage::RenderRow) order.
macro_rules! render_columns {
    () => {
        "id, evidence_id, format, status, attempts, claimed_at, blob_key, mime, bytes, error_code, requested_by, \
         created_at, finished_at"
    };
}

/// The columns of `experiments` in [`ExperimentRow`](crate::storage::ExperimentRow) order.
macro_rules! experiment_columns {
    () => {
        "id, key, name, description, status, variants, created_by, created_at, updated_at, started_at, ended_at"
    };
}

/// The columns of `feature_flags` in [`FlagRow`](crate::storage::FlagRow) order.
macro_rules! flag_columns {
    () => {
        "key, description, active, rollout_percent, updated_by, created_at, updated_at"
    };
}

/// The columns of `house_autonomy` in [`AutonomyRow`](crate::storage::AutonomyRow) order.
macro_rules! autonomy_columns {
    () => {
        "org_id, level, note, revision, revised_by, revised_at"
    };
}

/// An invite request with the status the admin list derives (`invited` once an invitation
/// exists for the address).
macro_rules! request_select {
    () => {
        "SELECT r.id, r.email, r.name, r.house, r.collection, r.intake, r.links, r.logo_url, r.website, r.created_at, \
         CASE WHEN EXISTS (SELECT 1 FROM invitations i WHERE i.email = r.email) THEN 'invited' ELSE 'pending' END \
         AS status FROM invite_requests r "
    };
}

/// Claim the oldest waiting render (queued, or rendering on a claim older than
/// `stale_claimed_at`), `$rows` locking the subquery's row on PostgreSQL.
macro_rules! claim_render_text {
    ($rows:literal) => {
        concat!(
            "UPDATE replay_renders SET status = 'rendering', claimed_at = $1, attempts = attempts + 1 WHERE id = (",
            "SELECT id FROM replay_renders WHERE status = 'queued' OR (status = 'rendering' AND claimed_at < $2) ",
            "ORDER BY created_at, id LIMIT 1",
            $rows,
            ") AND (status = 'queued' OR (status = 'rendering' AND claimed_at < $2)) RETURNING ",
            render_columns!()
        )
    };
}

/// Rows of `(key, detail, amount, at)` from `$rows` (whose `$1` is the window's start),
/// oldest first.
macro_rules! stamps {
    ($($rows:literal)+) => {
        concat!("SELECT key, detail, CAST(amount AS BIGINT) AS amount, at FROM (", $($rows,)+ ") s ORDER BY at LIMIT 200000")
    };
}

statements! {
    /// Open a house's develop's evidence (skipped when the develop has some).
    fn insert_evidence(
        id: &'q str,
        job_id: &'q str,
        org_id: &'q OrgId,
        tool: &'q str,
        job_status: &'q str,
        snapshot: &'q str,
        summary: Option<&'q str>,
        summary_focus: Option<&'q str>,
        summarized_at: Option<DateTime<Utc>>,
        opened_by: Option<&'q str>,
        created_at: DateTime<Utc>,
    ) -> exec [house] {
        "INSERT INTO replay_evidence (", evidence_columns!(), ") \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (job_id) DO NOTHING"
    }

    /// The evidence of a house's develop.
    fn evidence_of_job(job_id: &'q str, org_id: &'q OrgId) -> row<EvidenceRow> [house] {
        "SELECT ", evidence_columns!(), " FROM replay_evidence WHERE job_id = $1 AND org_id = $2"
    }

    /// Evidence by id.
    fn evidence(id: &'q EvidenceId) -> row<EvidenceRow> [any "the replay tools are the operators': they reach any house's evidence by id"] {
        "SELECT ", evidence_columns!(), " FROM replay_evidence WHERE id = $1"
    }

    /// A page of the evidence opened since `min_created_at`, newest first, after the cursor
    /// (`created_at`, `id`).
    fn evidence_page(min_created_at: DateTime<Utc>, created_at: Option<DateTime<Utc>>, id: Option<&'q str>, limit: i64) -> row<EvidenceRow> [any "the operators' replay list reads every house's evidence"] {
        "SELECT ", evidence_columns!(), " FROM replay_evidence WHERE created_at >= $1 \
         AND ($2 IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3)) \
         ORDER BY created_at DESC, id DESC LIMIT $4"
    }

    /// Keep a summary of evidence.
    fn summarize_evidence(summary: &'q str, summary_focus: &'q str, summarized_at: DateTime<Utc>, id: &'q EvidenceId) -> exec [any "the replay tools are the operators': they reach any house's evidence by id"] {
        "UPDATE replay_evidence SET summary = $1, summary_focus = $2, summarized_at = $3 WHERE id = $4"
    }

    /// Queue a render.
    fn insert_render(
        id: &'q str,
        evidence_id: &'q str,
        format: &'q str,
        status: RenderStatus,
        attempts: i64,
        claimed_at: Option<DateTime<Utc>>,
        blob_key: Option<&'q str>,
        mime: Option<&'q str>,
        bytes: Option<i64>,
        error_code: Option<&'q str>,
        requested_by: Option<&'q str>,
        created_at: DateTime<Utc>,
        finished_at: Option<DateTime<Utc>>,
    ) -> exec [any "replay_renders has no house: a render is its evidence's, which the operators reach by id"] {
        "INSERT INTO replay_renders (", render_columns!(), ") \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
    }

    /// A render.
    fn render(id: &'q RenderId) -> row<RenderRow> [any "replay_renders has no house: a render is its evidence's, which the operators reach by id"] {
        "SELECT ", render_columns!(), " FROM replay_renders WHERE id = $1"
    }

    /// The renders of evidence, oldest first.
    fn renders_of(evidence_id: &'q EvidenceId) -> row<RenderRow> [any "replay_renders has no house: a render is its evidence's, which the operators reach by id"] {
        "SELECT ", render_columns!(), " FROM replay_renders WHERE evidence_id = $1 ORDER BY created_at, id"
    }

    /// Claim the oldest waiting render (SQLite, whose writers are serialised in process).
    fn claim_render(claimed_at: DateTime<Utc>, stale_claimed_at: DateTime<Utc>) -> row<RenderRow> [any "the render worker serves every house: it claims the oldest waiting render"] {
        claim_render_text!("")
    }

    /// Claim the oldest waiting render, skipping those other workers are claiming (PostgreSQL).
    fn claim_render_skip_locked(claimed_at: DateTime<Utc>, stale_claimed_at: DateTime<Utc>) -> row<RenderRow> [any "the render worker serves every house: it claims the oldest waiting render", postgres_only] {
        claim_render_text!(" FOR UPDATE SKIP LOCKED")
    }

    /// Complete a render being rendered.
    fn complete_render(blob_key: &'q str, mime: &'q str, bytes: i64, finished_at: DateTime<Utc>, id: &'q RenderId) -> exec [any "a worker ends the render it claimed, named by its id"] {
        "UPDATE replay_renders SET status = 'complete', blob_key = $1, mime = $2, bytes = $3, \
         finished_at = $4 WHERE id = $5 AND status = 'rendering'"
    }

    /// Fail a render being rendered.
    fn fail_render(error_code: &'q str, finished_at: DateTime<Utc>, id: &'q RenderId) -> exec [any "a worker ends the render it claimed, named by its id"] {
        "UPDATE replay_renders SET status = 'failed', error_code = $1, finished_at = $2 \
         WHERE id = $3 AND status = 'rendering'"
    }

    /// Store an experiment.
    fn insert_experiment(
        id: &'q ExperimentId,
        key: &'q str,
        name: &'q str,
        description: &'q str,
        status: ExperimentStatus,
        variants: &'q str,
        created_by: Option<&'q UserId>,
        created_at: DateTime<Utc>,
        updated_at: DateTime<Utc>,
        started_at: Option<DateTime<Utc>>,
        ended_at: Option<DateTime<Utc>>,
    ) -> exec [any "experiments are the platform's (experiments has no house)"] {
        "INSERT INTO experiments (", experiment_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
    }

    /// An experiment.
    fn experiment(id: &'q ExperimentId) -> row<ExperimentRow> [any "experiments are the platform's (experiments has no house)"] {
        "SELECT ", experiment_columns!(), " FROM experiments WHERE id = $1"
    }

    /// A page of experiments (of a status, when given), newest first, after the cursor
    /// (`created_at`, `id`).
    fn experiments(status: Option<ExperimentStatus>, created_at: Option<DateTime<Utc>>, id: Option<&'q str>, limit: i64) -> row<ExperimentRow> [any "experiments are the platform's (experiments has no house)"] {
        "SELECT ", experiment_columns!(), " FROM experiments WHERE ($1 IS NULL OR status = $1) \
         AND ($2 IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3)) \
         ORDER BY created_at DESC, id DESC LIMIT $4"
    }

    /// Move an experiment from `from_status` to `status`, stamping its start or end.
    fn move_experiment(status: ExperimentStatus, updated_at: DateTime<Utc>, id: &'q ExperimentId, from_status: ExperimentStatus) -> row<ExperimentRow> [any "experiments are the platform's (experiments has no house)"] {
        "UPDATE experiments SET status = $1, updated_at = $2, \
         started_at = CASE WHEN $1 = 'running' AND started_at IS NULL THEN $2 ELSE started_at END, \
         ended_at = CASE WHEN $1 IN ('stopped', 'complete') THEN $2 ELSE ended_at END \
         WHERE id = $3 AND status = $4 RETURNING ", experiment_columns!()
    }

    /// Create or change a flag; the flag as stored.
    fn put_flag(
        key: &'q str,
        description: &'q str,
        active: bool,
        rollout_percent: i64,
        updated_by: Option<&'q str>,
        created_at: DateTime<Utc>,
        updated_at: DateTime<Utc>,
    ) -> row<FlagRow> [any "feature flags are the platform's (feature_flags has no house)"] {
        "INSERT INTO feature_flags (", flag_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key) DO UPDATE SET \
         description = excluded.description, active = excluded.active, \
         rollout_percent = excluded.rollout_percent, updated_by = excluded.updated_by, \
         updated_at = excluded.updated_at RETURNING ", flag_columns!()
    }

    /// A page of flags (active or not, when given), by key, after `key`.
    fn flags(active: Option<bool>, key: Option<&'q str>, limit: i64) -> row<FlagRow> [any "feature flags are the platform's (feature_flags has no house)"] {
        "SELECT ", flag_columns!(), " FROM feature_flags WHERE ($1 IS NULL OR active = $1) AND ($2 IS NULL OR key > $2) \
         ORDER BY key LIMIT $3"
    }

    /// A house's autonomy.
    fn autonomy(org_id: &'q OrgId) -> row<AutonomyRow> [house] {
        "SELECT ", autonomy_columns!(), " FROM house_autonomy WHERE org_id = $1"
    }

    /// Set a house's first autonomy (revision 1; no row when it has one).
    fn insert_autonomy(org_id: &'q OrgId, level: &'q str, note: &'q str, revised_by: &'q str, revised_at: DateTime<Utc>) -> row<AutonomyRow> [house] {
        "INSERT INTO house_autonomy (", autonomy_columns!(), ") VALUES ($1, $2, $3, 1, $4, $5) \
         ON CONFLICT (org_id) DO NOTHING RETURNING ", autonomy_columns!()
    }

    /// Revise a house's autonomy if it is still at `revision`.
    fn revise_autonomy(level: &'q str, note: &'q str, revised_by: &'q str, revised_at: DateTime<Utc>, org_id: &'q OrgId, revision: i64) -> row<AutonomyRow> [house] {
        "UPDATE house_autonomy SET level = $1, note = $2, revision = revision + 1, revised_by = $3, \
         revised_at = $4 WHERE org_id = $5 AND revision = $6 RETURNING ", autonomy_columns!()
    }

    /// Whether a house exists (1 or 0).
    fn house_exists(id: &'q OrgId) -> scalar<i64> [any "the row is the house itself (organizations has no org_id column)"] {
        "SELECT COUNT(*) FROM organizations WHERE id = $1"
    }

    /// An invite request.
    fn invite_request(id: &'q InviteRequestId) -> row<InviteRequestRow> [any "invite requests come before any house (invite_requests has no house)"] {
        request_select!(), "WHERE r.id = $1"
    }

    /// Up to `limit` invite requests made since `min_created_at` (of a status, when given),
    /// newest first.
    fn invite_requests_since(min_created_at: DateTime<Utc>, status: Option<InviteRequestStatus>, limit: i64) -> row<InviteRequestRow> [any "invite requests come before any house (invite_requests has no house)"] {
        "SELECT * FROM (", request_select!(), "WHERE r.created_at >= $1) x WHERE ($2 IS NULL OR x.status = $2) \
         ORDER BY x.created_at DESC, x.id DESC LIMIT $3"
    }

    /// The newest 20 invite requests from addresses `LIKE` the pattern `email`, but `id`.
    fn requests_like(email: &'q str, id: &'q str) -> row<InviteRequestRow> [any "invite requests come before any house (invite_requests has no house)"] {
        request_select!(), "WHERE r.email LIKE $1 AND r.id <> $2 ORDER BY r.created_at DESC, r.id DESC LIMIT 20"
    }

    /// Keep a research note on an invite request.
    fn insert_research(id: &'q str, request_id: &'q str, findings: &'q str, created_at: DateTime<Utc>) -> exec [any "research notes are on invite requests, which come before any house"] {
        "INSERT INTO invite_request_research (id, request_id, findings, created_at) VALUES ($1, $2, $3, $4)"
    }

    /// The research notes on an invite request, oldest first.
    fn research_of(request_id: &'q InviteRequestId) -> row<ResearchRow> [any "research notes are on invite requests, which come before any house"] {
        "SELECT id, request_id, findings, created_at FROM invite_request_research WHERE request_id = $1 \
         ORDER BY created_at, id"
    }

    /// Record an AI reader call (of a house, or of none).
    fn insert_ai_call(id: &'q str, org_id: Option<&'q OrgId>, purpose: &'q str, outcome: &'q str, millis: i64, created_at: DateTime<Utc>) -> exec [house] {
        "INSERT INTO ai_reader_calls (id, org_id, purpose, outcome, millis, created_at) VALUES ($1, $2, $3, $4, $5, $6)"
    }

    /// The platform's totals.
    fn platform_totals() -> row<PlatformTotals> [any "the platform's totals count every house"] {
        "SELECT (SELECT COUNT(*) FROM organizations) AS houses, \
         (SELECT COUNT(*) FROM users WHERE erased_at IS NULL) AS people, \
         (SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL) AS live_keys, \
         (SELECT COUNT(*) FROM assets WHERE deleted_at IS NULL) AS assets, \
         (SELECT CAST(COALESCE(SUM(grant_tokens + topup_tokens), 0) AS BIGINT) FROM balances) AS spendable, \
         (SELECT CAST(COALESCE(SUM(held), 0) AS BIGINT) FROM balances) AS held, \
         (SELECT CAST(COALESCE(SUM(settled), 0) AS BIGINT) FROM balances) AS settled, \
         (SELECT CAST(COALESCE(SUM(credited), 0) AS BIGINT) FROM balances) AS credited"
    }

    /// Every develop ever, by status.
    fn jobs_by_status_ever() -> row<CountRow> [any "the platform's totals count every house"] {
        "SELECT status AS key, COUNT(*) AS n FROM jobs GROUP BY status ORDER BY status"
    }

    /// Of the people signed up since `min_created_at`, how many reached each first step.
    fn funnel(min_created_at: DateTime<Utc>) -> row<FunnelRow> [any "the analyst's aggregates read every house's rows"] {
        "SELECT COUNT(*) AS signed_up, \
         COUNT(CASE WHEN EXISTS (SELECT 1 FROM api_keys k WHERE k.created_by = u.id) THEN 1 END) AS first_key, \
         COUNT(CASE WHEN EXISTS (SELECT 1 FROM assets a WHERE a.created_by = u.id AND a.tool IS NULL) \
         THEN 1 END) AS first_upload, \
         COUNT(CASE WHEN EXISTS (SELECT 1 FROM jobs j WHERE j.user_id = u.id) THEN 1 END) AS first_develop, \
         COUNT(CASE WHEN EXISTS (SELECT 1 FROM billing_checkouts b WHERE b.user_id = u.id \
         AND b.status = 'paid') THEN 1 END) AS first_purchase \
         FROM users u WHERE u.created_at >= $1"
    }

    /// AI reader calls since `min_created_at`.
    fn ai_call_stamps(min_created_at: DateTime<Utc>) -> row<StampRow> [any "the analyst's aggregates read every house's rows"] {
        stamps!("SELECT purpose AS key, outcome AS detail, millis AS amount, created_at AS at \
                 FROM ai_reader_calls WHERE created_at >= $1")
    }

    /// Develops queued since `min_created_at` (of a house, when given).
    fn develop_stamps(min_created_at: DateTime<Utc>, org_id: Option<&'q OrgId>) -> row<StampRow> [any "the analyst's aggregates read every house's rows when given no house"] {
        stamps!("SELECT tool AS key, status AS detail, tokens AS amount, created_at AS at FROM jobs \
                 WHERE created_at >= $1 AND ($2 IS NULL OR org_id = $2)")
    }

    /// Images uploaded since `min_created_at` (to a house, when given).
    fn upload_stamps(min_created_at: DateTime<Utc>, org_id: Option<&'q OrgId>) -> row<StampRow> [any "the analyst's aggregates read every house's rows when given no house"] {
        stamps!("SELECT 'upload' AS key, kind AS detail, bytes AS amount, created_at AS at FROM assets \
                 WHERE tool IS NULL AND created_at >= $1 AND ($2 IS NULL OR org_id = $2)")
    }

    /// Packs asked for since `min_created_at`.
    fn pack_stamps(min_created_at: DateTime<Utc>) -> row<StampRow> [any "the analyst's aggregates read every house's rows"] {
        stamps!("SELECT 'pack' AS key, status AS detail, items AS amount, created_at AS at FROM packs \
                 WHERE created_at >= $1")
    }

    /// Lane results made since `min_created_at`.
    fn lane_stamps(min_created_at: DateTime<Utc>) -> row<StampRow> [any "the analyst's aggregates read every house's rows"] {
        stamps!("SELECT lane AS key, mime AS detail, bytes AS amount, created_at AS at FROM lane_results \
                 WHERE created_at >= $1")
    }

    /// A house's holds settled since `min_resolved_at`.
    fn spend_stamps(min_resolved_at: DateTime<Utc>, org_id: &'q OrgId) -> row<StampRow> [house] {
        stamps!("SELECT 'settled' AS key, status AS detail, amount, resolved_at AS at FROM holds \
                 WHERE status = 'settled' AND resolved_at >= $1 AND org_id = $2")
    }

    /// The commonest failures since `min_finished_at`, by tool and error.
    fn failure_counts(min_finished_at: DateTime<Utc>, limit: i64) -> row<StampRow> [any "the analyst's aggregates read every house's rows"] {
        "SELECT tool AS key, COALESCE(error, '') AS detail, COUNT(*) AS amount, MAX(finished_at) AS at \
         FROM jobs WHERE status = 'failed' AND finished_at >= $1 GROUP BY tool, error \
         ORDER BY amount DESC, key LIMIT $2"
    }

    /// Letters queued since `min_created_at`.
    fn letter_stamps(min_created_at: DateTime<Utc>) -> row<StampRow> [any "the analyst's aggregates read every house's rows"] {
        stamps!("SELECT kind AS key, status AS detail, attempts AS amount, created_at AS at FROM letters \
                 WHERE created_at >= $1")
    }

    /// Memories made since `min_created_at`, and those corrected or retired since
    /// `min_updated_at` (the same time).
    fn memory_stamps(min_created_at: DateTime<Utc>, min_updated_at: DateTime<Utc>) -> row<StampRow> [any "the analyst's aggregates read every house's rows"] {
        stamps!("SELECT memory_class AS key, 'created' AS detail, evidence_count AS amount, created_at AS at \
                 FROM memories WHERE created_at >= $1 \
                 UNION ALL SELECT memory_class AS key, status AS detail, evidence_count AS amount, updated_at AS at \
                 FROM memories WHERE status IN ('corrected', 'retired') AND updated_at >= $2")
    }

    /// Retakes queued since `min_created_at`.
    fn retake_stamps(min_created_at: DateTime<Utc>) -> row<StampRow> [any "the analyst's aggregates read every house's rows"] {
        stamps!("SELECT tool AS key, status AS detail, tokens AS amount, created_at AS at FROM jobs \
                 WHERE retry_of_job_id IS NOT NULL AND created_at >= $1")
    }
}
