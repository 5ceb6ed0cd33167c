"""How deep JSON-like values nest, measured without recursion, and a copy cut to a depth.

Metadata is refused at the door when it nests deeper than ``store.max_metadata_depth``
(policy/validate.clean_metadata); that setting can be raised to ``METADATA_DEPTH_CEILING``
at most. A row written before the check existed may nest deeper: its ``to_dict`` shows it
cut at the ceiling (``cut_deep``), so that JSON encoders with a depth limit of their own
(pydantic's, about 250 levels, behind the REST API and MCP) never fail on it and one old
row cannot break the listing or search of its scope.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The deepest nesting store.max_metadata_depth may allow, and the depth at which
# to_dict cuts what older code stored (far below pydantic's serialization limit).
METADATA_DEPTH_CEILING = 100
# The defaults of store.max_metadata_depth and store.max_metadata_bytes (config_sections;
# here, at the bottom, so that policy's checks and the settings share them).
METADATA_MAX_DEPTH = 32
METADATA_MAX_BYTES = 65_536


def nests_deeper(value: object, limit: int) -> bool:
    """Whether ``value`` holds dicts/lists nested more than ``limit`` levels (a flat dict
    or list is 1 level, a scalar 0). Iterative: a 100,000-level value is no RecursionError,
    and a value that contains itself counts as too deep."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if level > limit:
            return True
        stack.extend((c, level + 1) for c in children if isinstance(c, Mapping | list | tuple))
    return False


def cut_marker(limit: int) -> str:
    return f"[cut: nested deeper than {limit} levels]"


def cut_deep(value: Any, limit: int = METADATA_DEPTH_CEILING) -> Any:
    """``value`` itself when it nests at most ``limit`` levels; else a copy in which each
    dict or list below level ``limit`` is replaced by ``cut_marker(limit)``."""
    if not nests_deeper(value, limit):
        return value
    return _cut(value, limit, cut_marker(limit))


def _cut(value: Any, levels: int, marker: str) -> Any:
    # Recursion at most ``limit`` levels deep: below it every container is the marker.
    if isinstance(value, Mapping):
        return marker if levels == 0 else {k: _cut(v, levels - 1, marker) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return marker if levels == 0 else [_cut(v, levels - 1, marker) for v in value]
    return value
