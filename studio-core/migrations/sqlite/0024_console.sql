-- The admin console (02-route-groups.md §4.12): what the ledger and the jobs do not already keep.
--
-- provider_costs: one row per settled charge (a develop's hold or a lane's), written after the
-- settle, never beside the ledger write: the tool it paid for, which provider did the work, and
-- what that call cost in US dollars: the provider's own figure when it reports one, else the
-- documented per-tool estimate (estimated = true). One row per hold.
CREATE TABLE provider_costs (
    id         TEXT PRIMARY KEY,
    hold_id    TEXT NOT NULL UNIQUE,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    job_id     TEXT,
    tool       TEXT NOT NULL,
    provider   TEXT NOT NULL,
    tokens     INTEGER NOT NULL,
    cost_usd   REAL NOT NULL,
    estimated  BOOLEAN NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX provider_costs_created ON provider_costs (created_at);

-- verdicts: each verdict computed on a landed frame, kept once per job and rubric version, so
-- the judge rollup aggregates stored verdicts.
CREATE TABLE verdicts (
    id         TEXT PRIMARY KEY,
    job_id     TEXT NOT NULL,
    frame_id   TEXT,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    tool       TEXT NOT NULL,
    model      TEXT NOT NULL,
    rubric     INTEGER NOT NULL,
    score      INTEGER NOT NULL,
    readable   BOOLEAN NOT NULL,
    passed     BOOLEAN NOT NULL,
    marks      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (job_id, rubric)
);
CREATE INDEX verdicts_newest ON verdicts (created_at DESC, id DESC);

-- The console reads develops and frames across houses, newest first.
CREATE INDEX jobs_newest ON jobs (created_at, id);
CREATE INDEX assets_newest ON assets (created_at, id);
