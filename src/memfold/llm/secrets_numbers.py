"""Card numbers and national identity numbers, found by shape and proved by checksum.

A number is masked only when its own rules hold, so order numbers, phone numbers,
timestamps and dates are left alone:

- payment card: 13 to 19 digits, in one run or in groups split by one space or one dash
  throughout ("4111 1111 1111 1111", "3782-822463-10005"); the first digits name an
  issuer family (Visa 4, Mastercard 51-55 and 2221-2720, Amex 34/37, Discover, JCB,
  Diners, UnionPay, Maestro: 30, 34-39, 50-69) and the Luhn check holds;
- US Social Security number: ddd-dd-dddd anywhere, or nine digits after "SSN" or "social
  security number"; never area 000, 666 or 900-999, group 00 or serial 0000;
- UK National Insurance number: "AB 12 34 56 C" or "AB123456C", in capitals, with a
  prefix HMRC issues (no D, F, I, Q, U, V; no O second; not BG, GB, KN, NK, NT, TN, ZZ),
  so the documentation example "QQ 12 34 56 C" is left alone;
- IBAN: a country code, two check digits and the country's length, in capitals, spaced
  in fours or not, whose ISO 13616 mod-97 check holds.

The checks are a few lines each; python-stdnum has them too, but also hundreds of
other formats and data files, and it finds nothing in running text, which masking needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Digit groups joined by one space or one dash; not inside a word, a decimal, a phone
# number written "+44 ...", a path or a date written with slashes.
_DIGIT_RUN = re.compile(r"(?<![\w+.,/-])\d+(?:[ -]\d+)*(?![\w/]|[.,]\d)")
_CARD_DIGITS = range(13, 20)

_SSN = re.compile(r"(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w-])")
_SSN_NAMED = re.compile(
    r"(?i)\b(?:ssn|social[ \t]+security(?:[ \t]+(?:number|no\.?|#))?)"
    r"(?:[ \t]+(?:is|was))?[ \t]*[:#]?[ \t]*(\d{3}[ -]?\d{2}[ -]?\d{4})(?![\w-])"
)

_NINO = re.compile(
    r"(?<![\w-])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z])( ?)\d{2}\2\d{2}\2\d{2}\2[A-D](?![\w-])"
)
_NINO_NOT_ISSUED = frozenset(("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"))

_IBAN = re.compile(r"(?<![\w-])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}")
# IBAN length by country (SWIFT IBAN registry).
# fmt: off
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
    "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
    "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23,
    "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}
# fmt: on


def number_secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Spans of card numbers, SSNs, National Insurance numbers and IBANs in ``text``."""
    for m in _DIGIT_RUN.finditer(text):
        if _card_number(m.group(0)):
            yield m.span()
    for m in _SSN.finditer(text):
        if _valid_ssn(m.group(1) + m.group(2) + m.group(3)):
            yield m.span()
    for m in _SSN_NAMED.finditer(text):
        digits = re.sub(r"\D", "", m.group(1))
        if _valid_ssn(digits):
            yield m.span(1)
    for m in _NINO.finditer(text):
        if m.group(1) not in _NINO_NOT_ISSUED:
            yield m.span()
    yield from _iban_spans(text)


def _card_number(run: str) -> bool:
    """Is ``run`` (digit groups) a payment card number?"""
    groups = re.split(r"([ -])", run)
    digits = "".join(groups[::2])
    if len(digits) not in _CARD_DIGITS or not _card_issuer(digits):
        return False
    if len(groups) > 1:
        if len(set(groups[1::2])) != 1:
            return False  # one separator throughout
        sizes = [len(g) for g in groups[::2]]
        if sizes[0] != 4 or any(not 3 <= n <= 6 for n in sizes[1:]):
            return False  # "4111 1111 1111 1111", "3782 822463 10005"; not "06 12 34 ..."
    return luhn_valid(digits)


def _card_issuer(digits: str) -> bool:
    """Do the first digits name a card issuer family (an IIN range)?"""
    two, four = int(digits[:2]), int(digits[:4])
    return (
        digits[0] == "4" or 50 <= two <= 69 or two == 30 or 34 <= two <= 39 or 2221 <= four <= 2720
    )


def luhn_valid(digits: str) -> bool:
    """The Luhn (mod 10) check of card numbers."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _valid_ssn(digits: str) -> bool:
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return not (area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000")


def _iban_spans(text: str) -> Iterator[tuple[int, int]]:
    pos = 0  # not finditer: a match may run on into the next IBAN
    while (found := _IBAN.search(text, pos)) is not None:
        span = _iban_span(text, found)
        if span is None:
            pos = found.start() + 1
        else:
            yield span
            pos = span[1]


def _iban_span(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    """The span of the IBAN the match starts with, cut to its country's length."""
    length = _IBAN_LENGTHS.get(m.group(0)[:2])
    if length is None:
        return None
    start, end, count = m.start(), m.start(), 0
    while count < length and end < m.end():
        if text[end] != " ":
            count += 1
        end += 1
    if count < length or (end < len(text) and text[end].isalnum()):
        return None  # too short, or runs on into a longer word
    compact = text[start:end].replace(" ", "")
    return (start, end) if iban_valid(compact) else None


def iban_valid(iban: str) -> bool:
    """The ISO 13616 check: the rearranged IBAN, letters as 10-35, is 1 mod 97."""
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1
