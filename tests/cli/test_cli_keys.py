"""``memfold keys create|list|revoke`` through the real entry point on a real file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.support import Cli
from memfold.engine.keys import verify_key
from memfold.store.sqlite import SQLiteStore


def _verifies(path: Path, token: str) -> bool:
    store = SQLiteStore(path, read_only=True)
    try:
        return verify_key(store, token) is not None
    finally:
        store.close()


def test_create_prints_only_the_token_and_it_verifies(
    cli: Cli, tmp_path: Path, config_file: Path
) -> None:
    path = tmp_path / "keys.db"
    made = cli("keys", "create", "-p", str(path), "--role", "write", "--user-id", "sam")
    assert made.code == 0, made.err
    token = made.out.strip()
    assert made.out == token + "\n" and token.startswith("mf_")
    assert "shown only now" in made.err and token not in made.err
    assert _verifies(path, token)


def test_list_hides_tokens_and_hashes(cli: Cli, tmp_path: Path, config_file: Path) -> None:
    path = str(tmp_path / "keys.db")
    write = cli("keys", "create", "-p", path, "--role", "write", "--user-id", "sam",
                "--agent-id", "bot", "--label", "ci runner").out.strip()  # fmt: skip
    admin = cli("keys", "create", "-p", path, "--role", "admin").out.strip()
    table = cli("keys", "list", "-p", path, columns=160)
    assert table.code == 0
    assert write[:11] in table.out and admin[:11] in table.out
    assert "user 'sam', agent 'bot'" in table.out and "ci runner" in table.out
    listed = json.loads(cli("keys", "list", "-p", path, "--json").out)
    assert [k["prefix"] for k in listed] == [write[:11], admin[:11]]
    store = SQLiteStore(Path(path), read_only=True)
    hashes = [str(r[0]) for r in store._q("SELECT secret_hash FROM api_keys")]
    store.close()
    for shown in (table.out, json.dumps(listed)):
        for secret in (write, admin, *hashes):
            assert secret not in shown
            assert secret[11:30] not in shown  # nor any piece past the public prefix


def test_revoke_then_the_token_is_refused(cli: Cli, tmp_path: Path, config_file: Path) -> None:
    path = tmp_path / "keys.db"
    token = cli("keys", "create", "-p", str(path), "--role", "read", "--user-id", "sam").out.strip()
    listed = json.loads(cli("keys", "list", "-p", str(path), "--json").out)
    revoked = cli("keys", "revoke", "-p", str(path), token[:11])
    assert revoked.code == 0 and listed[0]["id"] in revoked.out
    assert not _verifies(path, token)
    assert cli("keys", "list", "-p", str(path), "--json").out.strip() == "[]"
    shown = json.loads(cli("keys", "list", "-p", str(path), "--all", "--json").out)
    assert shown[0]["revoked_at"] is not None
    unknown = cli("keys", "revoke", "-p", str(path), "mf_unknown0")
    assert (unknown.code, unknown.err_lines) == (2, ["error: no API key 'mf_unknown0'"])


def test_bad_input_exits_2_and_writes_nothing(cli: Cli, tmp_path: Path, config_file: Path) -> None:
    path = tmp_path / "keys.db"
    for args, message in (
        (("--role", "owner", "--user-id", "sam"), "'owner' is not one of 'read', 'write', 'admin'"),
        (("--role", "read"), "a read key needs a user_id"),
        (("--role", "admin", "--agent-id", "bot"), "agent_id needs a user_id"),
    ):
        result = cli("keys", "create", "-p", str(path), *args)
        assert (result.code, result.out) == (2, "")
        assert len(result.err_lines) == 1 and message in result.err
    assert not path.exists()  # no store file was created
    cli("keys", "create", "-p", str(path), "--role", "admin")
    bad = cli("keys", "create", "-p", str(path), "--role", "bogus", "--user-id", "sam")
    assert bad.code == 2
    assert len(json.loads(cli("keys", "list", "-p", str(path), "--json").out)) == 1
    missing = cli("keys", "list", "-p", str(tmp_path / "none.db"))
    assert missing.code == 2 and "does not exist" in missing.err


def test_key_commands_load_no_embedding_model(
    cli: Cli, tmp_path: Path, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("the embedding model was loaded")

    monkeypatch.setattr("memfold.memory.make_embedder", refuse)  # what LazyEmbedder builds with
    path = str(tmp_path / "keys.db")
    token = cli("keys", "create", "-p", path, "--role", "admin").out.strip()
    assert cli("keys", "list", "-p", path).code == 0
    assert cli("keys", "revoke", "-p", path, token[:11]).code == 0
