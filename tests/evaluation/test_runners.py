"""Runners end to end on tiny fixture files written here (no bench-data needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from memfold.embed.local import LocalEmbedder
from memfold.evaluation.conversations import locomo_conversation
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.evaluation.env import EvalEnv, make_progress
from memfold.evaluation.run_beam import survival
from memfold.evaluation.run_pairs import run_pair_dataset
from memfold.memory import Memory
from memfold.model import Action, Decision, Status


def _env(tmp_path: Path, embedder: LocalEmbedder) -> EvalEnv:
    from memfold.config import Settings

    return EvalEnv(
        data=tmp_path / "data",
        split="dev",
        judge_kind="rules",
        settings=Settings(),
        embedder=CachingEmbedder(embedder, tmp_path / "cache"),
        workdir=tmp_path,
        progress=make_progress(Console(quiet=True)),
    )


def _write_stsb(folder: Path) -> None:
    rows = [
        ("5.000", "The user likes green tea.", "The user likes green tea."),
        ("0.500", "The user lives in Paris.", "The stock market fell today."),
        ("1.000", "The user likes coffee.", "The user does not like coffee."),
    ]
    lines = [f"g\tf\t2012\t{i:04d}\t{s}\t{a}\t{b}" for i, (s, a, b) in enumerate(rows)]
    folder.mkdir(parents=True)
    (folder / "sts-train.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "sts-dev.tsv").write_text("", encoding="utf-8")


def test_pair_runner_reads_the_applied_decision(tmp_path: Path, embedder: LocalEmbedder) -> None:
    _write_stsb(tmp_path / "data" / "pairs" / "stsb")
    env = _env(tmp_path, embedder)
    with env.progress:
        result = run_pair_dataset(env, "stsb")
    m = result["metrics"]
    assert m["pairs"] == 3 and m["duplicates"] == 1 and m["must_not_merge"] == 2
    assert m["duplicate_recall"] == 1.0  # the exact duplicate is folded (UPDATE)
    assert result["confusion"]["score<=2"]["MERGE"] == 0
    assert result["lost_memories"] == 0
    assert env.embedder.file is not None and env.embedder.file.is_file()  # cache written


def test_merge_carries_sources_into_recall(tmp_path: Path, embedder: LocalEmbedder) -> None:
    """An UPDATE folds the new memory into the target; the target's sources become the
    union, so searching finds both evidence ids through the one surviving memory."""
    with Memory(tmp_path / "m.db", embedder=embedder, consolidate="sync") as mem:
        mem.add("Caroline has a dog named Max.", user_id="c", sources=["D1:3"])
        second = mem.add("Caroline has a dog named Max.", user_id="c", sources=["D2:7"])
        assert second.decision is not None and second.decision.action is Action.UPDATE
        assert mem.get(second.memory.id).status is Status.SUPERSEDED
        hits = mem.search("What is the name of Caroline's dog?", user_id="c", k=10)
        from memfold.evaluation.metrics import evidence_recall

        assert [sorted(h.memory.sources) for h in hits] == [["D1:3", "D2:7"]]
        assert evidence_recall(["D1:3", "D2:7"], (h.memory.sources for h in hits)) == 1.0
        superseded = mem.get(second.memory.id)
        assert survival(mem, superseded) == "merged"


def test_locomo_conversation_parsing_orders_and_repairs() -> None:
    raw = {
        "sample_id": "conv-x",
        "conversation": {
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_2_date_time": "2:00 pm on 9 May, 2023",
        },
        "observation": {
            "session_2_observation": {"A": [["later fact", "D2:1"]]},
            "session_1_observation": {
                "A": [["second", "D1:4"]],
                "B": [["first", "D1:2"], ["both", ["D1:5", "D1:6"]]],
            },
        },
        "qa": [
            {"question": "q", "answer": 2022, "evidence": ["D8:6; D9:17"], "category": 2},
            {"question": "adv", "adversarial_answer": "x", "evidence": [], "category": 5},
        ],
    }
    conv = locomo_conversation(raw)
    assert [o.text for o in conv.observations] == ["first", "second", "both", "later fact"]
    assert conv.observations[2].sources == ("D1:5", "D1:6")
    assert conv.observations[0].created_at is not None
    assert conv.observations[0].created_at.day == 8
    assert conv.qa[0].evidence == ("D8:6", "D9:17") and conv.qa[0].answer == "2022"
    assert conv.qa[1].answer == "x"


def test_survival_of_a_contradicted_memory(tmp_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(tmp_path / "c.db", embedder=embedder, consolidate="off") as mem:
        old = mem.add("The user lives in Paris.", user_id="u").memory
        new = mem.add("The user lives in Rome.", user_id="u").memory
        from memfold.engine.apply import plan
        from memfold.engine.changes import commit
        from memfold.model import Candidate

        decision = Decision(Action.DELETE, [old.id], confidence=0.9)
        commit(mem.ctx, plan(mem.ctx, new, [Candidate(old, 0.95)], decision))
        assert survival(mem, mem.get(old.id)) == "contradicts-linked"
        assert survival(mem, mem.get(new.id)) == "active"


def test_cache_roundtrip(tmp_path: Path, embedder: LocalEmbedder) -> None:
    cache = CachingEmbedder(embedder, tmp_path)
    first = cache.embed(["a b c", "d e f"])
    cache.save()
    again = CachingEmbedder(embedder, tmp_path)
    assert len(again) == 2 and again.missing(["a b c"]) == 0
    assert again.embed(["d e f"])[0] == pytest.approx(first[1])


def test_two_runs_saving_one_cache_each_write_a_file_of_their_own(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    # Two evaluations started side by side: each saves through its own temporary file,
    # so neither finds the other's half-written one; the last save wins whole.
    one, two = CachingEmbedder(embedder, tmp_path), CachingEmbedder(embedder, tmp_path)
    one.embed(["a b c"])
    two.embed(["d e f"])
    one.save()
    two.save()
    names = [p.name for p in tmp_path.iterdir()]
    assert len(names) == 1 and ".tmp" not in names[0]
    assert CachingEmbedder(embedder, tmp_path).missing(["d e f"]) == 0


def test_results_json_is_serializable(tmp_path: Path) -> None:
    from memfold.evaluation.metrics import pair_metrics

    json.dumps(pair_metrics([]))


def test_scenario_runner_reads_outcomes_from_the_store(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    from memfold.evaluation.run_scenarios import run_scenarios

    rows = [
        {
            "id": "d1",
            "kind": "distinct",
            "existing": ["Fatima uses Neovim on her work laptop."],
            "new": "Fatima uses Neovim on her personal laptop.",
        },
        {
            "id": "u1",
            "kind": "update",
            "existing": ["The user drinks coffee every morning."],
            "new": "The user no longer drinks coffee every morning.",
        },
        {
            "id": "c1",
            "kind": "contradiction",
            "existing": ["Gabriela is allergic to cats."],
            "new": "Gabriela is not allergic to cats.",
        },
        {
            "id": "p1",
            "kind": "duplicate",
            "existing": ["Rahul doesn't eat meat of any kind."],
            "new": "Rahul follows a vegetarian diet.",
        },
    ]
    folder = tmp_path / "data" / "scenarios"
    folder.mkdir(parents=True)
    (folder / "dev.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    env = _env(tmp_path, embedder)
    with env.progress:
        result = run_scenarios(env)
    by_kind = result["by_kind"]
    assert result["scenarios"] == 4 and result["distinct_violations"] == 0
    assert by_kind["contradiction"]["ok"] == 1 and by_kind["contradiction"]["linked"] == 1
    assert by_kind["update"]["ok"] == 1  # the retraction retired the old memory
    # a scenario that did not go as intended shows what the store held afterwards
    missed = [r for r in result["rows"] if not r["ok"]]
    assert missed and all(len(r["active_after"]) >= 1 for r in missed)
    assert all("active_after" not in r for r in result["rows"] if r["ok"])
    assert result["llm_calls"] == 0


def test_turn_retrieval_scores_each_mode_at_each_k(tmp_path: Path, embedder: LocalEmbedder) -> None:
    from memfold.evaluation.run_turns import run_turns

    turns = [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey kitten named Pixel."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice! I spent the weekend hiking."},
        {"speaker": "Ana", "dia_id": "D1:3", "text": "My sister moved to Lisbon last month."},
    ] + [
        {"speaker": "Ben", "dia_id": f"D2:{n}", "text": f"Filler remark number {n} about work."}
        for n in range(1, 30)
    ]
    raw = [
        {
            "sample_id": "conv-26",  # a dev conversation id
            "conversation": {
                "speaker_a": "Ana",
                "speaker_b": "Ben",
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": turns[:3],
                "session_2": turns[3:],
            },
            "observation": {},
            "qa": [
                {
                    "question": "What is the name of Ana's kitten?",
                    "answer": "Pixel",
                    "evidence": ["D1:1"],
                    "category": 4,
                },
                {
                    "question": "Where did Ana's sister move?",
                    "answer": "Lisbon",
                    "evidence": ["D1:3"],
                    "category": 4,
                },
                {"question": "unanswerable", "answer": "", "evidence": [], "category": 4},
            ],
        }
    ]
    folder = tmp_path / "data" / "locomo"
    folder.mkdir(parents=True)
    (folder / "locomo10.json").write_text(json.dumps(raw), encoding="utf-8")
    env = _env(tmp_path, embedder)
    with env.progress:
        result = run_turns(env)
    assert result["turns"] == 32 and result["questions"] == 2  # no evidence: not scored
    recall = result["recall"]
    assert set(recall) == {f"{m}@{k}" for m in ("hybrid", "vector", "keyword") for k in (5, 10, 20)}
    assert recall["hybrid@5"] == 1.0 and recall["vector@20"] == 1.0
    assert result["by_category"]["single-hop"]["hybrid@10"] == 1.0
    assert result["by_category"]["multi-hop"]["hybrid@10"] is None
    assert result["hybrid_below_best_at"] == []


def test_turn_summary_flags_hybrid_below_the_best_single_mode() -> None:
    from memfold.evaluation.run_turns import summarize

    row = {"category": 1, **{f"{m}@{k}": 0.5 for m in ("hybrid", "vector") for k in (5, 10, 20)}}
    row |= {"keyword@5": 0.9, "keyword@10": 0.5, "keyword@20": 0.1}
    assert summarize([row])["hybrid_below_best_at"] == [5]


def test_the_locomo_stores_never_tick(tmp_path: Path, embedder: LocalEmbedder) -> None:
    """LoCoMo's observations are dated 2022-2023: a tick would fade them into the cold
    tier, and the suite would measure the lifecycle, not consolidation on save."""
    from memfold.evaluation.run_locomo import _no_ticks

    env = _env(tmp_path, embedder)
    settings = _no_ticks(env)
    assert settings.lifecycle.tick_every_adds == 0
    assert env.settings.lifecycle.tick_every_adds == 5  # the run's own settings unchanged
    assert settings.consolidation == env.settings.consolidation
