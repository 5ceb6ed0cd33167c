"""Retention and the lifecycle's pure rules (DESIGN.md, "Defaults"; seed 004).

R = max(floor, exp(-dt / (S * B * beta))): ``dt`` days since the last access (or since
creation, never accessed), ``S`` the memory's stability, ``B = min(1 + boost *
importance, cap)``, ``beta`` per category (episodic 45 days, semantic 120, core 120;
procedural memories never fade), ``floor`` 0.60 for core, 0.02 otherwise. A direct
retrieval ``dt`` days after the previous one adds ``gain * min(max_steps, dt /
spacing_days)`` to S, capped: the spacing effect. No I/O here.
"""

from __future__ import annotations

import math
from datetime import datetime

from memfold.config import LifecycleSettings
from memfold.model import Category, MemoryRecord, Status, Tier

_DAY_S = 86_400.0


def days_between(earlier: datetime, later: datetime) -> float:
    """Days from ``earlier`` to ``later`` (0 when ``later`` is not after it)."""
    return max(0.0, (later - earlier).total_seconds() / _DAY_S)


def last_touch(record: MemoryRecord) -> datetime:
    """When the memory was last accessed, else when it was created."""
    return record.last_access_at or record.created_at


def beta_days(category: Category, cfg: LifecycleSettings) -> float | None:
    """The category's decay scale in days; None: it never fades (procedural)."""
    if category is Category.PROCEDURAL:
        return None
    if category is Category.EPISODIC:
        return cfg.beta_episodic_days
    if category is Category.CORE:
        return cfg.beta_core_days
    return cfg.beta_semantic_days  # semantic, and summaries of fading memories


def floor_of(category: Category, cfg: LifecycleSettings) -> float:
    return cfg.floor_core if category is Category.CORE else cfg.floor_other


def boost(importance: float, cfg: LifecycleSettings) -> float:
    """B = min(1 + boost_per_importance * importance, boost_cap)."""
    return min(1.0 + cfg.boost_per_importance * importance, cfg.boost_cap)


def retention_value(
    *,
    category: Category,
    stability: float,
    importance: float,
    days: float,
    cfg: LifecycleSettings,
) -> float:
    """The formula itself, on plain numbers."""
    beta = beta_days(category, cfg)
    if beta is None:
        return 1.0
    floor = floor_of(category, cfg)
    scale = stability * boost(importance, cfg) * beta
    if scale <= 0.0:
        return floor if days > 0 else 1.0
    return max(floor, math.exp(-max(0.0, days) / scale))


def retention(record: MemoryRecord, now: datetime, cfg: LifecycleSettings) -> float:
    """R of ``record`` at ``now``."""
    return retention_value(
        category=record.category,
        stability=record.stability,
        importance=record.importance,
        days=days_between(last_touch(record), now),
        cfg=cfg,
    )


def initial_stability(importance: float, cfg: LifecycleSettings) -> float:
    """S of a new memory: stability_base + stability_per_importance * importance (capped)."""
    return min(cfg.stability_cap, cfg.stability_base + cfg.stability_per_importance * importance)


def stability_after_access(
    stability: float, days_since_last: float, cfg: LifecycleSettings
) -> float:
    """S after a direct retrieval ``days_since_last`` days after the previous access
    (or creation): S + gain * min(max_steps, dt / spacing_days), at most the cap. A
    retrieval soon after the last one adds almost nothing: the spacing effect."""
    steps = min(cfg.spacing_max_steps, max(0.0, days_since_last) / cfg.spacing_days)
    return min(cfg.stability_cap, max(stability, stability + cfg.spacing_gain * steps))


def is_fading(record: MemoryRecord, now: datetime, cfg: LifecycleSettings) -> bool:
    """A hot, active, non-core memory whose retention fell below ``fading_retention``
    (procedural memories never fade; superseded ones are not candidates)."""
    if record.status is not Status.ACTIVE or record.tier is not Tier.HOT:
        return False
    if record.category in (Category.CORE, Category.PROCEDURAL) or record.superseded_by:
        return False
    return retention(record, now, cfg) < cfg.fading_retention


def promotes_to_core(record: MemoryRecord, cfg: LifecycleSettings) -> bool:
    """Repeated use makes a memory core: ``core_promotion_accesses`` retrievals (0: never)."""
    if cfg.core_promotion_accesses <= 0 or record.status is not Status.ACTIVE:
        return False
    if record.category is Category.CORE:
        return False
    return record.access_count >= cfg.core_promotion_accesses


def is_expired(expires_at: datetime | None, now: datetime) -> bool:
    return expires_at is not None and expires_at <= now
