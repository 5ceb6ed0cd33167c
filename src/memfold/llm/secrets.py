"""Secret masking: no credential found in a memory ever leaves for an LLM.

Before a prompt is sent, every secret is replaced by a stable placeholder
(``[[SECRET_1]]``; the same secret gets the same placeholder for the whole
call), and the reply is unmasked on the way back. A reply that names a
placeholder we never sent means the model invented or mixed up a secret, so
it raises ``SecretLeak`` instead of writing a wrong credential into memory.

Detection is regex based, for speed (one short memory masks in well under a
millisecond): memfold's own patterns for the common providers, plus the
token-shaped ``denylist`` regexes of selected ``detect-secrets`` plugins,
passwords, passphrases, PINs and codes stated in words whatever their entropy,
and "user / password" pairs (``secrets_stated``), and payment card numbers, US
Social Security numbers, UK National Insurance numbers and IBANs proved by their
checksums or issuing rules (``secrets_numbers``). We do not run detect-secrets'
full plugin scan (``scan_line``): it needs a global settings context, is much
slower, and reports secrets without their positions, which masking needs.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from memfold.errors import SecretLeak
from memfold.llm.secrets_numbers import number_secret_spans
from memfold.llm.secrets_stated import stated_secret_spans, stated_word

PLACEHOLDER_RE = re.compile(r"\[\[SECRET_(\d+)\]\]")

# (pattern, group to mask: 0 = whole match)
_OWN_PATTERNS: tuple[tuple[str, int], ...] = (
    # PEM private key blocks, with or without their END line (truncated pastes).
    (
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:-]*)",
        0,
    ),
    (r"\bsk-ant-[A-Za-z0-9_\-]{20,}", 0),  # Anthropic
    (r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}", 0),  # OpenAI
    (r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b", 0),  # AWS access key id
    (r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b", 0),  # GitHub
    (r"\bgithub_pat_[A-Za-z0-9_]{22,}", 0),
    (r"\bglpat-[A-Za-z0-9_\-]{20,}", 0),  # GitLab
    (r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", 0),  # Slack
    (r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]+", 0),
    (r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}", 0),  # Stripe
    (r"\bAIza[0-9A-Za-z_\-]{35}", 0),  # Google API key
    (r"\bya29\.[0-9A-Za-z_\-]{20,}", 0),  # Google OAuth access token
    (r"\bhf_[A-Za-z0-9]{30,}\b", 0),  # Hugging Face
    (r"\bnpm_[A-Za-z0-9]{36}\b", 0),
    (r"\bpypi-[A-Za-z0-9_\-]{50,}", 0),
    (r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", 0),  # JWT
    (r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{12,}=*)", 1),
    (r"(?i)\bbasic\s+([A-Za-z0-9+/]{16,}={0,2})", 1),
    # Password in a URL: scheme://user:PASSWORD@host
    (r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:([^\s@/]+)@", 1),
)

# name = value / name: value / "name": "value" for credential-like names.
# The lookbehind starts a name only at a word boundary: without it every position inside
# a long identifier (a 32-hex id) restarts the scan, which is quadratic in its length.
_ASSIGNMENT = re.compile(
    r"(?i)(?<![A-Za-z0-9_.\-])([A-Za-z0-9_.\-]*(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|passphrase|pwd|"
    r"access[_-]?key|private[_-]?key|authorization|auth(?![a-z])|credential|session[_-]?id)"
    r"[A-Za-z0-9_.\-]*)[\"']?\s*(?:[:=]|=>|\bis\b)\s*[\"']?([^\s\"',;`]{6,})"
)
_PASSWORD_NAME = re.compile(r"(?i)passw(?:or)?d|passphrase|pwd")

# detect-secrets plugins whose denylists are token-shaped (no keyword guessing).
_DETECT_SECRETS_PLUGINS = (
    "AWSKeyDetector",
    "AzureStorageKeyDetector",
    "BasicAuthDetector",
    "DiscordBotTokenDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "JwtTokenDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SquareOAuthDetector",
    "StripeDetector",
    "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)
_STRIP = " \t\r\n\"'=:"


def shannon_entropy(value: str) -> float:
    """Bits per character; random keys score above 3, words and numbers below."""
    if not value:
        return 0.0
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _looks_secret(name: str, value: str) -> bool:
    """Is an assigned value a credential rather than prose (``token is expired``)?"""
    if PLACEHOLDER_RE.fullmatch(value) or value.lower() in {"none", "null", "true", "false"}:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            has_digit,
            any(not c.isalnum() for c in value),
        )
    )
    if _PASSWORD_NAME.search(name) and len(value) >= 6 and classes >= 2:
        return stated_word(value)  # not "password is case-sensitive"
    return len(value) >= 8 and has_digit and has_alpha and shannon_entropy(value) >= 3.0


@lru_cache(maxsize=1)
def _detect_secrets_patterns() -> tuple[re.Pattern[str], ...]:
    """Compiled denylists of the chosen detect-secrets plugins (imported once, lazily)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    wanted = set(_DETECT_SECRETS_PLUGINS)
    patterns: list[re.Pattern[str]] = []
    plugins: dict[str, Any] = get_mapping_from_secret_type_to_class()
    for cls in plugins.values():
        if cls.__name__ in wanted:
            patterns.extend(getattr(cls, "denylist", ()))
    return tuple(patterns)


@lru_cache(maxsize=1)
def _own_patterns() -> tuple[tuple[re.Pattern[str], int], ...]:
    return tuple((re.compile(p), g) for p, g in _OWN_PATTERNS)


def find_secrets(text: str) -> list[tuple[int, int]]:
    """Spans of secrets in ``text``, merged and sorted; existing placeholders excluded."""
    return list(_find_secrets_cached(text))


@lru_cache(maxsize=512)
def _find_secrets_cached(text: str) -> tuple[tuple[int, int], ...]:
    # The same system prompt goes out with every call: scanning it once is enough.
    return tuple(_scan(text))


def _scan(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for pattern, group in _own_patterns():
        for m in pattern.finditer(text):
            spans.append(m.span(group))
    for m in _ASSIGNMENT.finditer(text):
        if _looks_secret(m.group(1), m.group(2)):
            spans.append(m.span(2))
    spans.extend(stated_secret_spans(text))  # passwords and PINs stated in words
    spans.extend(number_secret_spans(text))  # cards, SSNs, NI numbers, IBANs
    for pattern in _detect_secrets_patterns():
        for m in pattern.finditer(text):
            spans.extend(_match_spans(m))
    protected = [m.span() for m in PLACEHOLDER_RE.finditer(text)]
    spans = [s for s in spans if s[1] > s[0] and not _overlaps(s, protected)]
    return _merge(spans)


def _match_spans(m: re.Match[str]) -> Iterable[tuple[int, int]]:
    """Like detect-secrets: the non-empty groups if any, else the match, trimmed."""
    groups = [i for i in range(1, (m.re.groups or 0) + 1) if m.group(i)]
    if groups:
        return [m.span(i) for i in groups]
    start, end = m.span()
    raw = m.group(0)
    lead = len(raw) - len(raw.lstrip(_STRIP))
    trail = len(raw) - len(raw.rstrip(_STRIP))
    return [(start + lead, end - trail)]


def _overlaps(span: tuple[int, int], others: list[tuple[int, int]]) -> bool:
    return any(span[0] < o[1] and o[0] < span[1] for o in others)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


class MaskSession:
    """Placeholders for one LLM call: mask what goes out, unmask what comes back.

    Placeholders already present in the input (a memory that literally
    contains ``[[SECRET_3]]``) count as sent and unmask to themselves, so they
    are neither renumbered nor reported as leaks.
    """

    def __init__(self) -> None:
        self._by_secret: dict[str, str] = {}
        self._by_placeholder: dict[str, str] = {}

    @property
    def count(self) -> int:
        """How many distinct secrets were masked in this session."""
        return len(self._by_secret)

    def mask(self, text: str) -> str:
        for m in PLACEHOLDER_RE.finditer(text):
            self._by_placeholder.setdefault(m.group(0), m.group(0))
        spans = find_secrets(text)
        if not spans:
            return text
        parts: list[str] = []
        last = 0
        for start, end in spans:
            parts.append(text[last:start])
            parts.append(self._placeholder(text[start:end]))
            last = end
        parts.append(text[last:])
        return "".join(parts)

    def _placeholder(self, secret: str) -> str:
        existing = self._by_secret.get(secret)
        if existing is not None:
            return existing
        n = len(self._by_placeholder) + 1
        while f"[[SECRET_{n}]]" in self._by_placeholder:
            n += 1
        placeholder = f"[[SECRET_{n}]]"
        self._by_secret[secret] = placeholder
        self._by_placeholder[placeholder] = secret
        return placeholder

    def check(self, text: str) -> None:
        """Raise ``SecretLeak`` if ``text`` names a placeholder this session never sent."""
        unknown = sorted(
            {m.group(0) for m in PLACEHOLDER_RE.finditer(text)} - self._by_placeholder.keys()
        )
        if unknown:
            raise SecretLeak(f"reply contains placeholders never sent: {', '.join(unknown)}")

    def unmask(self, text: str) -> str:
        """Restore every placeholder; ``SecretLeak`` on one that was never sent."""
        self.check(text)
        return PLACEHOLDER_RE.sub(lambda m: self._by_placeholder[m.group(0)], text)

    def unmask_optional(self, text: str | None) -> str | None:
        return None if text is None else self.unmask(text)


def mask_text(text: str) -> tuple[str, MaskSession]:
    """Mask one text in a fresh session (convenience for callers with one text)."""
    session = MaskSession()
    return session.mask(text), session
