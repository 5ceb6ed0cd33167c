"""SQLite schema as an ordered list of migrations (PRAGMA user_version)."""

from __future__ import annotations

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE memories (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT, agent_id TEXT, session_id TEXT,
            scope_key TEXT NOT NULL,
            text TEXT NOT NULL,
            area TEXT NOT NULL DEFAULT 'main',
            category TEXT NOT NULL DEFAULT 'semantic',
            importance REAL NOT NULL DEFAULT 0.5,
            stability REAL NOT NULL DEFAULT 0.25,
            access_count INTEGER NOT NULL DEFAULT 0,
            last_access_at TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            valid_from TEXT, valid_to TEXT,
            status TEXT NOT NULL DEFAULT 'active',
            tier TEXT NOT NULL DEFAULT 'hot',
            superseded_by TEXT,
            consolidated_from TEXT NOT NULL DEFAULT '[]',
            sources TEXT NOT NULL DEFAULT '[]',
            metadata TEXT NOT NULL DEFAULT '{}',
            content_hash TEXT NOT NULL,
            embedding BLOB,
            embedding_model TEXT,
            embedding_dim INTEGER,
            version INTEGER NOT NULL DEFAULT 1,
            seq INTEGER NOT NULL
        );
        CREATE INDEX memories_scope_status ON memories(scope_key, status);
        CREATE INDEX memories_seq ON memories(seq);
        CREATE INDEX memories_hash ON memories(scope_key, content_hash);
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            text, content='memories', content_rowid='rowid', tokenize='porter unicode61'
        );
        CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts(rowid, text) VALUES (new.rowid, new.text);
        END;
        CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text)
                VALUES ('delete', old.rowid, old.text);
        END;
        CREATE TRIGGER memories_au AFTER UPDATE OF text ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text)
                VALUES ('delete', old.rowid, old.text);
            INSERT INTO memories_fts(rowid, text) VALUES (new.rowid, new.text);
        END;
        CREATE TABLE tombstones (id TEXT NOT NULL, seq INTEGER NOT NULL);
        CREATE INDEX tombstones_seq ON tombstones(seq);
        CREATE TABLE links (
            src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL,
            weight REAL NOT NULL DEFAULT 1.0, created_at TEXT NOT NULL,
            PRIMARY KEY (src, dst, kind)
        );
        CREATE INDEX links_dst ON links(dst);
        CREATE TABLE consolidation_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            time TEXT NOT NULL,
            path TEXT NOT NULL,
            action TEXT NOT NULL,
            input_ids TEXT NOT NULL DEFAULT '[]',
            output_ids TEXT NOT NULL DEFAULT '[]',
            similarity REAL, confidence REAL,
            reasoning TEXT NOT NULL DEFAULT '',
            judge TEXT NOT NULL DEFAULT '',
            model TEXT, prompt_version TEXT,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            before TEXT NOT NULL DEFAULT '{}',
            after TEXT NOT NULL DEFAULT '{}',
            undone_by INTEGER, undoes INTEGER
        );
        CREATE TABLE log_memories (
            log_id INTEGER NOT NULL, memory_id TEXT NOT NULL,
            PRIMARY KEY (memory_id, log_id)
        );
        CREATE TABLE jobs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            memory_id TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'consolidate',
            status TEXT NOT NULL DEFAULT 'pending',
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            claimed_by TEXT,
            claimed_at TEXT
        );
        CREATE INDEX jobs_status ON jobs(status, id);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    ),
    (
        2,
        """
        CREATE TABLE consolidation_queue (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            scope_key TEXT NOT NULL,
            memory_a TEXT NOT NULL,
            memory_b TEXT NOT NULL,
            similarity REAL NOT NULL,
            version_a INTEGER NOT NULL DEFAULT 1,
            version_b INTEGER NOT NULL DEFAULT 1,
            label TEXT, confidence REAL, reasoning TEXT,
            status TEXT NOT NULL DEFAULT 'pending',
            created_at TEXT NOT NULL,
            classified_at TEXT, processed_at TEXT,
            run_id INTEGER,
            UNIQUE (memory_a, memory_b)
        );
        CREATE INDEX queue_status ON consolidation_queue(status, scope_key);
        CREATE TABLE feedback (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            memory_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            context TEXT,
            time TEXT NOT NULL
        );
        CREATE INDEX feedback_memory ON feedback(memory_id);
        CREATE TABLE review_runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            scope_key TEXT,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            status TEXT NOT NULL DEFAULT 'running',
            p90 REAL,
            counts TEXT NOT NULL DEFAULT '{}',
            breaker TEXT NOT NULL DEFAULT '{}',
            llm_calls INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            time TEXT NOT NULL,
            task TEXT NOT NULL,
            role TEXT NOT NULL,
            model TEXT,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            latency_ms REAL NOT NULL DEFAULT 0,
            outcome TEXT NOT NULL,
            error TEXT
        );
        CREATE INDEX llm_calls_time ON llm_calls(time);
        """,
    ),
    (
        3,
        """
        ALTER TABLE consolidation_queue ADD COLUMN proposal TEXT;
        ALTER TABLE consolidation_queue ADD COLUMN note TEXT;
        CREATE INDEX queue_scope_created ON consolidation_queue(scope_key, created_at);
        CREATE TABLE feedback_applied (
            memory_id TEXT NOT NULL,
            rule TEXT NOT NULL,
            log_id INTEGER,
            time TEXT NOT NULL,
            PRIMARY KEY (memory_id, rule)
        );
        """,
    ),
    (
        4,
        """
        CREATE VIRTUAL TABLE memories_vocab USING fts5vocab(memories_fts, 'row');
        """,
    ),
    (
        5,
        # Job leases and backoff (times are Unix seconds): a running job's lease expires
        # unless its owner renews it; a transient failure waits until next_attempt_at.
        # A running job from an older file has no lease: it counts as expired.
        """
        ALTER TABLE jobs ADD COLUMN lease_until REAL;
        ALTER TABLE jobs ADD COLUMN next_attempt_at REAL;
        ALTER TABLE jobs ADD COLUMN backoffs INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX jobs_owner ON jobs(status, claimed_by);
        """,
    ),
    (
        6,
        # Erasure (Memory.forget): what is left of an erased memory is its id, its scope
        # and when it was erased; never its text. 'secure_delete_from' records whether
        # freed space was zeroed since the file was created (an empty file: yes), so
        # forget knows whether older, never-zeroed copies may linger (vacuum clears them).
        """
        CREATE TABLE erasures (
            id TEXT PRIMARY KEY,
            scope_key TEXT NOT NULL,
            user_id TEXT, agent_id TEXT, session_id TEXT,
            erased_at TEXT NOT NULL,
            derived INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX erasures_scope ON erasures(scope_key);
        INSERT OR REPLACE INTO meta (key, value)
            SELECT 'secure_delete_from', 'creation'
            WHERE NOT EXISTS (SELECT 1 FROM memories)
              AND NOT EXISTS (SELECT 1 FROM consolidation_log);
        """,
    ),
    (
        7,
        # Keyword search restricted to the tenant: the FTS5 index gets a second column
        # holding one token per scope ('k' + hex of the scope key + '0': letters and
        # digits, so unicode61 keeps it whole, and ending in a digit, so the porter
        # stemmer leaves it as is), read from a virtual generated column of memories.
        # A search matches `fts_scope : token AND text : (...)`, so FTS5 walks the
        # scope's rows, not the file's. The index is rebuilt from memories (an older
        # file's rows get their tokens); rank's bm25() gives the scope column no weight.
        """
        DROP TRIGGER memories_ai;
        DROP TRIGGER memories_ad;
        DROP TRIGGER memories_au;
        DROP TABLE memories_vocab;
        DROP TABLE memories_fts;
        ALTER TABLE memories ADD COLUMN fts_scope TEXT
            GENERATED ALWAYS AS ('k' || hex(scope_key) || '0') VIRTUAL;
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            text, fts_scope, content='memories', content_rowid='rowid',
            tokenize='porter unicode61'
        );
        INSERT INTO memories_fts(memories_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');
        INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
        CREATE VIRTUAL TABLE memories_vocab USING fts5vocab(memories_fts, 'row');
        CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts(rowid, text, fts_scope)
                VALUES (new.rowid, new.text, new.fts_scope);
        END;
        CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text, fts_scope)
                VALUES ('delete', old.rowid, old.text, old.fts_scope);
        END;
        CREATE TRIGGER memories_au AFTER UPDATE OF text, scope_key ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text, fts_scope)
                VALUES ('delete', old.rowid, old.text, old.fts_scope);
            INSERT INTO memories_fts(rowid, text, fts_scope)
                VALUES (new.rowid, new.text, new.fts_scope);
        END;
        """,
    ),
    (
        8,
        # The lifecycle (engine/lifecycle): a memory's time to live. NULL: it never
        # expires; the tick marks a memory whose time has come 'expired'.
        """
        ALTER TABLE memories ADD COLUMN expires_at TEXT;
        CREATE INDEX memories_expires ON memories(expires_at) WHERE expires_at IS NOT NULL;
        """,
    ),
    (
        9,
        # Conversations (engine/conversation): append-only transcripts, one row per
        # message, position counting from 0 within the session (its Scope key), and the
        # session summary's append-only parts ('summary' of covered positions, the
        # agent's own 'note', a 'meta' summary that compresses older parts named in
        # replaces, which are kept). Rows are never updated (the triggers refuse it);
        # erasure of a scope (Memory.forget) may delete them.
        """
        CREATE TABLE transcripts (
            id TEXT PRIMARY KEY,
            session_key TEXT NOT NULL,
            position INTEGER NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            created_at TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}',
            UNIQUE (session_key, position)
        );
        CREATE TABLE summaries (
            id TEXT PRIMARY KEY,
            session_key TEXT NOT NULL,
            part INTEGER NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            covers_from INTEGER,
            covers_to INTEGER,
            replaces TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            UNIQUE (session_key, part)
        );
        CREATE TRIGGER transcripts_append_only BEFORE UPDATE ON transcripts BEGIN
            SELECT RAISE(ABORT, 'transcripts are append-only');
        END;
        CREATE TRIGGER summaries_append_only BEFORE UPDATE ON summaries BEGIN
            SELECT RAISE(ABORT, 'summary parts are append-only');
        END;
        """,
    ),
    (
        10,
        # API keys of the service (memfold.server, engine/keys.py): the SHA-256 of the
        # token, never the token; prefix is the token's public start shown in listings.
        # A revoked key keeps its row (revoked_at set), so listings show who had access.
        """
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            prefix TEXT NOT NULL,
            secret_hash TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL,
            user_id TEXT,
            agent_id TEXT,
            label TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            revoked_at TEXT
        );
        """,
    ),
    (
        11,
        # Where a memory's category came from (model.CategorySource): 'given' by the
        # caller, 'rules' on save, 'judge' (the LLM's reply on save), 'lifecycle'.
        # Rows written before cannot tell a caller's category from the rules' guess:
        # they read 'given', so no later judge decision overrides what may be a choice.
        """
        ALTER TABLE memories ADD COLUMN category_source TEXT NOT NULL DEFAULT 'given';
        """,
    ),
    (
        12,
        # Keyword search reads the scope's own doclists (issue 14): a third FTS5 column
        # holds each distinct stem of the text as a term of the memory's scope only
        # (store/sqlite/scope_terms.py, a virtual generated column computed by the
        # SQL function memfold_scope_terms that every connection registers). With the
        # text column alone, a tenant's search in a file of many tenants stepped through
        # doclists spanning all of them. rank's bm25() gives the new column no weight.
        """
        DROP TRIGGER memories_ai;
        DROP TRIGGER memories_ad;
        DROP TRIGGER memories_au;
        DROP TABLE memories_vocab;
        DROP TABLE memories_fts;
        ALTER TABLE memories ADD COLUMN fts_terms TEXT
            GENERATED ALWAYS AS (memfold_scope_terms(scope_key, text)) VIRTUAL;
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            text, fts_scope, fts_terms, content='memories', content_rowid='rowid',
            tokenize='porter unicode61'
        );
        INSERT INTO memories_fts(memories_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0, 0.0)');
        INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
        CREATE VIRTUAL TABLE memories_vocab USING fts5vocab(memories_fts, 'row');
        CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts(rowid, text, fts_scope, fts_terms)
                VALUES (new.rowid, new.text, new.fts_scope, new.fts_terms);
        END;
        CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text, fts_scope, fts_terms)
                VALUES ('delete', old.rowid, old.text, old.fts_scope, old.fts_terms);
        END;
        CREATE TRIGGER memories_au AFTER UPDATE OF text, scope_key ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text, fts_scope, fts_terms)
                VALUES ('delete', old.rowid, old.text, old.fts_scope, old.fts_terms);
            INSERT INTO memories_fts(rowid, text, fts_scope, fts_terms)
                VALUES (new.rowid, new.text, new.fts_scope, new.fts_terms);
        END;
        """,
    ),
    (
        13,
        # The scope's own terms without a generated column: a column computed by
        # memfold's SQL function made every reader of the file need that function
        # (PRAGMA integrity_check, quick_check and SELECT * failed in plain SQLite). The
        # terms are now computed only where memfold writes or reads the index: in the
        # triggers, and in the view FTS5 reads as its content (rebuild, integrity-check).
        # The index holds the same terms as with schema 12; it is rebuilt once.
        """
        DROP TRIGGER memories_ai;
        DROP TRIGGER memories_ad;
        DROP TRIGGER memories_au;
        DROP TABLE memories_vocab;
        DROP TABLE memories_fts;
        ALTER TABLE memories DROP COLUMN fts_terms;
        CREATE VIEW memories_fts_content AS
            SELECT rowid AS memory_rowid, text, fts_scope,
                memfold_scope_terms(scope_key, text) AS fts_terms
            FROM memories;
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            text, fts_scope, fts_terms, content='memories_fts_content',
            content_rowid='memory_rowid', tokenize='porter unicode61'
        );
        INSERT INTO memories_fts(memories_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0, 0.0)');
        INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
        CREATE VIRTUAL TABLE memories_vocab USING fts5vocab(memories_fts, 'row');
        CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts(rowid, text, fts_scope, fts_terms)
                VALUES (new.rowid, new.text, new.fts_scope,
                    memfold_scope_terms(new.scope_key, new.text));
        END;
        CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text, fts_scope, fts_terms)
                VALUES ('delete', old.rowid, old.text, old.fts_scope,
                    memfold_scope_terms(old.scope_key, old.text));
        END;
        CREATE TRIGGER memories_au AFTER UPDATE OF text, scope_key ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text, fts_scope, fts_terms)
                VALUES ('delete', old.rowid, old.text, old.fts_scope,
                    memfold_scope_terms(old.scope_key, old.text));
            INSERT INTO memories_fts(rowid, text, fts_scope, fts_terms)
                VALUES (new.rowid, new.text, new.fts_scope,
                    memfold_scope_terms(new.scope_key, new.text));
        END;
        """,
    ),
    (
        14,
        # Version conflicts a job met (another worker rewrote what it was judged on),
        # counted apart from its attempts: a conflict is re-planned, not a failure
        # (consolidation.max_conflict_retries; engine/jobs.py).
        """
        ALTER TABLE jobs ADD COLUMN conflicts INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        15,
        # FTS5 merges a level's segments from 2 of them on (automerge; its default is 4).
        # Until schema 14 memfold inserted memories one statement a row, FTS5 wrote a
        # segment for each and merged them on the way; insert_memories now writes a
        # batch in one statement (store/sqlite/bulk_insert.py), one segment a batch, and
        # at 4 a level a file kept more segments than before, each read by every
        # keyword search (10 against 8 at 1,000 tenants x 100; 6 with 2). The index's
        # terms do not change.
        """
        INSERT INTO memories_fts(memories_fts, rank) VALUES ('automerge', 2);
        """,
    ),
    (
        16,
        # Idempotency keys (engine/idempotency.py): one row per (owner, key), owner the
        # REST caller's API key ('key:' + its id) or Memory.add's scope ('scope:' + its
        # key). A row is claimed ('running') before the write runs, and holds the
        # request's fingerprint (SHA-256), the claim's token and, once 'done', the
        # outcome (status and body as replayed). Expired rows are purged on each claim.
        """
        CREATE TABLE idempotency_keys (
            owner TEXT NOT NULL,
            idempotency_key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            claim TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'running',
            status INTEGER,
            content_type TEXT,
            body TEXT,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            PRIMARY KEY (owner, idempotency_key)
        );
        CREATE INDEX idempotency_keys_expires ON idempotency_keys(expires_at);
        """,
    ),
    (
        17,
        # The reading of each memory's text (store/sql/readings.py), kept when it is
        # saved so that a drain, a review run or a tick never parses an old memory
        # again: a cache, keyed by what made it; erased with the memory.
        """
        CREATE TABLE readings (
            memory_id TEXT PRIMARY KEY,
            reading_key TEXT NOT NULL,
            words TEXT NOT NULL
        );
        """,
    ),
    (
        18,
        # A long memory's passage vectors (policy/passages.py): float32 rows of its
        # embedding's dimension in one blob, NULL for a short text. Rows written before
        # have none (search scores them by their whole vector, as before) until they
        # are written again or re-embedded (memfold reembed).
        """
        ALTER TABLE memories ADD COLUMN passages BLOB;
        """,
    ),
    (
        19,
        # Transcripts and summary parts are immutable (seed 002): a delete is refused
        # too, unless its session is named in transcript_erasure, which only forget's
        # erasure writes, for the length of its transaction (store/sql/transcripts.py).
        """
        CREATE TABLE transcript_erasure (session_key TEXT PRIMARY KEY);
        CREATE TRIGGER transcripts_erased_only BEFORE DELETE ON transcripts
        WHEN NOT EXISTS (SELECT 1 FROM transcript_erasure WHERE session_key = OLD.session_key)
        BEGIN
            SELECT RAISE(ABORT, 'transcripts are immutable: only forget erases them');
        END;
        CREATE TRIGGER summaries_erased_only BEFORE DELETE ON summaries
        WHEN NOT EXISTS (SELECT 1 FROM transcript_erasure WHERE session_key = OLD.session_key)
        BEGIN
            SELECT RAISE(ABORT, 'summary parts are immutable: only forget erases them');
        END;
        """,
    ),
]

LATEST_VERSION = MIGRATIONS[-1][0]
