-- Develops. A job is inserted in the same transaction as its hold, so nothing is queued
-- without tokens held; it is claimed by a runner with a lease (claimed_at), so a job left
-- running by a dead process is taken over and never stranded with its hold.

CREATE TABLE jobs (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT REFERENCES users (id),
    tool            TEXT NOT NULL,
    quality         TEXT NOT NULL CHECK (quality IN ('1k', '2k', '4k')),
    params          TEXT NOT NULL,
    inputs          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    hold_id         TEXT NOT NULL UNIQUE REFERENCES holds (id),
    tokens          INTEGER NOT NULL CHECK (tokens > 0),
    tokens_settled  INTEGER,
    idempotency_key TEXT,
    brand_id        TEXT,
    run_id          TEXT,
    look_id         TEXT,
    stage           TEXT,
    source_job_id   TEXT,
    retry_of_job_id TEXT,
    result_asset_id TEXT,
    error           TEXT,
    event_seq       INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    claimed_at      TEXT,
    created_at      TEXT NOT NULL,
    started_at      TEXT,
    finished_at     TEXT
);
-- Idempotent per (person, key); duplicates and takes use their own key prefixes.
CREATE UNIQUE INDEX jobs_idempotency ON jobs (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_queue ON jobs (status, created_at);
CREATE INDEX jobs_org_seq ON jobs (org_id, event_seq);
CREATE INDEX jobs_org_created ON jobs (org_id, created_at);

-- A takes request by idempotency key: the set of frames it took again and the new jobs.
CREATE TABLE take_requests (
    user_id         TEXT NOT NULL REFERENCES users (id),
    idempotency_key TEXT NOT NULL,
    source_ids      TEXT NOT NULL,
    job_ids         TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    PRIMARY KEY (user_id, idempotency_key)
);

-- Each job state change of a house takes the next number (moved under the balance row's lock).
ALTER TABLE balances ADD COLUMN job_event_seq INTEGER NOT NULL DEFAULT 0;
