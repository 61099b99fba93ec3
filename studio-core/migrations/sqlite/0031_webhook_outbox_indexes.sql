-- One outbox row per job change per endpoint (docs/webhooks.md, "Catching up"): a process that
-- starts queues, for each endpoint, the house's job changes newer than the newest it queued for
-- that endpoint, and this index lets such a row that was queued already (by the publish, or by
-- another replica catching up at the same time) be skipped rather than sent twice.
CREATE UNIQUE INDEX webhook_deliveries_job_change ON webhook_deliveries (endpoint_id, event_seq)
    WHERE url IS NULL AND event = 'job' AND event_seq IS NOT NULL;

-- The attempts in flight (claimed, lease not yet lapsed): a claim reads them once to skip their
-- targets, so finding the next delivery stays cheap however long the queue behind them.
CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries (lease_until) WHERE claim_token IS NOT NULL;
