"""WordNet synonyms (``memfold.reading.lexicon``), read from a small database in the
WordNet index format written here, so that the tests do not need Debian's
``wordnet-base``; and names told by their initials (``memfold.reading.acronyms``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memfold.reading import facts, lexicon
from memfold.reading.difference import same_fact
from memfold.reading.restatement import restatement_differences, substitutions

# lemma pos synset_cnt p_cnt sense_cnt tagsense_cnt offsets (most used first)
_NOUNS = """  1 a licence line starts with spaces
gran n 1 0 1 0 00000001
grandmother n 1 0 1 0 00000001
boy n 3 0 3 0 00000010 00000011 00000002
son n 2 0 2 0 00000002 00000012
wrist n 1 0 1 0 00000020
ankle n 1 0 1 0 00000021
learn n 5 0 5 0 00000030 00000031 00000032 00000033 00000034
teach n 5 0 5 0 00000040 00000041 00000042 00000043 00000034
blood_type n 1 0 1 0 00000050
blood_group n 1 0 1 0 00000050
"""
_ADJECTIVES = """main a 1 0 1 0 00000101
primary a 3 1 & 3 0 00000102 00000103 00000101
"""


@pytest.fixture
def wordnet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "index.noun").write_text(_NOUNS, encoding="latin-1")
    (tmp_path / "index.adj").write_text(_ADJECTIVES, encoding="latin-1")
    monkeypatch.setenv("MEMFOLD_WORDNET", str(tmp_path))
    _new_lexicon()
    yield tmp_path
    _new_lexicon()


@pytest.fixture
def no_wordnet(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("MEMFOLD_WORDNET", "")
    _new_lexicon()
    yield
    _new_lexicon()


def _new_lexicon() -> None:
    """Read the lexicon anew, and forget the comparisons of pairs read with the old one."""
    lexicon.lexicon.cache_clear()
    facts.forget()


@pytest.mark.usefixtures("wordnet")
def test_words_sharing_a_most_used_sense_are_synonyms() -> None:
    assert lexicon.lexicon().loaded
    assert lexicon.synonyms("gran", "NOUN", "grandmother", "NOUN")
    assert lexicon.synonyms("main", "ADJ", "primary", "ADJ")  # primary's third sense
    assert lexicon.synonyms("boy", "NOUN", "son", "PROPN")  # a name is a noun too
    assert not lexicon.synonyms("wrist", "NOUN", "ankle", "NOUN")
    # Shared only beyond the first senses: "teach" is no "learn".
    assert not lexicon.synonyms("learn", "NOUN", "teach", "NOUN")
    # One part of speech: the adjective "main" is no noun.
    assert not lexicon.synonyms("main", "NOUN", "primary", "ADJ")


@pytest.mark.usefixtures("wordnet")
def test_a_synonym_is_no_difference_but_a_co_hyponym_is() -> None:
    older = "Dmitri's main editor is Neovim."
    assert same_fact(older, "Dmitri's primary editor is Neovim.", "newer") == []
    assert substitutions(older, "Dmitri's primary editor is Neovim.", 2) == []
    # Kin words are one in the word table too (data/synonyms.txt), owner keys included.
    assert (
        same_fact("The user's gran lives in Cork.", "The user's grandmother lives in Cork.") == []
    )
    broke = same_fact("Ana broke her wrist in 2018.", "Ana broke her ankle in 2018.")
    assert {d.kind for d in broke} & {"role", "word"}


@pytest.mark.usefixtures("wordnet")
def test_a_compound_wordnet_holds_as_one_is_one_thing() -> None:
    older = "The user's blood type is O negative."
    assert same_fact(older, "The user's blood group is O negative.", "newer") == []
    assert same_fact(older, "The user's blood pressure is O negative.", "newer")


_DERIVATIONS = [
    ("noun", "player", "+ {play} v 0101"),
    ("verb", "play", "+ {player} n 0101"),
    ("noun", "user", "+ {use} v 0101"),
    ("verb", "use", "+ {user} n 0101"),
    ("noun", "grader", "+ {grade} n 0101"),
    ("noun", "grade", "+ {grader} n 0101"),
    ("adj", "european", "+ {europe} n 0101"),
    ("noun", "europe", "+ {european} a 0101"),
]
# A marathon is a kind of race, a race of contest ("@" points to what a sense is a kind of).
_KINDS = [
    ("noun", "marathon", "@ {race} n 0000"),
    ("noun", "race", "@ {contest} n 0000"),
    ("noun", "contest", "~ {race} n 0000"),
    ("noun", "launch", "~ {marathon} n 0000"),
    ("noun", "party", "~ {contest} n 0000"),
]


def _write_derivations(folder: Path, synsets: list[tuple[str, str, str]] = _DERIVATIONS) -> None:
    """Synsets of one word and one pointer each, in WordNet's data and index format (byte
    offsets): by default a noun "player" and a verb "play" derived from each other, the
    noun "user", derived from the verb "use", "grader" from "grade" and "European" from
    "Europe"."""
    offsets: dict[str, int] = {}
    lines: dict[str, list[str]] = {"noun": [], "verb": [], "adj": []}
    sizes = {"noun": 0, "verb": 0, "adj": 0}
    # Two passes: offsets are fixed-width, so the first fixes every line's length.
    for _ in range(2):
        lines = {"noun": [], "verb": [], "adj": []}
        sizes = {"noun": 0, "verb": 0, "adj": 0}
        for part, word, pointer in synsets:
            target = pointer.split()[1].strip("{}")
            line = (
                f"{sizes[part]:08d} 00 {part[0]} 01 {word} 0 001 "
                f"{pointer.replace('{' + target + '}', f'{offsets.get(target, 0):08d}')} | x\n"
            )
            offsets[word] = sizes[part]
            lines[part].append(line)
            sizes[part] += len(line.encode("latin-1"))
    for part, found in lines.items():
        (folder / f"data.{part}").write_text("".join(found), encoding="latin-1")
    index: dict[str, list[str]] = {part: [] for part in lines}
    for part, word, _ in synsets:
        index[part].append(f"{word} {part[0]} 1 1 + 1 0 {offsets[word]:08d}\n")
    for part, found in index.items():
        (folder / f"index.{part}").write_text("".join(found), encoding="latin-1")


def _with_synsets(
    folder: Path, monkeypatch: pytest.MonkeyPatch, synsets: list[tuple[str, str, str]]
) -> Iterator[Path]:
    _write_derivations(folder, synsets)
    monkeypatch.setenv("MEMFOLD_WORDNET", str(folder))
    _new_lexicon()
    yield folder
    _new_lexicon()


@pytest.fixture
def derivations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from _with_synsets(tmp_path, monkeypatch, _DERIVATIONS)


@pytest.mark.usefixtures("derivations")
def test_a_word_derived_from_another_is_told_by_it() -> None:
    assert lexicon.related("player", "NOUN") == {"play"}
    assert lexicon.related("play", "VERB") == {"player"}
    older, newer = "Farid plays the oud.", "Farid is an oud player."
    assert [d for d in same_fact(older, newer, "newer") if d.kind == "word"] == []
    # "the user" is no form of "uses": a subject is never the derived word.
    used = same_fact("The user uses Rust.", "The user prefers Rust.", "newer")
    assert any("'use'" in d.detail for d in used)


@pytest.mark.usefixtures("derivations")
def test_an_ordinal_or_a_name_told_in_a_derived_form_is_the_same() -> None:
    # The same rank of a noun derived from the other's: one value.
    older = "The user's daughter Leila is in fourth grade."
    assert (
        restatement_differences(older, "Leila, the user's daughter, is a fourth grader.", 2, 2)
        == []
    )
    assert restatement_differences(older, "Leila, the user's daughter, is a fifth grader.", 2, 2)
    # A name derived from a place WordNet knows: "European" travel is in Europe.
    trains = "The user prefers trains for European travel."
    assert (
        restatement_differences(trains, "The user prefers trains when travelling in Europe.", 2, 2)
        == []
    )
    assert restatement_differences(trains, "The user prefers trains when travelling in Asia.", 2, 2)


@pytest.mark.usefixtures("no_wordnet")
def test_without_the_database_only_the_tables_speak() -> None:
    assert not lexicon.lexicon().loaded
    assert not lexicon.synonyms("main", "ADJ", "primary", "ADJ")
    found = same_fact("Dmitri's main editor is Neovim.", "Dmitri's primary editor is Neovim.")
    assert [d.kind for d in found if d.kind == "word"]


def test_a_folder_without_an_index_is_no_lexicon(tmp_path: Path) -> None:
    assert not lexicon.Lexicon(tmp_path).loaded
    assert not lexicon.Lexicon(None).loaded


@pytest.mark.usefixtures("no_wordnet")
@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "Thabo completed his MBA at the University of Cape Town.",
            "Thabo completed his MBA at UCT.",
        ),
        (
            "Nimbus runs its continuous integration on GitHub Actions.",
            "Nimbus runs its CI on GitHub Actions.",
        ),
        ("The user's car is a 2018 Honda Civic.", "The user's car is a 2018 Civic by Honda."),
    ],
)
def test_a_name_told_by_initials_or_apart_is_the_same_name(older: str, newer: str) -> None:
    assert [d for d in same_fact(older, newer, "newer") if d.kind in ("name", "word")] == []


@pytest.mark.usefixtures("no_wordnet")
def test_initials_of_other_words_are_another_name() -> None:
    found = same_fact(
        "Thabo studied at the University of Cape Town.", "Thabo studied at UCLA.", "newer"
    )
    assert [d for d in found if d.kind in ("name", "word")]


@pytest.fixture
def kinds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from _with_synsets(tmp_path, monkeypatch, _KINDS)


@pytest.mark.usefixtures("kinds")
def test_a_kind_of_a_thing_is_read_up_the_hypernyms() -> None:
    assert lexicon.kind_of("marathon", "race")
    assert lexicon.kind_of("marathon", "contest")  # two steps up
    assert not lexicon.kind_of("race", "marathon")
    assert not lexicon.kind_of("launch", "party")


@pytest.mark.usefixtures("kinds")
def test_a_compound_over_a_kind_of_itself_is_the_same_thing() -> None:
    older = "The marathon is on April 12."
    assert "thing" not in {d.kind for d in same_fact(older, "The marathon race is on April 12.")}
    found = same_fact("The launch is on May 3.", "The launch party is on May 3.")
    assert "thing" in {d.kind for d in found}
