-- Grant expiry is appended, never edited: an `expire` entry names the grant entry it expires
-- (at most once) and takes what is left of it out of the grant bucket.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
    CHECK (kind IN ('grant', 'topup', 'reserve', 'settled', 'released', 'expire'));
ALTER TABLE ledger_entries ADD COLUMN expires_entry_id TEXT;
CREATE UNIQUE INDEX ledger_entries_expired_once ON ledger_entries (expires_entry_id) WHERE kind = 'expire';

-- The grants still waiting to expire, so finding what is due never walks the expired history:
-- a row is added with each expiring grant and removed with its expire entry (this table is
-- bookkeeping beside the ledger, not part of it).
CREATE TABLE grant_expiries (
    entry_id   TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX grant_expiries_due ON grant_expiries (expires_at);
CREATE INDEX grant_expiries_org ON grant_expiries (org_id, expires_at);
INSERT INTO grant_expiries (entry_id, org_id, expires_at)
SELECT id, org_id, expires_at FROM ledger_entries WHERE kind = 'grant' AND expires_at IS NOT NULL;
