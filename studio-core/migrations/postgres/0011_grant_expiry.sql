-- Grant expiry is appended, never edited: an `expire` entry names the grant entry it expires
-- (at most once) and takes what is left of it out of the grant bucket.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
    CHECK (kind IN ('grant', 'topup', 'reserve', 'settled', 'released', 'expire'));
ALTER TABLE ledger_entries ADD COLUMN expires_entry_id TEXT;
CREATE UNIQUE INDEX ledger_entries_expired_once ON ledger_entries (expires_entry_id) WHERE kind = 'expire';
CREATE INDEX ledger_entries_expiring ON ledger_entries (expires_at) WHERE kind = 'grant' AND expires_at IS NOT NULL;
