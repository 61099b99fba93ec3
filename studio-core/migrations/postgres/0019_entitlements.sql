-- The casting board's market: catalog models (published by a platform admin from their own
-- house's frames, free, for sale or exclusive), a model's identity sheets, and what houses
-- acquire. A claim is a pending purchase of one offering by one house; only the signed payment
-- webhook turns a claim into a holding. Two partial unique indexes are the last word on
-- exclusivity: one live claim and one live holding per exclusive offering, whatever the code does.

ALTER TABLE models ADD COLUMN tier TEXT NOT NULL DEFAULT 'yours'
    CHECK (tier IN ('yours', 'free', 'sale', 'exclusive'));
ALTER TABLE models ADD COLUMN price_cents BIGINT NOT NULL DEFAULT 0 CHECK (price_cents >= 0);
ALTER TABLE models ADD COLUMN currency TEXT NOT NULL DEFAULT 'usd';
ALTER TABLE models ADD COLUMN note TEXT NOT NULL DEFAULT '';
ALTER TABLE models ADD COLUMN collage_asset_id TEXT;
ALTER TABLE models ADD COLUMN sheet_asset_ids TEXT NOT NULL DEFAULT '[]';
ALTER TABLE models ADD COLUMN retired_at TIMESTAMPTZ;
ALTER TABLE models ADD COLUMN updated_at TIMESTAMPTZ;
CREATE INDEX models_catalog ON models (tier, created_at) WHERE tier <> 'yours';

CREATE TABLE offering_claims (
    reference    TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES organizations (id),
    user_id      TEXT REFERENCES users (id),
    kind         TEXT NOT NULL CHECK (kind IN ('model')),
    offering_id  TEXT NOT NULL,
    exclusive    BOOLEAN NOT NULL,
    price_cents  BIGINT NOT NULL CHECK (price_cents > 0),
    currency     TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'released', 'expired', 'lapsed')),
    checkout_url TEXT,
    provider_id  TEXT,
    payment_id   TEXT,
    expires_at   TIMESTAMPTZ NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    resolved_at  TIMESTAMPTZ
);
CREATE UNIQUE INDEX offering_claims_one_per_house ON offering_claims (org_id, kind, offering_id)
    WHERE status = 'pending';
CREATE UNIQUE INDEX offering_claims_one_exclusive ON offering_claims (kind, offering_id)
    WHERE status = 'pending' AND exclusive;
CREATE INDEX offering_claims_org ON offering_claims (org_id, created_at);

CREATE TABLE entitlements (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id),
    kind          TEXT NOT NULL CHECK (kind IN ('model')),
    offering_id   TEXT NOT NULL,
    name          TEXT NOT NULL,
    source        TEXT NOT NULL CHECK (source IN ('purchase', 'free', 'grant')),
    price_cents   BIGINT NOT NULL,
    currency      TEXT NOT NULL,
    payment_ref   TEXT,
    exclusive     BOOLEAN NOT NULL,
    acquired_at   TIMESTAMPTZ NOT NULL,
    revoked_at    TIMESTAMPTZ,
    revoked_by    TEXT,
    revoke_reason TEXT
);
CREATE UNIQUE INDEX entitlements_one_per_house ON entitlements (org_id, kind, offering_id)
    WHERE revoked_at IS NULL;
CREATE UNIQUE INDEX entitlements_one_exclusive_owner ON entitlements (kind, offering_id)
    WHERE revoked_at IS NULL AND exclusive;
CREATE INDEX entitlements_acquired ON entitlements (acquired_at);

-- A payment that could not become a holding (its claim had expired or was released, or the
-- face is someone else's): refunded through the provider, or left for a person to review.
CREATE TABLE entitlement_cases (
    id           TEXT PRIMARY KEY,
    reference    TEXT NOT NULL REFERENCES offering_claims (reference),
    org_id       TEXT NOT NULL REFERENCES organizations (id),
    payment_id   TEXT,
    amount_cents BIGINT NOT NULL,
    currency     TEXT NOT NULL,
    reason       TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('review', 'refunded')),
    created_at   TIMESTAMPTZ NOT NULL,
    resolved_at  TIMESTAMPTZ
);
CREATE INDEX entitlement_cases_created ON entitlement_cases (created_at);
