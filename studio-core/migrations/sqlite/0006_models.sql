-- Models a house keeps: a name, its reference frames (asset ids of the house, the first is the
-- one a develop casts) and the traits read or written for it. Free to cast; never deleted here.

CREATE TABLE models (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES organizations (id),
    created_by  TEXT REFERENCES users (id),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    asset_ids   TEXT NOT NULL,
    traits      TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX models_org_created ON models (org_id, created_at);
