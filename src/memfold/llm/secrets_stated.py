"""Passwords, passphrases, PINs and door codes stated in words, whatever their entropy.

"the wifi password is correcthorsebatterystaple", "PIN is 4821", "my passphrase:
blue monkey sunrise", "password for the router = hunter2", "the door code is 1234",
"email pw is sunflower1987", and in French "le mot de passe du wifi est soleil2024".
A value must be stated (``is``, ``was``, ``:``, ``=``, "changed ... to"): "Alice
forgot her password yesterday" names no value and is left alone, and so is a
statement about the password rather than of it ("the password is expired", "the
door code is on the fridge", "her PIN is 4 digits"), or of something named after it
("Sam's password manager is 1Password": a product, not his password).

A login and its password written as a pair, "router admin / Kangaroo!2024" or
"login: jsmith / Tr0ub4dor&3", is a stated password too when a login word or a
service names it and the part after the slash looks like a password (a letter and a
digit or symbol, six characters or more); "2 / 3 full", "10/11" and "and/or" are no
pair.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Names whose value is a secret however plain it looks.
_WORD_NAMES = r"pass(?:word|wd|phrase)|pass[ \t]+phrase|pwd|pw"
# Names whose value is a number (a PIN, a door code): it must have 3+ digits.
_CODE_NAMES = (
    r"pass[ \t]*code|pin(?:[ \t]+(?:code|number))?|combination"
    r"|(?:door|gate|alarm|access|entry|security|lock|safe|garage|keypad|unlock|verification"
    r"|locker|parking|building|voicemail|wi-?fi)[ \t]+code"
)
# "password for the router", "PIN for Sam's bank card": a short qualifier (up to three
# words) before the value. Its words never take the verb that states the value: "the
# password for the VPN is hunter2" must not read "VPN is" as the qualifier and "hunter2"
# as a value with no verb.
_QWORD = r"(?!(?:is|was|are|est|était|etait)\b)[\w'’-]+"
_QUALIFIER = (
    r"(?:[ \t]+(?:for|of|to|on|at|into)[ \t]+(?:(?:the|my|our|your|his|her|their|a|an)[ \t]+)?"
    rf"{_QWORD}(?:[ \t]+{_QWORD}){{0,2}})?"
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
# French: "le mot de passe du wifi est soleil2024", "mdp : soleil2024", "le code de la
# porte est 4821". Stated with "est", "était", ":" or "=" only (no bare value).
_FR_WORD_NAMES = r"mots?[ \t]+de[ \t]+passe|mdp|phrase[ \t]+(?:de[ \t]+passe|secr[eè]te)"
_FR_CODE_NAMES = (
    r"digicode|code[ \t]+(?:pin|secret|confidentiel|d['’](?:acc[eè]s|entr[ée]e)"
    r"|de[ \t]+(?:la[ \t]+porte|l['’](?:alarme|immeuble)|s[ée]curit[ée]|d[ée]verrouillage))"
)
_FR_QUALIFIER = (
    r"(?:(?:[ \t]+(?:du|des|de|pour|sur|à|au|aux)[ \t]+|[ \t]+d['’])"
    r"(?:(?:la|le|les|mon|ma|mes|ton|ta|notre|votre|son|sa|leur)[ \t]+|l['’])?"
    rf"{_QWORD}(?:[ \t]+{_QWORD}){{0,2}})?"
)
_FR_SEP = (
    r"[ \t]*(?:[:=]|\b(?:est|était|etait)\b(?:[ \t]+(?:maintenant|désormais|toujours"
    r"|actuellement|devenu))?[ \t]*:?)[ \t]*"
)
_STATED_FR = re.compile(
    rf"(?i)(?<![\w-])(?P<name>{_FR_WORD_NAMES}|{_FR_CODE_NAMES})\b{_FR_QUALIFIER}"
    rf"(?P<sep>{_FR_SEP}){_VALUE}"
)
# "changed my wifi password to hunter2", "set the PIN to 4821".
_CHANGED_TO = re.compile(
    rf"(?i)\b(?:changed|changing|changes|set|sets|setting|reset|resets|updated|updating)\b"
    rf"[^.\n]{{0,40}}?(?<![\w-])(?P<name>{_WORD_NAMES}|{_CODE_NAMES})\b{_QUALIFIER}"
    rf"[ \t]+to[ \t]+{_VALUE}"
)
# A login and its password as a pair: "router admin / Kangaroo!2024", "login: jsmith /
# Tr0ub4dor&3", "VPN creds for the office are jsmith/Tr0ub4dor&3". A login word takes any
# user name after it; a service takes a lower-case name, an e-mail address or a default
# account ("admin"), and, unless it is one of the last two, a password of three kinds of
# character ("database schema / migration2024" is no pair).
_LOGIN_WORDS = (
    r"user(?:[ \t]*name)?[ \t]*/[ \t]*pass(?:word|wd)?|log[ \t-]?in|log[ \t-]?on"
    r"|sign[ \t-]?in|credentials?|creds|user(?:[ \t]*name)?"
)
_SERVICES = (
    r"router|modem|wi-?fi|wlan|vpn|ssh|s?ftp|server|nas|db|database|mysql|postgres(?:ql)?"
    r"|mongo(?:db)?|redis|e-?mail|webmail|mail|smtp|imap|admin|portal|console|dashboard"
    r"|camera|cctv|printer|firewall|jenkins|grafana|wordpress|cpanel|rdp|vnc|intranet|account"
)
_DEFAULT_ACCOUNTS = frozenset(
    ("admin", "administrator", "root", "guest", "user", "pi", "sa", "superuser", "operator")
)
_PAIR = re.compile(
    rf"(?i)(?<![\w/-])(?:(?P<login>{_LOGIN_WORDS})|{_SERVICES})\b{_QUALIFIER}"
    r"(?:[ \t]+(?:is|are|was|were))?[ \t]*[:=]?[ \t]*"
    r"(?<![\w/-])(?P<user>[\w.@+-]{1,64})[ \t]*/[ \t]*(?P<value>[^\s/\"'`]+)"
    r"(?![^\s\"'`)\]}])"
)
_NUMBER_WITH_UNIT = re.compile(r"\d+(?:[.,]\d+)?[A-Za-z]{1,3}|v?\d+(?:\.\d+)+[a-z]?")
_E_MAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
_PAIR_MIN_LENGTH = 6

_CODE_NAME = re.compile(rf"(?i){_CODE_NAMES}|{_FR_CODE_NAMES}")
_PHRASE_NAME = re.compile(r"(?i)pass[ \t]*phrase|phrase[ \t]+(?:de[ \t]+passe|secr[eè]te)")
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
    # French: "le mot de passe est faux / sur le frigo / trop court / le nom de son chien".
    "le", "la", "les", "un", "une", "des", "du", "de", "mon", "ma", "mes", "ton", "ta", "tes",
    "son", "sa", "ses", "notre", "votre", "leur", "ce", "cet", "cette", "ces", "dans", "sur",
    "sous", "chez", "avec", "sans", "pour", "par", "en", "au", "aux", "pas", "plus", "jamais",
    "toujours", "encore", "déjà", "trop", "très", "assez", "bien", "faux", "fausse", "bon",
    "bonne", "mauvais", "vide", "inconnu", "inconnue", "nouveau", "nouvelle", "ancien",
    "ancienne", "court", "courte", "long", "longue", "fort", "faible", "sensible", "valide",
    "obligatoire", "requis", "même", "différent", "ici", "là", "quoi", "celui", "celle",
))
_CONJUNCTIONS = frozenset((
    "and", "but", "so", "because", "which", "then", "or", "to", "for", "since", "when", "while",
    "if", "et", "mais", "ou", "car", "donc", "puis", "quand", "si",
))
# fmt: on


def stated_secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Spans of the values of passwords, passphrases, PINs and codes stated in ``text``."""
    for pattern in (_STATED, _CHANGED_TO, _STATED_FR):
        for m in pattern.finditer(text):
            span = _value_span(text, m)
            if span is not None:
                yield span
    yield from pair_secret_spans(text)


def pair_secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Spans of the passwords of "user / password" pairs a login word or service names."""
    for m in _PAIR.finditer(text):
        user, value = m.group("user"), m.group("value")
        start, end = m.span("value")
        stripped = value.rstrip(_TRAILING)
        end -= len(value) - len(stripped)
        if _pair_password(stripped) and _pair_user(user, stripped, login=bool(m.group("login"))):
            yield start, end


def _pair_user(user: str, password: str, *, login: bool) -> bool:
    """Is ``user`` a login name, for a pair a login word (or else a service) names?"""
    if user.isdigit() or user.lower() in _NOT_A_VALUE:
        return False  # "2 / 3", "and / or"
    if login or user.lower() in _DEFAULT_ACCOUNTS or _E_MAIL.fullmatch(user):
        return True
    return user == user.lower() and _classes(password) >= 3


def _pair_password(value: str) -> bool:
    """Does ``value`` look like a password: a letter and a digit or symbol, 6+ characters?"""
    if len(value) < _PAIR_MIN_LENGTH or not stated_word(value):
        return False
    if _NUMBER_WITH_UNIT.fullmatch(value) or _E_MAIL.fullmatch(value) or "://" in value:
        return False  # "16GB", "v1.2.3", an address
    has_alpha = any(c.isalpha() for c in value)
    has_other = any(c.isdigit() or not (c.isalnum() or c in "-'’.") for c in value)
    return has_alpha and has_other


def _classes(value: str) -> int:
    """How many of lower case, upper case, digits and symbols ``value`` mixes."""
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )


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
    # "the password is expired / changing", "le mot de passe est expiré": a participle.
    participle = ("ed", "ing", "é", "ée", "és", "ées")
    return not (value.isalpha() and value.islower() and low.endswith(participle))


def _extend_phrase(text: str, end: int) -> int:
    """A passphrase runs over several words, up to a clause break or a conjunction."""
    for _ in range(_PHRASE_MAX_WORDS - 1):
        m = _PHRASE_WORD.match(text, end)
        if m is None or m.group(1).lower() in _CONJUNCTIONS:
            break
        end = m.end()
    return end
