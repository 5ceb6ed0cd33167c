"""Tables of the figures: printed (rich) and written as docs/reliability.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Row = tuple[str, str]


def summary(r: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(section, what is counted, count) for every count that must be zero."""
    out: list[tuple[str, str, int]] = []
    if "kills" in r:
        t = r["kills"]["totals"]
        out += [
            ("1 SIGKILL", "acknowledged adds lost", t["lost"]),
            ("1 SIGKILL", "jobs not finished after reopen + flush()", t["unfinished_jobs"]),
            ("1 SIGKILL", "stores failing PRAGMA integrity_check", t["integrity_errors"]),
            ("1 SIGKILL", "log rows whose undo fails", t["undo_failures"]),
            ("1 SIGKILL", "memories not active after undoing every row", t["not_restored"]),
            ("1 SIGKILL", "errors reopening or flushing", t["reopen_errors"]),
        ]
    if "concurrent" in r:
        c = r["concurrent"]
        out += [
            ("2 concurrent", "acknowledged writes lost", c["lost"]),
            ("2 concurrent", "errors raised (and bad exits)", c["errors"] + c["bad_exits"]),
            ("2 concurrent", "saves with more than one applied decision", c["double_applies"]),
            ("2 concurrent", "memories superseded twice", c["superseded_twice"]),
            ("2 concurrent", "jobs not finished after flush()", c["unfinished_jobs"]),
        ]
    if "adversarial" in r:
        a = r["adversarial"]
        out += [
            ("3 adversarial judge", "applied rows breaking a rule", a["violations"]),
            ("3 adversarial judge", "exceptions escaping add() / flush()", a["exceptions_escaped"]),
            ("3 adversarial judge", "texts over max_text_chars stored", a["over_limit_stored"]),
        ]
    if "injection" in r:
        for judge, run in r["injection"].items():
            label = f"4 injection ({judge})"
            out += [
                (label, "texts planted into other memories", run["planted"]),
                (label, "destructive actions on an instruction", run["destructive"]),
            ]
    if "bad_input" in r:
        b = r["bad_input"]
        out += [
            ("5 bad input", "API: bad inputs accepted", b["api_accepted"]),
            ("5 bad input", "API: errors that are not MemfoldError", b["api_wrong_error"]),
            ("5 bad input", "REST: bad inputs accepted", b.get("rest_accepted", 0)),
            ("5 bad input", "REST: 5xx answers", b.get("rest_5xx", 0)),
            ("5 bad input", "REST: scopes broken afterwards", b.get("rest_scope_broken", 0)),
            ("5 bad input", "CLI: bad inputs accepted", b["cli_accepted"]),
            ("5 bad input", "CLI: tracebacks printed", b["cli_tracebacks"]),
            ("5 bad input", "CLI: not exit 2 with one error: line", b["cli_not_one_error_line"]),
        ]
    return out


def section_tables(r: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of each section's detail table."""
    tables: list[tuple[str, list[str], list[list[str]]]] = []
    if "kills" in r:
        keys = ["trials", "kills", "acked", "lost", "unfinished_jobs", "integrity_errors"]
        keys += ["undo_rows", "undo_failures", "not_restored", "applied", "max_recovery_s"]
        rows = [[mode, *(str(v[k]) for k in keys)] for mode, v in r["kills"]["by_mode"].items()]
        tables.append(("1. SIGKILL of writers and workers", ["mode", *keys], rows))
    if "concurrent" in r:
        c = r["concurrent"]
        keys = ["processes", "adds_each", "seconds", "acked", "lost", "errors", "bad_exits"]
        keys += ["double_applies", "double_destructive", "superseded_twice", "applied"]
        tables.append(("2. Concurrent writers, one file", keys, [[str(c[k]) for k in keys]]))
    if "adversarial" in r:
        a = r["adversarial"]
        header = ["reply kind", "requests", "decisions", "applied", "violations"]
        rows = [
            [kind, *(str(v[k]) for k in ("requests", "decisions", "applied", "violations"))]
            for kind, v in sorted(a["by_kind"].items())
        ]
        tables.append(("3. Adversarial judge: by reply kind", header, rows))
        reasons = [[k, str(v)] for k, v in sorted(a["by_reason"].items(), key=lambda kv: -kv[1])]
        tables.append(("3. Adversarial judge: oracle findings", ["reason", "rows"], reasons))
    if "injection" in r:
        keys = ["attempts", "planted", "destructive", "superseded_by_carrier", "escaped"]
        rows = [
            [
                judge,
                *(str(run[k]) for k in keys),
                _counts(run["proposals"]),
                _counts(run["applied"]),
            ]
            for judge, run in r["injection"].items()
        ]
        header = ["judge", *keys, "judge proposed", "logged actions"]
        tables.append(("4. Injected instructions", header, rows))
    if "bad_input" in r:
        rows = [
            [
                c["surface"],
                c["name"],
                "ACCEPTED" if c["accepted"] else "refused",
                "yes" if c["changed"] else "",
                _cli_flags(c),
                c["detail"].replace("|", "/")[:90],
            ]
            for c in r["bad_input"]["cases"]
        ]
        header = ["surface", "input", "result", "store changed", "problems", "detail"]
        tables.append(("5. Bad input", header, rows))
    return tables


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(d.items())) or "-"


def _cli_flags(c: dict[str, Any]) -> str:
    flags = []
    if c["surface"] == "rest":
        status = c.get("http_status") or 0
        if not 0 < status < 500:
            flags.append(f"HTTP {status}" if status else "no answer")
        elif c.get("wrong_error"):
            flags.append("not the error shape")
        if c.get("scope_broken"):
            flags.append("scope broken afterwards")
    elif c.get("wrong_error"):
        flags.append("not a MemfoldError")
    if c.get("traceback"):
        flags.append("traceback")
    if c["surface"] == "cli" and not c.get("one_error_line"):
        flags.append("not one error: line")
    return ", ".join(flags)


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def cell(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
