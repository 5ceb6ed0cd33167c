"""Read what the offline extractor keeps: a fixed-seed sample of its memories from LoCoMo
dev conversations, each printed under the message it came from, for a person to judge;
and the same for a file of hand-written chat messages.

    .venv/bin/python benchmarks/eval_extract_sample.py [--skip-convs K] [--max-convs 2]
        [--n 100] [--seed 30] [--fresh benchmarks/extract_fresh.jsonl] [--out FILE]

LoCoMo dev conversations only (``--max-convs`` of them after the first ``--skip-convs``).
Each session's turns go through ``extract`` with the rule judge, as in
``eval_extraction.py --judge rules``; ``--n`` of the extracts (every area) are drawn
with ``random.Random(seed)`` and printed numbered, the memory as stored ("User ...")
under the speaker's message. With ``--fresh``, each line of the JSONL file (``id``,
``role``, ``content``, ``facts``: a chat turn and the facts its writer saw in it) is
extracted as a one-message conversation and printed with its extracts and the facts
written beside it, for counting what was missed. Nothing is scored here: a person reads.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from bench_common import console, machine, parser, write_json
from eval_extraction import session_messages
from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.conversation.extract import extract
from memfold.evaluation.conversations import load_locomo
from memfold.judge.rules import RuleJudge
from memfold.model import Scope
from memfold.policy.messages import NewMessage, Role


def _locomo(mem: Memory, data: Path, skip: int, max_convs: int) -> list[dict[str, Any]]:
    """Every rule extract of ``max_convs`` dev conversations after the first ``skip``,
    with its message."""
    judge = RuleJudge()
    rows: list[dict[str, Any]] = []
    for conv in load_locomo(data, "dev")[skip:][:max_convs]:
        for session in session_messages(conv, None):
            said = {m.id: m for m in session}
            for found in extract(mem.ctx, judge, session, Scope(user_id=conv.sample_id)):
                message = said[found.sources[0]]
                rows.append(
                    {
                        "conv": conv.sample_id,
                        "source": found.sources[0],
                        "speaker": str(message.metadata.get("name", "")),
                        "message": message.content,
                        "memory": found.text,
                        "area": found.area.value,
                    }
                )
    return rows


def _fresh(mem: Memory, path: Path) -> list[dict[str, Any]]:
    judge = RuleJudge()
    rows: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        message = NewMessage(Role(item.get("role", "user")), item["content"])
        found = extract(mem.ctx, judge, [message], Scope(user_id="fresh"))
        rows.append({**item, "memories": [f.text for f in found]})
    return rows


def main() -> None:
    p = parser(__doc__ or "", "eval_extract_sample.json")
    p.add_argument("--skip-convs", type=int, default=0, help="dev conversations to leave out first")
    p.add_argument("--max-convs", type=int, default=2, help="dev conversations to read")
    p.add_argument("--n", type=int, default=100, help="extracts to draw")
    p.add_argument("--seed", type=int, default=30)
    p.add_argument("--fresh", type=Path, default=None, help="a JSONL file of chat turns")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="memfold-sample-") as tmp:
        mem = Memory(Path(tmp) / "m.db", embedder=LocalEmbedder(), consolidate="off")
        try:
            rows = _locomo(mem, args.data, args.skip_convs, args.max_convs)
            fresh = _fresh(mem, args.fresh) if args.fresh else []
        finally:
            mem.close()
    drawn = sorted(random.Random(args.seed).sample(range(len(rows)), min(args.n, len(rows))))
    sample = [rows[i] for i in drawn]
    console.print(f"{len(rows)} extracts; {len(sample)} drawn with seed {args.seed}")
    for n, row in enumerate(sample, 1):
        console.print(f"[{n}] {row['conv']} {row['source']} {row['speaker']}: {row['message']}")
        console.print(f"    -> {row['memory']}  ({row['area']})", markup=False)
    if fresh:
        kept = sum(len(r["memories"]) for r in fresh)
        console.print(f"\nfresh set: {len(fresh)} messages, {kept} memories")
        for row in fresh:
            console.print(f"[{row['id']}] {row['role']}: {row['content']}", markup=False)
            for text in row["memories"]:
                console.print(f"    -> {text}", markup=False)
            for fact in row.get("facts", []):
                console.print(f"    want: {fact}", markup=False)
    write_json(
        args.out,
        {
            "machine": machine(),
            "seed": args.seed,
            "extracts": len(rows),
            "sample": sample,
            "fresh": fresh,
        },
    )


if __name__ == "__main__":
    main()
