-- Looks develop: the lock records the Look Base's parent (the model collage the frame grew
-- from); a factory look keeps the variation keys and quality it was planned with (JSON text and
-- a tier, null for a look made by hand).

ALTER TABLE looks ADD COLUMN look_base_parent_id TEXT;
ALTER TABLE looks ADD COLUMN planned_keys TEXT;
ALTER TABLE looks ADD COLUMN planned_quality TEXT;
CREATE INDEX jobs_look_open ON jobs (look_id, status) WHERE look_id IS NOT NULL;
