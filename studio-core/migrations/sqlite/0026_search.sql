-- House-wide search (issue 23; docs/search.md). `search_docs` holds one row per searchable thing
-- a house has: live assets (name; sku, kind and folder name), looks, the house's own models,
-- active memories, support tickets that belong to a person of a house, and pipeline presets.
-- `search_fts` is an FTS5 index over its title and body (external content, so the text is kept
-- once). Triggers on every source table keep both in step in the same transaction as the write,
-- whichever code path makes it: a soft-deleted asset, a corrected or retired memory leaves the
-- index in the statement that hides it. Visibility that depends on the caller (personal
-- memories, a person's tickets) is `owner_id`, checked by the query.

CREATE TABLE search_docs (
    id         INTEGER PRIMARY KEY,
    org_id     TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('asset', 'look', 'model', 'memory', 'ticket', 'preset')),
    ref_id     TEXT NOT NULL,
    owner_id   TEXT,
    title      TEXT NOT NULL,
    body       TEXT NOT NULL,
    sku        TEXT,
    folder_id  TEXT,
    folder     TEXT,
    tag        TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (kind, ref_id)
);
CREATE INDEX search_docs_org ON search_docs (org_id, kind);
CREATE INDEX search_docs_folder ON search_docs (folder_id) WHERE folder_id IS NOT NULL;

-- Tokens are runs of letters and digits (diacritics folded); prefixes of two and three
-- characters are indexed for as-you-type queries.
CREATE VIRTUAL TABLE search_fts USING fts5 (
    title, body,
    content = 'search_docs', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);

CREATE TRIGGER search_docs_insert AFTER INSERT ON search_docs BEGIN
    INSERT INTO search_fts (rowid, title, body) VALUES (NEW.id, NEW.title, NEW.body);
END;

CREATE TRIGGER search_docs_delete AFTER DELETE ON search_docs BEGIN
    INSERT INTO search_fts (search_fts, rowid, title, body) VALUES ('delete', OLD.id, OLD.title, OLD.body);
END;

CREATE TRIGGER search_docs_update AFTER UPDATE ON search_docs BEGIN
    INSERT INTO search_fts (search_fts, rowid, title, body) VALUES ('delete', OLD.id, OLD.title, OLD.body);
    INSERT INTO search_fts (rowid, title, body) VALUES (NEW.id, NEW.title, NEW.body);
END;

-- Assets: live rows only.
CREATE TRIGGER search_assets_insert AFTER INSERT ON assets WHEN NEW.deleted_at IS NULL BEGIN
    INSERT INTO search_docs (org_id, kind, ref_id, title, body, sku, folder_id, folder, tag, created_at)
    SELECT NEW.org_id, 'asset', NEW.id, NEW.name,
           trim(coalesce(NEW.sku, '') || ' ' || NEW.kind || ' ' || coalesce(f.name, '')),
           NEW.sku, NEW.folder_id, f.name, NEW.kind, NEW.created_at
    FROM (SELECT 1) LEFT JOIN folders f ON f.id = NEW.folder_id;
END;

CREATE TRIGGER search_assets_update AFTER UPDATE OF org_id, name, sku, kind, folder_id, deleted_at ON assets BEGIN
    DELETE FROM search_docs WHERE kind = 'asset' AND ref_id = OLD.id;
    INSERT INTO search_docs (org_id, kind, ref_id, title, body, sku, folder_id, folder, tag, created_at)
    SELECT NEW.org_id, 'asset', NEW.id, NEW.name,
           trim(coalesce(NEW.sku, '') || ' ' || NEW.kind || ' ' || coalesce(f.name, '')),
           NEW.sku, NEW.folder_id, f.name, NEW.kind, NEW.created_at
    FROM (SELECT 1) LEFT JOIN folders f ON f.id = NEW.folder_id
    WHERE NEW.deleted_at IS NULL;
END;

CREATE TRIGGER search_assets_delete AFTER DELETE ON assets BEGIN
    DELETE FROM search_docs WHERE kind = 'asset' AND ref_id = OLD.id;
END;

-- A renamed collection renames the folder its live assets are found by.
CREATE TRIGGER search_folders_rename AFTER UPDATE OF name ON folders BEGIN
    UPDATE search_docs
    SET folder = NEW.name,
        body = trim(coalesce(sku, '') || ' ' || tag || ' ' || NEW.name)
    WHERE folder_id = NEW.id AND kind = 'asset';
END;

-- Looks.
CREATE TRIGGER search_looks_insert AFTER INSERT ON looks BEGIN
    INSERT INTO search_docs (org_id, kind, ref_id, title, body, tag, created_at)
    VALUES (NEW.org_id, 'look', NEW.id, NEW.name, NEW.aesthetic, NEW.status, NEW.created_at);
END;

CREATE TRIGGER search_looks_update AFTER UPDATE OF org_id, name, aesthetic, status ON looks BEGIN
    DELETE FROM search_docs WHERE kind = 'look' AND ref_id = OLD.id;
    INSERT INTO search_docs (org_id, kind, ref_id, title, body, tag, created_at)
    VALUES (NEW.org_id, 'look', NEW.id, NEW.name, NEW.aesthetic, NEW.status, NEW.created_at);
END;

CREATE TRIGGER search_looks_delete AFTER DELETE ON looks BEGIN
    DELETE FROM search_docs WHERE kind = 'look' AND ref_id = OLD.id;
END;

-- Models: the house's own ('yours'); catalog offerings are found through explore.
CREATE TRIGGER search_models_insert AFTER INSERT ON models
WHEN NEW.tier = 'yours' AND NEW.retired_at IS NULL BEGIN
    INSERT INTO search_docs (org_id, kind, ref_id, title, body, created_at)
    VALUES (NEW.org_id, 'model', NEW.id, NEW.name, NEW.note, NEW.created_at);
END;

CREATE TRIGGER search_models_update AFTER UPDATE OF org_id, name, note, tier, retired_at ON models BEGIN
    DELETE FROM search_docs WHERE kind = 'model' AND ref_id = OLD.id;
    INSERT INTO search_docs (org_id, kind, ref_id, title, body, created_at)
    SELECT NEW.org_id, 'model', NEW.id, NEW.name, NEW.note, NEW.created_at
    WHERE NEW.tier = 'yours' AND NEW.retired_at IS NULL;
END;

CREATE TRIGGER search_models_delete AFTER DELETE ON models BEGIN
    DELETE FROM search_docs WHERE kind = 'model' AND ref_id = OLD.id;
END;

-- Memories: active ones; a personal memory is owned by its person.
CREATE TRIGGER search_memories_insert AFTER INSERT ON memories WHEN NEW.status = 'active' BEGIN
    INSERT INTO search_docs (org_id, kind, ref_id, owner_id, title, body, tag, created_at)
    VALUES (NEW.org_id, 'memory', NEW.id, NEW.user_id, NEW.statement, NEW.kind || ' ' || NEW.memory_class,
            NEW.scope, NEW.created_at);
END;

CREATE TRIGGER search_memories_update
AFTER UPDATE OF org_id, scope, user_id, memory_class, kind, statement, status ON memories BEGIN
    DELETE FROM search_docs WHERE kind = 'memory' AND ref_id = OLD.id;
    INSERT INTO search_docs (org_id, kind, ref_id, owner_id, title, body, tag, created_at)
    SELECT NEW.org_id, 'memory', NEW.id, NEW.user_id, NEW.statement, NEW.kind || ' ' || NEW.memory_class,
           NEW.scope, NEW.created_at
    WHERE NEW.status = 'active';
END;

CREATE TRIGGER search_memories_delete AFTER DELETE ON memories BEGIN
    DELETE FROM search_docs WHERE kind = 'memory' AND ref_id = OLD.id;
END;

-- Support tickets: a person's, in a house; owned by that person. Found by the summary lists
-- show (the subject, else the start of the first message) and the topic.
CREATE TRIGGER search_tickets_insert AFTER INSERT ON support_tickets
WHEN NEW.org_id IS NOT NULL AND NEW.user_id IS NOT NULL BEGIN
    INSERT INTO search_docs (org_id, kind, ref_id, owner_id, title, body, tag, created_at)
    VALUES (NEW.org_id, 'ticket', NEW.id, NEW.user_id, NEW.summary,
            coalesce(NEW.topic, ''), NEW.status, NEW.created_at);
END;

CREATE TRIGGER search_tickets_update
AFTER UPDATE OF org_id, user_id, status, topic, summary ON support_tickets BEGIN
    DELETE FROM search_docs WHERE kind = 'ticket' AND ref_id = OLD.id;
    INSERT INTO search_docs (org_id, kind, ref_id, owner_id, title, body, tag, created_at)
    SELECT NEW.org_id, 'ticket', NEW.id, NEW.user_id, NEW.summary,
           coalesce(NEW.topic, ''), NEW.status, NEW.created_at
    WHERE NEW.org_id IS NOT NULL AND NEW.user_id IS NOT NULL;
END;

CREATE TRIGGER search_tickets_delete AFTER DELETE ON support_tickets BEGIN
    DELETE FROM search_docs WHERE kind = 'ticket' AND ref_id = OLD.id;
END;

-- Pipeline presets.
CREATE TRIGGER search_presets_insert AFTER INSERT ON pipeline_presets BEGIN
    INSERT INTO search_docs (org_id, kind, ref_id, title, body, created_at)
    VALUES (NEW.org_id, 'preset', NEW.id, NEW.name, '', NEW.created_at);
END;

CREATE TRIGGER search_presets_update AFTER UPDATE OF org_id, name ON pipeline_presets BEGIN
    DELETE FROM search_docs WHERE kind = 'preset' AND ref_id = OLD.id;
    INSERT INTO search_docs (org_id, kind, ref_id, title, body, created_at)
    VALUES (NEW.org_id, 'preset', NEW.id, NEW.name, '', NEW.created_at);
END;

CREATE TRIGGER search_presets_delete AFTER DELETE ON pipeline_presets BEGIN
    DELETE FROM search_docs WHERE kind = 'preset' AND ref_id = OLD.id;
END;

-- What existed before this migration.
INSERT INTO search_docs (org_id, kind, ref_id, title, body, sku, folder_id, folder, tag, created_at)
SELECT a.org_id, 'asset', a.id, a.name, trim(coalesce(a.sku, '') || ' ' || a.kind || ' ' || coalesce(f.name, '')),
       a.sku, a.folder_id, f.name, a.kind, a.created_at
FROM assets a LEFT JOIN folders f ON f.id = a.folder_id
WHERE a.deleted_at IS NULL;
INSERT INTO search_docs (org_id, kind, ref_id, title, body, tag, created_at)
SELECT org_id, 'look', id, name, aesthetic, status, created_at FROM looks;
INSERT INTO search_docs (org_id, kind, ref_id, title, body, created_at)
SELECT org_id, 'model', id, name, note, created_at FROM models WHERE tier = 'yours' AND retired_at IS NULL;
INSERT INTO search_docs (org_id, kind, ref_id, owner_id, title, body, tag, created_at)
SELECT org_id, 'memory', id, user_id, statement, kind || ' ' || memory_class, scope, created_at
FROM memories WHERE status = 'active';
INSERT INTO search_docs (org_id, kind, ref_id, owner_id, title, body, tag, created_at)
SELECT org_id, 'ticket', id, user_id, summary, coalesce(topic, ''), status,
       created_at
FROM support_tickets WHERE org_id IS NOT NULL AND user_id IS NOT NULL;
INSERT INTO search_docs (org_id, kind, ref_id, title, body, created_at)
SELECT org_id, 'preset', id, name, '', created_at FROM pipeline_presets;
