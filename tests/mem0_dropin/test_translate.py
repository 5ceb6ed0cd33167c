"""mem0's filters and config read as memfold's (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from memfold.errors import ConfigError, InvalidInput
from memfold.mem0 import config, filters


def test_ids_leave_the_filter_and_run_id_is_the_session() -> None:
    ids, where = filters.split({"user_id": " alex ", "run_id": 7, "topic": "food"})
    assert ids == filters.Ids("alex", None, "7")
    assert where == {"topic": "food"}


def test_operators_and_logic_gain_their_dollar() -> None:
    given = {"AND": [{"n": {"gte": 3, "lt": 9}}, {"OR": [{"t": {"in": ["a"]}}, {"t": "b"}]}]}
    assert filters.translate(given) == {
        "$and": [{"n": {"$gte": 3, "$lt": 9}}, {"$or": [{"t": {"$in": ["a"]}}, {"t": "b"}]}]
    }


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"t": {"regex": "x"}}, "unknown operator 'regex'"),
        ({"AND": {"t": 1}}, "list of filters"),
        ({"OR": [3]}, "must be a dict"),
        ({"actor_id": "u"}, "actor"),
    ],
)
def test_what_cannot_be_read_is_named(given: dict[str, Any], named: str) -> None:
    with pytest.raises(InvalidInput, match=named):
        filters.translate(given)


def test_ids_are_required_where_mem0_requires_them() -> None:
    with pytest.raises(InvalidInput, match="at least one of"):
        filters.split({"topic": "x"})
    assert filters.split(None, required=False) == (filters.Ids(), None)


def test_llm_and_embedder_map_to_openai_compatible_settings() -> None:
    mapped = config.read(
        {
            "llm": {
                "provider": "lmstudio",
                "config": {"model": "qwen", "lmstudio_base_url": "http://127.0.0.1:1234/v1"},
            },
            "embedder": {"provider": "openai", "config": {"model": "text-embedding-3-small"}},
            "path": "/tmp/x.db",
        }
    )
    assert mapped.settings["llm"] == {"model": "qwen", "base_url": "http://127.0.0.1:1234/v1"}
    assert mapped.settings["embed"] == {"provider": "openai", "model": "text-embedding-3-small"}
    assert mapped.path == "/tmp/x.db"


def test_pgvector_parts_become_a_url() -> None:
    parts = {"dbname": "mem", "user": "me", "password": "p@ss", "host": "db", "port": 6543}
    mapped = config.read({"vector_store": {"provider": "pgvector", "config": parts}})
    assert mapped.url == "postgresql://me:p%40ss@db:6543/mem"


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"llm": {"provider": "anthropic", "config": {}}}, "OpenAI-compatible"),
        ({"llm": {"provider": "openai", "config": {"temperature": 0.1}}}, "temperature"),
        ({"vector_store": {"provider": "qdrant", "config": {}}}, "qdrant"),
        ({"embedder": {"provider": "huggingface", "config": {}}}, "local model"),
        ({"history_db_path": "/tmp/h.db"}, "history"),
        ({"custom_instructions": "be brief"}, "custom_instructions"),
        ({"version": "v1.0"}, "v1.1"),
        ("not a dict", "must be a dict"),
    ],
)
def test_config_that_does_not_map_is_refused(given: object, named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        config.read(given)
