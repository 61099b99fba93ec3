-- The webhook outbox (docs/webhooks.md, "Delivery"): one row per event per subscribed endpoint,
-- written when the event is published. Workers on every replica claim a due row with a lease
-- (claim_token, lease_until), so two replicas never make one attempt twice and a row whose
-- worker died is taken over when its lease lapses. The id is the `webhook-id` of every attempt.
-- status: pending (attempts remain), delivered (a 2xx), failed (the schedule ran out or the
-- receiver answered 410), dropped (the endpoint was disabled or deleted before it was sent).
-- url is a develop's own webhookUrl (signed with the endpoint's secret); null for the endpoint's.
CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    endpoint_id     TEXT NOT NULL,
    event           TEXT NOT NULL,
    event_seq       BIGINT,
    payload         TEXT NOT NULL,
    url             TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    status          TEXT NOT NULL,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    claim_token     TEXT,
    lease_until     TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at, id);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, status);

-- Which URL an attempt went to when it was not the endpoint's own (a develop's webhookUrl), so
-- the log says so and a replay goes back there.
ALTER TABLE webhook_attempts ADD COLUMN url TEXT;
