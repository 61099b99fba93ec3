-- Mail: every letter is archived here first and delivered from the same row, which doubles as
-- the outbox. A worker claims a due letter by writing a fresh claim token and a lease; a claim
-- whose lease lapsed (its process died) is taken over, so a letter is retried, never lost.
-- Deliveries reported by the mail provider's webhook are kept once per webhook id. The drip
-- records each onboarding letter once per person; email tokens (verification, password reset)
-- are kept only as SHA-256 hashes.

CREATE TABLE letters (
    id              TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,
    to_addr         TEXT NOT NULL,
    user_id         TEXT,
    subject         TEXT NOT NULL,
    html            TEXT NOT NULL,
    text            TEXT NOT NULL,
    status          TEXT NOT NULL
        CHECK (status IN ('queued', 'sent', 'failed', 'delivered', 'bounced', 'complained')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    claim_token     TEXT,
    lease_until     TIMESTAMPTZ,
    last_error      TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    sent_at         TIMESTAMPTZ
);
CREATE INDEX letters_due ON letters (next_attempt_at) WHERE status = 'queued';
CREATE INDEX letters_to ON letters (to_addr, id);
CREATE INDEX letters_kind ON letters (kind, id);
CREATE INDEX letters_status ON letters (status, id);

CREATE TABLE mail_events (
    webhook_id  TEXT PRIMARY KEY,
    letter_id   TEXT,
    event_type  TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE mail_drips (
    user_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    step      TEXT NOT NULL,
    letter_id TEXT NOT NULL,
    queued_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, step)
);

CREATE TABLE email_tokens (
    token_hash  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL CHECK (purpose IN ('verify', 'reset')),
    email       TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ,
    replaced_at TIMESTAMPTZ
);
CREATE INDEX email_tokens_user ON email_tokens (user_id, purpose, created_at);

-- The drip reads recent sign-ups and whether each person has developed yet.
CREATE INDEX users_created ON users (created_at);
CREATE INDEX jobs_user ON jobs (user_id);
