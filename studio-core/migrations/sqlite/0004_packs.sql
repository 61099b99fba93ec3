-- Batch downloads. A queued pack is claimed by a worker (claimed_at), so a restart or another
-- replica picks up where a dead one left off.

CREATE TABLE packs (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES organizations (id),
    created_by  TEXT REFERENCES users (id),
    filename    TEXT NOT NULL,
    asset_ids   TEXT NOT NULL,
    sizes       TEXT NOT NULL,
    mode        TEXT NOT NULL CHECK (mode IN ('instant', 'pack')),
    status      TEXT NOT NULL CHECK (status IN ('queued', 'building', 'ready', 'failed', 'expired')),
    items       INTEGER NOT NULL,
    bytes       INTEGER NOT NULL,
    seconds     INTEGER NOT NULL,
    blob_key    TEXT,
    error       TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    claimed_at  TEXT,
    ready_at    TEXT,
    expires_at  TEXT NOT NULL
);
CREATE INDEX packs_status ON packs (status, created_at);
