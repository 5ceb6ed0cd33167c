"""Store upkeep methods of ``Memory`` that are neither reading nor saving: statistics,
LLM usage, JSONL export and import, re-embedding, the lifecycle tick and rehydration,
and building the database's vector index. A mixin, as memory_read.py is, so memory.py
stays one screen of writing methods.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from memfold.engine import transfer
from memfold.engine.context import Context
from memfold.engine.conversation.session import Conversation, open_conversation
from memfold.engine.lifecycle.rehydrate import Rehydrated, rehydrate
from memfold.engine.lifecycle.tick import TickReport, tick
from memfold.engine.vector_index_build import VectorIndexBuilt, build_vector_index
from memfold.errors import InvalidInput
from memfold.judge.base import Judge
from memfold.memory_read import ReadMethods
from memfold.model import ConsolidateMode, JSONDict
from memfold.policy.validate import clean_path
from memfold.store.select import BackendStore

_Dicts = list[JSONDict]  # inside the class, ``list`` is not the builtin


class MaintenanceMethods(ReadMethods):
    ctx: Context
    store: BackendStore
    judge: Judge
    mode: ConsolidateMode
    url: str | None
    path: Path

    def stats(self) -> JSONDict:
        data = self.store.stats()
        data["mode"] = self.mode.value
        data["judge"] = self.judge.name
        data["embedder"] = self.ctx.embedder.model_id
        return data

    def usage(self, since: datetime | None = None) -> _Dicts:
        """LLM calls and tokens by day and task (since a datetime; None: all)."""
        if since is not None and not isinstance(since, datetime):
            raise InvalidInput(f"since must be a datetime or None, got {type(since).__name__}")
        return self.store.llm_usage(since)

    # files --------------------------------------------------------------------
    def export(self, path: str | Path, *, progress: transfer.Progress | None = None) -> int:
        """Every memory and link to a JSONL file (never onto this store or any SQLite file)."""
        store_path = None if self.url else self.path  # a PostgreSQL store is no file
        target = clean_path(path, "export path")
        return transfer.export_file(self.ctx, target, store_path=store_path, progress=progress)

    def import_(
        self,
        path: str | Path,
        *,
        skip_bad: bool = False,
        progress: transfer.Progress | None = None,
    ) -> transfer.ImportReport:
        file = clean_path(path, "import path")
        if not file.is_file():
            raise InvalidInput(f"no such file: {file}")
        return transfer.import_jsonl(self.ctx, file, skip_bad=skip_bad, progress=progress)

    def reembed(
        self, *, everything: bool = False, progress: transfer.Progress | None = None
    ) -> int:
        return transfer.reembed(self.ctx, everything=everything, progress=progress)

    # the lifecycle ----------------------------------------------------------------
    def tick(self, now: datetime | None = None) -> TickReport:
        """The lifecycle tick: TTL expiry, core promotion, cold migration, the conflict
        queue, compression of fading clusters (engine/lifecycle/tick.py)."""
        return tick(self.ctx, self.judge, now)

    def rehydrate(self, memory_id: str) -> Rehydrated:
        """A cold memory, or a summary's originals, back to the hot tier (logged)."""
        return rehydrate(self.ctx, self._resolve_id(memory_id))

    # conversations ----------------------------------------------------------------
    def conversation(
        self, session_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> Conversation:
        """The append-only transcript and sliding window of one session (README
        "Conversations"; engine/conversation/session.py)."""
        return open_conversation(
            self.ctx,
            session_id,
            user_id,
            agent_id,
            lambda q, s, k: self.search(q, user_id=s.user_id, agent_id=s.agent_id, k=k),
        )

    # the database's vector index ------------------------------------------------
    def build_vector_index(self) -> VectorIndexBuilt:
        """PostgreSQL: build pgvector's HNSW index for the embedder's dimension, so
        searches of big scopes use it (small scopes are scanned exactly either way).
        Writes wait while it builds; returns whether it was built now. SQLite:
        ``InvalidInput`` (its in-process index needs no build)."""
        return build_vector_index(self.ctx)
