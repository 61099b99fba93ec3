-- Each house's key epoch: moved by triggers in the same transaction as anything that changes
-- what one of its keys may do (revocation, role, owner, house, secret, removal), so a verified
-- key kept in memory (studio-core/src/accounts/key_cache.rs) is known current by reading one
-- row, read in the same statement as the house's library version. Recording a key's use
-- (last_used_at) does not move it. One move per statement and house (transition tables, as
-- the library version since 0028): removing a seat revokes all its keys in one statement.
CREATE TABLE key_epochs (
    org_id TEXT PRIMARY KEY,
    epoch  BIGINT NOT NULL
);

CREATE FUNCTION bump_key_epochs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO key_epochs (org_id, epoch)
        SELECT DISTINCT org_id, 1 FROM old_rows
        ON CONFLICT (org_id) DO UPDATE SET epoch = key_epochs.epoch + 1;
    ELSE
        INSERT INTO key_epochs (org_id, epoch)
        SELECT o.org_id, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE (o.revoked_at, o.role, o.org_id, o.created_by, o.secret_hash)
              IS DISTINCT FROM (n.revoked_at, n.role, n.org_id, n.created_by, n.secret_hash)
        UNION
        SELECT n.org_id, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE (o.revoked_at, o.role, o.org_id, o.created_by, o.secret_hash)
              IS DISTINCT FROM (n.revoked_at, n.role, n.org_id, n.created_by, n.secret_hash)
        ON CONFLICT (org_id) DO UPDATE SET epoch = key_epochs.epoch + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_epoch_update AFTER UPDATE ON api_keys
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_key_epochs();
CREATE TRIGGER api_keys_epoch_delete AFTER DELETE ON api_keys
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_key_epochs();
