"""A conversation of one session (seed 002): an append-only transcript, the sliding
window built on demand, and the append-only session summary.

``messages(user_message)`` is the one place where summaries are written, lazily (no
timer): once more than ``conversation.threshold_messages`` messages are not yet
summarized, all but the last ``keep_recent`` are summarized into a new part (the LLM's
summary when one is configured and passes the check, else the extractive digest,
policy/conversation_summary.py); once the parts shown pass ``summary_max_chars``, a
meta part compresses them (the parts are kept). The transcript itself is never changed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memfold.engine.context import Context
from memfold.engine.conversation import window as win
from memfold.engine.conversation.summarize import (
    SummaryCall,
    Written,
    llm_summary_call,
    summarize,
)
from memfold.errors import InvalidInput
from memfold.model import Scope, SearchHit
from memfold.policy.conversation_summary import compress_parts, digest
from memfold.policy.messages import Message, clean_message, clean_messages
from memfold.policy.redact import log_reason
from memfold.policy.summary_parts import NewSummaryPart, PartKind, SummaryPart
from memfold.policy.validate import (
    clean_int,
    clean_path,
    clean_scope,
    clean_string,
    clean_text,
)

log = logging.getLogger("memfold.conversation")

_MAX_K = 10_000  # k_memories: the most memories a search returns (policy/validate.clean_k)

# (query, scope of the user/agent, k) -> hits: Memory.search over that scope.
SearchFn = Callable[[str, Scope, int], list[SearchHit]]


class Conversation:
    """One session's transcript and window; see the module docstring."""

    def __init__(
        self, ctx: Context, scope: Scope, search: SearchFn, summary_call: SummaryCall | None
    ) -> None:
        if scope.session_id is None:
            raise InvalidInput("a conversation needs a session_id")
        self.ctx = ctx
        self.scope = scope
        self.key = scope.key()
        self._search = search
        self._call = summary_call
        # The last summary or meta part written and where its text came from.
        self.last_written: Written | None = None

    @property
    def session_id(self) -> str:
        return str(self.scope.session_id)

    @property
    def _cfg(self) -> Any:
        return self.ctx.settings.conversation

    @property
    def _max_chars(self) -> int:
        return self.ctx.settings.store.max_text_chars

    @property
    def _metadata_limits(self) -> tuple[int, int]:
        cfg = self.ctx.settings.store
        return cfg.max_metadata_depth, cfg.max_metadata_bytes

    # the transcript -------------------------------------------------------------
    def append(self, role: str, content: str, *, created_at: object = None, **meta: Any) -> Message:
        """Append one message (``meta``: its metadata); checked before it is written."""
        depth, size = self._metadata_limits
        msg = clean_message(
            role,
            content,
            max_chars=self._max_chars,
            created_at=created_at,
            metadata=meta,
            max_metadata_depth=depth,
            max_metadata_bytes=size,
        )
        return self.ctx.store.append_messages(self.key, [msg], self.ctx.clock())[0]

    def extend(self, items: object) -> list[Message]:
        """Append ``[{"role": ..., "content": ...}, ...]``: all checked first, then written
        in one transaction (any bad message: nothing written)."""
        depth, size = self._metadata_limits
        msgs = clean_messages(
            items, max_chars=self._max_chars, max_metadata_depth=depth, max_metadata_bytes=size
        )
        return self.ctx.store.append_messages(self.key, msgs, self.ctx.clock())

    def transcript(self, start: int = 0, end: int | None = None) -> list[Message]:
        """The messages at positions ``start`` .. ``end`` - 1 (None: to the last)."""
        first = clean_int(start, "start")
        last = None if end is None else clean_int(end, "end")
        return self.ctx.store.messages(self.key, first, last)

    def __len__(self) -> int:
        return self.ctx.store.count_messages(self.key)

    def export(self, path: str | Path) -> int:
        """The transcript as JSONL (one message per line, in order); the lines written."""
        target = clean_path(path, "export path")
        store_file = getattr(self.ctx.store, "path", None)
        if store_file is not None and target.resolve() == Path(store_file).resolve():
            raise InvalidInput("export would overwrite the store itself")
        if not target.parent.is_dir():
            raise InvalidInput(f"cannot export to {target}: no such folder {target.parent}")
        rows = self.transcript()
        with target.open("w", encoding="utf-8") as out:
            for m in rows:
                out.write(json.dumps(m.to_dict(), ensure_ascii=False) + "\n")
        return len(rows)

    # the summary ----------------------------------------------------------------
    def summary(self) -> list[SummaryPart]:
        """Every part of the session summary, in the order appended (none is removed)."""
        return self.ctx.store.summary_parts(self.key)

    def note(self, text: str) -> SummaryPart:
        """A note the agent writes itself: shown in every window, kept as written."""
        body = clean_text(text, max_chars=self._cfg.summary_max_part_chars, what="note")
        part = NewSummaryPart(PartKind.NOTE, body)
        return self.ctx.store.append_summary_part(self.key, part, self.ctx.clock())

    def messages(
        self, user_message: str, system_prompt: str | None = None, k_memories: int | None = None
    ) -> list[win.ChatMessage]:
        """The chat messages to send now: [system: ``system_prompt`` + the session summary
        + notes + the ``k_memories`` most relevant memories of the user/agent] + the
        messages not yet summarized + ``user_message`` (not appended: append it, and the
        reply, once the model answered)."""
        text = clean_text(user_message, max_chars=self._max_chars, what="user_message")
        if system_prompt is not None:
            system_prompt = clean_string(system_prompt, "system_prompt")
        k = self._cfg.k_memories if k_memories is None else k_memories
        k = clean_int(k, "k_memories", maximum=_MAX_K)
        parts = self.summary()
        if self._call is None and not self._cfg.offline_digest:
            # Hard prune: no summary without an LLM, the last threshold_messages turns.
            first = max(win.covered_to(parts) + 1, len(self) - self._cfg.threshold_messages)
        else:
            self.summarize_due()
            parts = self.summary()
            first = win.covered_to(parts) + 1
        recent = self.transcript(first)
        system = win.system_text(system_prompt, parts, self._memories(text, k))
        return win.build_window(system, recent, text)

    def summarize_due(self) -> list[SummaryPart]:
        """Write the summary part and the meta part that are due (see the module
        docstring); the parts written."""
        cfg = self._cfg
        written: list[SummaryPart] = []
        parts = self.summary()
        segment = win.due_segment(
            len(self),
            win.covered_to(parts),
            threshold=cfg.threshold_messages,
            keep_recent=cfg.keep_recent,
        )
        if segment is not None:
            first, last = segment
            turns = self.transcript(first, last + 1)
            fallback = digest(
                [(m.role.value, m.content) for m in turns],
                first=first,
                last=last,
                max_chars=cfg.summary_max_part_chars,
                line_max_chars=cfg.digest_line_max_chars,
            )
            lines = [f"{m.role.value}: {m.content}" for m in turns]
            done = self._write(PartKind.SUMMARY, lines, fallback, first, last, ())
            written.append(done)
            parts = [*parts, done]
        older = win.due_meta(parts, cfg.summary_max_chars)
        if older:
            texts = [p.text for p in older]
            fallback = compress_parts(
                texts,
                max_chars=cfg.summary_max_part_chars,
                line_max_chars=cfg.digest_line_max_chars,
            )
            starts = [p.covers_from for p in older if p.covers_from is not None]
            ends = [p.covers_to for p in older if p.covers_to is not None]
            ids = tuple(p.id for p in older)
            written.append(self._write(PartKind.META, texts, fallback, min(starts), max(ends), ids))
        return written

    def _write(
        self,
        kind: PartKind,
        lines: list[str],
        fallback: str,
        first: int,
        last: int,
        replaces: tuple[str, ...],
    ) -> SummaryPart:
        result = summarize(lines, fallback, self._call, self._cfg)
        if result.source != "llm" and self._call is not None:
            log.warning(
                "session %s: %s part %d-%d from the extract: %s",
                self.session_id,
                kind.value,
                first,
                last,
                log_reason(result.reason),
            )
        self.last_written = result
        part = NewSummaryPart(kind, result.text, first, last, replaces)
        with self.ctx.store.transaction():
            # Another process may have written the same part while the LLM wrote this
            # one (the call runs outside any transaction): then theirs stands.
            parts = self.summary()
            if win.already_written(parts, part):
                return parts[-1]
            return self.ctx.store.append_summary_part(self.key, part, self.ctx.clock())

    def _memories(self, query: str, k: int) -> list[str]:
        if k == 0:
            return []
        owner = Scope(self.scope.user_id, self.scope.agent_id, None)
        try:
            return [hit.memory.text for hit in self._search(query, owner, k)]
        except Exception as exc:  # the window goes on without memories
            log.warning("session %s: memory search failed: %s", self.session_id, exc)
            return []


def open_conversation(
    ctx: Context,
    session_id: object,
    user_id: object,
    agent_id: object,
    search: SearchFn,
) -> Conversation:
    """The conversation of ``session_id`` under ``user_id``/``agent_id`` (neither: the
    default user, as ``add`` does). The LLM summary is used when ``llm`` is configured."""
    if not isinstance(session_id, str):
        raise InvalidInput(f"session_id must be a string, got {type(session_id).__name__}")
    owner = clean_scope(user_id, agent_id, None, default_user_id=ctx.settings.store.default_user_id)
    scope = clean_scope(owner.user_id, owner.agent_id, session_id)
    llm = ctx.settings.llm
    call = llm_summary_call(llm, ctx.store) if llm.configured else None
    return Conversation(ctx, scope, search, call)
