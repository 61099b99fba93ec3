-- AI utility lanes: the results a lane answers but does not keep in the library (a depth map, a
-- segment cutout), fetchable through a short-lived signed URL until `expires_at`, after which a
-- sweep deletes the row and its blob; and the deployment's link-signing keys (one row per use,
-- created by the first replica that needs it, so every replica signs and checks alike).

CREATE TABLE lane_results (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    lane       TEXT NOT NULL,
    blob_key   TEXT NOT NULL,
    mime       TEXT NOT NULL,
    bytes      INTEGER NOT NULL,
    expires_at TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX lane_results_expiry ON lane_results (expires_at);

CREATE TABLE signing_keys (
    name       TEXT PRIMARY KEY,
    secret     TEXT NOT NULL,
    created_at TEXT NOT NULL
);
