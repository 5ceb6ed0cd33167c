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
    check_anchors,
    check_env,
    merged_task_roles,
    problems,
    read_config_file,
)
from memfold.config_sections import (
    ConsolidationSettings,
    EmbedSettings,
    ReviewSettings,
    SearchSettings,
    StoreSettings,
)
from memfold.errors import ConfigError
from memfold.model import Area

__all__ = [
    "APP_NAME",
    "ConsolidationSettings",
    "ConversationSettings",
    "EmbedSettings",
    "LLMSettings",
    "LifecycleSettings",
    "ReviewSettings",
    "RoleSettings",
    "SearchSettings",
    "ServerSettings",
    "Settings",
    "StoreSettings",
    "config_file_path",
    "default_store_path",
    "load_settings",
]

APP_NAME = "memfold"


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
    # With no LLM configured, the turns that leave the window are still summarized, as
    # an extractive digest (True). False is the design document's way: no summary
    # without an LLM, and the window hard-prunes to the last threshold_messages turns
    # (the transcript keeps them all).
    offline_digest: bool = True
    # The session summary (engine/conversation/session.py): one part (an LLM summary or
    # the extractive digest of the turns that left the window) holds at most
    # summary_max_part_chars, a digest line digest_line_max_chars; once the parts shown
    # pass summary_max_chars, a meta part compresses them (they are kept).
    summary_max_chars: int = Field(6000, ge=200)
    summary_max_part_chars: int = Field(2000, ge=100)
    # Nouns no turn has that an LLM summary may add (a new noun is a new fact).
    summary_max_new_nouns: int = Field(0, ge=0)
    digest_line_max_chars: int = Field(200, ge=20)
    # Relevant memories of the user/agent scope put in the window by messages().
    k_memories: int = Field(5, ge=0)
    # Extraction of memories from messages (engine/conversation/extract.py): the whole
    # LLM extraction of one call is cut off after this many seconds (no extracts then),
    # and the messages go to the model this many at a time (one call each).
    extract_timeout_s: float = Field(60.0, gt=0)
    extract_batch_messages: int = Field(20, ge=1)
    # An LLM extract that fails against the messages it cites may be re-anchored to one
    # other message of its batch, checked with at most this many new content words (the
    # search over a batch must not find a message the ordinary tolerance lets through).
    reanchor_max_new_content_words: int = Field(0, ge=0)
    # An extract about a participant ("Caroline ...") cited to several speakers'
    # messages takes at least this share of its content words from that participant's.
    extract_subject_min_own_share: float = Field(0.5, ge=0.0, le=1.0)
    # The rule extractor also keeps, from a user's sentence no other rule took, each
    # clause that states a value (a date, a count, a percentage: engine/conversation/value_facts.py)
    # with this many content words, framing aside, up to the max: a fact that can be
    # superseded on its own when that value changes. value_fact_max_words = 0: none.
    value_fact_min_words: int = Field(2, ge=1)
    value_fact_max_words: int = Field(30, ge=0)


class ServerSettings(Section):
    """``memfold serve`` and ``memfold mcp`` (memfold.server)."""

    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    # ``memfold mcp --transport http``: its port unless --port names one.
    mcp_port: int = Field(8766, ge=0, le=65535)
    # A request body above this many bytes is refused with 413 before it is parsed.
    max_body_bytes: int = Field(1_000_000, ge=1024)
    # Requests per key in any 60 seconds (a moving window, per server process); 0: none.
    rate_limit_per_minute: int = Field(600, ge=0)
    # Origins allowed by CORS; empty (the default): no CORS headers, browsers refuse
    # cross-origin calls.
    cors_origins: list[str] = Field(default_factory=list)
    # Pages of list endpoints: at most this many items per page.
    max_page_size: int = Field(1000, ge=1)
    # The review page (/review): the newest log rows it shows (those the key may see).
    review_log_rows: int = Field(50, ge=1)
    # The period of the report's plots on /review/report unless the page asks for another.
    review_report_since: str = "7d"
    # Idempotency-Key (REST writes) and Memory.add(idempotency_key=...): a key's outcome
    # is kept this long after its first request, then purged lazily (the store's
    # idempotency_keys table; engine/idempotency.py).
    idempotency_ttl_s: float = Field(86_400.0, gt=0)
    # A first request that never stored its outcome (its process died, or the store
    # failed after the write) blocks its key with 409 this long; after it, a retry runs
    # again, which may repeat a write that did happen. The default never re-runs it
    # within the key's lifetime.
    idempotency_claim_ttl_s: float = Field(86_400.0, gt=0)
    # The longest key accepted (printable ASCII).
    idempotency_key_max_chars: int = Field(255, ge=1, le=4096)


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
    # decision's action tokens is its confidence. The number a model writes counts for
    # nothing in a gate, so without them the LLM's DELETEs and review labels pass no
    # confidence gate. Asked on a streamed reply (llm/streaming.py), they cost ~0.1 s a
    # reply token on llama-cpp-python (2 cores) and little on OpenAI or vLLM.
    logprobs: bool = True
    # The model's chat template, to read the action's probability from one
    # /v1/completions token after a plain reply instead of streaming the reply's
    # log-probabilities (llm/prefix_score.py): the same number at under half the time on
    # llama-cpp-python. "auto" tries each known template; a named one is the only one
    # tried. Either way a template is used only after its probability agreed with the
    # streamed one on the endpoint's first `template_checks` actions, within
    # `template_tolerance` (llm/template_check.py). "off": always streamed.
    logprob_template: Literal["auto", "chatml", "llama3", "gemma", "off"] = "auto"
    template_checks: int = Field(3, ge=1)
    template_tolerance: float = Field(0.005, gt=0.0, lt=1.0)
    # (raw, calibrated) points mapping the action probability to how often such a
    # decision is right (judge/confidence_map.py); empty: the raw probability.
    confidence_anchors: list[tuple[float, float]] = Field(default_factory=list)

    @field_validator("confidence_anchors")
    @classmethod
    def _anchors(cls, value: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return check_anchors(value)


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
    # budget) hand over to the rule judge for recheck_after_s; then the LLM is tried again
    # (seed 001's fallback). None never hands over: a save the LLM cannot judge is
    # skipped and picked up by the next cycle, as seed 000 says (docs/seeds.md).
    fallback_after_failures: int | None = Field(3, ge=1)
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
        # MEMFOLD_LLM__RULES_FIRST_CONFIDENCE=null sets a setting that may be None to None.
        env_parse_none_str="null",
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
    server: ServerSettings = Field(default_factory=ServerSettings)

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
