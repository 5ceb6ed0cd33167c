"""Texts that make consolidation really happen: facts and their restatements,
near-duplicates, enrichments, swapped numbers, negations and changes.

Every fact comes from a template with slots (names, places, numbers), so a variant
can restate, enrich, negate or change the same fact; the rule judge then has
duplicates to fold, contradictions to link and changes to supersede.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

NAMES = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jia"]
CITIES = ["Lyon", "Porto", "Leeds", "Graz", "Turin", "Malmo", "Ghent", "Cork", "Brno", "Split"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Soylent"]
JOBS = ["engineer", "designer", "nurse", "teacher", "pilot", "chemist", "baker", "lawyer"]
LANGS = ["Rust", "Go", "Zig", "Haskell", "OCaml", "Elixir", "Kotlin", "Swift"]
DRINKS = ["green tea", "black coffee", "oat latte", "mint tea", "espresso", "cocoa"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
COLORS = ["red", "blue", "grey", "white", "black", "green"]
CARS = ["Volvo", "Skoda", "Fiat", "Toyota", "Renault", "Kia"]
EXTRAS = [
    " and enjoys it a lot",
    " most weeks",
    " according to the notes from last spring",
    " which suits the family well",
    " and talks about it often",
]


@dataclass(frozen=True, slots=True)
class Template:
    """One kind of fact: its plain form, a paraphrase, a negation and a change."""

    base: str
    para: str
    neg: str
    change: str


TEMPLATES = [
    Template(
        "{n} lives in {city} with {k} cats.",
        "{n} has {k} cats and lives in {city}.",
        "{n} does not live in {city}.",
        "{n} moved to {city2} and no longer lives in {city}.",
    ),
    Template(
        "{n} works at {company} as a {job} since {year}.",
        "{n} has been a {job} at {company} since {year}.",
        "{n} does not work at {company}.",
        "{n} now works at {company2} as a {job}.",
    ),
    Template(
        "{n} prefers {lang} for systems work.",
        "For systems work {n} prefers {lang}.",
        "{n} does not like {lang} for systems work.",
        "{n} now prefers {lang2} for systems work.",
    ),
    Template(
        "{n} runs {km} km every {day}.",
        "Every {day} {n} runs {km} km.",
        "{n} never runs on {day}.",
        "{n} no longer runs {km} km every {day}.",
    ),
    Template(
        "{n}'s favourite drink is {drink}.",
        "The favourite drink of {n} is {drink}.",
        "{n} does not like {drink}.",
        "{n}'s favourite drink is now {drink2}.",
    ),
    Template(
        "{n} drives a {color} {car} to work.",
        "To work {n} drives a {color} {car}.",
        "{n} does not drive a {car}.",
        "{n} now drives a {color2} {car} to work.",
    ),
]

VARIANTS = ("exact", "restated", "enriched", "paraphrase", "number", "negation", "change")


def _slots(rng: random.Random, name: str) -> dict[str, str]:
    def two(pool: list[str]) -> tuple[str, str]:
        a, b = rng.sample(pool, 2)
        return a, b

    city, city2 = two(CITIES)
    company, company2 = two(COMPANIES)
    lang, lang2 = two(LANGS)
    drink, drink2 = two(DRINKS)
    color, color2 = two(COLORS)
    return {
        "n": name,
        "city": city,
        "city2": city2,
        "company": company,
        "company2": company2,
        "lang": lang,
        "lang2": lang2,
        "drink": drink,
        "drink2": drink2,
        "color": color,
        "color2": color2,
        "k": str(rng.randint(2, 6)),
        "year": str(rng.randint(2004, 2022)),
        "km": str(rng.randint(3, 15)),
        "day": rng.choice(DAYS),
        "job": rng.choice(JOBS),
        "car": rng.choice(CARS),
    }


@dataclass(slots=True)
class Fact:
    template: Template
    slots: dict[str, str]

    @property
    def text(self) -> str:
        return self.template.base.format(**self.slots)

    def variant(self, kind: str, rng: random.Random) -> str:
        t, s = self.template, self.slots
        if kind == "exact":
            return self.text
        if kind == "restated":
            return self.text.rstrip(".")
        if kind == "enriched":
            return self.text.rstrip(".") + rng.choice(EXTRAS) + "."
        if kind == "paraphrase":
            return t.para.format(**s)
        if kind == "number":
            swapped = dict(s, k=str(int(s["k"]) + 1), km=str(int(s["km"]) + 2))
            swapped["year"] = str(int(s["year"]) + 1)
            return t.base.format(**swapped)
        if kind == "negation":
            return t.neg.format(**s)
        if kind == "change":
            return t.change.format(**s)
        raise ValueError(f"unknown variant {kind!r}")


def facts_for(name: str, rng: random.Random) -> list[Fact]:
    return [Fact(t, _slots(rng, name)) for t in TEMPLATES]


def stream(rng: random.Random, names: list[str], base_share: float = 0.25) -> Iterator[str]:
    """An endless stream of texts: new facts about ``names`` and, mostly, variants of
    facts already told (restatements, enrichments, swapped numbers, negations, changes)."""
    pending = [f for name in names for f in facts_for(name, rng)]
    rng.shuffle(pending)
    told: list[Fact] = []
    while True:
        if pending and (not told or rng.random() < base_share):
            fact = pending.pop()
            told.append(fact)
            yield fact.text
            continue
        if not told:  # every fact told once: start a new round of facts
            pending = [f for name in names for f in facts_for(name, rng)]
            continue
        yield rng.choice(told).variant(rng.choice(VARIANTS), rng)
