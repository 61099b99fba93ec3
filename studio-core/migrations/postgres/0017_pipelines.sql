-- Pipelines: saved plans (presets), runs and their steps. A run reserves one hold per step when
-- it starts; a step gets its job row only when its inputs exist (status 'started'), so a waiting
-- step is a hold without a job. Plans, params, inputs and the step's upstream list are JSON text.

CREATE TABLE pipeline_presets (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES organizations (id),
    created_by     TEXT,
    name           TEXT NOT NULL,
    plan           TEXT NOT NULL,
    sink_folder_id TEXT,
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX pipeline_presets_org ON pipeline_presets (org_id, created_at);

CREATE TABLE pipeline_runs (
    id               TEXT PRIMARY KEY,
    org_id           TEXT NOT NULL REFERENCES organizations (id),
    user_id          TEXT,
    name             TEXT NOT NULL,
    plan_id          TEXT,
    plan             TEXT NOT NULL,
    brand_id         TEXT,
    idempotency_key  TEXT,
    request_hash     TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('developing', 'done', 'settled', 'failed', 'cancelled')),
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    frames_planned   BIGINT NOT NULL,
    frames_skipped   BIGINT NOT NULL,
    tokens_planned   BIGINT NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    finished_at      TIMESTAMPTZ
);
CREATE INDEX pipeline_runs_org ON pipeline_runs (org_id, created_at);
CREATE INDEX pipeline_runs_open ON pipeline_runs (id) WHERE status = 'developing';
CREATE UNIQUE INDEX pipeline_runs_key ON pipeline_runs (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

CREATE TABLE pipeline_steps (
    id             TEXT PRIMARY KEY,
    run_id         TEXT NOT NULL REFERENCES pipeline_runs (id),
    org_id         TEXT NOT NULL REFERENCES organizations (id),
    idx            BIGINT NOT NULL,
    item           BIGINT NOT NULL,
    node_id        TEXT NOT NULL,
    tool           TEXT NOT NULL,
    quality        TEXT NOT NULL,
    params         TEXT NOT NULL,
    inputs         TEXT NOT NULL,
    upstream       TEXT NOT NULL,
    sink_folder_id TEXT,
    hold_id        TEXT NOT NULL UNIQUE,
    tokens         BIGINT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('waiting', 'started', 'failed', 'cancelled')),
    job_id         TEXT UNIQUE,
    error          TEXT,
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL,
    UNIQUE (run_id, idx)
);
