"""PostgreSQL schema as an ordered list of migrations (version in ``meta``).

Each migration runs in one transaction with the version bump, under an advisory lock,
so two processes opening a fresh database do not both apply it. Tables live in the
first schema of the connection's ``search_path`` (``public`` unless the URL says
otherwise: ``?options=-csearch_path%3Dmine,public``); the ``vector`` type comes from
the pgvector extension, created once per database.

Differences from SQLite (store/sqlite/schema.py), same tables and columns otherwise:
times are ``timestamptz``; JSON columns are ``jsonb``; the embedding is a pgvector
``vector`` without a fixed dimension (a per-dimension HNSW index can come later as an
expression index); keyword search uses a generated ``tsvector`` (with a token of the
scope, migration 2) and a GIN index;
``seq`` comes from a sequence drawn under a transaction-level advisory lock
(connection.py), so change numbers commit in order and the change feed never skips one.
"""

from __future__ import annotations

# Created before any migration (connection.py): the extension, and the key/value table
# that holds the schema version under VERSION_KEY beside the store's own keys.
BOOTSTRAP = (
    "CREATE EXTENSION IF NOT EXISTS vector",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
VERSION_KEY = "memfold.schema_version"

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE SEQUENCE change_seq;
        CREATE TABLE memories (
            rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT, agent_id TEXT, session_id TEXT,
            scope_key TEXT NOT NULL,
            text TEXT NOT NULL,
            area TEXT NOT NULL DEFAULT 'main',
            category TEXT NOT NULL DEFAULT 'semantic',
            importance DOUBLE PRECISION NOT NULL DEFAULT 0.5,
            stability DOUBLE PRECISION NOT NULL DEFAULT 0.25,
            access_count INTEGER NOT NULL DEFAULT 0,
            last_access_at TIMESTAMPTZ,
            created_at TIMESTAMPTZ NOT NULL,
            updated_at TIMESTAMPTZ NOT NULL,
            valid_from TIMESTAMPTZ, valid_to TIMESTAMPTZ,
            status TEXT NOT NULL DEFAULT 'active',
            tier TEXT NOT NULL DEFAULT 'hot',
            superseded_by TEXT,
            consolidated_from JSONB NOT NULL DEFAULT '[]',
            sources JSONB NOT NULL DEFAULT '[]',
            metadata JSONB NOT NULL DEFAULT '{}',
            content_hash TEXT NOT NULL,
            embedding vector,
            embedding_model TEXT,
            embedding_dim INTEGER,
            version INTEGER NOT NULL DEFAULT 1,
            seq BIGINT NOT NULL,
            tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
        );
        CREATE INDEX memories_scope_status ON memories (scope_key, status);
        CREATE INDEX memories_seq ON memories (seq);
        CREATE INDEX memories_hash ON memories (scope_key, content_hash);
        CREATE INDEX memories_superseded_by ON memories (superseded_by);
        CREATE INDEX memories_tsv ON memories USING gin (tsv);
        CREATE TABLE tombstones (id TEXT NOT NULL, seq BIGINT NOT NULL);
        CREATE INDEX tombstones_seq ON tombstones (seq);
        CREATE TABLE links (
            src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL,
            weight DOUBLE PRECISION NOT NULL DEFAULT 1.0,
            created_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (src, dst, kind)
        );
        CREATE INDEX links_dst ON links (dst);
        CREATE TABLE consolidation_log (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            time TIMESTAMPTZ NOT NULL,
            path TEXT NOT NULL,
            action TEXT NOT NULL,
            input_ids JSONB NOT NULL DEFAULT '[]',
            output_ids JSONB NOT NULL DEFAULT '[]',
            similarity DOUBLE PRECISION, confidence DOUBLE PRECISION,
            reasoning TEXT NOT NULL DEFAULT '',
            judge TEXT NOT NULL DEFAULT '',
            model TEXT, prompt_version TEXT,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            before JSONB NOT NULL DEFAULT '{}',
            after JSONB NOT NULL DEFAULT '{}',
            undone_by BIGINT, undoes BIGINT
        );
        CREATE INDEX log_time ON consolidation_log (time);
        CREATE TABLE log_memories (
            log_id BIGINT NOT NULL, memory_id TEXT NOT NULL,
            PRIMARY KEY (memory_id, log_id)
        );
        CREATE TABLE jobs (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            memory_id TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'consolidate',
            status TEXT NOT NULL DEFAULT 'pending',
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            created_at TIMESTAMPTZ NOT NULL,
            updated_at TIMESTAMPTZ NOT NULL,
            claimed_by TEXT,
            claimed_at TIMESTAMPTZ,
            lease_until DOUBLE PRECISION,
            next_attempt_at DOUBLE PRECISION,
            backoffs INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX jobs_status ON jobs (status, id);
        CREATE INDEX jobs_owner ON jobs (status, claimed_by);
        CREATE INDEX jobs_memory ON jobs (memory_id);
        CREATE TABLE consolidation_queue (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            scope_key TEXT NOT NULL,
            memory_a TEXT NOT NULL,
            memory_b TEXT NOT NULL,
            similarity DOUBLE PRECISION NOT NULL,
            version_a INTEGER NOT NULL DEFAULT 1,
            version_b INTEGER NOT NULL DEFAULT 1,
            label TEXT, confidence DOUBLE PRECISION, reasoning TEXT,
            status TEXT NOT NULL DEFAULT 'pending',
            created_at TIMESTAMPTZ NOT NULL,
            classified_at TIMESTAMPTZ, processed_at TIMESTAMPTZ,
            run_id BIGINT,
            proposal JSONB,
            note TEXT,
            UNIQUE (memory_a, memory_b)
        );
        CREATE INDEX queue_status ON consolidation_queue (status, scope_key);
        CREATE INDEX queue_scope_created ON consolidation_queue (scope_key, created_at);
        CREATE INDEX queue_b ON consolidation_queue (memory_b);
        CREATE TABLE feedback (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            memory_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            context TEXT,
            time TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX feedback_memory ON feedback (memory_id);
        CREATE TABLE feedback_applied (
            memory_id TEXT NOT NULL,
            rule TEXT NOT NULL,
            log_id BIGINT,
            time TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (memory_id, rule)
        );
        CREATE TABLE review_runs (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            scope_key TEXT,
            started_at TIMESTAMPTZ NOT NULL,
            finished_at TIMESTAMPTZ,
            status TEXT NOT NULL DEFAULT 'running',
            p90 DOUBLE PRECISION,
            counts JSONB NOT NULL DEFAULT '{}',
            breaker JSONB NOT NULL DEFAULT '{}',
            llm_calls INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE llm_calls (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            time TIMESTAMPTZ NOT NULL,
            task TEXT NOT NULL,
            role TEXT NOT NULL,
            model TEXT,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            latency_ms DOUBLE PRECISION NOT NULL DEFAULT 0,
            outcome TEXT NOT NULL,
            error TEXT
        );
        CREATE INDEX llm_calls_time ON llm_calls (time);
        CREATE TABLE erasures (
            id TEXT PRIMARY KEY,
            scope_key TEXT NOT NULL,
            user_id TEXT, agent_id TEXT, session_id TEXT,
            erased_at TIMESTAMPTZ NOT NULL,
            derived BOOLEAN NOT NULL DEFAULT false
        );
        CREATE INDEX erasures_scope ON erasures (scope_key);
        """,
    ),
    (
        2,
        # Keyword search restricted to the tenant: the tsvector also holds one token per
        # scope ('k' + md5 of the scope key, one word to the 'simple' parser), so a query
        # is `scope token & (terms)` and the GIN index intersects the two posting lists
        # instead of fetching every match in the store and filtering by scope.
        """
        DROP INDEX memories_tsv;
        ALTER TABLE memories DROP COLUMN tsv;
        ALTER TABLE memories ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
            to_tsvector('simple', 'k' || md5(scope_key)) || to_tsvector('english', text)
        ) STORED;
        CREATE INDEX memories_tsv ON memories USING gin (tsv);
        """,
    ),
    (
        3,
        # HNSW indexes for vector search (store/postgres/vector.py). The embedding column
        # has no fixed dimension and pgvector indexes only fixed-dimension vectors, so
        # each dimension gets its own partial expression index,
        # ``memories_hnsw_<dim>`` on ``(embedding::vector(<dim>)) vector_cosine_ops``
        # ``WHERE embedding_dim = <dim>``, built by ``ensure_vector_index(dim)`` (not
        # here: building one over existing rows can take minutes). This table records
        # which dimensions have one and with which build parameters.
        """
        CREATE TABLE vector_indexes (
            dim INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            m INTEGER NOT NULL,
            ef_construction INTEGER NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        """,
    ),
    (
        4,
        # The lifecycle (engine/lifecycle): a memory's time to live. NULL: it never
        # expires; the tick marks a memory whose time has come 'expired'.
        """
        ALTER TABLE memories ADD COLUMN IF NOT EXISTS expires_at TIMESTAMPTZ;
        CREATE INDEX IF NOT EXISTS memories_expires ON memories (expires_at)
            WHERE expires_at IS NOT NULL;
        """,
    ),
    (
        5,
        # Conversations (engine/conversation): append-only transcripts, one row per
        # message, position counting from 0 within the session (its Scope key), and the
        # session summary's append-only parts ('summary' of covered positions, the
        # agent's own 'note', a 'meta' summary that compresses older parts named in
        # replaces, which are kept). Rows are never updated (the triggers refuse it);
        # erasure of a scope (Memory.forget) may delete them.
        """
        CREATE TABLE IF NOT EXISTS transcripts (
            id TEXT PRIMARY KEY,
            session_key TEXT NOT NULL,
            position INTEGER NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL,
            metadata JSONB NOT NULL DEFAULT '{}',
            UNIQUE (session_key, position)
        );
        CREATE TABLE IF NOT EXISTS summaries (
            id TEXT PRIMARY KEY,
            session_key TEXT NOT NULL,
            part INTEGER NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            covers_from INTEGER,
            covers_to INTEGER,
            replaces JSONB NOT NULL DEFAULT '[]',
            created_at TIMESTAMPTZ NOT NULL,
            UNIQUE (session_key, part)
        );
        CREATE OR REPLACE FUNCTION memfold_append_only() RETURNS trigger AS $$
        BEGIN
            RAISE EXCEPTION '% rows are append-only', TG_TABLE_NAME;
        END;
        $$ LANGUAGE plpgsql;
        CREATE TRIGGER transcripts_append_only BEFORE UPDATE ON transcripts
            FOR EACH ROW EXECUTE FUNCTION memfold_append_only();
        CREATE TRIGGER summaries_append_only BEFORE UPDATE ON summaries
            FOR EACH ROW EXECUTE FUNCTION memfold_append_only();
        """,
    ),
    (
        6,
        # API keys of the service (memfold.server, engine/keys.py): the SHA-256 of the
        # token, never the token; prefix is the token's public start shown in listings.
        # A revoked key keeps its row (revoked_at set), so listings show who had access.
        """
        CREATE TABLE IF NOT EXISTS api_keys (
            id TEXT PRIMARY KEY,
            prefix TEXT NOT NULL,
            secret_hash TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL,
            user_id TEXT,
            agent_id TEXT,
            label TEXT NOT NULL DEFAULT '',
            created_at TIMESTAMPTZ NOT NULL,
            revoked_at TIMESTAMPTZ
        );
        """,
    ),
    (
        7,
        # Where a memory's category came from (model.CategorySource): 'given' by the
        # caller, 'rules' on save, 'judge' (the LLM's reply on save), 'lifecycle'.
        # Rows written before cannot tell a caller's category from the rules' guess:
        # they read 'given', so no later judge decision overrides what may be a choice.
        """
        ALTER TABLE memories ADD COLUMN IF NOT EXISTS category_source TEXT NOT NULL
            DEFAULT 'given';
        """,
    ),
    (
        8,
        # Version conflicts a job met, counted apart from its attempts (as SQLite's 14).
        """
        ALTER TABLE jobs ADD COLUMN IF NOT EXISTS conflicts INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        9,
        # Idempotency keys of REST writes and Memory.add (as SQLite's 16).
        """
        CREATE TABLE IF NOT EXISTS idempotency_keys (
            owner TEXT NOT NULL,
            idempotency_key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            claim TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'running',
            status INTEGER,
            content_type TEXT,
            body TEXT,
            created_at TIMESTAMPTZ NOT NULL,
            expires_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (owner, idempotency_key)
        );
        CREATE INDEX IF NOT EXISTS idempotency_keys_expires ON idempotency_keys(expires_at);
        """,
    ),
    (
        10,
        # The reading of each memory's text (as SQLite's 17).
        """
        CREATE TABLE IF NOT EXISTS readings (
            memory_id TEXT PRIMARY KEY,
            reading_key TEXT NOT NULL,
            words TEXT NOT NULL
        );
        """,
    ),
    (
        11,
        # A long memory's passage vectors (as SQLite's 18): float32 rows in one bytea.
        """
        ALTER TABLE memories ADD COLUMN IF NOT EXISTS passages BYTEA;
        """,
    ),
    (
        12,
        # Transcripts and summary parts refuse a delete too (as SQLite's 19), unless
        # forget's erasure named the session in transcript_erasure.
        """
        CREATE TABLE IF NOT EXISTS transcript_erasure (session_key TEXT PRIMARY KEY);
        CREATE OR REPLACE FUNCTION memfold_erased_only() RETURNS trigger AS $$
        BEGIN
            IF NOT EXISTS (
                SELECT 1 FROM transcript_erasure WHERE session_key = OLD.session_key
            ) THEN
                RAISE EXCEPTION '% rows are immutable: only forget erases them', TG_TABLE_NAME;
            END IF;
            RETURN OLD;
        END;
        $$ LANGUAGE plpgsql;
        DROP TRIGGER IF EXISTS transcripts_erased_only ON transcripts;
        CREATE TRIGGER transcripts_erased_only BEFORE DELETE ON transcripts
            FOR EACH ROW EXECUTE FUNCTION memfold_erased_only();
        DROP TRIGGER IF EXISTS summaries_erased_only ON summaries;
        CREATE TRIGGER summaries_erased_only BEFORE DELETE ON summaries
            FOR EACH ROW EXECUTE FUNCTION memfold_erased_only();
        """,
    ),
]

LATEST_VERSION = MIGRATIONS[-1][0]
