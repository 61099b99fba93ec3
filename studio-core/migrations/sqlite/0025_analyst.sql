-- The analyst (02-route-groups.md §4.12, docs/analyst.md): its cadence, the digests it writes over
-- a period's figures, the reflection findings a digest raises and the admins' decisions on them,
-- and the admins' observations and reviews of the houses' memories.

-- One row: how often the analyst writes a digest by itself, and whether it does.
CREATE TABLE analyst_settings (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    hours      INTEGER NOT NULL,
    enabled    INTEGER NOT NULL,
    updated_by TEXT REFERENCES users (id),
    updated_at TEXT NOT NULL
);

-- A digest summarises [period_start, period_end). `slot` is the period's end in whole cadence
-- windows, unique per trigger, so two replicas' cadence sweeps cannot both write one.
CREATE TABLE analyst_digests (
    id           TEXT PRIMARY KEY,
    period_start TEXT NOT NULL,
    period_end   TEXT NOT NULL,
    figures      TEXT NOT NULL,
    summary      TEXT NOT NULL,
    writer       TEXT NOT NULL CHECK (writer IN ('figures', 'reader')),
    trigger_kind TEXT NOT NULL CHECK (trigger_kind IN ('admin', 'cadence')),
    slot         TEXT NOT NULL,
    requested_by TEXT REFERENCES users (id),
    created_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX analyst_digests_slot ON analyst_digests (trigger_kind, slot);
CREATE INDEX analyst_digests_newest ON analyst_digests (created_at DESC, id DESC);

CREATE TABLE reflection_findings (
    id         TEXT PRIMARY KEY,
    digest_id  TEXT NOT NULL REFERENCES analyst_digests (id),
    rule       TEXT NOT NULL,
    subject    TEXT NOT NULL,
    statement  TEXT NOT NULL,
    figures    TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('open', 'accepted', 'dismissed')),
    note       TEXT,
    decided_by TEXT REFERENCES users (id),
    decided_at TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX reflection_findings_newest ON reflection_findings (created_at DESC, id DESC);

-- What an admin saw that bears on a memory: it moves the memory's confidence and evidence count.
CREATE TABLE memory_observations (
    id                TEXT PRIMARY KEY,
    memory_id         TEXT NOT NULL REFERENCES memories (id),
    supports          INTEGER NOT NULL,
    note              TEXT NOT NULL,
    confidence_before REAL NOT NULL,
    confidence_after  REAL NOT NULL,
    observed_by       TEXT NOT NULL REFERENCES users (id),
    created_at        TEXT NOT NULL
);
CREATE INDEX memory_observations_memory ON memory_observations (memory_id, created_at);

-- An admin's review of a doubtful memory: kept as it is, or retired.
CREATE TABLE memory_reviews (
    id          TEXT PRIMARY KEY,
    memory_id   TEXT NOT NULL REFERENCES memories (id),
    decision    TEXT NOT NULL CHECK (decision IN ('keep', 'retire')),
    note        TEXT NOT NULL,
    reviewed_by TEXT NOT NULL REFERENCES users (id),
    created_at  TEXT NOT NULL
);
CREATE INDEX memory_reviews_memory ON memory_reviews (memory_id, created_at);
