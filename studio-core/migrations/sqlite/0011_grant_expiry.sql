-- Grant expiry is appended, never edited: an `expire` entry names the grant entry it expires
-- (at most once) and takes what is left of it out of the grant bucket. SQLite cannot widen a
-- CHECK in place, so the append-only table is rebuilt with the new kind and column, and its
-- indexes and triggers made again (DROP TABLE fires no DELETE trigger).
CREATE TABLE ledger_entries_next (
    id               TEXT PRIMARY KEY,
    org_id           TEXT NOT NULL REFERENCES organizations (id),
    kind             TEXT NOT NULL CHECK (kind IN ('grant', 'topup', 'reserve', 'settled', 'released', 'expire')),
    grant_delta      INTEGER NOT NULL,
    topup_delta      INTEGER NOT NULL,
    held_delta       INTEGER NOT NULL,
    settled_delta    INTEGER NOT NULL,
    credited_delta   INTEGER NOT NULL,
    hold_id          TEXT,
    user_id          TEXT,
    reason           TEXT,
    expires_at       TEXT,
    created_at       TEXT NOT NULL,
    expires_entry_id TEXT
);
INSERT INTO ledger_entries_next (id, org_id, kind, grant_delta, topup_delta, held_delta, settled_delta,
    credited_delta, hold_id, user_id, reason, expires_at, created_at)
SELECT id, org_id, kind, grant_delta, topup_delta, held_delta, settled_delta, credited_delta, hold_id, user_id,
    reason, expires_at, created_at
FROM ledger_entries;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_next RENAME TO ledger_entries;

CREATE INDEX ledger_entries_org ON ledger_entries (org_id, created_at);
CREATE UNIQUE INDEX ledger_entries_reserved_once ON ledger_entries (hold_id) WHERE kind = 'reserve';
CREATE UNIQUE INDEX ledger_entries_resolved_once ON ledger_entries (hold_id) WHERE kind IN ('settled', 'released');
CREATE UNIQUE INDEX ledger_entries_expired_once ON ledger_entries (expires_entry_id) WHERE kind = 'expire';

-- The grants still waiting to expire, so finding what is due never walks the expired history:
-- a row is added with each expiring grant and removed with its expire entry (this table is
-- bookkeeping beside the ledger, not part of it).
CREATE TABLE grant_expiries (
    entry_id   TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX grant_expiries_due ON grant_expiries (expires_at);
CREATE INDEX grant_expiries_org ON grant_expiries (org_id, expires_at);
INSERT INTO grant_expiries (entry_id, org_id, expires_at)
SELECT id, org_id, expires_at FROM ledger_entries WHERE kind = 'grant' AND expires_at IS NOT NULL;

CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
BEGIN
    SELECT RAISE(ABORT, 'ledger_entries is append-only');
END;

CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
BEGIN
    SELECT RAISE(ABORT, 'ledger_entries is append-only');
END;
