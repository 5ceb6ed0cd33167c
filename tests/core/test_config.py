"""Settings: unknown keys and bad values are a one-line ConfigError; partial settings merge."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfold import Settings
from memfold.config import DEFAULT_TASK_ROLES, LLMSettings, RoleSettings
from memfold.errors import ConfigError
from memfold.llm.client import LLMClient


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test reads its own (initially empty) config file, never the user's."""
    path = tmp_path / "config.toml"
    path.write_text("")
    monkeypatch.setenv("MEMFOLD_CONFIG", str(path))
    return path


def one_line(exc: pytest.ExceptionInfo[ConfigError]) -> str:
    message = str(exc.value)
    assert "\n" not in message and "pydantic" not in message and "errors.pydantic" not in message
    return message


@pytest.mark.parametrize(
    ("var", "names"),
    [
        ("MEMFOLD_CONSOLIDATON__MODE", ["MEMFOLD_CONSOLIDATON__MODE", "no section [consolidaton]"]),
        (
            "MEMFOLD_CONSOLIDATION__DESTRUCTIVE_TRESHOLD",
            ["section [consolidation]", "'destructive_treshold'"],
        ),
        ("MEMFOLD_CONSOLIDATION_MODE", ["MEMFOLD_CONSOLIDATION_MODE", "[consolidation_mode]"]),
        ("MEMFOLD_LLM__UTILITY__MODLE", ["section [llm.utility]", "'modle'"]),
        ("MEMFOLD_STORE__PATH__X", ["[store.path] is a value"]),
        ("MEMFOLD_LLM_MODLE", ["MEMFOLD_LLM_MODLE"]),
    ],
)
def test_unknown_environment_variable_is_an_error(
    monkeypatch: pytest.MonkeyPatch, var: str, names: list[str]
) -> None:
    monkeypatch.setenv(var, "0.5")
    with pytest.raises(ConfigError) as info:
        Settings()
    message = one_line(info)
    for name in names:
        assert name in message


def test_documented_environment_variables_still_work(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_config_file: Path
) -> None:
    no_config_file.write_text("[search]\ndefault_k = 7\n")
    monkeypatch.setenv("MEMFOLD_PATH", str(tmp_path / "m.db"))
    monkeypatch.setenv("MEMFOLD_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMFOLD_LLM_MODEL", "small")
    monkeypatch.setenv("MEMFOLD_LLM_API_KEY", "k-123")
    monkeypatch.setenv("MEMFOLD_CONSOLIDATION__DESTRUCTIVE_THRESHOLD", "0.92")
    monkeypatch.setenv("MEMFOLD_REVIEW__MIN_PAIR_AGE_S", "0")
    s = Settings()
    assert s.store.path == tmp_path / "m.db"
    assert (s.llm.base_url, s.llm.model, s.llm.api_key) == (
        "http://127.0.0.1:9/v1",
        "small",
        "k-123",
    )
    assert s.consolidation.destructive_threshold == 0.92 and s.review.min_pair_age_s == 0
    assert s.search.default_k == 7  # MEMFOLD_CONFIG was read


def test_null_in_the_environment_sets_an_optional_setting_to_none(
    monkeypatch: pytest.MonkeyPatch, no_config_file: Path
) -> None:
    monkeypatch.setenv("MEMFOLD_LLM__FALLBACK_AFTER_FAILURES", "null")
    monkeypatch.setenv("MEMFOLD_LLM__RULES_FIRST_CONFIDENCE", "null")
    s = Settings()
    assert s.llm.fallback_after_failures is None and s.llm.rules_first_confidence is None
    monkeypatch.setenv("MEMFOLD_LLM__FALLBACK_AFTER_FAILURES", "0")
    with pytest.raises(ConfigError, match="fallback_after_failures"):
        Settings()  # 0 is no count of failures: None says "never"


@pytest.mark.parametrize(
    ("toml", "names"),
    [
        (
            "[consolidation]\ndestructive_treshold = 0.9\n",
            ["[consolidation]", "destructive_treshold"],
        ),
        ("[consolidaton]\nmode = 'sync'\n", ["no section [consolidaton]"]),
        ("[llm.utility]\nmodle = 'x'\n", ["[llm.utility]", "'modle'"]),
        ("path = 'x.db'\n", ["no section [path]"]),
        ("[consolidation\n", ["cannot be read"]),
    ],
)
def test_unknown_key_in_config_file_is_an_error(
    no_config_file: Path, toml: str, names: list[str]
) -> None:
    no_config_file.write_text(toml)
    with pytest.raises(ConfigError) as info:
        Settings()
    message = one_line(info)
    assert str(no_config_file) in message
    for name in names:
        assert name in message


def test_missing_explicit_config_file_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMFOLD_CONFIG", str(tmp_path / "nope.toml"))
    with pytest.raises(ConfigError, match="MEMFOLD_CONFIG names no file"):
        Settings()


@pytest.mark.parametrize(
    ("source", "key", "value", "expected"),
    [
        ("env", "MEMFOLD_SEARCH__DEFAULT_K", "abc", "search.default_k: Input should be a valid"),
        ("env", "MEMFOLD_LLM__UTILITY__TIMEOUT_S", "-1", "llm.utility.timeout_s: Input should be"),
        ("env", "MEMFOLD_CONSOLIDATION__MODE", "later", "consolidation.mode"),
        ("env", "MEMFOLD_LLM__TASK_ROLES__SUMMARY", "big", "llm.task_roles.summary"),
        ("env", "MEMFOLD_LLM", "not json", 'field "llm"'),
        ("toml", "consolidation", "destructive_threshold = 1.9", "destructive_threshold"),
        ("toml", "store", "busy_timeout_ms = 'slow'", "store.busy_timeout_ms"),
    ],
)
def test_bad_value_is_one_line_naming_the_key(
    monkeypatch: pytest.MonkeyPatch,
    no_config_file: Path,
    source: str,
    key: str,
    value: str,
    expected: str,
) -> None:
    if source == "env":
        monkeypatch.setenv(key, value)
    else:
        no_config_file.write_text(f"[{key}]\n{value}\n")
    with pytest.raises(ConfigError) as info:
        Settings()
    assert expected in one_line(info)


def test_bad_arguments_are_config_errors() -> None:
    with pytest.raises(ConfigError) as info:
        Settings(llm={"utility": {"timeout_s": 0}})
    assert one_line(info).startswith("invalid setting llm.utility.timeout_s: ")
    with pytest.raises(ConfigError, match=r"unknown setting 'modle' in section \[llm\.utility\]"):
        Settings(llm={"utility": {"modle": "x"}})
    with pytest.raises(ConfigError, match="unknown setting 'stroe'"):
        Settings(stroe={})
    with pytest.raises(ConfigError, match="invalid setting timeout_s"):
        RoleSettings(timeout_s=-1)
    with pytest.raises(ConfigError, match="unknown setting 'modle'"):
        RoleSettings(modle="x")  # type: ignore[call-arg]


def test_a_bad_api_key_value_is_not_echoed() -> None:
    with pytest.raises(ConfigError) as info:
        Settings(llm={"api_key": 1234567890})
    assert "llm.api_key" in str(info.value) and "1234567890" not in str(info.value)


def test_setting_one_task_role_keeps_the_others(
    monkeypatch: pytest.MonkeyPatch, no_config_file: Path
) -> None:
    monkeypatch.setenv("MEMFOLD_LLM__TASK_ROLES__CONSOLIDATION", "main")
    assert Settings().llm.task_roles == {**DEFAULT_TASK_ROLES, "consolidation": "main"}
    no_config_file.write_text('[llm.task_roles]\nsummary = "main"\n')
    merged = Settings().llm.task_roles
    assert merged == {**DEFAULT_TASK_ROLES, "consolidation": "main", "summary": "main"}
    monkeypatch.delenv("MEMFOLD_LLM__TASK_ROLES__CONSOLIDATION")
    no_config_file.write_text("")
    assert Settings(llm={"task_roles": {"extraction": "main"}}).llm.task_roles == {
        **DEFAULT_TASK_ROLES,
        "extraction": "main",
    }
    assert LLMSettings(task_roles={}).task_roles == DEFAULT_TASK_ROLES
    with pytest.raises(ConfigError, match="unknown task 'translation'"):
        LLMSettings(task_roles={"translation": "main"})


def test_setting_part_of_a_role_keeps_its_other_defaults(
    monkeypatch: pytest.MonkeyPatch, no_config_file: Path
) -> None:
    no_config_file.write_text('[llm.utility]\nmodel = "small"\n')
    monkeypatch.setenv("MEMFOLD_LLM__UTILITY__TIMEOUT_S", "5")
    monkeypatch.setenv("MEMFOLD_LLM__MAIN__MODEL", "big")
    llm = Settings().llm
    default = RoleSettings()
    assert (llm.utility.model, llm.utility.timeout_s) == ("small", 5.0)
    assert llm.utility.max_retries == default.max_retries
    assert (llm.main.model, llm.main.timeout_s) == ("big", default.timeout_s)
    assert llm.task_roles == DEFAULT_TASK_ROLES


def test_a_task_routed_to_a_role_is_served_by_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: one task moved to "main", the rest still on "utility"."""
    monkeypatch.setenv("MEMFOLD_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMFOLD_LLM__UTILITY__MODEL", "small")
    monkeypatch.setenv("MEMFOLD_LLM__MAIN__MODEL", "big")
    monkeypatch.setenv("MEMFOLD_LLM__TASK_ROLES__SUMMARY", "main")
    client = LLMClient(Settings().llm)
    assert (client.role("summary").name, client.role("summary").model) == ("main", "big")
    assert (client.role("consolidation").name, client.role("consolidation").model) == (
        "utility",
        "small",
    )
    with pytest.raises(ConfigError, match="no LLM role for task 'translation'"):
        client.role("translation")
