"""Reciprocal rank fusion: sums, and a tie goes to the better vector rank."""

from __future__ import annotations

from memfold.engine.search import rrf_fuse


def test_scores_sum_over_lists_and_both_lists_beat_one() -> None:
    fused = dict(rrf_fuse([["a", "b"], ["b", "c"]], rrf_k=60))
    assert fused["b"] == 1 / 62 + 1 / 61
    assert max(fused, key=lambda m: fused[m]) == "b"


def test_a_tie_goes_to_the_vector_ranking_not_the_id() -> None:
    # "z" is first by meaning only, "a" first by keywords only: same fused score
    ranked = [m for m, _ in rrf_fuse([["z"], ["a"]], rrf_k=60)]
    assert ranked == ["z", "a"]
    ranked = [m for m, _ in rrf_fuse([["z", "y"], ["a", "b"]], rrf_k=60)]
    assert ranked == ["z", "a", "y", "b"]
    assert rrf_fuse([], rrf_k=60) == []
