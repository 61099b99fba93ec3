-- The library version (0009) moves once per statement, not once per row. The row trigger
-- upserted the house's one library_versions row for every asset a statement wrote, and many
-- thousands of updates of one row in one transaction walk an ever longer chain of its row
-- versions (quadratic: a million-asset write took longer than 15 minutes; docs/performance.md,
-- row S). Statement triggers read the rows a statement changed from its transition tables and
-- move each house's version once. The version only has to change in every transaction that
-- changes a house's assets (the asset-list cache compares it), so once is enough. SQLite keeps
-- its row trigger: it updates a row in place, with no chain to walk.

DROP TRIGGER assets_library_version ON assets;
DROP FUNCTION bump_library_version();

CREATE FUNCTION bump_library_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO library_versions (org_id, version)
        SELECT DISTINCT org_id, 1 FROM new_rows
        ON CONFLICT (org_id) DO UPDATE SET version = library_versions.version + 1;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO library_versions (org_id, version)
        SELECT DISTINCT org_id, 1 FROM old_rows
        ON CONFLICT (org_id) DO UPDATE SET version = library_versions.version + 1;
    ELSE
        INSERT INTO library_versions (org_id, version)
        SELECT org_id, 1 FROM old_rows UNION SELECT org_id, 1 FROM new_rows
        ON CONFLICT (org_id) DO UPDATE SET version = library_versions.version + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER assets_library_version_insert AFTER INSERT ON assets
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_library_versions();
CREATE TRIGGER assets_library_version_update AFTER UPDATE ON assets
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_library_versions();
CREATE TRIGGER assets_library_version_delete AFTER DELETE ON assets
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_library_versions();
