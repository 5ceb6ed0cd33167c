"""Conversations (seed 002, seed 000 section 7): append-only transcripts, the sliding
window with its append-only summary, and extraction of memories from messages."""
