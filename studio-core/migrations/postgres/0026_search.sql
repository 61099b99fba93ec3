-- House-wide search (issue 23; docs/search.md). `search_docs` holds one row per searchable thing
-- a house has: live assets (name; sku, kind and folder name), looks, the house's own models,
-- active memories, support tickets that belong to a person of a house, and pipeline presets.
-- `doc` is its text as a tsvector (title weighted A, body B), generated from the row and
-- indexed with GIN. Triggers on every source table keep it in step in the same transaction as
-- the write, whichever code path makes it: a soft-deleted asset, a corrected or retired memory
-- leaves the index in the statement that hides it. Visibility that depends on the caller
-- (personal memories, a person's tickets) is `owner_id`, checked by the query.
--
-- Tokens are runs of letters and digits, as on SQLite: ASCII punctuation becomes a space before
-- the 'simple' parser reads the text, so `red-dress.jpg` is three words rather than a host name.

CREATE FUNCTION search_words(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT translate(t, '!"#$%&''()*+,-./:;<=>?@[\]^_`{|}~', '                                ')
$$;

CREATE TABLE search_docs (
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
    created_at TIMESTAMPTZ NOT NULL,
    doc        TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('simple'::regconfig, search_words(title)), 'A')
        || setweight(to_tsvector('simple'::regconfig, search_words(body)), 'B')
    ) STORED,
    PRIMARY KEY (kind, ref_id)
);
CREATE INDEX search_docs_org ON search_docs (org_id, kind);
CREATE INDEX search_docs_folder ON search_docs (folder_id) WHERE folder_id IS NOT NULL;
CREATE INDEX search_docs_doc ON search_docs USING GIN (doc);

-- Write or replace one document.
CREATE FUNCTION search_put(p_org TEXT, p_kind TEXT, p_ref TEXT, p_owner TEXT, p_title TEXT, p_body TEXT,
                           p_sku TEXT, p_folder_id TEXT, p_folder TEXT, p_tag TEXT, p_at TIMESTAMPTZ)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO search_docs (org_id, kind, ref_id, owner_id, title, body, sku, folder_id, folder, tag, created_at)
    VALUES (p_org, p_kind, p_ref, p_owner, p_title, p_body, p_sku, p_folder_id, p_folder, p_tag, p_at)
    ON CONFLICT (kind, ref_id) DO UPDATE SET org_id = EXCLUDED.org_id, owner_id = EXCLUDED.owner_id,
        title = EXCLUDED.title, body = EXCLUDED.body, sku = EXCLUDED.sku, folder_id = EXCLUDED.folder_id,
        folder = EXCLUDED.folder, tag = EXCLUDED.tag, created_at = EXCLUDED.created_at
$$;

-- Assets: live rows only.
CREATE FUNCTION search_index_asset() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    folder_name TEXT;
BEGIN
    IF TG_OP = 'DELETE' OR NEW.deleted_at IS NOT NULL THEN
        DELETE FROM search_docs WHERE kind = 'asset' AND ref_id = OLD.id;
        IF TG_OP = 'DELETE' THEN
            RETURN NULL;
        END IF;
    END IF;
    IF NEW.deleted_at IS NULL THEN
        SELECT name INTO folder_name FROM folders WHERE id = NEW.folder_id;
        PERFORM search_put(NEW.org_id, 'asset', NEW.id, NULL, NEW.name,
            trim(coalesce(NEW.sku, '') || ' ' || NEW.kind || ' ' || coalesce(folder_name, '')),
            NEW.sku, NEW.folder_id, folder_name, NEW.kind, NEW.created_at);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER search_assets AFTER INSERT OR UPDATE OF org_id, name, sku, kind, folder_id, deleted_at OR DELETE
    ON assets FOR EACH ROW EXECUTE FUNCTION search_index_asset();

-- A renamed collection renames the folder its live assets are found by.
CREATE FUNCTION search_index_folder() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE search_docs SET folder = NEW.name, body = trim(coalesce(sku, '') || ' ' || tag || ' ' || NEW.name)
    WHERE folder_id = NEW.id AND kind = 'asset';
    RETURN NULL;
END
$$;

CREATE TRIGGER search_folders AFTER UPDATE OF name ON folders FOR EACH ROW EXECUTE FUNCTION search_index_folder();

-- Looks.
CREATE FUNCTION search_index_look() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM search_docs WHERE kind = 'look' AND ref_id = OLD.id;
    ELSE
        PERFORM search_put(NEW.org_id, 'look', NEW.id, NULL, NEW.name, NEW.aesthetic, NULL, NULL, NULL, NEW.status,
            NEW.created_at);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER search_looks AFTER INSERT OR UPDATE OF org_id, name, aesthetic, status OR DELETE
    ON looks FOR EACH ROW EXECUTE FUNCTION search_index_look();

-- Models: the house's own ('yours'); catalog offerings are found through explore.
CREATE FUNCTION search_index_model() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NOT (NEW.tier = 'yours' AND NEW.retired_at IS NULL) THEN
        DELETE FROM search_docs WHERE kind = 'model' AND ref_id = OLD.id;
    ELSE
        PERFORM search_put(NEW.org_id, 'model', NEW.id, NULL, NEW.name, NEW.note, NULL, NULL, NULL, NULL,
            NEW.created_at);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER search_models AFTER INSERT OR UPDATE OF org_id, name, note, tier, retired_at OR DELETE
    ON models FOR EACH ROW EXECUTE FUNCTION search_index_model();

-- Memories: active ones; a personal memory is owned by its person.
CREATE FUNCTION search_index_memory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.status <> 'active' THEN
        IF TG_OP <> 'INSERT' THEN
            DELETE FROM search_docs WHERE kind = 'memory' AND ref_id = OLD.id;
        END IF;
    ELSE
        PERFORM search_put(NEW.org_id, 'memory', NEW.id, NEW.user_id, NEW.statement,
            NEW.kind || ' ' || NEW.memory_class, NULL, NULL, NULL, NEW.scope, NEW.created_at);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER search_memories
    AFTER INSERT OR UPDATE OF org_id, scope, user_id, memory_class, kind, statement, status OR DELETE
    ON memories FOR EACH ROW EXECUTE FUNCTION search_index_memory();

-- Support tickets: a person's, in a house; owned by that person. Found by the summary lists
-- show (the subject, else the start of the first message) and the topic.
CREATE FUNCTION search_index_ticket() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.org_id IS NULL OR NEW.user_id IS NULL THEN
        IF TG_OP <> 'INSERT' THEN
            DELETE FROM search_docs WHERE kind = 'ticket' AND ref_id = OLD.id;
        END IF;
    ELSE
        PERFORM search_put(NEW.org_id, 'ticket', NEW.id, NEW.user_id, NEW.summary,
            coalesce(NEW.topic, ''), NULL, NULL, NULL, NEW.status, NEW.created_at);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER search_tickets AFTER INSERT OR UPDATE OF org_id, user_id, status, topic, summary OR DELETE
    ON support_tickets FOR EACH ROW EXECUTE FUNCTION search_index_ticket();

-- Pipeline presets.
CREATE FUNCTION search_index_preset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM search_docs WHERE kind = 'preset' AND ref_id = OLD.id;
    ELSE
        PERFORM search_put(NEW.org_id, 'preset', NEW.id, NULL, NEW.name, '', NULL, NULL, NULL, NULL, NEW.created_at);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER search_presets AFTER INSERT OR UPDATE OF org_id, name OR DELETE
    ON pipeline_presets FOR EACH ROW EXECUTE FUNCTION search_index_preset();

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
