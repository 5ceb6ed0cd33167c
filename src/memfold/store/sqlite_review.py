"""SQLite tables of batch review: consolidation queue, feedback, review runs."""

from __future__ import annotations


class ReviewTablesMixin:
    """Queue, feedback and run records (filled in by the batch review work)."""
