"""The rule judge, through the guards, on restatements the third round of issue 10
reads (describing words, joined nouns, quantity phrases); pairs written for these tests."""

from __future__ import annotations

import pytest

from memfold.model import Action

from .test_rule_judge import decide


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "The white and brown dog runs across the yard.",
            "A brown and white dog runs across the yard.",
        ),
        ("A group of hikers is resting by the lake.", "Hikers are resting by the lake."),
        ("One man is playing the guitar.", "A man is playing the guitar."),
    ],
)
def test_a_restatement_read_past_its_wording_is_folded(old: str, new: str) -> None:
    raw, guarded = decide(old, new, 0.93)
    assert raw.action in (Action.REPLACE, Action.UPDATE) and raw.target_ids == ["old"], raw
    assert guarded.action is raw.action, guarded.downgrade_reasons


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The young dog bit the old man.", "The old dog bit the young man."),
        ("Paper is being cut with scissors.", "Paper and scissors both cut."),
    ],
)
def test_a_describing_word_moved_or_a_subject_turned_is_never_folded(old: str, new: str) -> None:
    raw, guarded = decide(old, new, 0.97)
    assert not guarded.action.mutating, (raw, guarded)
