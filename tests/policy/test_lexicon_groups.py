"""The phrase rewrites run in groups, a group skipped when none of its patterns matches:
the result must be exactly that of applying every rewrite in turn, chained rewrites
(one rewrite's output matched by a later one) included."""

from __future__ import annotations

import pytest

from memfold.policy.wording import phrases as lx


def _one_by_one(text: str) -> str:
    out = text
    for pattern, replacement in lx._COMPILED_PHRASES:
        out = pattern.sub(replacement, out)
    return out


TEXTS = [
    "i like to go hiking on weekends",
    "sam is a member of the site reliability engineers team in new york city",
    "the user does not like coffee and would rather drink tea rather than soda",
    "tom works as a product manager at acme, part of human resources",
    "the api is served at port 8080 and listens on 0.0.0.0",
    "the deadline for the q3 report is friday, scheduled for the first half of june",
    "nora's one-on-ones happen every monday, more than 3 per month",
    "the service runs on kubernetes with postgresql and typescript",
    "ana reports directly to daniel, who is managed by sofia",
    "she follows a vegan diet and cannot tolerate lactose, fewer than 2 per day",
    "works from home monday through friday, close to the beach",
    "the budget is over 5 percent above last year, annually",
]


@pytest.mark.parametrize("text", TEXTS)
def test_grouped_rewrites_equal_rewrites_one_by_one(text: str) -> None:
    assert lx.rewrite_phrases(text) == _one_by_one(text)


def test_texts_exercise_rewrites_and_groups_keep_the_order() -> None:
    changed = [t for t in TEXTS if _one_by_one(t) != t]
    assert len(changed) >= len(TEXTS) - 1  # the texts do hit rewrites
    flat = [pair for _, group in lx._PHRASE_GROUPS for pair in group]
    assert flat == list(lx._COMPILED_PHRASES)
    assert len(lx._PHRASE_GROUPS) > 1
