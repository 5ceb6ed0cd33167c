"""Retention (policy/retention.py) against values computed by hand from DESIGN.md:
R = max(floor, exp(-dt / (S * B * beta))), B = min(1 + 2 * importance, 3)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from memfold.config import LifecycleSettings
from memfold.model import Category, MemoryRecord, Scope, Status, Tier
from memfold.policy import retention
from memfold.policy.categorize import categorize

CFG = LifecycleSettings()
T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _mem(
    category: Category,
    *,
    stability: float = 0.25,
    importance: float = 0.5,
    accessed_days_ago: float | None = None,
    age_days: float = 0.0,
    now: datetime = T0,
    **kw: object,
) -> MemoryRecord:
    last = None if accessed_days_ago is None else now - timedelta(days=accessed_days_ago)
    return MemoryRecord(
        id="m",
        scope=Scope("u"),
        text="x",
        category=category,
        stability=stability,
        importance=importance,
        created_at=now - timedelta(days=age_days),
        last_access_at=last,
        **kw,  # type: ignore[arg-type]
    )


def test_episodic_by_hand() -> None:
    # S 0.25, importance 0.5: B = 2; beta 45: scale 22.5 days; 10 days: exp(-10/22.5)
    record = _mem(Category.EPISODIC, age_days=10)
    assert retention.retention(record, T0, CFG) == pytest.approx(0.64118, abs=1e-5)
    assert math.exp(-10 / 22.5) == pytest.approx(0.64118, abs=1e-5)


def test_semantic_by_hand_and_the_boost_cap() -> None:
    # S 0.4, importance 0.9: B = min(2.8, 3) = 2.8; beta 120: scale 134.4; 60 days
    record = _mem(Category.SEMANTIC, stability=0.4, importance=0.9, age_days=60)
    assert retention.retention(record, T0, CFG) == pytest.approx(0.63991, abs=1e-5)
    # importance 1: B = 3, the cap (1 + 2 = 3); importance above would not raise it
    assert retention.boost(1.0, CFG) == 3.0
    assert retention.boost(0.0, CFG) == 1.0


def test_time_counts_from_the_last_access_not_creation() -> None:
    # created 400 days ago, accessed 5 days ago: dt = 5; S 0.1, importance 0: scale 4.5
    record = _mem(
        Category.EPISODIC, stability=0.1, importance=0.0, age_days=400, accessed_days_ago=5
    )
    assert retention.retention(record, T0, CFG) == pytest.approx(math.exp(-5 / 4.5))
    assert retention.retention(record, T0, CFG) == pytest.approx(0.32919, abs=1e-5)


def test_the_floors() -> None:
    old = {"age_days": 3000, "stability": 0.1, "importance": 0.0}
    assert retention.retention(_mem(Category.EPISODIC, **old), T0, CFG) == 0.02  # type: ignore[arg-type]
    assert retention.retention(_mem(Category.SEMANTIC, **old), T0, CFG) == 0.02  # type: ignore[arg-type]
    # core: beta 120, floor 0.60; 30 days at S 0.25, B 2 (scale 60): exp(-0.5) = 0.6065
    core = _mem(Category.CORE, age_days=30)
    assert retention.retention(core, T0, CFG) == pytest.approx(0.60653, abs=1e-5)
    assert retention.retention(_mem(Category.CORE, age_days=90), T0, CFG) == 0.60  # exp(-1.5) < 0.6
    assert retention.retention(_mem(Category.CORE, **old), T0, CFG) == 0.60  # type: ignore[arg-type]


def test_procedural_never_fades() -> None:
    record = _mem(Category.PROCEDURAL, age_days=10_000, stability=0.1, importance=0.0)
    assert retention.retention(record, T0, CFG) == 1.0
    assert not retention.is_fading(record, T0, CFG)


def test_fresh_memory_is_fully_retained_and_settings_change_beta() -> None:
    assert retention.retention(_mem(Category.EPISODIC), T0, CFG) == 1.0
    longer = LifecycleSettings(beta_episodic_days=90.0)
    record = _mem(Category.EPISODIC, age_days=10)
    assert retention.retention(record, T0, longer) == pytest.approx(math.exp(-10 / 45))


def test_the_spacing_effect_by_hand() -> None:
    # + 0.1 * min(2, dt / 7): a day later +0.0142857, a week +0.1, a month +0.2 (capped at 2)
    assert retention.stability_after_access(0.25, 1.0, CFG) == pytest.approx(0.25 + 0.1 / 7)
    assert retention.stability_after_access(0.25, 7.0, CFG) == pytest.approx(0.35)
    assert retention.stability_after_access(0.25, 30.0, CFG) == pytest.approx(0.45)
    assert retention.stability_after_access(0.25, 0.0, CFG) == 0.25
    assert retention.stability_after_access(0.95, 30.0, CFG) == 1.0  # capped at 1
    # spaced retrievals slow fading: S 0.25 -> 0.45 after a month's gap
    before = _mem(Category.EPISODIC, age_days=20)
    after = _mem(Category.EPISODIC, age_days=20, stability=0.45)
    assert retention.retention(after, T0, CFG) > retention.retention(before, T0, CFG)


def test_initial_stability() -> None:
    assert retention.initial_stability(0.5, CFG) == pytest.approx(0.25)
    assert retention.initial_stability(1.0, CFG) == pytest.approx(0.4)
    assert retention.initial_stability(0.0, CFG) == pytest.approx(0.1)


def test_fading_excludes_core_cold_superseded_and_inactive() -> None:
    old = {"age_days": 365, "stability": 0.1, "importance": 0.0}
    assert retention.is_fading(_mem(Category.EPISODIC, **old), T0, CFG)  # type: ignore[arg-type]
    assert retention.is_fading(_mem(Category.SEMANTIC, **old), T0, CFG)  # type: ignore[arg-type]
    assert not retention.is_fading(_mem(Category.CORE, **old), T0, CFG)  # type: ignore[arg-type]
    cold = _mem(Category.EPISODIC, tier=Tier.COLD, **old)  # type: ignore[arg-type]
    assert not retention.is_fading(cold, T0, CFG)
    gone = _mem(Category.EPISODIC, status=Status.SUPERSEDED, superseded_by="s", **old)  # type: ignore[arg-type]
    assert not retention.is_fading(gone, T0, CFG)
    # just above the threshold (0.20): not fading
    record = _mem(Category.EPISODIC, age_days=36)  # exp(-36/22.5) = 0.2019
    assert not retention.is_fading(record, T0, CFG)
    assert retention.is_fading(_mem(Category.EPISODIC, age_days=37), T0, CFG)  # 0.1931


def test_core_promotion_rule() -> None:
    cfg = LifecycleSettings(core_promotion_accesses=3)
    assert not retention.promotes_to_core(_mem(Category.SEMANTIC, access_count=2), cfg)
    assert retention.promotes_to_core(_mem(Category.SEMANTIC, access_count=3), cfg)
    assert retention.promotes_to_core(_mem(Category.EPISODIC, access_count=9), cfg)
    assert not retention.promotes_to_core(_mem(Category.CORE, access_count=9), cfg)
    archived = _mem(Category.SEMANTIC, access_count=9, status=Status.ARCHIVED)
    assert not retention.promotes_to_core(archived, cfg)
    off = LifecycleSettings(core_promotion_accesses=0)
    assert not retention.promotes_to_core(_mem(Category.SEMANTIC, access_count=99), off)


def test_expiry() -> None:
    assert retention.is_expired(T0, T0)
    assert not retention.is_expired(T0 + timedelta(seconds=1), T0)
    assert not retention.is_expired(None, T0)


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("User went hiking at Mount Rainier on March 12, 2024", Category.EPISODIC),
        ("Yesterday we had dinner at Nopa", Category.EPISODIC),
        ("Met Sara at the conference 3 weeks ago", Category.EPISODIC),
        ("How to deploy: push to main, then wait for CI", Category.PROCEDURAL),
        ("Always run the migrations before starting the server", Category.PROCEDURAL),
        ("1. open the valve\n2. check the gauge", Category.PROCEDURAL),
        ("User likes oat milk in coffee", Category.SEMANTIC),
        ("Kim lives in Berlin", Category.SEMANTIC),
    ],
)
def test_categories_by_rules(text: str, category: Category) -> None:
    assert categorize(text) is category


def test_settings_out_of_range_are_errors() -> None:
    from memfold.errors import ConfigError

    for bad in (
        {"beta_episodic_days": 0},
        {"floor_core": 1.5},
        {"core_promotion_accesses": -1},
        {"ttl_by_area": {"main": -5}},
        {"ttl_by_area": {"attic": 60}},
    ):
        with pytest.raises(ConfigError):
            LifecycleSettings(**bad)
