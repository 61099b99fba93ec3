-- People and houses: who founded a house, avatars, erasure, billing contact, seat
-- invitations, memories, onboarding steps, intake answers, tool access grants and tool items,
-- and the cancellation of a subscription plan.

ALTER TABLE organizations ADD COLUMN founded_by TEXT REFERENCES users (id);
ALTER TABLE organizations ADD COLUMN billing_email TEXT;
UPDATE organizations SET founded_by = (
    SELECT m.user_id FROM memberships m
    WHERE m.org_id = organizations.id AND m.role = 'owner'
    ORDER BY m.created_at LIMIT 1
);

-- Exactly one owner per house, whatever order concurrent writes commit in.
CREATE UNIQUE INDEX memberships_one_owner ON memberships (org_id) WHERE role = 'owner';

ALTER TABLE users ADD COLUMN avatar_key TEXT;
ALTER TABLE users ADD COLUMN avatar_version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN erased_at TIMESTAMPTZ;

ALTER TABLE billing_checkouts ADD COLUMN canceled_at TIMESTAMPTZ;

CREATE TABLE seat_invitations (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES organizations (id),
    email       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    invited_by  TEXT NOT NULL REFERENCES users (id),
    status      TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'superseded', 'withdrawn')),
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    resolved_at TIMESTAMPTZ
);
CREATE INDEX seat_invitations_org ON seat_invitations (org_id, created_at);
CREATE UNIQUE INDEX seat_invitations_pending ON seat_invitations (org_id, email) WHERE status = 'pending';

CREATE TABLE memories (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES organizations (id),
    scope          TEXT NOT NULL CHECK (scope IN ('house', 'person')),
    user_id        TEXT REFERENCES users (id),
    memory_class   TEXT NOT NULL,
    kind           TEXT NOT NULL,
    statement      TEXT NOT NULL,
    confidence     DOUBLE PRECISION NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('active', 'corrected', 'retired')),
    evidence_count BIGINT NOT NULL DEFAULT 0,
    supersedes_id  TEXT REFERENCES memories (id),
    projected      BOOLEAN NOT NULL DEFAULT FALSE,
    created_by     TEXT NOT NULL REFERENCES users (id),
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL,
    CHECK ((scope = 'house') = (user_id IS NULL))
);
CREATE INDEX memories_org ON memories (org_id, created_at);

CREATE TABLE onboarding_steps (
    user_id      TEXT NOT NULL REFERENCES users (id),
    step         TEXT NOT NULL,
    completed_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, step)
);

CREATE TABLE intake_answers (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    answers    TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX intake_answers_user ON intake_answers (user_id, created_at);

-- A grant opens a whole toolkit or one tool to a person (by id) or to an address not yet
-- signed up (by email). Revoking keeps the row.
CREATE TABLE tool_grants (
    id         TEXT PRIMARY KEY,
    user_id    TEXT REFERENCES users (id),
    email      TEXT,
    toolkit_id TEXT,
    tool_id    TEXT,
    granted_by TEXT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ,
    CHECK ((user_id IS NULL) <> (email IS NULL)),
    CHECK ((toolkit_id IS NULL) <> (tool_id IS NULL))
);
CREATE INDEX tool_grants_user ON tool_grants (user_id);
CREATE INDEX tool_grants_email ON tool_grants (email);

CREATE TABLE tool_items (
    id         TEXT PRIMARY KEY,
    tool_id    TEXT NOT NULL,
    category   TEXT NOT NULL,
    title_he   TEXT,
    label_he   TEXT,
    content_en TEXT,
    image_url  TEXT,
    notes_he   TEXT,
    sort_order BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX tool_items_tool ON tool_items (tool_id, category, sort_order);
