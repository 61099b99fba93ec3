-- Lookbook: looks (selections, then a locked base frame), shot templates (built-in ones have no
-- house) and each house's standing preset. Items, backgrounds, keys and sizes are JSON text.

CREATE TABLE looks (
    id                 TEXT PRIMARY KEY,
    org_id             TEXT NOT NULL REFERENCES organizations (id),
    created_by         TEXT NOT NULL REFERENCES users (id),
    brand_id           TEXT,
    name               TEXT NOT NULL,
    model_asset_id     TEXT NOT NULL,
    items              TEXT NOT NULL,
    background         TEXT NOT NULL,
    aesthetic          TEXT NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('draft', 'locked')),
    look_base_asset_id TEXT,
    look_base_job_id   TEXT,
    batch_id           TEXT,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL
);
CREATE INDEX looks_org ON looks (org_id, created_at);
CREATE INDEX jobs_look ON jobs (org_id, look_id) WHERE look_id IS NOT NULL;

CREATE TABLE shot_templates (
    id         TEXT PRIMARY KEY,
    org_id     TEXT REFERENCES organizations (id),
    name       TEXT NOT NULL,
    slots      TEXT NOT NULL,
    shot_count INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE template_shots (
    id          TEXT PRIMARY KEY,
    template_id TEXT NOT NULL REFERENCES shot_templates (id),
    kind        TEXT NOT NULL CHECK (kind IN ('still', 'motion')),
    framing     TEXT NOT NULL,
    pose        TEXT NOT NULL,
    expression  TEXT NOT NULL,
    sort_order  INTEGER NOT NULL
);
CREATE INDEX template_shots_template ON template_shots (template_id, sort_order);

CREATE TABLE standing_presets (
    org_id         TEXT PRIMARY KEY REFERENCES organizations (id),
    model_asset_id TEXT,
    background     TEXT NOT NULL,
    aesthetic      TEXT NOT NULL,
    variation_keys TEXT NOT NULL,
    quality        TEXT NOT NULL CHECK (quality IN ('1k', '2k', '4k')),
    sizes          TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);

-- The built-in templates.
INSERT INTO shot_templates (id, org_id, name, slots, shot_count, created_at, updated_at) VALUES
    ('tpl_builtin_ecommerce', NULL, 'E-commerce set', '["top","bottom","dress","shoes"]', 4,
     '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
    ('tpl_builtin_editorial', NULL, 'Editorial story', '["dress","outerwear","bag","jewelry"]', 5,
     '2026-01-01T00:00:01.000000Z', '2026-01-01T00:00:01.000000Z'),
    ('tpl_builtin_accessories', NULL, 'Accessories close-ups', '["bag","shoes","accessory","jewelry"]', 3,
     '2026-01-01T00:00:02.000000Z', '2026-01-01T00:00:02.000000Z');
INSERT INTO template_shots (id, template_id, kind, framing, pose, expression, sort_order) VALUES
    ('shot_ecom_1', 'tpl_builtin_ecommerce', 'still', 'full-front', 'standing straight, arms relaxed', 'neutral', 1),
    ('shot_ecom_2', 'tpl_builtin_ecommerce', 'still', 'back', 'standing straight, facing away', 'neutral', 2),
    ('shot_ecom_3', 'tpl_builtin_ecommerce', 'still', 'three-quarter', 'weight on one leg, turned a quarter', 'soft smile', 3),
    ('shot_ecom_4', 'tpl_builtin_ecommerce', 'still', 'detail', 'hands clear of the pieces', 'neutral', 4),
    ('shot_edit_1', 'tpl_builtin_editorial', 'still', 'full-front', 'one hand on the hip', 'confident', 1),
    ('shot_edit_2', 'tpl_builtin_editorial', 'still', 'walking', 'mid-stride toward the camera', 'focused', 2),
    ('shot_edit_3', 'tpl_builtin_editorial', 'still', 'seated', 'seated on a low stool, legs crossed', 'relaxed', 3),
    ('shot_edit_4', 'tpl_builtin_editorial', 'still', 'three-quarter', 'looking over the shoulder', 'serious', 4),
    ('shot_edit_5', 'tpl_builtin_editorial', 'motion', 'walking', 'a slow walk past the camera', 'focused', 5),
    ('shot_acc_1', 'tpl_builtin_accessories', 'still', 'detail', 'bag held at the hip', 'neutral', 1),
    ('shot_acc_2', 'tpl_builtin_accessories', 'still', 'detail', 'feet together, shoes to the front', 'neutral', 2),
    ('shot_acc_3', 'tpl_builtin_accessories', 'still', 'detail', 'hand raised near the face', 'soft smile', 3);
