-- Webhook endpoints (docs/webhooks.md): a house's own URLs its events are delivered to, signed
-- as Standard Webhooks. The signing secret is kept sealed with a key derived from the
-- deployment's signing key (never in clear); after a rotation the previous secret keeps signing
-- until previous_expires_at.
CREATE TABLE webhook_endpoints (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL REFERENCES organizations (id),
    url                 TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    events              TEXT NOT NULL,
    enabled             BOOLEAN NOT NULL,
    secret_sealed       TEXT NOT NULL,
    previous_sealed     TEXT,
    previous_expires_at TIMESTAMPTZ,
    disabled_reason     TEXT,
    created_by          TEXT NOT NULL,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_endpoints_house ON webhook_endpoints (org_id, created_at, id);

-- The delivery log: one row per attempt, newest first per endpoint (ids are time-ordered).
-- delivery_id is the `webhook-id` every attempt of one event to one endpoint carries; payload
-- is the exact body sent, so a replay resends the same bytes.
CREATE TABLE webhook_attempts (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    endpoint_id     TEXT NOT NULL,
    delivery_id     TEXT NOT NULL,
    event           TEXT NOT NULL,
    event_seq       BIGINT,
    payload         TEXT NOT NULL,
    attempt         INTEGER NOT NULL,
    ok              BOOLEAN NOT NULL,
    status          INTEGER,
    latency_ms      BIGINT NOT NULL,
    response        TEXT,
    error           TEXT,
    next_attempt_at TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (org_id, endpoint_id, id DESC);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt DESC);
