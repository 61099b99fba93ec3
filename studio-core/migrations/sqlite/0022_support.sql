-- Support (02-route-groups.md §4.11, docs/support.md): tickets raised by a person (or escalated
-- by the support bridge) and their threads; noted reports (a ticket that asked no reply); the
-- screenshots people attach, kept for a retention window and then swept with their blobs.
-- The link key moves from the database to the server's configuration (STUDIO_SIGNING_KEY or
-- <data_dir>/signing.key), so the table that kept it goes.

CREATE TABLE support_tickets (
    id              TEXT PRIMARY KEY,
    org_id          TEXT REFERENCES organizations (id),
    user_id         TEXT REFERENCES users (id),
    source          TEXT NOT NULL CHECK (source IN ('person', 'escalation')),
    status          TEXT NOT NULL CHECK (status IN ('new', 'open', 'pending', 'on_hold', 'resolved')),
    topic           TEXT,
    subject         TEXT,
    summary         TEXT NOT NULL,
    contact_email   TEXT,
    current_url     TEXT,
    screen          TEXT,
    rating          INTEGER,
    screenshots     TEXT NOT NULL,
    context         TEXT NOT NULL,
    reason          TEXT,
    session_id      TEXT,
    transcript      TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    last_message_at TEXT NOT NULL
);
CREATE INDEX support_tickets_person ON support_tickets (org_id, user_id, last_message_at DESC, id DESC);
CREATE INDEX support_tickets_queue ON support_tickets (last_message_at DESC, id DESC);
CREATE INDEX support_tickets_created ON support_tickets (created_at);

CREATE TABLE support_messages (
    id         TEXT PRIMARY KEY,
    ticket_id  TEXT NOT NULL REFERENCES support_tickets (id),
    author     TEXT NOT NULL CHECK (author IN ('person', 'support')),
    author_id  TEXT,
    internal   BOOLEAN NOT NULL,
    content    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    read_at    TEXT
);
CREATE INDEX support_messages_thread ON support_messages (ticket_id, created_at, id);

CREATE TABLE support_reports (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id),
    user_id       TEXT NOT NULL REFERENCES users (id),
    topic         TEXT,
    subject       TEXT,
    body          TEXT NOT NULL,
    contact_email TEXT,
    current_url   TEXT,
    screen        TEXT,
    rating        INTEGER,
    screenshots   TEXT NOT NULL,
    context       TEXT NOT NULL,
    created_at    TEXT NOT NULL
);
CREATE INDEX support_reports_created ON support_reports (created_at);

CREATE TABLE support_screenshots (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    user_id    TEXT NOT NULL REFERENCES users (id),
    object     TEXT NOT NULL,
    blob_key   TEXT NOT NULL,
    mime       TEXT NOT NULL,
    bytes      INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX support_screenshots_expiry ON support_screenshots (expires_at);

DROP TABLE signing_keys;
