"""Names told by their initials: "NYC" / "New York City", "U.S." / "United States",
"UCT" / "the University of Cape Town", "CI" / "continuous integration", and numeronyms
("k8s" / "Kubernetes"). Pure."""

from __future__ import annotations

from functools import lru_cache

from memfold.reading.facts import Facts

# Words an initialism leaves out ("University of Cape Town": UCT).
_SKIPPED = frozenset(("of", "the", "and", "for", "&", "-", "de", "du"))
_LONGEST = 6  # letters of an initialism read as one


def abbreviates(x: str, y: str) -> bool:
    """One name is the other's initials (with dots or without) or numeronym: "NYC" / "New
    York City", "U.S." / "United States", "k8s" / "Kubernetes" (either way round)."""
    for short, long in ((x, y), (y, x)):
        words = long.split()
        token = short.split()[0].replace(".", "") if short.split() else ""
        if len(words) > 1 and token == "".join(w[0] for w in words):
            return True
        numeronym = len(long) > 3 and token == f"{long[0]}{len(long) - 2}{long[-1]}"
        if numeronym or (
            len(words) == 1 and token and token == long[:1] + str(len(long) - 2) + long[-1:]
        ):
            return True
    return False


def told_by_initials(a: Facts, b: Facts) -> frozenset[str]:
    """The words and names of ``a`` that ``b`` tells by initials, or that are initials of
    words ``b`` spells out: "the University of Cape Town" / "UCT" covers "university",
    "cape town" and "uct"."""
    out: set[str] = set()
    for name in a.names:
        if _initialism(name) and _runs(b.lows, name):
            out.add(name)
    for short in (n for n in b.names if _initialism(n)):
        for run in _runs(a.lows, short):
            words = {a.lows[i] for i in run}
            out |= words | {a.lemmas[i] for i in run}
            out |= {name for name in a.names if set(name.split()) <= words}
    return frozenset(out)


def _initialism(name: str) -> bool:
    token = name.replace(".", "")
    return " " not in name and 2 <= len(token) <= _LONGEST and token.isalpha()


@lru_cache(maxsize=8192)
def _runs(lows: tuple[str, ...], short: str) -> tuple[tuple[int, ...], ...]:
    """The runs of ``lows`` whose initials spell ``short`` (function words skipped)."""
    letters = short.replace(".", "")
    found = []
    for start, first in enumerate(lows):
        if first[:1] != letters[:1] or first in _SKIPPED:
            continue
        run: list[int] = []
        for i in range(start, len(lows)):
            if lows[i] in _SKIPPED:
                continue
            run.append(i)
            initials = "".join(lows[j][0] for j in run)
            if initials == letters and len(run) > 1:
                found.append(tuple(run))
                break
            if not letters.startswith(initials):
                break
    return tuple(found)
