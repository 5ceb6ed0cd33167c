"""Readings that carry to new wording: a date that names a thing, a relative of the
person where the fact's subject is gone, a verb given to a light one, a thing set below
another, a general noun that names a kind, a sentence-initial noun that modifies one, a
relation told from the other person's side, an identifier of letters and digits."""

from __future__ import annotations

import pytest

from memfold.reading.converse import as_told_by_older
from memfold.reading.difference import fold_conflicts, same_fact, supersede_conflicts
from memfold.reading.facts import facts
from memfold.reading.parser import read
from memfold.reading.restatement import restatement_differences, substitutions
from memfold.reading.supersede import supersede_evidence


def test_a_later_date_beside_another_name_is_evidence_unless_it_names_a_thing() -> None:
    moved = supersede_evidence(
        "As of 2021, Lina's bakery was in Leeds.", "In 2023, Lina's bakery is in York.", 0.5, 2
    )
    assert moved.found and "later date" in moved.reason
    retreats = supersede_evidence(
        "The 2024 retreat is in Lisbon.", "The 2025 retreat is in Porto.", 0.5, 2
    )
    assert not retreats.found


def test_a_relative_of_the_person_is_another_subject_only_where_the_old_one_is_gone() -> None:
    conflicts = supersede_conflicts(
        "Sven's car is a grey 2018 Volvo V60.", "Sven's wife drives a grey 2021 Volvo XC60."
    )
    assert [d.kind for d in conflicts] == ["owner"] and "wife" in conflicts[0].detail
    assert not supersede_conflicts(
        "Joon-ho's rent is 1,200,000 won per month.",
        "Joon-ho's landlord raised the rent to 1,350,000 won per month.",
    )


def test_a_relative_named_in_both_texts_is_one_person() -> None:
    # "Grace's daughter Ella" names the daughter; the newer tells of Ella and Grace.
    assert not supersede_conflicts(
        "Tomoko's son Ren is in the chess club until 6 pm.",
        "Ren no longer goes to the chess club; Tomoko picks him up at 4 pm.",
    )
    # A relative named by another name is still another person than the owner.
    conflicts = supersede_conflicts("Ana's brother Luis lives in Lisbon.", "Ana moved to Porto.")
    assert "'brother' of 'ana' in one text only" in [d.detail for d in conflicts]


def test_a_verb_given_to_a_light_verb_is_a_word_in_its_place() -> None:
    swapped = substitutions(
        "Leila teaches yoga at a studio in Montreal.",
        "Leila takes yoga at a studio in Montreal.",
        2,
    )
    assert [d.detail for d in swapped] == ["'teach' / 'take' in the same place"]
    back = substitutions("Aiko takes violin lessons.", "Aiko teaches violin lessons.", 2)
    assert [d.detail for d in back] == ["'teach' / 'take' in the same place"]
    assert not substitutions("Omar walks every evening.", "Omar takes a walk every evening.", 2)


def test_a_compound_noun_and_its_last_part_with_another_modifier_are_two_kinds() -> None:
    bedroom = "The bedroom smart bulbs are Philips Hue, controlled through the Hue bridge."
    living = "The living room smart bulbs are Philips Hue, controlled through the Hue bridge."
    for older, newer in ((bedroom, living), (living, bedroom)):
        found = substitutions(older, newer, 2)
        assert [d.detail for d in found] == ["'bedroom' / 'living room': another kind"]
        assert restatement_differences(older, newer, 2, 2)
    # The last part with no modifier of its own is no other kind (but a word swapped).
    alone = substitutions(
        "Ines keeps the spare key in the bedroom.", "Ines keeps the spare key in her room.", 2
    )
    assert alone and not [d for d in alone if "another kind" in d.detail]


def test_a_thing_told_in_place_of_another_is_no_restatement() -> None:
    found = restatement_differences(
        "Omar's son rides the train to school every morning.",
        "Omar drives his son to school by car each day.",
        2,
        2,
    )
    assert [d.detail for d in found] == [
        "'morn', 'train' / 'car', 'day': told in place of each other"
    ]
    found = restatement_differences(
        "Priya's flat has gas heating.", "Priya heats her flat with an electric stove.", 2, 2
    )
    assert found and "told in place of each other" in found[0].detail
    # Things told again in another order or voice are no new things.
    assert not restatement_differences(
        "Ines stores the backups on a NAS in the basement.",
        "The backups are kept on a basement NAS by Ines.",
        2,
        2,
    )


def test_a_compound_written_as_one_word_or_two_is_one_word() -> None:
    assert not restatement_differences(
        "The frontend repo's component files have PascalCase filenames.",
        "In the frontend repo, component file names are in PascalCase.",
        2,
        2,
    )


def test_a_thing_set_below_another_is_a_polarity_difference() -> None:
    found = same_fact("Ewa is a cat person.", "Ewa prefers dogs over cats.")
    assert any(d.kind == "polarity" and "below" in d.detail for d in found)
    agreeing = same_fact("Ewa likes cats.", "Ewa prefers cats over dogs.")
    assert not [d for d in agreeing if "below" in d.detail]
    raised = same_fact(
        "The user takes 20 mg of atorvastatin daily.",
        "The user's atorvastatin dose was raised to 40 mg daily.",
    )
    assert not [d for d in raised if "below" in d.detail]


def test_a_general_noun_naming_a_kind_is_a_word_of_the_fact() -> None:
    assert "user" in facts("The backup job for the users database runs at 2 AM.").content
    assert "user" not in facts("The user runs at 2 AM.").content
    swapped = substitutions(
        "The backup job for the orders database runs at 2 AM.",
        "The backup job for the users database runs at 2 AM.",
        2,
    )
    assert swapped


def test_a_sentence_initial_noun_modifying_another_is_no_name() -> None:
    assert facts("Team standup is at 9:30 every morning.").names == frozenset()
    assert "sofia" in facts("Sofia mentors Daniel.").names


def test_a_sentences_last_word_is_read_without_the_stop_left_on_it() -> None:
    key = "sk-proj-Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"
    ended = facts(f"The staging deploy key is {key}.")
    going_on = facts(f"The staging deploy key is {key}, rotated monthly.")
    assert ended.names == going_on.names
    assert facts("Ana moved to the U.S.").names >= {"u.s."}  # an abbreviation keeps its stops


def test_a_superlative_cut_to_no_known_base_keeps_its_word() -> None:
    # "pytest" tagged as a superlative is no "pyt"; "latest" is still "late".
    lemmas = {
        w.text: w.lemma for w in read("The repo's tests run on pytest, the latest one.").words
    }
    assert lemmas["pytest"] == "pytest" and lemmas["latest"] == "late"


def test_a_verb_denied_of_a_thing_held_after_a_preposition_is_a_flip() -> None:
    older = "The repo's tests are written with pytest."
    flipped = fold_conflicts(older, "The repo does not use pytest for any of its tests.")
    assert [d.kind for d in flipped] == ["polarity"]
    assert fold_conflicts(older, "The repo uses pytest for all of its tests.") == []


def _restates(older: str, newer: str) -> bool:
    told = as_told_by_older(older, newer)
    return not supersede_conflicts(older, told) and not restatement_differences(older, told, 2, 2)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Hugo is Clara's son.", "Clara is Hugo's mother."),
        ("Grace is Henry's daughter.", "Henry is Grace's father."),  # "Grace" read as a noun
        ("Pedro is Lucia's tenant.", "Lucia is Pedro's landlord."),
        ("Clara's son is Hugo.", "Clara is Hugo's mother."),
        ("Tom is Ana's friend from university.", "Ana is Tom's friend from university."),
    ],
)
def test_a_relation_told_from_the_other_side_is_the_same_fact(older: str, newer: str) -> None:
    assert as_told_by_older(older, newer) != newer
    assert _restates(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Grace is Henry's daughter.", "Henry is Grace's daughter."),
        ("Ana is Ben's manager.", "Ben is Ana's manager."),
        ("Hugo is Clara's son.", "Clara is Hugo's aunt."),
        ("Hugo is Clara's son.", "Clara is Marco's mother."),
        ("Kofi is Ama's husband.", "Ama is Kofi's former wife."),
        # what else the newer says is of its own subject: here Clara lives in Lima
        ("Hugo is Clara's son and lives in Lima.", "Clara is Hugo's mother and lives in Lima."),
    ],
)
def test_a_relation_told_back_wrongly_or_with_more_is_not(older: str, newer: str) -> None:
    assert not _restates(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "Ana works with Ben on the billing service.",
            "Ben works with Ana on the billing service.",
        ),
        ("Kofi is married to Ama.", "Ama is married to Kofi."),
        ("Lena shares an office with Tariq.", "Tariq shares an office with Lena."),
        ("Sam met Priya in 2019.", "Priya met Sam in 2019."),
    ],
)
def test_a_mutual_relation_told_from_the_other_side_is_the_same_fact(
    older: str, newer: str
) -> None:
    assert _restates(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Ana works for Ben on the billing service.", "Ben works for Ana on the billing service."),
        ("Sam met Priya in 2019.", "Priya met Sam in 2020."),
        ("Ravi lives with Meera in Pune.", "Meera lives with Ravi in Goa."),
        ("Ana lent her car to Ben.", "Ben lent his car to Ana."),
        ("Olu reports to Funmi.", "Funmi reports to Olu."),
    ],
)
def test_a_one_way_relation_or_another_detail_is_not(older: str, newer: str) -> None:
    assert not _restates(older, newer)


def test_a_name_the_model_reads_as_an_adverb_is_the_subject_of_a_past_verb() -> None:
    assert facts("Raj hired Sofia in 2022.").roles[("hire", "subject")] == {"raj"}
    assert _restates("Raj hired Sofia in 2022.", "Sofia was hired by Raj in 2022.")
    assert not _restates("Raj hired Sofia in 2022.", "Sofia hired Raj in 2022.")


def test_letters_and_digits_are_an_identifier_told_apart() -> None:
    assert same_fact("Nginx runs on web-01.", "Nginx runs on web-02.")
    assert "b12" in facts("The user takes vitamin B12 daily.").names
