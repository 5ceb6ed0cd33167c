"""The result check on a cluster summary: what it lets through and what it refuses."""

from __future__ import annotations

import pytest

from helpers.seed_texts import MARCH_ACTIVITIES
from memfold.config import Settings, StoreSettings
from memfold.policy.result_check import ResultLimits, Source
from memfold.policy.summary_check import check_summary, checked_view, concatenation

SEED = MARCH_ACTIVITIES
PARAPHRASE = (
    "In March 2024, User was very active outdoors: hiked at Mount Rainier (Mar 12), "
    "kayaked at Lake Washington (Mar 15), ran a 5K in Fremont (Mar 20), rock climbed at "
    "Stone Gardens (Mar 25), and joined a cycling club (Mar 28)."
)
SOURCES = [Source(f"m{n}", text) for n, text in enumerate(SEED)]
LIMITS = ResultLimits.from_settings(Settings())


def test_the_concatenation_and_the_seeds_paraphrase_pass() -> None:
    assert concatenation(SEED) == "Summary: " + " | ".join(SEED)
    assert check_summary(concatenation(SEED), SOURCES, LIMITS) == []
    assert check_summary(PARAPHRASE, SOURCES, LIMITS) == []


@pytest.mark.parametrize(
    ("summary", "problem"),
    [
        (PARAPHRASE.replace(" (Mar 20)", ""), "drops date '03-20'"),
        (PARAPHRASE.replace("Mar 28", "Mar 29"), "states date '03-29'"),
        (PARAPHRASE.replace("Stone Gardens", "Vertical World"), "drops the name 'stone gardens'"),
        (PARAPHRASE.replace("Fremont", "Fremont and Ballard"), "names 'ballard'"),
        (PARAPHRASE.replace("ran a 5K", "did not run a 5K"), "negates 'run'"),
        ("", "empty"),
    ],
)
def test_a_summary_that_drops_or_invents_a_fact_is_refused(summary: str, problem: str) -> None:
    assert any(problem in p for p in check_summary(summary, SOURCES, LIMITS))


def test_the_checked_view_reads_short_months_and_light_verbs_only() -> None:
    assert checked_view("Summary: went hiking on Mar 12") == "hiking on March 12"
    assert checked_view("went to Lake Washington in Sept. 2023") == (
        "went to Lake Washington in September 2023"
    )
    assert checked_view("a mar 12 scratch") == "a mar 12 scratch"
    assert checked_view("Mar the finish") == "Mar the finish"


def test_a_concatenation_longer_than_the_store_allows_is_refused() -> None:
    small = ResultLimits.from_parts(StoreSettings(max_text_chars=200))
    problems = check_summary(concatenation(SEED), SOURCES, small)
    assert any("the store allows 200" in p for p in problems)
    assert concatenation([]) is None
    assert concatenation(["a b", " A  B ", "c"]) == "Summary: a b | c"


def test_the_concatenation_of_texts_ending_in_numbers_passes() -> None:
    # "14 | User's bib" is the number 14 and a new sentence, not a "14 | User" value.
    texts = [
        "User's locker at the climbing gym is number 14",
        "User's bib in the city 5K was number 412",
        "User's cycling club membership number is 2207.",
    ]
    sources = [Source(str(n), t) for n, t in enumerate(texts)]
    joined = concatenation(texts)
    assert joined is not None and check_summary(joined, sources, LIMITS) == []
    assert check_summary(f"{concatenation(texts[:2])} | locker 15", sources[:2], LIMITS)
