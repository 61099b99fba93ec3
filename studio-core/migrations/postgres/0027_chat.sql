-- The studio assistant (02-route-groups.md §4.15, docs/assistant.md): a person's chat sessions
-- in a house, their turns in order, and the actions an answer proposes, each applied at most
-- once. A session is its person's through one kind of credential (a browser session, or the
-- keys they minted), so a key never reads a chat that carried the person's own memories. A session caches the context the core built for it (context warm); memories and the
-- balance are always read fresh at a turn, so a retired memory never rides a cached context.

CREATE TABLE chat_sessions (
    id               TEXT PRIMARY KEY,
    org_id           TEXT NOT NULL REFERENCES organizations (id),
    user_id          TEXT NOT NULL REFERENCES users (id),
    via              TEXT NOT NULL CHECK (via IN ('session', 'key')),
    title            TEXT NOT NULL,
    titled           BOOLEAN NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('open', 'escalated')),
    turns            BIGINT NOT NULL,
    last_seq         BIGINT NOT NULL,
    ticket_id        TEXT REFERENCES support_tickets (id),
    reason           TEXT,
    context          TEXT,
    context_built_at TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX chat_sessions_person ON chat_sessions (org_id, user_id, via, updated_at DESC, id DESC);

CREATE TABLE chat_turns (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES chat_sessions (id),
    seq        BIGINT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('person', 'assistant', 'action', 'notice')),
    content    TEXT NOT NULL,
    data       TEXT NOT NULL,
    tokens     BIGINT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (session_id, seq)
);

CREATE TABLE chat_actions (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES chat_sessions (id),
    turn_id     TEXT NOT NULL REFERENCES chat_turns (id),
    kind        TEXT NOT NULL CHECK (kind IN ('develop', 'pack', 'look')),
    summary     TEXT NOT NULL,
    request     TEXT NOT NULL,
    price       BIGINT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('proposed', 'applying', 'applied')),
    claimed_at  TIMESTAMPTZ,
    result      TEXT,
    applied_at  TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX chat_actions_session ON chat_actions (session_id, created_at);
