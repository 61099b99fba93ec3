-- Billing: checkouts and auto top-up charges (what was sold, whether it was paid), each house's
-- provider customer and auto top-up settings, every webhook id applied (deduplication) and every
-- grant made (one per one-off purchase, one per subscription payment).

CREATE TABLE billing_checkouts (
    reference    TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES organizations (id),
    user_id      TEXT REFERENCES users (id),
    kind         TEXT NOT NULL CHECK (kind IN ('topup', 'subscription', 'custom', 'autocharge')),
    item         TEXT NOT NULL,
    tokens       BIGINT NOT NULL CHECK (tokens > 0),
    amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
    grant_cap    BIGINT,
    status       TEXT NOT NULL CHECK (status IN ('open', 'charged', 'paid', 'failed')),
    provider_id  TEXT,
    payment_id   TEXT,
    created_at   TIMESTAMPTZ NOT NULL,
    paid_at      TIMESTAMPTZ
);
CREATE INDEX billing_checkouts_org_kind ON billing_checkouts (org_id, kind, created_at);

CREATE TABLE billing_accounts (
    org_id             TEXT PRIMARY KEY REFERENCES organizations (id),
    customer_id        TEXT,
    has_card           BOOLEAN NOT NULL DEFAULT FALSE,
    autocharge_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    threshold_tokens   BIGINT NOT NULL DEFAULT 0 CHECK (threshold_tokens >= 0),
    refill_pack        TEXT,
    monthly_cap_cents  BIGINT NOT NULL DEFAULT 0 CHECK (monthly_cap_cents >= 0),
    updated_at         TIMESTAMPTZ NOT NULL
);

CREATE TABLE billing_webhooks (
    webhook_id  TEXT PRIMARY KEY,
    event_type  TEXT NOT NULL,
    reference   TEXT,
    received_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE billing_grants (
    grant_key  TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    reference  TEXT NOT NULL REFERENCES billing_checkouts (reference),
    payment_id TEXT,
    tokens     BIGINT NOT NULL CHECK (tokens >= 0),
    created_at TIMESTAMPTZ NOT NULL
);
