-- Each house's library version: moved by triggers in the same transaction as every insert,
-- update or delete of one of its assets, whichever code path writes it, so a cached asset list
-- (studio-core/src/asset_lists.rs) is known current by reading one row.
CREATE TABLE library_versions (
    org_id  TEXT PRIMARY KEY REFERENCES organizations (id),
    version INTEGER NOT NULL
);

CREATE TRIGGER assets_version_insert AFTER INSERT ON assets BEGIN
    INSERT OR IGNORE INTO library_versions (org_id, version) VALUES (NEW.org_id, 0);
    UPDATE library_versions SET version = version + 1 WHERE org_id = NEW.org_id;
END;

CREATE TRIGGER assets_version_update AFTER UPDATE ON assets BEGIN
    INSERT OR IGNORE INTO library_versions (org_id, version) VALUES (NEW.org_id, 0);
    UPDATE library_versions SET version = version + 1 WHERE org_id IN (NEW.org_id, OLD.org_id);
END;

CREATE TRIGGER assets_version_delete AFTER DELETE ON assets BEGIN
    INSERT OR IGNORE INTO library_versions (org_id, version) VALUES (OLD.org_id, 0);
    UPDATE library_versions SET version = version + 1 WHERE org_id = OLD.org_id;
END;
