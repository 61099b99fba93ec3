-- The library's collections: a flat table, a tree through parent_id, scoped to a house.

CREATE TABLE folders (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    name       TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    parent_id  TEXT REFERENCES folders (id),
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX folders_org ON folders (org_id, created_at);
