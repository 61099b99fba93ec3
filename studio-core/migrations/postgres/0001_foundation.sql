-- Foundation: people, houses, seats, sessions, organization keys and the token ledger.

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    name          TEXT,
    password_hash TEXT,
    created_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE organizations (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE memberships (
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    user_id    TEXT NOT NULL REFERENCES users (id),
    role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES organizations (id),
    created_by   TEXT NOT NULL REFERENCES users (id),
    name         TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('viewer', 'member')),
    prefix       TEXT NOT NULL,
    secret_hash  TEXT NOT NULL UNIQUE,
    last_used_at TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX api_keys_org ON api_keys (org_id, created_at);

-- Running totals, moved in the same transaction as every ledger entry.
CREATE TABLE balances (
    org_id       TEXT PRIMARY KEY REFERENCES organizations (id),
    grant_tokens BIGINT NOT NULL DEFAULT 0 CHECK (grant_tokens >= 0),
    topup_tokens BIGINT NOT NULL DEFAULT 0 CHECK (topup_tokens >= 0),
    held         BIGINT NOT NULL DEFAULT 0 CHECK (held >= 0),
    settled      BIGINT NOT NULL DEFAULT 0 CHECK (settled >= 0),
    credited     BIGINT NOT NULL DEFAULT 0 CHECK (credited >= 0),
    updated_at   TIMESTAMPTZ NOT NULL
);

CREATE TABLE holds (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id),
    amount        BIGINT NOT NULL CHECK (amount > 0),
    from_grant    BIGINT NOT NULL CHECK (from_grant >= 0),
    from_topup    BIGINT NOT NULL CHECK (from_topup >= 0),
    generation_id TEXT,
    status        TEXT NOT NULL CHECK (status IN ('held', 'settled', 'released')),
    created_at    TIMESTAMPTZ NOT NULL,
    resolved_at   TIMESTAMPTZ,
    CHECK (from_grant + from_topup = amount)
);
CREATE INDEX holds_open ON holds (org_id, status);

-- Append-only: each row moves the running totals by its deltas.
CREATE TABLE ledger_entries (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES organizations (id),
    kind           TEXT NOT NULL CHECK (kind IN ('grant', 'topup', 'reserve', 'settled', 'released')),
    grant_delta    BIGINT NOT NULL,
    topup_delta    BIGINT NOT NULL,
    held_delta     BIGINT NOT NULL,
    settled_delta  BIGINT NOT NULL,
    credited_delta BIGINT NOT NULL,
    hold_id        TEXT,
    user_id        TEXT,
    reason         TEXT,
    expires_at     TIMESTAMPTZ,
    created_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX ledger_entries_org ON ledger_entries (org_id, created_at);
-- A hold is reserved once and resolved (settled or released) once, whatever the code above does.
CREATE UNIQUE INDEX ledger_entries_reserved_once ON ledger_entries (hold_id) WHERE kind = 'reserve';
CREATE UNIQUE INDEX ledger_entries_resolved_once ON ledger_entries (hold_id) WHERE kind IN ('settled', 'released');

CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger_entries is append-only';
END;
$$;

CREATE TRIGGER ledger_entries_no_change BEFORE UPDATE OR DELETE ON ledger_entries
FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
