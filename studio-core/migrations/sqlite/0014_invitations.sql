-- The platform gate (02-route-groups §4.10): redeem codes, invitations by email and requests to
-- be let in. An invitation keeps only the SHA-256 of its token. A code's use count can never pass
-- its limit: the CHECK holds whatever the code does, and redemption raises it with one
-- conditional UPDATE. A person has at most one code of their own (the partial unique index).

CREATE TABLE invite_codes (
    id            TEXT PRIMARY KEY,
    code          TEXT NOT NULL UNIQUE,
    label         TEXT NOT NULL,
    owner_user_id TEXT REFERENCES users (id),
    created_by    TEXT REFERENCES users (id),
    grant_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (grant_tokens >= 0),
    max_uses      INTEGER NOT NULL CHECK (max_uses >= 1),
    used_count    INTEGER NOT NULL DEFAULT 0 CHECK (used_count >= 0 AND used_count <= max_uses),
    expires_at    TEXT,
    revoked_at    TEXT,
    created_at    TEXT NOT NULL
);
CREATE UNIQUE INDEX invite_codes_owner ON invite_codes (owner_user_id) WHERE owner_user_id IS NOT NULL;
-- Two live admin codes never share a label (a label names one campaign).
CREATE UNIQUE INDEX invite_codes_live_label ON invite_codes (label)
    WHERE owner_user_id IS NULL AND revoked_at IS NULL;

CREATE TABLE invitations (
    id               TEXT PRIMARY KEY,
    email            TEXT NOT NULL UNIQUE,
    token_hash       TEXT NOT NULL UNIQUE,
    code_id          TEXT REFERENCES invite_codes (id),
    invited_by       TEXT REFERENCES users (id),
    grant_tokens     INTEGER NOT NULL DEFAULT 0 CHECK (grant_tokens >= 0),
    created_at       TEXT NOT NULL,
    accepted_at      TEXT,
    accepted_by      TEXT REFERENCES users (id),
    host_rewarded_at TEXT
);
CREATE INDEX invitations_code ON invitations (code_id, created_at);

CREATE TABLE invite_requests (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE,
    name       TEXT,
    house      TEXT,
    collection TEXT,
    intake     TEXT NOT NULL,
    links      TEXT NOT NULL,
    logo_url   TEXT,
    website    TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX invite_requests_created ON invite_requests (created_at);
