"""Every threshold and default, in one settings object.

Sources, highest first: arguments to ``Settings(...)``, environment variables
(``MEMFOLD_`` prefix, ``__`` between nested names, e.g.
``MEMFOLD_CONSOLIDATION__DESTRUCTIVE_THRESHOLD=0.92``), the TOML config file
(``MEMFOLD_CONFIG`` or ``<user config dir>/memfold/config.toml``), defaults.
The numbers come from the seed documents (see DESIGN.md, "Defaults").
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from memfold.config_check import (
    Section,
    SettingError,
    check_env,
    merged_task_roles,
    problems,
    read_config_file,
)
from memfold.errors import ConfigError
from memfold.model import Area

APP_NAME = "memfold"


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
    max_sources: int = Field(1_000, ge=1)
    busy_timeout_ms: int = Field(30_000, ge=0)
    default_user_id: str = "default"
    # A memory id may be given by a unique prefix at least this long (ids are 32 hex).
    id_prefix_min_chars: int = Field(6, ge=1)
    # delete_all archives a scope in log entries of at most this many memories each
    # (each entry holds their before/after snapshots; one undo restores one entry).
    delete_all_batch: int = Field(1000, ge=1)
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
    batch_size: int = Field(64, ge=1)
    threads: int = Field(2, ge=1)
    max_tokens: int = Field(256, ge=8)
    timeout_s: float = Field(30.0, gt=0)


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
    # A scope of at most this many memories (not the whole store) has its document
    # frequencies counted in one pass over its texts, when first searched and at each
    # refresh (~5 ms per 1,000); a larger one counts each query term over the FTS5
    # index, cached per term. The whole store's come from the FTS5 vocabulary.
    keyword_scan_max_docs: int = Field(5000, ge=0)
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
    # Attempts a job may spend (a conflict re-planned, a worker that died holding it);
    # transient failures (LLM down, budget, rate limit, timeout) do not spend any.
    max_attempts: int = Field(5, ge=1)
    # A claimed job's lease: its owner renews it every heartbeat_s while it works; a job
    # whose lease ran out (or whose owner process is gone) is claimed again.
    lease_s: float = Field(60.0, gt=0)
    heartbeat_s: float = Field(15.0, gt=0)
    # After a transient failure a job waits backoff_s * 2^(failures so far), at most
    # backoff_max_s, before it is tried again.
    backoff_s: float = Field(5.0, gt=0)
    backoff_max_s: float = Field(600.0, gt=0)
    # A job whose targets moved under it (another worker wrote them) is tried again
    # after a random wait below conflict_backoff_s * 2^(attempts - 1).
    conflict_backoff_s: float = Field(0.05, ge=0.0)
    # Information-loss guard: share of a source's content words a result must keep.
    min_content_word_recall: float = Field(0.8, ge=0.0, le=1.0)
    # The result check (memfold.policy.result_check): content words a judge-written text
    # may add that no source has ("enjoys" for "likes"), and how much longer than all its
    # sources together it may be.
    result_max_new_content_words: int = Field(2, ge=0)
    result_max_growth: float = Field(1.25, ge=1.0)
    # A newer memory the rules read as the older one in other words (every concept
    # aligned, ``memfold.policy.paraphrase``) may replace it from this cosine up, instead
    # of destructive_threshold: the alignment is the evidence (see docs/benchmarks.md).
    paraphrase_min_similarity: float = Field(0.70, ge=0.0, le=1.0)
    # A newer memory the rules read as a new value for the older one's statement (a
    # change word or a later year, the same subject, ``memfold.policy.value_update``)
    # may supersede it from this cosine up, instead of delete_threshold: "The user's
    # manager is Greg" / "The user now reports to Patricia" embed at 0.36.
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
    # UPDATE rewrites a memory in place: its own cosine gate (see docs/benchmarks.md).
    update_threshold: float = Field(0.85, ge=0.0, le=1.0)
    # A change cue ("now", "moved to") retires an older memory only when it is about the
    # same statement: this share of content words (Dice, the values aside) shared.
    supersede_min_overlap: float = Field(0.6, ge=0.0, le=1.0)
    worker_poll_s: float = Field(0.5, gt=0)
    # The background worker waits this long after a save (or until batch_size saves are
    # pending) before deciding, so a burst of saves shares one judge call.
    batch_wait_s: float = Field(0.25, ge=0)
    # Rule judge (offline) knobs, tuned on dev splits with benchmarks/tune_rules.py.
    rules_flip_min_overlap: float = Field(0.85, ge=0.0, le=1.0)
    rules_value_max_other_diff: int = Field(1, ge=0)
    rules_value_min_shared: int = Field(2, ge=0)
    rules_merge_min_similarity: float = Field(0.93, ge=0.0, le=1.0)
    rules_fragment_max_words: int = Field(2, ge=0)

    @model_validator(mode="after")
    def _heartbeat_within_lease(self) -> ConsolidationSettings:
        if self.heartbeat_s >= self.lease_s:
            raise ValueError("heartbeat_s must be shorter than lease_s")
        return self


class ReviewSettings(Section):
    scan_threshold: float = Field(0.82, ge=0.0, le=1.0)
    scan_block_rows: int = Field(2048, ge=1)
    min_pair_age_s: float = Field(600.0, ge=0)
    gate_min_pairs: int = Field(10, ge=1)
    gate_floor: float = Field(0.85, ge=0.0, le=1.0)
    gate_high: float = Field(0.90, ge=0.0, le=1.0)
    merges_conservative: int = Field(5, ge=0)
    merges_high: int = Field(10, ge=0)
    diagnostic_pairs: int = Field(10, ge=1)
    daily_merge_cap: int = Field(50, ge=0)
    max_daily_queue_share: float = Field(0.20, ge=0.0, le=1.0)
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


class LifecycleSettings(Section):
    tick_every_adds: int = Field(5, ge=0)
    # ...and at most once per this many seconds in one worker (a tick at 100k memories
    # costs seconds; docs/benchmarks.md); memfold tick / Memory.tick() run at once.
    tick_min_interval_s: float = Field(60.0, ge=0.0)
    fading_retention: float = Field(0.20, ge=0.0, le=1.0)
    cluster_similarity: float = Field(0.70, ge=0.0, le=1.0)
    cluster_size: int = Field(5, ge=2)
    summary_link_weight: float = Field(0.8, ge=0.0, le=1.0)
    stability_base: float = Field(0.1, ge=0.0, le=1.0)
    stability_per_importance: float = Field(0.3, ge=0.0, le=1.0)
    # Retention (DESIGN.md): R = max(floor, exp(-dt / (S * B * beta))), B = min(1 +
    # boost_per_importance * importance, boost_cap); procedural memories never fade.
    beta_episodic_days: float = Field(45.0, gt=0)
    beta_semantic_days: float = Field(120.0, gt=0)
    beta_core_days: float = Field(120.0, gt=0)
    boost_per_importance: float = Field(2.0, ge=0.0)
    boost_cap: float = Field(3.0, ge=1.0)
    floor_core: float = Field(0.60, ge=0.0, le=1.0)
    floor_other: float = Field(0.02, ge=0.0, le=1.0)
    # The spacing effect: a retrieval dt days after the previous one adds
    # spacing_gain * min(spacing_max_steps, dt / spacing_days) to stability (cap 1).
    spacing_gain: float = Field(0.1, ge=0.0, le=1.0)
    spacing_days: float = Field(7.0, gt=0)
    spacing_max_steps: float = Field(2.0, ge=0.0)
    stability_cap: float = Field(1.0, gt=0.0, le=1.0)
    # A memory retrieved this many times becomes core (exempt from fading and
    # compression); 0 turns promotion off.
    core_promotion_accesses: int = Field(10, ge=0)
    # Default time to live per area, in seconds (e.g. {"fragments": 86400}); a memory
    # added to such an area without expires_at or ttl expires that long after creation.
    ttl_by_area: dict[str, float] = Field(default_factory=dict)
    # A tick logs its changes in entries of at most this many memories each (all in one
    # transaction); each entry is undone on its own.
    tick_log_batch: int = Field(500, ge=1)

    @field_validator("ttl_by_area")
    @classmethod
    def _check_ttl(cls, value: dict[str, float]) -> dict[str, float]:
        areas = {a.value for a in Area}
        for area, seconds in value.items():
            if area not in areas:
                raise ValueError(f"unknown area {area!r} (one of {', '.join(sorted(areas))})")
            if not seconds > 0:
                raise ValueError(f"ttl of area {area!r} must be > 0 seconds, got {seconds!r}")
        return value


class ConversationSettings(Section):
    threshold_messages: int = Field(100, ge=1)
    keep_recent: int = Field(20, ge=0)
    # The session summary (engine/conversation/session.py): one part (an LLM summary or
    # the extractive digest of the turns that left the window) holds at most
    # summary_max_part_chars, a digest line digest_line_max_chars; once the parts shown
    # pass summary_max_chars, a meta part compresses them (they are kept).
    summary_max_chars: int = Field(6000, ge=200)
    summary_max_part_chars: int = Field(2000, ge=100)
    digest_line_max_chars: int = Field(200, ge=20)
    # Relevant memories of the user/agent scope put in the window by messages().
    k_memories: int = Field(5, ge=0)
    # Extraction of memories from messages (engine/conversation/extract.py): the whole
    # LLM extraction of one call is cut off after this many seconds (no extracts then),
    # and the messages go to the model this many at a time (one call each).
    extract_timeout_s: float = Field(60.0, gt=0)
    extract_batch_messages: int = Field(20, ge=1)


class RoleSettings(Section):
    """One LLM role: its endpoint, model and limits."""

    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(3, ge=0)
    retry_backoff_s: float = Field(0.2, ge=0.0)
    retry_backoff_max_s: float = Field(2.0, ge=0.0)
    probe_timeout_s: float = Field(5.0, gt=0)
    requests_per_minute: float | None = Field(None, gt=0)
    tokens_per_minute: float | None = Field(None, gt=0)
    daily_token_budget: int | None = Field(None, ge=0)
    max_completion_tokens: int = Field(1024, ge=1)
    # A batched judge call (decisions, pair verdicts) is bounded at this many reply tokens
    # per item, at most max_completion_tokens: a decision with a written text needs ~100.
    max_tokens_per_item: int = Field(160, ge=16)
    json_schema: bool = True
    # Ask for token log-probabilities; where the server sends them, the probability of a
    # decision's action tokens is its confidence instead of the number the model writes.
    # They cost little on OpenAI/vLLM; llama-cpp-python computes them over the whole
    # prompt in Python (~10 s a judge call on 2 cores): turn them off there for speed.
    logprobs: bool = True


DEFAULT_TASK_ROLES: dict[str, Literal["utility", "main"]] = {
    "consolidation": "utility",
    "classification": "utility",
    "compression": "utility",
    "summary": "utility",
    "extraction": "utility",
}


class LLMSettings(Section):
    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    utility: RoleSettings = Field(default_factory=RoleSettings)
    main: RoleSettings = Field(default_factory=RoleSettings)
    # task -> role. Cheap mechanical tasks stay on "utility" unless configured; setting
    # one task (MEMFOLD_LLM__TASK_ROLES__CONSOLIDATION=main) leaves the others as they are.
    task_roles: dict[str, Literal["utility", "main"]] = Field(
        default_factory=lambda: dict(DEFAULT_TASK_ROLES)
    )

    # How long an unreachable endpoint is left alone before it is probed again.
    recheck_after_s: float = Field(60.0, ge=0.0)
    # This many consecutive transient failures of on-save LLM calls (timeouts, 5xx, 429,
    # budget) hand over to the rule judge for recheck_after_s; then the LLM is tried again.
    fallback_after_failures: int = Field(3, ge=1)
    # A save the rule judge settles this surely (an exact or contained restatement:
    # UPDATE) is not sent to the LLM at all. None sends every judged save.
    rules_first_confidence: float | None = Field(0.9, ge=0.0, le=1.0)

    @field_validator("task_roles", mode="before")
    @classmethod
    def _keep_default_roles(cls, value: Any) -> Any:
        return merged_task_roles(value, DEFAULT_TASK_ROLES)

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.utility.base_url or self.main.base_url)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MEMFOLD_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
    )

    def __init__(self, **values: Any) -> None:
        """Unknown keys and bad values (arguments, env, file): one-line ``ConfigError``."""
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise SettingError(problems(exc)) from None
        except SettingsError as exc:  # e.g. MEMFOLD_LLM='not json'
            raise ConfigError(str(exc)) from None

    store: StoreSettings = Field(default_factory=StoreSettings)
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    consolidation: ConsolidationSettings = Field(default_factory=ConsolidationSettings)
    review: ReviewSettings = Field(default_factory=ReviewSettings)
    lifecycle: LifecycleSettings = Field(default_factory=LifecycleSettings)
    conversation: ConversationSettings = Field(default_factory=ConversationSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)

    @model_validator(mode="before")
    @classmethod
    def _flat_env_aliases(cls, data: Any) -> Any:
        """Short env names the README documents (MEMFOLD_PATH, MEMFOLD_URL, MEMFOLD_LLM_...)."""
        if not isinstance(data, dict):
            return data
        aliases = {
            ("store", "path"): os.environ.get("MEMFOLD_PATH"),
            ("store", "url"): os.environ.get("MEMFOLD_URL"),
            ("llm", "base_url"): os.environ.get("MEMFOLD_LLM_BASE_URL"),
            ("llm", "model"): os.environ.get("MEMFOLD_LLM_MODEL"),
            ("llm", "api_key"): os.environ.get("MEMFOLD_LLM_API_KEY")
            or os.environ.get("OPENAI_API_KEY"),
        }
        for (section, key), value in aliases.items():
            if value is None:
                continue
            block = data.get(section)
            if isinstance(block, BaseModel):
                block = block.model_dump()
            block = dict(block or {})
            block.setdefault(key, value)
            data[section] = block
        return data

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        check_env(settings_cls, os.environ)
        toml_file = config_file_path()
        read_config_file(settings_cls, toml_file, explicit=bool(os.environ.get("MEMFOLD_CONFIG")))
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=toml_file),
        )


def config_file_path() -> Path:
    explicit = os.environ.get("MEMFOLD_CONFIG")
    if explicit:
        return Path(explicit)
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_store_path() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "memfold.db"


def load_settings(**overrides: Any) -> Settings:
    return Settings(**overrides)
