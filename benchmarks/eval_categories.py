"""Categories on save: the offline rules against the LLM judge's category, which the
consolidation reply carries (no extra call).

    .venv/bin/python benchmarks/eval_categories.py [--set benchmarks/category_dev.jsonl]
        [--prompt FILE] [--baseline RESULTS.json] [--limit N] [--out FILE]

Each row of the set is a memory text, its category labelled by hand (episodic, semantic
or procedural) and an older memory about the same subject, so that the save is one the
judge is asked about (only saves with a candidate reach it). Each row is one
consolidation call to the LLM judge on ``MEMFOLD_LLM_*`` (the judge alone, no rules in
front), as a sync ``add`` makes it. Reported: accuracy per category of the rules
(``policy/categorize.py``), of the reply's category, and of what a memory ends up with
(the reply's category, else the rules'); how often the reply named none or an invalid
one; completion tokens per decision. ``--prompt`` replaces the packaged consolidation
prompt (an earlier version, from ``git show REV:src/memfold/judge/prompts/consolidation.md``);
``--baseline`` is such a run's results file: the extra completion tokens per decision
are this run's mean less the baseline's, on the rows both runs judged.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

from bench_common import machine, parser, table, write_json
from memfold.config import Settings
from memfold.judge import llm as llm_judge
from memfold.judge.base import SaveItem
from memfold.judge.prompts import Prompt, load_prompt, parse_prompt
from memfold.model import Candidate, Category, CategorySource, MemoryRecord, Scope, new_id
from memfold.policy.categorize import categorize

CATEGORIES = ("episodic", "semantic", "procedural")
DEFAULT_SET = Path(__file__).parent / "category_dev.jsonl"


def _record(text: str, scope: Scope) -> MemoryRecord:
    return MemoryRecord(
        id=new_id(),
        scope=scope,
        text=text,
        category=categorize(text),
        category_source=CategorySource.RULES,
    )


def _use_prompt(path: Path | None) -> Prompt:
    """The consolidation prompt the judge will use: the packaged one, or ``path``."""
    if path is None:
        return load_prompt("consolidation")
    prompt = parse_prompt("consolidation", path.read_text(encoding="utf-8"))

    def load(name: str) -> Prompt:
        return prompt if name == "consolidation" else load_prompt(name)

    mock.patch.object(llm_judge, "load_prompt", load).start()  # this process only
    return prompt


def _record_raw(seen: list[object]) -> None:
    """Keep each raw category of a reply (to tell a missing one from an invalid one)."""
    read = llm_judge.judged_category

    def spy(value: object) -> Category | None:
        seen.append(value)
        return read(value)

    mock.patch.object(llm_judge, "judged_category", spy).start()  # this process only


def _accuracy(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for cat in (*CATEGORIES, "all"):
        sub = [r for r in rows if cat == "all" or r["label"] == cat]
        right = sum(1 for r in sub if r[key] == r["label"])
        out[cat] = {"right": right, "n": len(sub), "share": round(right / max(1, len(sub)), 3)}
    return out


def _summary(rows: list[dict[str, Any]], prompt: Prompt, info: dict[str, Any]) -> dict[str, Any]:
    missing = sum(1 for r in rows if r["reply_raw"] is None)
    invalid = sum(1 for r in rows if r["reply_raw"] is not None and r["reply"] is None)
    return {
        "machine": info,
        "prompt": prompt.label,
        "rows": len(rows),
        "rules": _accuracy(rows, "rules"),
        "reply": _accuracy(rows, "reply"),
        "applied": _accuracy(rows, "applied"),
        "reply_missing": missing,
        "reply_invalid": invalid,
        "skips": sum(1 for r in rows if r["action"] == "SKIP"),
        "actions": dict(Counter(r["action"] for r in rows)),
        "mean_completion_tokens": round(
            sum(r["completion_tokens"] for r in rows) / max(1, len(rows)), 2
        ),
        "mean_prompt_tokens": round(sum(r["prompt_tokens"] for r in rows) / max(1, len(rows)), 1),
        "median_seconds": sorted(r["seconds"] for r in rows)[len(rows) // 2] if rows else None,
        "per_row": rows,
    }


def main() -> None:
    p = parser(__doc__ or "", "eval_categories.json")
    p.add_argument("--set", type=Path, default=DEFAULT_SET, help="JSONL: text, category, older")
    p.add_argument("--prompt", type=Path, default=None, help="consolidation prompt file")
    p.add_argument("--baseline", type=Path, default=None, help="results of an earlier run")
    p.add_argument("--limit", type=int, default=None, help="at most N rows")
    args = p.parse_args()
    labelled = [json.loads(line) for line in args.set.read_text().splitlines() if line.strip()]
    labelled = labelled[: args.limit]
    prompt = _use_prompt(args.prompt)
    raw_seen: list[object] = []
    _record_raw(raw_seen)
    settings = Settings()
    # The LLM judge alone, no rules in front: the category must be the model's.
    judge = llm_judge.LLMJudge(settings.llm)
    info = machine()
    rows: list[dict[str, Any]] = []
    for n, item in enumerate(labelled):
        scope = Scope(f"u{n}")
        new, older = _record(item["text"], scope), _record(item["older"], scope)
        before = len(raw_seen)
        started = time.perf_counter()
        (decision,) = judge.decide([SaveItem(new, [Candidate(older, 0.8)])])
        seconds = time.perf_counter() - started
        raw = raw_seen[before] if len(raw_seen) > before else None
        reply = None if decision.category is None else decision.category.value
        print(
            f"{n + 1}/{len(labelled)} {seconds:.1f} s {decision.action.value} {raw!r}", flush=True
        )
        rows.append(
            {
                "text": item["text"],
                "label": item["category"],
                "rules": new.category.value,
                "reply_raw": raw,
                "reply": reply,
                "applied": reply or new.category.value,
                "action": decision.action.value,
                "completion_tokens": decision.completion_tokens,
                "prompt_tokens": decision.prompt_tokens,
                "seconds": round(seconds, 2),
            }
        )
        # Written after every row: a run cut short still leaves its figures.
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(_summary(rows, prompt, info), indent=2, default=str))
    judge.close()
    result = _summary(rows, prompt, info)
    result["set"] = str(args.set)
    missing, invalid = result["reply_missing"], result["reply_invalid"]
    if args.baseline is not None:
        # Compared on the rows both runs judged (a baseline may be a --limit'ed run).
        base = json.loads(args.baseline.read_text())
        base_tokens = {r["text"]: r["completion_tokens"] for r in base["per_row"]}
        shared = [r for r in rows if r["text"] in base_tokens]
        now_mean = sum(r["completion_tokens"] for r in shared) / max(1, len(shared))
        base_mean = sum(base_tokens[r["text"]] for r in shared) / max(1, len(shared))
        result["baseline"] = {
            "prompt": base["prompt"],
            "rows": len(shared),
            "mean_completion_tokens": round(base_mean, 2),
            "mean_completion_tokens_now": round(now_mean, 2),
            "extra_completion_tokens": round(now_mean - base_mean, 2),
        }
    table(
        f"Category accuracy ({prompt.label}, {len(rows)} rows)",
        [
            [cat]
            + [
                f"{result[k][cat]['right']}/{result[k][cat]['n']}"
                for k in ("rules", "reply", "applied")
            ]
            for cat in (*CATEGORIES, "all")
        ],
        ["label", "rules", "LLM reply", "applied (reply, else rules)"],
    )
    summary = [
        ["reply named no category", str(missing)],
        ["reply named an invalid one", str(invalid)],
        ["SKIP decisions", str(result["skips"])],
        ["completion tokens per decision", str(result["mean_completion_tokens"])],
        ["median seconds per call", str(result["median_seconds"])],
    ]
    if "baseline" in result:
        extra = result["baseline"]["extra_completion_tokens"]
        summary.append([f"extra completion tokens vs {base['prompt']}", str(extra)])
    table("Replies", summary, ["measure", "value"])
    write_json(args.out, result)


if __name__ == "__main__":
    main()
