"""Peak memory of the local embedder on long texts, and its speed on short ones.

    .venv/bin/python benchmarks/bench_embed_memory.py [--budgets 1024,16384] [--landed SRC]

Every measurement runs in a fresh subprocess: its peak RSS (ru_maxrss) is the whole
process, interpreter, tokenizer, model and runs together. "model" is that peak after
loading the model and embedding one warm-up text, before the measured call.

- long: one embed() call of the ``--long`` (612) longest messages of the BEAM 100K dev
  chats 1-10 in bench-data (each cut at 256 tokens by the model), or synthetic turns of
  200-400 words where bench-data is absent. Peak RSS and seconds.
- short: ``--short`` (2,000) MSC persona sentences (synthetic ones without
  bench-data), ~10-20 tokens each, embedded in one call: texts per second.
- turns: the first ``--turns`` (1,000) LoCoMo dev conversation turns (synthetic ones
  of 8-80 words without bench-data): texts per second.

Each ``--budgets`` entry is an ``embed.max_batch_tokens``; 16384 (64 x 256) gives the
batches of the code before the bound (64 texts whatever their length). ``--landed SRC``
adds a run of another checkout's code (``PYTHONPATH=SRC``, its own defaults), e.g. the
landed commit from ``git archive HEAD src | tar -x -C /tmp/landed``. The configurations
alternate, ``--rounds`` times, so a shared machine's load hits them alike; speeds are
medians over rounds x ``--repeat`` calls.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# bench_common (rich, numpy) is imported by the parent only: a child's peak RSS is the
# embedder's.
TARGET_MB = 600.0
_VOCABULARY = (
    "the a we you they it was is to of and in on for with about after before my your "
    "trip budget project garden kitchen train morning weekend sister doctor meeting "
    "python database recipe marathon apartment contract invoice schedule library "
    "concert holiday painting bicycle museum hospital interview mortgage vacation "
    "deadline presentation neighbour birthday grandmother restaurant tomorrow yesterday "
    "discussed planned finished started moved bought recommended remembered explained"
)


def synthetic(n: int, low: int, high: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    vocabulary = _VOCABULARY.split()
    out = []
    for i in range(n):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(low, high))]
        out.append(f"Turn {i}: " + " ".join(words) + ".")
    return out


def long_turns(data: Path, n: int) -> tuple[list[str], str]:
    chats = [data / "beam" / "100K" / str(i) / "chat.json" for i in range(1, 11)]
    if not all(path.exists() for path in chats):
        return synthetic(n, 200, 400, seed=1), f"{n} synthetic turns of 200-400 words"
    texts: list[str] = []
    for path in chats:
        for batch in json.loads(path.read_text(encoding="utf-8")):
            for turn in batch["turns"]:
                texts.extend(str(message["content"]) for message in turn)
    texts.sort(key=len, reverse=True)
    return texts[:n], f"the {n} longest of {len(texts)} BEAM 100K dev messages (chats 1-10)"


def locomo_turns(data: Path, n: int) -> tuple[list[str], str]:
    path = data / "locomo" / "locomo10.json"
    if not path.exists():
        return synthetic(n, 8, 80, seed=2), f"{n} synthetic turns of 8-80 words"
    dev = {"conv-26", "conv-30", "conv-41", "conv-42", "conv-43"}
    texts: list[str] = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        if sample["sample_id"] in dev:
            for key, session in sample["conversation"].items():
                if key.startswith("session_") and isinstance(session, list):
                    texts.extend(str(turn["text"]) for turn in session)
    return texts[:n], f"the first {n} LoCoMo dev turns"


def short_texts(data: Path, n: int) -> tuple[list[str], str]:
    from bench_common import persona_sentences

    if not (data / "locomo" / "msc_personas_all.json").exists():
        return synthetic(n, 6, 12, seed=3), f"{n} synthetic sentences of 6-12 words"
    return persona_sentences(data, n), f"{n} MSC persona sentences"


# --- the child: one fresh process a measurement -------------------------------------


def peak_mb() -> float:
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return kib / (1 << 20) if sys.platform == "darwin" else kib / 1024


def child(spec: dict[str, Any]) -> dict[str, Any]:
    from memfold.embed.local import LocalEmbedder

    texts = json.loads(Path(spec["texts"]).read_text(encoding="utf-8"))
    kwargs: dict[str, Any] = {"threads": spec["threads"]}
    if spec["budget"] is not None:
        if "max_batch_tokens" not in inspect.signature(LocalEmbedder).parameters:
            raise SystemExit("this code has no max_batch_tokens: pass it as --landed")
        kwargs["max_batch_tokens"] = spec["budget"]
    embedder = LocalEmbedder(**kwargs)
    embedder.embed(["warm-up text"])
    model = peak_mb()
    seconds = []
    for _ in range(spec["repeat"]):
        began = time.perf_counter()
        embedder.embed(texts)
        seconds.append(time.perf_counter() - began)
    return {"model_mb": model, "peak_mb": peak_mb(), "seconds": seconds, "n": len(texts)}


def measure(
    label: str, budget: int | None, src: str | None, texts: Path, threads: int, repeat: int
) -> dict[str, Any]:
    spec = {"texts": str(texts), "budget": budget, "threads": threads, "repeat": repeat}
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    done = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(spec)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{label}: the child failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# --- the parent -----------------------------------------------------------------------


def main() -> None:
    from bench_common import machine, parser, write_json

    p = parser(__doc__.split("\n\n")[0] if __doc__ else "", "bench_embed_memory.json")
    p.add_argument("--budgets", default="1024,16384", help="max_batch_tokens values")
    p.add_argument("--landed", default=None, help="src folder of code to compare (PYTHONPATH)")
    p.add_argument("--threads", type=int, default=2, help="embed.threads")
    p.add_argument("--long", type=int, default=612)
    p.add_argument("--short", type=int, default=2000)
    p.add_argument("--turns", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3, help="timed short/turns calls a child")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child is not None:
        print(json.dumps(child(json.loads(args.child))))
        return
    configs: list[tuple[str, int | None, str | None]] = [
        (f"max_batch_tokens {b}", int(b), None) for b in args.budgets.split(",") if b
    ]
    if args.landed:
        configs.append((f"landed ({args.landed})", None, args.landed))
    sets = {
        "long": long_turns(args.data, args.long),
        "short": short_texts(args.data, args.short),
        "turns": locomo_turns(args.data, args.turns),
    }
    out: dict[str, Any] = {
        "machine": machine(),
        "method": __doc__,
        "threads": args.threads,
        "texts": {kind: described for kind, (_, described) in sets.items()},
        "runs": {label: {kind: [] for kind in sets} for label, _, _ in configs},
    }
    with tempfile.TemporaryDirectory(prefix="memfold-embed-mem-") as tmp:
        files = {}
        for kind, (texts, _) in sets.items():
            files[kind] = Path(tmp) / f"{kind}.json"
            files[kind].write_text(json.dumps(texts), encoding="utf-8")
        for round_no in range(args.rounds):
            for label, budget, src in configs:
                for kind in sets:
                    repeat = 1 if kind == "long" else args.repeat
                    print(f"round {round_no + 1}: {label}, {kind}", file=sys.stderr)
                    run = measure(label, budget, src, files[kind], args.threads, repeat)
                    out["runs"][label][kind].append(run)
    out["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    out["summary"] = {label: summarize(runs) for label, runs in out["runs"].items()}
    write_json(args.out, out)
    report(out)


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    def rate(kind: str) -> float:
        n = float(runs[kind][0]["n"])
        return statistics.median([n / float(s) for run in runs[kind] for s in run["seconds"]])

    long = runs["long"]
    return {
        "model_mb": max(run["model_mb"] for run in long),
        "long_peak_mb": max(run["peak_mb"] for run in long),
        "long_s": statistics.median(run["seconds"][0] for run in long),
        "short_per_s": rate("short"),
        "turns_per_s": rate("turns"),
    }


def report(out: dict[str, Any]) -> None:
    from bench_common import met, table

    rows = [
        [
            label,
            f"{s['model_mb']:.0f} MB",
            f"{s['long_peak_mb']:.0f} MB",
            met(s["long_peak_mb"] <= TARGET_MB),
            f"{s['long_s']:.1f} s",
            f"{s['short_per_s']:.0f}/s",
            f"{s['turns_per_s']:.0f}/s",
        ]
        for label, s in out["summary"].items()
    ]
    texts = out["texts"]
    title = (
        f"local embedder, threads {out['threads']}: long = {texts['long']}; short = "
        f"{texts['short']}; turns = {texts['turns']} (load at start "
        f"{out['machine']['loadavg_at_start']}, at end {out['load_at_end']})"
    )
    header = ["code", "model", "long: peak RSS", f"<= {TARGET_MB:.0f} MB", "long: time"]
    table(title, rows, [*header, "short: texts/s", "turns: texts/s"])


if __name__ == "__main__":
    main()
