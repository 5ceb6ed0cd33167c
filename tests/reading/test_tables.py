"""Every word-table entry carries an agent-memory example that uses it."""

from __future__ import annotations

from importlib import resources

import pytest

from memfold.reading import tables
from memfold.reading.keys import stem
from memfold.reading.parser import read

NAMES = sorted(
    p.name.removesuffix(".txt")
    for p in resources.files("memfold.reading").joinpath("data").iterdir()
    if p.name.endswith(".txt")
)


@pytest.mark.parametrize("name", NAMES)
def test_each_entry_has_an_example_that_uses_one_of_its_words(name: str) -> None:
    entries = tables.entries(name)
    assert entries
    for entry in entries:
        reading = read(entry.example)
        said = {w.low for w in reading.words} | {w.lemma for w in reading.words}
        said |= {stem(w) for w in said}
        said |= {part for w in said for part in w.split("-")}
        if name == "negating_prefixes":  # a prefix is used on a word of the example
            said |= {w[: len(p)] for w in said for p in entry.words}
        used = [w for w in entry.words if w in said or stem(w) in said]
        assert used, f"{name}: {entry.words} not in {entry.example!r}"


def test_a_malformed_line_is_refused() -> None:
    with pytest.raises(ValueError, match=r"expected 'words \| example'"):
        tables.parse_entries("x", "just words without an example\n")
