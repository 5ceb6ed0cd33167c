"""Export never destroys a store and is all or nothing; import refuses bad values and
dangling references, naming the line, and imports nothing (or, with skip_bad, only
what does not depend on a bad line)."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from memfold import ImportFormatError, InvalidInput, Memory
from memfold.cli import main
from memfold.embed.local import LocalEmbedder
from memfold.store.sqlite.connection import SQLITE_HEADER


def files(folder: Path) -> dict[str, bytes]:
    """The folder's files, less the store's own (its -shm changes on every read)."""
    return {
        p.name: p.read_bytes()
        for p in folder.iterdir()
        if p.is_file() and not p.name.startswith("store.db")
    }


@pytest.fixture
def store(tmp_path: Path, embedder: LocalEmbedder) -> Memory:
    mem = Memory(tmp_path / "store.db", embedder=embedder, consolidate="off")
    mem.add("Sam lives in Lyon", user_id="sam")
    mem.add("Sam has a cat named Tom", user_id="sam")
    return mem


def assert_store_intact(mem: Memory) -> None:
    assert mem.path.read_bytes()[:16] == SQLITE_HEADER
    assert mem.store.count_memories() == 2
    assert mem.search("Lyon", user_id="sam")[0].memory.text == "Sam lives in Lyon"


# export -----------------------------------------------------------------------------
def test_export_refuses_the_open_store(store: Memory, tmp_path: Path) -> None:
    link = tmp_path / "alias.db"
    link.symlink_to(store.path)
    hard = tmp_path / "hard.db"
    os.link(store.path, hard)
    relative = Path(os.path.relpath(store.path))
    for target in (store.path, str(store.path), link, hard, relative):
        with pytest.raises(InvalidInput, match="is the open store"):
            store.export(target)
    with pytest.raises(InvalidInput, match="is the open store"):
        store.export(Path(str(store.path) + "-wal"))
    assert_store_intact(store)
    store.close()


def test_export_refuses_any_sqlite_file(
    store: Memory, tmp_path: Path, embedder: LocalEmbedder
) -> None:
    other_path = tmp_path / "other.db"
    with Memory(other_path, embedder=embedder, consolidate="off") as other:
        other.add("another store's memory", user_id="x")
    before = other_path.read_bytes()
    with pytest.raises(InvalidInput, match="is a SQLite database"):
        store.export(other_path)
    assert other_path.read_bytes() == before
    store.close()


def test_export_refuses_a_folder_or_a_missing_folder(store: Memory, tmp_path: Path) -> None:
    before = files(tmp_path)
    with pytest.raises(InvalidInput, match="is a folder"):
        store.export(tmp_path)
    with pytest.raises(InvalidInput, match="does not exist"):
        store.export(tmp_path / "missing" / "out.jsonl")
    assert not (tmp_path / "missing").exists() and files(tmp_path) == before
    store.close()


def test_a_failed_export_leaves_the_previous_file_and_no_temporary(
    store: Memory, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    assert store.export(out) == 2
    out.chmod(0o640)
    previous = out.read_bytes()
    store.add("Sam moved to Berlin", user_id="sam")

    def crash(_: int) -> None:
        raise RuntimeError("disk gone")

    before = files(tmp_path)
    with pytest.raises(RuntimeError, match="disk gone"):
        store.export(out, progress=crash)
    assert files(tmp_path) == before  # no half-written export, no temporary file left
    assert store.export(out) == 3  # a complete export replaces it, keeping its mode
    assert len(out.read_text().splitlines()) == 4 and out.read_bytes() != previous
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    store.close()


def test_cli_export_onto_its_own_store_is_refused(
    capsys: pytest.CaptureFixture[str], store: Memory
) -> None:
    store.close()
    with pytest.raises(SystemExit) as info:
        main(["export", str(store.path), "--path", str(store.path)])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert [x for x in err.splitlines() if x.strip()] == [
        f"error: export target {store.path} is the open store; refusing to overwrite it"
    ]
    with Memory(store.path, embedder=store.ctx.embedder, consolidate="off") as again:
        assert_store_intact(again)


# import -----------------------------------------------------------------------------
def mem_line(mid: str, **extra: object) -> str:
    return json.dumps({"id": mid, "text": f"memory {mid}", "user_id": "u", **extra})


def link_line(src: str, dst: str, kind: str = "related") -> str:
    return json.dumps({"type": "link", "src": src, "dst": dst, "kind": kind, "weight": 1.0})


NAN_VECTOR = base64.b64encode(np.array([np.nan, 1.0], dtype=np.float32).tobytes()).decode()


@pytest.mark.parametrize(
    ("second", "message"),
    [
        (mem_line("m2", importance=1.5), "importance must be between 0 and 1"),
        (mem_line("m2", importance=-0.1), "importance must be between 0 and 1"),
        ('{"id": "m2", "text": "t", "user_id": "u", "importance": NaN}', "NaN is not a number"),
        ('{"id": "m2", "text": "t", "user_id": "u", "stability": Infinity}', "Infinity"),
        ('{"id": "m2", "text": "t", "user_id": "u", "metadata": {"w": -Infinity}}', "Infinity"),
        ('{"id": "m2", "text": "t", "user_id": "u", "importance": 1e999}', "out of range"),
        (
            mem_line("m2", embedding_b64=NAN_VECTOR, embedding_model="other"),
            "NaN or infinity",
        ),
        (mem_line(""), "id must be a non-empty string"),
        (mem_line("   "), "id must be a non-empty string"),
        ('{"id": "m2", "text": "no scope"}', "needs a scope"),
        (mem_line("m1"), "duplicate id 'm1' \\(first on line 1\\)"),
        (mem_line("m2", superseded_by="ghost"), "superseded_by 'ghost' names no memory"),
        (mem_line("m2", superseded_by="m2"), "names the memory itself"),
        (link_line("m1", "ghost"), "link dst 'ghost' names no memory"),
        (link_line("ghost", "m1"), "link src 'ghost' names no memory"),
        (link_line("m1", "m1", kind="friendship"), "unknown link kind"),
        (link_line("", "m1"), "link src must be a non-empty string"),
    ],
)
def test_bad_import_line_is_named_and_imports_nothing(
    mem_off: Memory, tmp_path: Path, second: str, message: str
) -> None:
    file = tmp_path / "in.jsonl"
    file.write_text(mem_line("m1") + "\n" + second + "\n")
    with pytest.raises(ImportFormatError, match=f"line 2: .*{message}") as info:
        mem_off.import_(file)
    assert info.value.line == 2
    assert mem_off.store.count_memories() == 0 and mem_off.store.links_for(["m1"]) == []


def test_references_to_the_store_or_a_later_line_are_fine(mem_off: Memory, tmp_path: Path) -> None:
    old = mem_off.add("Sam lives in Lyon", user_id="u").memory.id
    file = tmp_path / "in.jsonl"
    lines = [
        mem_line("m1", superseded_by="m2", status="superseded"),  # m2 comes later
        mem_line("m2"),
        link_line("m2", old, kind="contradicts"),
    ]
    file.write_text("\n".join(lines) + "\n")
    report = mem_off.import_(file)
    assert (report.imported, report.links, report.bad_lines) == (2, 1, [])
    assert mem_off.get("m1").superseded_by == "m2"
    assert mem_off.store.links_for(["m2"])[0].dst == old


def test_skip_bad_skips_bad_lines_and_what_depends_on_them(mem_off: Memory, tmp_path: Path) -> None:
    lines = [
        mem_line("m1"),  # 1 good
        mem_line("m2", importance=2.0),  # 2 bad
        mem_line("m3", superseded_by="m2", status="superseded"),  # 3 needs m2: skipped
        link_line("m1", "m3"),  # 4 needs m3: skipped
        link_line("m1", "m4"),  # 5 good (m4 below)
        mem_line("m4"),  # 6 good
        mem_line("m1"),  # 7 duplicate of line 1
        link_line("m4", "ghost"),  # 8 dangling
    ]
    file = tmp_path / "in.jsonl"
    file.write_text("\n".join(lines) + "\n")
    with pytest.raises(ImportFormatError) as info:
        mem_off.import_(file)
    assert info.value.line == 2 and mem_off.store.count_memories() == 0
    report = mem_off.import_(file, skip_bad=True)
    assert [n for n, _ in report.bad_lines] == [2, 3, 4, 7, 8]
    reasons = dict(report.bad_lines)
    assert "m2" in reasons[3] and "m3" in reasons[4] and "duplicate" in reasons[7]
    assert (report.imported, report.links) == (2, 1)
    assert {m.id for m in mem_off.list(user_id="u", status=None)} == {"m1", "m4"}
