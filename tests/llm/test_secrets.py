"""Secret masking: every planted secret masked, restored, never leaked."""

from __future__ import annotations

import time

import pytest

from memfold.errors import SecretLeak
from memfold.llm.secrets import MaskSession, find_secrets, mask_text

KINDS = {
    "openai", "openai_project", "anthropic", "aws_access_key", "github_pat_classic",
    "github_oauth", "github_pat_fine", "slack", "stripe", "google", "jwt", "private_key",
    "bearer", "url_password", "key_assignment", "password_assignment", "token_assignment",
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
