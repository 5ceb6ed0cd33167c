"""One memory to save from ``Memory.add``'s keywords, each checked (``InvalidInput``
names what is wrong); the scope is cleaned by the caller. Out of memory.py so it stays
one screen of writing methods."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from memfold.config import Settings
from memfold.engine.ingest import NewMemory
from memfold.engine.lifecycle.expiry import check_expiry_fits, clean_expiry
from memfold.errors import InvalidInput
from memfold.model import Area, Category, CategorySource, Scope, parse_time
from memfold.policy.categorize import categorize
from memfold.policy.validate import (
    clean_enum,
    clean_metadata,
    clean_sources,
    clean_text,
    clean_unit,
)


def new_memory(settings: Settings, scope: Scope, text: object, kw: Mapping[str, Any]) -> NewMemory:
    cfg = settings.store
    area = clean_enum(kw.get("area") or Area.MAIN, Area, "area")
    expires_at, ttl = clean_expiry(kw.get("expires_at"), kw.get("ttl"), area, settings.lifecycle)
    created = kw.get("created_at")
    if created is not None and not isinstance(created, datetime):
        try:
            created = parse_time(created)
        except (TypeError, ValueError):
            raise InvalidInput(f"created_at is not a date/time: {created!r}") from None
    if ttl is not None:
        check_expiry_fits(created, ttl)
    body = clean_text(text, max_chars=cfg.max_text_chars)
    category = kw.get("category")  # none given: by rules (policy/categorize.py)
    source = CategorySource.GIVEN if category else CategorySource.RULES
    return NewMemory(
        text=body,
        scope=scope,
        area=area,
        category=clean_enum(category, Category, "category") if category else categorize(body),
        category_source=source,
        importance=clean_unit(kw.get("importance", 0.5), "importance"),
        sources=clean_sources(kw.get("sources"), max_items=cfg.max_sources),
        metadata=clean_metadata(
            kw.get("metadata"), max_depth=cfg.max_metadata_depth, max_bytes=cfg.max_metadata_bytes
        ),
        embedding=kw.get("embedding"),
        created_at=created,
        expires_at=expires_at,
        ttl=ttl,
    )
