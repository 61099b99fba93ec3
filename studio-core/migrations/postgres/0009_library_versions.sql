-- Each house's library version: moved by a trigger in the same transaction as every insert,
-- update or delete of one of its assets, whichever code path writes it, so a cached asset list
-- (studio-core/src/asset_lists.rs) is known current by reading one row.
CREATE TABLE library_versions (
    org_id  TEXT PRIMARY KEY REFERENCES organizations (id),
    version BIGINT NOT NULL
);

CREATE FUNCTION bump_library_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO library_versions (org_id, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (org_id) DO UPDATE SET version = library_versions.version + 1;
    END IF;
    IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.org_id IS DISTINCT FROM OLD.org_id) THEN
        INSERT INTO library_versions (org_id, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (org_id) DO UPDATE SET version = library_versions.version + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER assets_library_version AFTER INSERT OR UPDATE OR DELETE ON assets
    FOR EACH ROW EXECUTE FUNCTION bump_library_version();
