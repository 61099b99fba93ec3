-- Each house's key epoch: moved by triggers in the same transaction as anything that changes
-- what one of its keys may do (revocation, role, owner, house, secret, removal), so a verified
-- key kept in memory (studio-core/src/accounts/key_cache.rs) is known current by reading one
-- row, read in the same statement as the house's library version. Recording a key's use
-- (last_used_at) does not move it.
CREATE TABLE key_epochs (
    org_id TEXT PRIMARY KEY,
    epoch  INTEGER NOT NULL
);

CREATE TRIGGER api_keys_epoch_update AFTER UPDATE OF revoked_at, role, org_id, created_by, secret_hash ON api_keys BEGIN
    INSERT INTO key_epochs (org_id, epoch) VALUES (OLD.org_id, 1)
        ON CONFLICT (org_id) DO UPDATE SET epoch = epoch + 1;
    INSERT INTO key_epochs (org_id, epoch) VALUES (NEW.org_id, 1)
        ON CONFLICT (org_id) DO UPDATE SET epoch = epoch + 1;
END;

CREATE TRIGGER api_keys_epoch_delete AFTER DELETE ON api_keys BEGIN
    INSERT INTO key_epochs (org_id, epoch) VALUES (OLD.org_id, 1)
        ON CONFLICT (org_id) DO UPDATE SET epoch = epoch + 1;
END;
