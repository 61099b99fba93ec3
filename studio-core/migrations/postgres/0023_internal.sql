-- Internal machine routes (02-route-groups.md §4.13) and their admin twins (§4.12): replay
-- evidence of one develop and the renders made from it (a claimed queue with a lease), the
-- platform's experiments and feature flags, each house's long-horizon autonomy level, research
-- notes on requests to be let in, and the outcome of every AI reader call (chat quality).
-- docs/internal.md describes each table.

CREATE TABLE replay_evidence (
    id            TEXT PRIMARY KEY,
    job_id        TEXT NOT NULL UNIQUE REFERENCES jobs (id),
    org_id        TEXT NOT NULL REFERENCES organizations (id),
    tool          TEXT NOT NULL,
    job_status    TEXT NOT NULL,
    snapshot      TEXT NOT NULL,
    summary       TEXT,
    summary_focus TEXT,
    summarized_at TIMESTAMPTZ,
    opened_by     TEXT,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX replay_evidence_created ON replay_evidence (created_at DESC, id DESC);

CREATE TABLE replay_renders (
    id           TEXT PRIMARY KEY,
    evidence_id  TEXT NOT NULL REFERENCES replay_evidence (id),
    format       TEXT NOT NULL CHECK (format IN ('contact-sheet', 'timeline')),
    status       TEXT NOT NULL CHECK (status IN ('queued', 'rendering', 'complete', 'failed')),
    attempts     BIGINT NOT NULL DEFAULT 0,
    claimed_at   TIMESTAMPTZ,
    blob_key     TEXT,
    mime         TEXT,
    bytes        BIGINT,
    error_code   TEXT,
    requested_by TEXT,
    created_at   TIMESTAMPTZ NOT NULL,
    finished_at  TIMESTAMPTZ
);
CREATE INDEX replay_renders_queue ON replay_renders (status, created_at);

CREATE TABLE experiments (
    id          TEXT PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL,
    status      TEXT NOT NULL
        CHECK (status IN ('draft', 'running', 'paused', 'exposure_frozen', 'stopped', 'complete')),
    variants    TEXT NOT NULL,
    created_by  TEXT,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    started_at  TIMESTAMPTZ,
    ended_at    TIMESTAMPTZ
);
CREATE INDEX experiments_created ON experiments (created_at DESC, id DESC);

CREATE TABLE feature_flags (
    key             TEXT PRIMARY KEY,
    description     TEXT NOT NULL,
    active          BOOLEAN NOT NULL,
    rollout_percent BIGINT NOT NULL CHECK (rollout_percent BETWEEN 0 AND 100),
    updated_by      TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);

CREATE TABLE house_autonomy (
    org_id     TEXT PRIMARY KEY REFERENCES organizations (id),
    level      TEXT NOT NULL CHECK (level IN ('manual', 'suggest', 'supervised', 'autonomous')),
    note       TEXT NOT NULL,
    revision   BIGINT NOT NULL,
    revised_by TEXT NOT NULL,
    revised_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE invite_request_research (
    id         TEXT PRIMARY KEY,
    request_id TEXT NOT NULL REFERENCES invite_requests (id),
    findings   TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX invite_request_research_request ON invite_request_research (request_id, created_at);

CREATE TABLE ai_reader_calls (
    id         TEXT PRIMARY KEY,
    org_id     TEXT,
    purpose    TEXT NOT NULL,
    outcome    TEXT NOT NULL CHECK (outcome IN ('answered', 'unusable', 'rejected', 'unavailable')),
    millis     BIGINT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX ai_reader_calls_created ON ai_reader_calls (created_at);
