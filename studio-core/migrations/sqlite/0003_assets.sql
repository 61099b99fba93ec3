-- The library's images. Deletion is soft: deleted_at hides a row from every read; the row and
-- its bytes stay.

CREATE TABLE assets (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES organizations (id),
    created_by     TEXT REFERENCES users (id),
    name           TEXT NOT NULL,
    sku            TEXT,
    kind           TEXT NOT NULL CHECK (kind IN ('clothes', 'accessory', 'jewelry', 'model', 'background')),
    folder_id      TEXT REFERENCES folders (id),
    group_id       TEXT,
    fit            TEXT CHECK (fit IS NULL OR fit IN ('auto', 'fitted', 'regular', 'loose', 'oversized')),
    wearer         TEXT CHECK (wearer IS NULL OR wearer IN ('women', 'men', 'unisex')),
    fit_guessed    BOOLEAN NOT NULL DEFAULT FALSE,
    wearer_guessed BOOLEAN NOT NULL DEFAULT FALSE,
    carries_mark   BOOLEAN NOT NULL DEFAULT FALSE,
    mark_guessed   BOOLEAN NOT NULL DEFAULT FALSE,
    mime           TEXT NOT NULL,
    tool           TEXT,
    blob_key       TEXT NOT NULL,
    sha256         TEXT NOT NULL,
    bytes          INTEGER NOT NULL CHECK (bytes > 0),
    width          INTEGER,
    height         INTEGER,
    approved_by    TEXT,
    approved_at    TEXT,
    created_at     TEXT NOT NULL,
    deleted_at     TEXT
);
CREATE INDEX assets_org_created ON assets (org_id, created_at);
CREATE INDEX assets_folder ON assets (folder_id);
