"""``memfold eval --suite scenarios --judge oracle | adversary[:ACTION]`` on a scenario
file written here: the scripted judges speak through the real LLM client, and the
figures are what the guards let through."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from memfold.config import Settings
from memfold.evaluation.run_scenarios import Scenario
from memfold.evaluation.runner import run_eval
from memfold.evaluation.scripted_judge import ScenarioScript
from memfold.testing.fake_replies import Reply

SCENARIOS: list[dict[str, Any]] = [
    {
        "id": "dup",
        "kind": "duplicate",
        "existing": ["Noor drinks green tea every morning."],
        "new": "Noor drinks green tea every morning",
    },
    {
        "id": "dis",
        "kind": "distinct",
        "existing": ["Sam lives in Leeds."],
        "new": "Sam lives in York.",
    },
    {
        "id": "upd",
        "kind": "update",
        "existing": ["Sam's rent is $1,200 a month."],
        "new": "Sam's rent is now $1,350 a month.",
    },
    {
        "id": "con",
        "kind": "contradiction",
        "existing": ["Ana likes coffee."],
        "new": "Ana does not like coffee.",
    },
]


def _run(tmp_path: Path, judge: str) -> dict[str, Any]:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    path = tmp_path / "scenarios.jsonl"
    path.write_text("\n".join(json.dumps(s) for s in SCENARIOS) + "\n", encoding="utf-8")
    results = run_eval(
        data,
        judge=judge,
        suites=["scenarios"],
        scenarios=path,
        out=tmp_path / "out" / "eval.json",
        console=Console(quiet=True),
        settings=Settings(),
    )
    scenarios = results["scenarios"]
    assert isinstance(scenarios, dict)
    return scenarios


def test_the_oracle_folds_a_restatement_and_keeps_what_differs(tmp_path: Path) -> None:
    result = _run(tmp_path, "oracle")
    rows = {r["id"]: r for r in result["rows"]}
    assert rows["dup"]["proposed"] == "REPLACE" and rows["dup"]["ok"]
    assert rows["dis"]["proposed"] == "KEEP_SEPARATE" and rows["dis"]["ok"]
    # The oracle is sure of its supersede: its tokens' probability passes the DELETE gate.
    assert rows["upd"]["action"] == "DELETE" and rows["upd"]["ok"]
    assert rows["upd"]["confidence"] >= 0.98
    assert result["distinct_violations"] == 0 and result["contradictions_dropped"] == 0
    assert result["judged"] == 4  # every save asked the scripted model
    after = result["after_review"]
    assert after["run"]["status"] == "done" and after["run"]["counts"]["classified"] >= 1
    assert result["llm_calls"] == 4 + after["run"]["llm_calls"]  # saves, then review


@pytest.mark.parametrize("action", ["REPLACE", "DELETE", "MERGE", "UPDATE"])
def test_an_adversary_proposes_its_action_and_the_guards_count_the_refusals(
    tmp_path: Path, action: str
) -> None:
    result = _run(tmp_path, f"adversary:{action}")
    rows = {r["id"]: r for r in result["rows"]}
    # A MERGE whose text is the new memory's alone is read as the REPLACE it amounts to.
    assert {rows[i]["proposed"] for i in ("dis", "con")} <= {action, "REPLACE"}
    assert all(rows[i]["confidence"] >= 0.98 for i in ("dis", "con"))  # a sure adversary
    assert result["distinct_violations"] == 0 and result["contradictions_dropped"] == 0
    refused = [r for r in rows.values() if r["action"] == "KEEP_SEPARATE"]
    assert refused and all(r["reasons"] for r in refused)
    assert sum(result["refusals"].values()) == sum(len(r["reasons"]) for r in refused)


def test_a_scripted_judge_runs_the_scenarios_suite_only(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--suite scenarios"):
        run_eval(tmp_path, judge="oracle", suites=["pairs"], console=Console(quiet=True))


def _answer(script: ScenarioScript, body: dict[str, Any]) -> Any:
    reply = script(body)
    assert isinstance(reply, Reply) and reply.logprobs  # every token scored
    assert isinstance(reply.content, str)
    return json.loads(reply.content)


def test_the_script_answers_each_request_kind() -> None:
    scenarios = [Scenario(s["id"], s["kind"], tuple(s["existing"]), s["new"]) for s in SCENARIOS]
    oracle = partial(_answer, ScenarioScript(scenarios, "oracle"))
    adversary = partial(_answer, ScenarioScript(scenarios, "adversary"))
    item = "Item 1\nNEW: Sam lives in York.\n1: Sam likes tea. (same words)\n2: Sam lives in Leeds."
    body = {"messages": [{"role": "user", "content": item}]}
    assert oracle(body)["decisions"][0]["action"] == "KEEP_SEPARATE"
    actions = [adversary(body)["decisions"][0] for _ in range(4)]
    assert [d["action"] for d in actions] == ["REPLACE", "DELETE", "MERGE", "UPDATE"]
    assert all(d["targets"] == [2] for d in actions)  # the scenario's own memory
    pair = "Pair 1\nA: Noor drinks green tea every morning.\nB: Noor drinks green tea every morning"
    verdict = oracle({"messages": [{"role": "user", "content": pair}]})["verdicts"][0]
    assert verdict["label"] == "DUPLICATE"
    with pytest.raises(ValueError, match="not a scripted judge"):
        ScenarioScript(scenarios, "rules")


def test_memfold_eval_takes_its_data_folder_as_an_argument_or_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from memfold.cli import main

    path = tmp_path / "scenarios.jsonl"
    path.write_text("\n".join(json.dumps(s) for s in SCENARIOS) + "\n", encoding="utf-8")
    args = ["eval", "--suite", "scenarios", "--judge", "oracle", "--scenarios", str(path)]
    monkeypatch.delenv("MEMFOLD_EVAL_DATA", raising=False)
    with pytest.raises(SystemExit) as missing:
        main(args)
    assert missing.value.code == 2 and "Missing argument 'data'" in capsys.readouterr().err
    monkeypatch.setenv("MEMFOLD_EVAL_DATA", str(tmp_path))
    with pytest.raises(SystemExit) as ran:
        main([*args, "--out", str(tmp_path / "out.json")])
    assert ran.value.code == 0 and (tmp_path / "out.json").exists()


def test_the_rule_judge_is_measured_on_save_and_after_one_review_run(tmp_path: Path) -> None:
    result = _run(tmp_path, "rules")
    rows = {r["id"]: r for r in result["rows"]}
    assert rows["upd"]["action"] == "DELETE" and rows["upd"]["ok"]
    after = result["after_review"]
    assert after["run"]["status"] == "done"
    assert after["distinct_violations"] == 0 and after["contradictions_dropped"] == 0
    assert result["llm_calls"] == 0  # the offline judge asks no model, nor does its review
