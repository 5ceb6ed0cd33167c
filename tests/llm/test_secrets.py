"""Secret masking: every planted secret masked, restored, never leaked."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from memfold.config import LLMSettings
from memfold.errors import SecretLeak
from memfold.judge.llm import LLMJudge
from memfold.llm.secrets import MaskSession, find_secrets, mask_text
from memfold.model import MemoryRecord, Scope
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import user_payload

KINDS = {
    "openai", "openai_project", "anthropic", "aws_access_key", "github_pat_classic",
    "github_oauth", "github_pat_fine", "slack", "stripe", "google", "jwt", "private_key",
    "bearer", "url_password", "key_assignment", "password_assignment", "token_assignment",
    "password_stated", "passphrase_stated", "pin_stated", "code_stated", "aws_secret",
    # Issue 27: passwords named with a qualifier or a noun, login pairs, French, and
    # numbers proved by a checksum or issuing rules.
    "password_qualified", "password_noun", "password_pair", "password_french",
    "card_number", "us_ssn", "uk_nino", "iban",
}  # fmt: skip


def test_corpus_is_large_and_covers_every_kind(secret_corpus: list[dict[str, str]]) -> None:
    assert len(secret_corpus) >= 50
    assert {row["kind"] for row in secret_corpus} >= KINDS


def test_every_secret_is_masked_and_restored(secret_corpus: list[dict[str, str]]) -> None:
    for row in secret_corpus:
        masked, session = mask_text(row["text"])
        assert row["secret"] not in masked, row["kind"]
        assert "[[SECRET_1]]" in masked, row["kind"]
        # No 12-character piece of the secret survives either.
        secret = row["secret"]
        assert not any(secret[i : i + 12] in masked for i in range(len(secret) - 12)), row["kind"]
        assert session.unmask(masked) == row["text"]


def test_same_secret_same_placeholder_within_a_session() -> None:
    session = MaskSession()
    key = "AKIAQWERTYUIOPASDFGH"
    first = session.mask(f"key {key} here")
    second = session.mask(f"again {key}, and ghp_{'a1B2' * 9}")
    assert first == "key [[SECRET_1]] here"
    assert second == "again [[SECRET_1]], and [[SECRET_2]]"
    assert session.count == 2


def test_unknown_placeholder_in_reply_is_a_leak() -> None:
    _, session = mask_text("token=Zx81kLmN0pQrStUv2345")
    with pytest.raises(SecretLeak):
        session.unmask("merged: [[SECRET_1]] and [[SECRET_2]]")


def test_literal_placeholder_in_input_is_kept_and_not_a_leak() -> None:
    masked, session = mask_text("docs mention [[SECRET_1]] as an example; key AKIAQWERTYUIOPASDFGH")
    assert masked == "docs mention [[SECRET_1]] as an example; key [[SECRET_2]]"
    assert session.unmask(masked).endswith("AKIAQWERTYUIOPASDFGH")
    assert session.unmask("[[SECRET_1]]") == "[[SECRET_1]]"


@pytest.mark.parametrize(
    "text",
    [
        "The user prefers dark mode and uses Rust for systems work.",
        "author: JohnSmith1",
        "tokenizer: bert-base-uncased",
        "max_tokens=1024",
        "The api key is stored in the vault, not in git.",
        "Deployed commit 3f2a9c1d7e to production on 2024-05-01.",
        "Tests passed: 15 of 15",
        "Visit https://example.com/docs/setup for the guide.",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert find_secrets(text) == []


def test_masking_a_short_memory_is_fast() -> None:
    text = (
        "Deploys use AKIAIOSFODNN7EXAMPLE with password: Tr0ub4dor&3 on "
        "postgres://admin:s3cretPW9@db.example.com/app; the user prefers dark mode."
    )
    MaskSession().mask(text)  # compile patterns once
    runs = 200
    started = time.perf_counter()
    for _ in range(runs):
        MaskSession().mask(text)
    per_call_ms = (time.perf_counter() - started) / runs * 1000
    assert per_call_ms < 3.0


# Passwords, passphrases, PINs and codes stated in words: masked whatever their entropy.
STATED = [
    ("the wifi password is correcthorsebatterystaple", "correcthorsebatterystaple"),
    ("PIN is 4821", "4821"),
    ("my passphrase: blue monkey sunrise", "blue monkey sunrise"),
    ("password for the router = hunter2", "hunter2"),
    ("the door code is 1234", "1234"),
    ("The passcode is 9931.", "9931"),
    ("card PIN 6142, expires 09/27", "6142"),
    ("the gate code: #4321", "#4321"),
    ("Sam's password is now tiger and he hates it", "tiger"),
    ('the password is "open sesame"', "open sesame"),
    ("I set the alarm code to 2580 yesterday", "2580"),
    ("the PIN for my bank card is 7309", "7309"),
    ("my passphrase is green tea at noon and nobody knows it", "green tea at noon"),
    ("Password: Rosebud", "Rosebud"),
]


@pytest.mark.parametrize(("text", "secret"), STATED)
def test_stated_password_pin_and_code_are_masked(text: str, secret: str) -> None:
    masked, session = mask_text(text)
    assert secret not in masked and "[[SECRET_1]]" in masked
    assert masked.replace("[[SECRET_1]]", secret) == text  # exactly the value, nothing around
    assert session.unmask(masked) == text


@pytest.mark.parametrize(
    "text",
    [
        "Alice forgot her password yesterday",
        "The password is expired and must be reset.",
        "Her PIN is 4 digits long.",
        "The door code is on the fridge.",
        "He changed his password last week.",
        "Passwords are stored hashed with argon2.",
        "Use a password manager for every account.",
        "The error code is 404 and the zip code is 10001.",
        "GPIO pin 17 drives the LED; pin 1234 of the header is unused.",
        "The PIN pad was broken.",
        "the password is the name of her first dog",
        "the password is at least 12 characters",
        "Reset your password to continue.",
        "The wifi password is on the sticker under the router.",
        "Password is case-sensitive",
        "Password is case-sensitive: mind the capitals.",
        "The code is clean and well tested.",
        "Her password is being reset by IT.",
        "Enter your PIN to continue.",
        "Sam's passcode is unknown",
    ],
)
def test_words_about_a_password_are_not_masked(text: str) -> None:
    assert find_secrets(text) == []


def _echo(body: dict[str, Any]) -> dict[str, Any]:
    texts = [m["text"] for m in user_payload(body)["memories"]]
    return {"text": "\n".join(texts), "reasoning": "kept everything"}


def test_stated_secrets_never_reach_the_server_and_come_back(
    server: FakeLLMServer, make_settings: Callable[..., LLMSettings]
) -> None:
    server.set_script(_echo)
    memories = [
        MemoryRecord(id=f"m{i}", scope=Scope(user_id="u"), text=text)
        for i, (text, _) in enumerate(STATED)
    ]
    with LLMJudge(make_settings()) as judge:
        merged = judge.merge_text(memories)
    assert merged.text is not None
    for text, _ in STATED:
        assert text in merged.text  # restored, word for word
    bodies = [r.raw for r in server.requests]
    decoded = [json.dumps(user_payload(b), ensure_ascii=False) for b in server.chat_requests]
    assert bodies and decoded
    for _, secret in STATED:
        for sent in (*bodies, *decoded):
            assert secret not in sent, secret
