-- Asset pages (GET /api/toolkit/assets?limit&cursor, the list_assets tool): newest first by
-- (created_at, id), live assets only, so a page is an index range however large the library.
CREATE INDEX assets_org_live ON assets (org_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX assets_folder_live ON assets (folder_id, created_at, id) WHERE deleted_at IS NULL;
DROP INDEX assets_org_created;
