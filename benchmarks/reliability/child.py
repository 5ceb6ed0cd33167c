"""A writer process for the crash and concurrency sections.

    python -m reliability.child DB ACK --mode sync --user u --seed 3 [--count N]

Adds memories (rule judge, texts from ``reliability.corpus.stream``) and appends each
memory id to ACK only after ``add()`` returned: what is in ACK was acknowledged. The
first line of ACK is "ready" once the store is open. With ``--count`` it stops after N
adds, flushes, and writes a JSON summary (errors raised) to ACK + ".json"; without it
it adds until it is killed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import traceback

from reliability.corpus import NAMES, stream


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("db")
    p.add_argument("ack")
    p.add_argument("--mode", default="sync")
    p.add_argument("--user", default="u")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--names", type=int, default=3)
    p.add_argument("--count", type=int, default=None)
    args = p.parse_args()

    from memfold import Memory

    fd = os.open(args.ack, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    texts = stream(random.Random(args.seed), NAMES[: args.names])
    errors: list[str] = []
    adds = 0
    with Memory(args.db, consolidate=args.mode) as mem:
        os.write(fd, b"ready\n")
        while args.count is None or adds < args.count:
            text = next(texts)
            adds += 1
            try:
                result = mem.add(text, user_id=args.user, sources=[f"{args.seed}:{adds}"])
            except Exception as exc:
                errors.append(f"add: {type(exc).__name__}: {exc}")
                if len(errors) <= 3:
                    traceback.print_exc()
                continue
            os.write(fd, (result.memory.id + "\n").encode())
        try:
            mem.flush()
        except Exception as exc:
            errors.append(f"flush: {type(exc).__name__}: {exc}")
            traceback.print_exc()
    os.close(fd)
    summary = {"adds": adds, "errors": errors}
    with open(args.ack + ".json", "w", encoding="utf-8") as out:
        json.dump(summary, out)


if __name__ == "__main__":
    main()
