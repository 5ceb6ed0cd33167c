"""Issue 27: passwords named with a qualifier, login pairs, French, cards and national ids.

Each phrasing of the audit reached the LLM unmasked before; each negative is ordinary
text that must reach it as written (a false positive also drops a conversation extract).
"""

from __future__ import annotations

import pytest

from memfold.llm.secrets import find_secrets, mask_text
from memfold.llm.secrets_numbers import iban_valid, luhn_valid

# (text, the one secret in it): exactly that span is masked.
AUDIT = [
    # The six phrasings of the audit.
    ("The password for the VPN is hunter2", "hunter2"),
    ("My password for the company system is SuperSecret123!", "SuperSecret123!"),
    ("The office wifi password is correcthorsebatterystaple", "correcthorsebatterystaple"),
    ("email pw is sunflower1987", "sunflower1987"),
    ("router admin / Kangaroo!2024", "Kangaroo!2024"),
    ("Le mot de passe du wifi est soleil2024", "soleil2024"),
    # The same rules, other words.
    ("The password to my Gmail account is bluebird", "bluebird"),
    ("the PIN for the safe is 4821.", "4821"),
    ("Password of the router: tiger", "tiger"),
    ("The passphrase for the backup disk is purple otter lantern", "purple otter lantern"),
    ("I set the password for the NAS to hunter22 yesterday", "hunter22"),
    ("Sam's pw for the NAS = n4s-Owl", "n4s-Owl"),
    ("login: jsmith / Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("VPN creds for the office are jsmith/Tr0ub4dor&3.", "Tr0ub4dor&3"),
    ("NAS: admin / hunter22", "hunter22"),
    ("webmail alice@acme.com / Sunflower1987", "Sunflower1987"),
    ("wifi guest / Welcome#2024", "Welcome#2024"),
    ('{"text": "router admin / Kangaroo!2024"}', "Kangaroo!2024"),
    ("mdp : Soleil!2024", "Soleil!2024"),
    ("Le code de la porte est 4821.", "4821"),
    ("Mon code PIN est 1234", "1234"),
    ("le mot de passe pour la box était soleil2024", "soleil2024"),
]


@pytest.mark.parametrize(("text", "secret"), AUDIT)
def test_passwords_named_in_words_are_masked(text: str, secret: str) -> None:
    masked, session = mask_text(text)
    assert secret not in masked and "[[SECRET_1]]" in masked
    assert masked.replace("[[SECRET_1]]", secret) == text  # exactly the value
    assert session.unmask(masked) == text


NUMBERS = [
    ("Sam's Visa card is 4111 1111 1111 1111, expiring 09/27.", "4111 1111 1111 1111"),
    ("card 4111-1111-1111-1111", "4111-1111-1111-1111"),
    ("Mastercard 5555555555554444 on file", "5555555555554444"),
    ("Mastercard 2223 0000 4840 0011 (2-series)", "2223 0000 4840 0011"),
    ("Company Amex: 3782 822463 10005", "3782 822463 10005"),
    ("Discover 6011111111111117", "6011111111111117"),
    ("JCB 3530111333300000", "3530111333300000"),
    ("Visa 4222222222222 (13 digits)", "4222222222222"),
    ("Dana's SSN is 536-22-1234; keep it out of emails.", "536-22-1234"),
    ("social security number: 536 22 1234", "536 22 1234"),
    ("SSN 536221234", "536221234"),
    ("Priya's National Insurance number is JG 10 37 59 A.", "JG 10 37 59 A"),
    ("NINO AB123456C", "AB123456C"),
    ("Rent goes to IBAN GB82 WEST 1234 5698 7654 32 on the 1st.", "GB82 WEST 1234 5698 7654 32"),
    ("Refunds: DE89370400440532013000 (Sam's account)", "DE89370400440532013000"),
    ("IBAN FR14 2004 1010 0505 0001 3M02 606 EUR", "FR14 2004 1010 0505 0001 3M02 606"),
    ("NL91ABNA0417164300.", "NL91ABNA0417164300"),
]


@pytest.mark.parametrize(("text", "secret"), NUMBERS)
def test_cards_and_national_ids_are_masked(text: str, secret: str) -> None:
    masked, session = mask_text(text)
    assert masked.replace("[[SECRET_1]]", secret) == text and secret not in masked
    assert session.unmask(masked) == text


def test_two_ibans_in_a_row_are_two_secrets() -> None:
    masked, _ = mask_text("GB82 WEST 1234 5698 7654 32 DE89 3704 0044 0532 0130 00")
    assert masked == "[[SECRET_1]] [[SECRET_2]]"


@pytest.mark.parametrize(
    "text",
    [
        # Product names and words about a password, not one.
        "Sam's password manager is 1Password",  # a product: "manager" is what "is" states
        "The password for the VPN is in 1Password.",
        "The password for the VPN was changed yesterday",
        "The password for the VPN expired.",
        "The VPN password is the same as the wifi one",
        "the pw for the NAS is written on the box",
        "the email pw is weak",
        "PW is short for password",
        "The email password reset link expired",
        "le mot de passe est expiré",
        "Le mot de passe du wifi est sur le frigo.",
        "Mon code PIN est oublié",
        # Slashes that pair no login with a password.
        "The flight is 2 / 3 full",
        "meeting at 10/11",
        "from 9/5 to 12/6, then 3/4 of the team is away",
        "use and/or, TCP/IP, read/write",
        "The router admin / owner is Sam",
        "login with Google / Facebook",
        "login / logout buttons",
        "user / password auth is enabled",
        "credentials: see the vault / 1Password",
        "the database schema / migration2024 plan",
        "server web01 / 1024MB RAM",
        "see server docs/setup2 for more",
        "v2.1 / v2.2 release",
        "latency p95 / p99 is 250ms / 400ms",
        # Numbers that are no card, SSN, NI number or IBAN.
        "Order 1234 5678 9012 3456 shipped",  # fails Luhn
        "order #4111111111111112",  # fails Luhn
        "ticket 1234567890123452 passes Luhn but names no card issuer",
        "Call me at +1 415 555 2671 or +44 20 7946 0958 or 06 12 34 56 78",
        "Her mobile is 07700 900123.",
        "event at 1716400000123 ms",
        "Released 2024-05-01; build 20240501.3",
        "ISBN 978-3-16-148410-0",
        "Tracking number 1Z999AA10123456784",
        "SSN 000-12-3456, 666-12-3456 and 912-12-3456 are never issued",
        "The NI number example QQ 12 34 56 C is not real",
        "GB82 WEST 1234 5698 7654 33 has a wrong check digit",
        "Total 4,111,111,111,111,111 units",
    ],
)
def test_ordinary_words_and_numbers_are_left_alone(text: str) -> None:
    assert find_secrets(text) == []


def test_checksums() -> None:
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert luhn_valid("378282246310005") and luhn_valid("0")
    assert iban_valid("GB82WEST12345698765432") and iban_valid("FR1420041010050500013M02606")
    assert not iban_valid("GB82WEST12345698765433")
