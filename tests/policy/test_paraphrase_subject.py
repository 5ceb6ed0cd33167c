"""Issue 10, third round: the subject read past its describing words, nouns joined by
"and", quantity phrases, "one" as an article, a child's age and "US" (pairs written for
these tests, not taken from any evaluation set)."""

from __future__ import annotations

import pytest

from memfold.policy.wording.paraphrase import paraphrase, read
from memfold.policy.wording.spelling import canonical_text


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # describing words before the noun, in another order or in a "which is" clause
        (
            "The white and brown dog runs across the yard.",
            "A brown and white dog runs across the yard.",
        ),
        ("A dog, which is brown, is jumping in the air.", "A brown dog is jumping in the air."),
        ("The dog, which is little, is chasing a ball.", "The little dog is chasing a ball."),
        # nouns joined by "and" are one subject in either order
        ("A man and a woman are dancing.", "A woman and a man are dancing."),
        # how many or what of, never which thing
        ("A group of hikers is resting by the lake.", "Hikers are resting by the lake."),
        ("The user's ring is made of gold.", "The user's ring is gold."),
        ("The user ate a slice of pizza for lunch.", "The user ate pizza for lunch."),
        # "one" opening a sentence is an article; a child's size is its age
        ("One man is playing the guitar.", "A man is playing the guitar."),
        ("A little boy is riding a bike.", "A young boy is riding a bike."),
        # everyday rewordings
        ("The user quit the chess club.", "The user resigned from the chess club."),
        ("Two dogs are peeing on a hydrant.", "Two dogs are urinating on a hydrant."),
        ("The user's badge permits entry after 8pm.", "The user's badge allows entry after 8pm."),
        ("Dana moved to the U.S. in 2019.", "Dana moved to the US in 2019."),
        # one word spelled as two, initials with or without dots
        ("The user bought new sun glasses.", "The user bought new sunglasses."),
        ("The user's re-election bid failed.", "The user's reelection bid failed."),
        ("Omar joined the U.N. mission in Mali.", "Omar joined the UN mission in Mali."),
    ],
)
def test_restatements_that_read_alike_align(older: str, newer: str) -> None:
    assert paraphrase(older, newer), (older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a describing word moved to another thing, or another subject
        ("The young dog bit the old man.", "The old dog bit the young man."),
        ("A black dog chases a white cat.", "A white cat chases a black dog."),
        ("A woman is talking to a man.", "A man is talking to a woman."),
        # a subject turned by one passive, however the subjects read
        ("Paper is being cut with scissors.", "Paper and scissors both cut."),
        # an amount or a count is a value, never a quantity phrase to drop
        ("The user drinks a lot of coffee.", "The user drinks coffee."),
        ("The user adopted one cat.", "The user adopted two cats."),
        ("One of the servers is down.", "The server is down."),
        # size is age only for a child: a little dog is not a young dog
        ("A little dog is barking at the door.", "A young dog is barking at the door."),
        # "us" the pronoun is not the country
        ("Ana called us on Friday.", "Ana called the US on Friday."),
        # two words that are not neighbours spell no compound
        ("The user sat in the sun with glasses on.", "The user sat with sunglasses on."),
    ],
)
def test_near_restatements_stay_apart(older: str, newer: str) -> None:
    assert not paraphrase(older, newer), (older, newer)


def test_the_subject_is_read_past_its_describing_words() -> None:
    reading = read("The white and brown dog runs across the yard.")
    assert reading.subject == {"dog"}
    assert reading.described == read("A dog, which is brown and white, runs.").described


def test_spellings_of_the_country_and_one_as_an_article() -> None:
    assert canonical_text("U.S. troops") == canonical_text("US troops") == "usa troops"
    assert canonical_text("the United States") == "the usa"
    assert canonical_text("let us go") == "let us go"
    assert canonical_text("One man sings") == "a man sings"
    assert canonical_text("One of them sings") == "1 of them sings"
