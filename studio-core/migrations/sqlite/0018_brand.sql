-- Brand: one visual profile per house (what a brand DNA read or a patch leaves) and the house's
-- registered marks (renditions of its logo, at house level or for one collection). Lists are
-- JSON text. `free_read_at` is the claim a first (free) DNA read takes before it asks the reader,
-- so two first reads at once cannot both be free (docs/brand.md). A mark's `collection_id` is ''
-- at house level, so one unique index covers both levels.

CREATE TABLE brand_profiles (
    org_id             TEXT PRIMARY KEY REFERENCES organizations (id),
    vision_en          TEXT NOT NULL DEFAULT '',
    vibe               TEXT NOT NULL DEFAULT '[]',
    palette            TEXT NOT NULL DEFAULT '[]',
    signature_keywords TEXT NOT NULL DEFAULT '[]',
    inject_enabled     INTEGER NOT NULL DEFAULT 1,
    dna_runs           INTEGER NOT NULL DEFAULT 0,
    free_read_at       TEXT,
    updated_at         TEXT NOT NULL
);

CREATE TABLE brand_marks (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id),
    asset_id      TEXT NOT NULL REFERENCES assets (id),
    collection_id TEXT NOT NULL DEFAULT '',
    material      TEXT NOT NULL,
    placement     TEXT,
    note          TEXT,
    sort_order    INTEGER NOT NULL DEFAULT 0,
    created_by    TEXT,
    created_at    TEXT NOT NULL
);
CREATE UNIQUE INDEX brand_marks_level ON brand_marks (org_id, collection_id, asset_id);
