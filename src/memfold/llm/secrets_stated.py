"""Passwords, passphrases, PINs and door codes stated in words, whatever their entropy.

"the wifi password is correcthorsebatterystaple", "PIN is 4821", "my passphrase:
blue monkey sunrise", "password for the router = hunter2", "the door code is 1234".
A value must be stated (``is``, ``was``, ``:``, ``=``, "changed ... to"): "Alice
forgot her password yesterday" names no value and is left alone, and so is a
statement about the password rather than of it ("the password is expired", "the
door code is on the fridge", "her PIN is 4 digits").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Names whose value is a secret however plain it looks.
_WORD_NAMES = r"pass(?:word|wd|phrase)|pass[ \t]+phrase|pwd"
# Names whose value is a number (a PIN, a door code): it must have 3+ digits.
_CODE_NAMES = (
    r"pass[ \t]*code|pin(?:[ \t]+(?:code|number))?|combination"
    r"|(?:door|gate|alarm|access|entry|security|lock|safe|garage|keypad|unlock|verification"
    r"|locker|parking|building|voicemail|wi-?fi)[ \t]+code"
)
# "password for the router", "PIN for Sam's bank card": a short qualifier (up to three
# words) before the value.
_QUALIFIER = (
    r"(?:[ \t]+(?:for|of|to|on|at|into)[ \t]+(?:(?:the|my|our|your|his|her|their|a|an)[ \t]+)?"
    r"[\w'’-]+(?:[ \t]+[\w'’-]+){0,2})?"
)
_STATED_SEP = (
    r"[ \t]*(?:=>|[:=]|\b(?:is|was|are)\b(?:[ \t]+(?:now|still|currently|actually|just|simply"
    r"|set[ \t]+to|changed[ \t]+to))?[ \t]*:?)[ \t]*"
)
_VALUE = r"(?P<value>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|“[^”\n]{1,200}”|[^\s\"'`]+)"

_STATED = re.compile(
    rf"(?i)(?<![\w-])(?P<name>{_WORD_NAMES}|{_CODE_NAMES})\b{_QUALIFIER}"
    rf"(?P<sep>{_STATED_SEP}|[ \t]+){_VALUE}"
)
# "changed my wifi password to hunter2", "set the PIN to 4821".
_CHANGED_TO = re.compile(
    rf"(?i)\b(?:changed|changing|changes|set|sets|setting|reset|resets|updated|updating)\b"
    rf"[^.\n]{{0,40}}?(?<![\w-])(?P<name>{_WORD_NAMES}|{_CODE_NAMES})\b{_QUALIFIER}"
    rf"[ \t]+to[ \t]+{_VALUE}"
)
_CODE_NAME = re.compile(rf"(?i){_CODE_NAMES}")
_PHRASE_NAME = re.compile(r"(?i)pass[ \t]*phrase")
_TRAILING = ".,;:)]}"
_PHRASE_WORD = re.compile(r"[ \t]+([^\s,;.!?()\"]+)")
_PHRASE_MAX_WORDS = 8

# A word after "password is" that describes the password instead of being it.
# fmt: off
_NOT_A_VALUE = frozenset((
    "a", "an", "the", "my", "your", "his", "her", "their", "our", "its", "this", "that", "these",
    "those", "in", "on", "at", "for", "from", "with", "without", "by", "to", "of", "not", "no",
    "never", "always", "still", "now", "also", "too", "very", "so", "just", "same", "different",
    "wrong", "incorrect", "correct", "right", "invalid", "valid", "weak", "strong", "short",
    "long", "simple", "complex", "easy", "hard", "secure", "insecure", "safe", "unsafe", "secret",
    "private", "hidden", "unknown", "known", "empty", "blank", "missing", "required", "optional",
    "mandatory", "needed", "expired", "changed", "reset", "saved", "stored", "kept", "written",
    "shared", "encrypted", "hashed", "protected", "compromised", "leaked", "stolen", "lost",
    "forgotten", "locked", "blocked", "disabled", "enabled", "rotated", "updated", "managed",
    "generated", "set", "case-sensitive", "sensitive", "ok", "okay", "fine", "good", "bad",
    "great", "terrible", "new", "old", "temporary", "default", "something", "somewhere", "here",
    "there", "below", "above", "attached", "available", "unavailable", "n/a", "none", "null",
    "true", "false", "what", "which", "who", "where", "when", "how", "being", "about", "only",
    "all", "one", "it", "and", "or", "but", "if", "as", "like", "continue", "proceed", "login",
    "log", "sign", "access", "unlock", "confirm", "be", "make", "keep", "get", "use", "avoid",
    "protect", "enter",
))
_CONJUNCTIONS = frozenset((
    "and", "but", "so", "because", "which", "then", "or", "to", "for", "since", "when", "while",
    "if",
))
# fmt: on


def stated_secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Spans of the values of passwords, passphrases, PINs and codes stated in ``text``."""
    for pattern in (_STATED, _CHANGED_TO):
        for m in pattern.finditer(text):
            span = _value_span(text, m)
            if span is not None:
                yield span


def _value_span(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    name, value = m.group("name"), m.group("value")
    start, end = m.span("value")
    if value[0] in "\"'“":
        return (start + 1, end - 1) if value[1:-1].strip() else None
    stripped = value.rstrip(_TRAILING)
    end -= len(value) - len(stripped)
    if not stripped:
        return None
    bare = "sep" in m.groupdict() and not m.group("sep").strip()
    if _CODE_NAME.fullmatch(name):
        digits = sum(c.isdigit() for c in stripped)
        if digits < 3 or len(stripped) > 20:
            return None
        if bare and name.lower() == "pin" and name != "PIN":
            return None  # "pin 1234 of the header": only an upper-case PIN takes a bare number
        return start, end
    if bare or not stated_word(stripped):
        return None
    if _PHRASE_NAME.fullmatch(name):
        end = _extend_phrase(text, end)
    return start, end


def stated_word(value: str) -> bool:
    """Could ``value`` (after "password is") be the password, not a word about it?"""
    value = value.rstrip(_TRAILING)
    low = value.lower()
    if low in _NOT_A_VALUE or len(value) < 3:
        return False
    # "the password is expired / changing": a participle, not the password.
    return not (value.isalpha() and value.islower() and low.endswith(("ed", "ing")))


def _extend_phrase(text: str, end: int) -> int:
    """A passphrase runs over several words, up to a clause break or a conjunction."""
    for _ in range(_PHRASE_MAX_WORDS - 1):
        m = _PHRASE_WORD.match(text, end)
        if m is None or m.group(1).lower() in _CONJUNCTIONS:
            break
        end = m.end()
    return end
