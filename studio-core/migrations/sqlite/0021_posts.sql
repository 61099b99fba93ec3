-- Posts (02-route-groups.md §4.14): a house's notes board. Each post belongs to one house and
-- one author; pages are read newest first by (created_at, id).

CREATE TABLE posts (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    author_id  TEXT NOT NULL REFERENCES users (id),
    title      TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX posts_house_newest ON posts (org_id, created_at DESC, id DESC);
