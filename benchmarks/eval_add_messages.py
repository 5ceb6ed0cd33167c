"""The mem0 flow end to end on LoCoMo: ``add(messages=..., infer=True)`` one session at
a time, each extract saved and consolidated as it comes (issue 29, item 4).

    .venv/bin/python benchmarks/eval_add_messages.py [--skip-convs K] [--max-convs N]
        [--max-sessions S] [--out FILE]

LoCoMo dev conversations only. Each session's dialog turns become messages (role user,
the speaker as the message's ``name``, as eval_extraction.py builds them) and go to
``Memory.add(messages=..., infer=True, user_id=<conversation>)`` on a store with
``consolidate="sync"``: extraction, then every extract saved through the judge the
settings make (the offline rules without ``MEMFOLD_LLM_*``; with them the default judge,
rules first and the LLM for the rest, as a user gets it). A second store holds the raw
turns (``infer=False`` stores each message as it is; ``consolidate="off"``), both with
the default embedder.

Reported: what consolidation did with the extracts (the decisions of their saves:
added, folded into another memory by MERGE / REPLACE / UPDATE, superseding one by
DELETE, skipped), the active memories left per message, evidence recall@10 (hybrid,
as ``memfold eval --suite turns``) over the questions whose evidence lies in the
sessions given, and LLM calls, tokens and seconds per message (the store's usage; the
one-token requests that score a decision's action are counted apart, by task).
An extract may cite several messages, so recall over 10 extracted memories can cover
more messages than 10 raw turns do; "its first 10 messages" scores the first 10
distinct messages the hits cite, in hit order, the raw turns' budget.
A memory's sources are the ids ``add`` gave its messages, mapped back to LoCoMo's
dialog ids for scoring.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bench_common import machine, parser, table, write_json
from eval_extraction import session_messages
from memfold import AddResult, Memory
from memfold.embed.local import LocalEmbedder
from memfold.evaluation.conversations import LocomoConversation, load_locomo
from memfold.evaluation.metrics import evidence_recall, mean
from memfold.evaluation.run_locomo import CATEGORIES, CATEGORY_NAMES
from memfold.llm.usage import is_scoring
from memfold.policy.messages import Message

K = 10
FOLDS = ("MERGE", "REPLACE", "UPDATE")
Row = tuple[int, float | None, float | None]


def _as_input(session: list[Message]) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": m.content, "name": str(m.metadata.get("name", ""))}
        for m in session
    ]


def first_messages(cited: Iterable[Sequence[str]], budget: int) -> list[str]:
    """The first ``budget`` distinct message ids the hits cite, in hit order: the same
    number of messages a raw-turn search of k = ``budget`` returns, however many
    messages one extracted memory cites."""
    out: list[str] = []
    for sources in cited:
        for source in sources:
            if source not in out:
                out.append(source)
    return out[:budget]


def _recall(
    mem: Memory, conv: LocomoConversation, dia_of: dict[str, str], asked: set[str] | None
) -> list[Row]:
    """(category, evidence recall of the K hits, of their first K cited messages) per
    question whose evidence was ingested."""
    rows = []
    for qa in conv.qa:
        if qa.category not in CATEGORIES or not qa.evidence:
            continue
        if asked is not None and not set(qa.evidence) <= asked:
            continue
        hits = mem.search(qa.question, user_id=conv.sample_id, k=K, mode="hybrid")
        cited = [[dia_of.get(s, s) for s in h.memory.sources] for h in hits]
        by_hits = evidence_recall(qa.evidence, cited)
        by_messages = evidence_recall(qa.evidence, [first_messages(cited, K)])
        rows.append((qa.category, by_hits, by_messages))
    return rows


def action_of(added: AddResult) -> str:
    """The action a saved extract's consolidation applied (``NOTHING_SIMILAR``: stored
    without a decision, no memory was near enough to compare)."""
    decision = added.decision
    return "NOTHING_SIMILAR" if decision is None else str(decision.action.value).upper()


def _ingest(
    mem: Memory, sessions: list[list[Message]], user: str, infer: bool, actions: Counter[str]
) -> tuple[dict[str, str], float]:
    """Every session through ``add(messages=...)``; the message ids ``add`` gave, mapped
    to the dialog ids, and the seconds taken."""
    dia_of: dict[str, str] = {}
    started = time.perf_counter()
    for session in sessions:
        out = mem.add(messages=_as_input(session), infer=infer, user_id=user)
        pairs = zip(out.messages, session, strict=True)
        dia_of.update({stored.id: given.id for stored, given in pairs})
        if infer:
            actions.update(action_of(a) for a in out.added)
    return dia_of, time.perf_counter() - started


def main() -> None:
    p = parser(__doc__ or "", "eval_add_messages.json")
    p.add_argument("--skip-convs", type=int, default=0, help="dev conversations to leave out first")
    p.add_argument("--max-convs", type=int, default=None)
    p.add_argument("--max-sessions", type=int, default=None, help="per conversation")
    args = p.parse_args()
    convs = load_locomo(args.data, "dev")[args.skip_convs :][: args.max_convs]
    embedder = LocalEmbedder()
    actions: Counter[str] = Counter()
    by_task: Counter[str] = Counter()
    raw_rows: list[Row] = []
    inf_rows: list[Row] = []
    n_messages = active = cited = calls = prompt_tokens = completion_tokens = 0
    seconds = 0.0
    judge = ""
    with tempfile.TemporaryDirectory(prefix="memfold-add-messages-") as tmp:
        for conv in convs:
            sessions = session_messages(conv, args.max_sessions)
            n_messages += sum(len(s) for s in sessions)
            asked = None if args.max_sessions is None else {m.id for s in sessions for m in s}
            # consolidate="off": the raw turns stay as said, and no worker of this store
            # calls the LLM beside the measured one (a second client cuts its streams)
            raw = Memory(
                Path(tmp) / f"{conv.sample_id}-raw.db", embedder=embedder, consolidate="off"
            )
            mem = Memory(Path(tmp) / f"{conv.sample_id}.db", embedder=embedder, consolidate="sync")
            try:
                judge = type(mem.judge).__name__
                raw_dia, _ = _ingest(raw, sessions, conv.sample_id, False, Counter())
                dia_of, took = _ingest(mem, sessions, conv.sample_id, True, actions)
                seconds += took
                kept = mem.list(user_id=conv.sample_id, limit=None)
                active += len(kept)
                cited += sum(len(m.sources) for m in kept)
                for row in mem.usage():
                    by_task[str(row.get("task"))] += int(row.get("calls", 0))
                    if not is_scoring(str(row.get("task"))):  # one-token scoring apart
                        calls += int(row.get("calls", 0))
                    prompt_tokens += int(row.get("prompt_tokens", 0))
                    completion_tokens += int(row.get("completion_tokens", 0))
                raw_rows += _recall(raw, conv, raw_dia, asked)
                inf_rows += _recall(mem, conv, dia_of, asked)
            finally:
                raw.close()
                mem.close()

    def by_category(rows: list[Row], which: int) -> dict[str, float | None]:
        out = {"all": mean(r[which] for r in rows)}
        out.update(
            {CATEGORY_NAMES[c]: mean(r[which] for r in rows if r[0] == c) for c in CATEGORIES}
        )
        return out

    def per_message(value: float) -> float | None:
        return value / n_messages if n_messages else None

    extracts = sum(actions.values())
    result = {
        "machine": machine(),
        "judge": judge,
        "conversations": [c.sample_id for c in convs],
        "max_sessions": args.max_sessions,
        "messages": n_messages,
        "questions": len(raw_rows),
        "extracts_saved": extracts,
        "actions": dict(actions),
        "folded": sum(actions[a] for a in FOLDS),
        "superseded_by_delete": actions["DELETE"],
        "active_memories_per_message": per_message(active),
        "sources_per_active_memory": cited / active if active else None,
        "recall_at_10": {
            "raw_turns": by_category(raw_rows, 1),
            "add_infer": by_category(inf_rows, 1),
        },
        "recall_at_10_messages": {"add_infer": by_category(inf_rows, 2)},
        "llm_calls_per_message": per_message(calls),
        "llm_calls_by_task": dict(by_task),
        "prompt_tokens_per_message": per_message(prompt_tokens),
        "completion_tokens_per_message": per_message(completion_tokens),
        "seconds_per_message": per_message(seconds),
    }
    raw_r, inf_r = by_category(raw_rows, 1), by_category(inf_rows, 1)
    inf_m = by_category(inf_rows, 2)
    table(
        f"evidence recall@10 (hybrid), LoCoMo dev, add(messages, infer=True), judge {judge}",
        [[k, _fmt(raw_r[k]), _fmt(inf_r[k]), _fmt(inf_m[k])] for k in raw_r],
        ["questions", "raw turns (infer=False)", "add(infer=True)", "its first 10 messages"],
    )
    keys = ["messages", "questions", "extracts_saved", "actions", "folded"]
    keys += ["superseded_by_delete", "active_memories_per_message", "sources_per_active_memory"]
    keys += ["llm_calls_per_message", "llm_calls_by_task"]
    keys += ["prompt_tokens_per_message", "completion_tokens_per_message", "seconds_per_message"]
    table("what consolidation did, and the cost", [[k, str(result[k])] for k in keys], ["", ""])
    write_json(args.out, result)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    main()
