"""The calibrated-similarity map (``memfold.embed.calibration``): monotone, invertible,
exact at its anchors, NaN-safe, and the identity for a model never measured.

No bench-data is read: the anchors are checked as a map, not re-measured.
"""

from __future__ import annotations

import math
from itertools import pairwise

import pytest

from memfold.embed.calibration import ANCHORS, IDENTITY, SimilarityScale, scale_for
from memfold.embed.local import MODEL_ID

BUNDLED = scale_for(MODEL_ID)
SCALES = [BUNDLED, IDENTITY, SimilarityScale("made-up", ((0.0, 0.0), (0.4, 0.7), (1.0, 1.0)))]
# Every 0.001 over [-1, 1.1], plus values just beside each anchor and the ends.
GRID = [i / 1000 for i in range(-1000, 1101)]


def _near(scale: SimilarityScale, coordinate: int) -> list[float]:
    out = []
    for point in scale.anchors:
        x = point[coordinate]
        out += [math.nextafter(x, -math.inf), x, math.nextafter(x, math.inf)]
    return out


def test_the_bundled_model_has_measured_anchors() -> None:
    assert MODEL_ID in ANCHORS
    assert BUNDLED.model == MODEL_ID
    assert not BUNDLED.is_identity
    raws = dict((cal, raw) for raw, cal in BUNDLED.anchors)
    # The seeds' 0.90 and 0.70 land below themselves on MiniLM, in that order.
    assert 0.0 < raws[0.70] < raws[0.90] < 0.90


@pytest.mark.parametrize("scale", SCALES, ids=lambda s: s.model)
def test_anchors_map_exactly_both_ways(scale: SimilarityScale) -> None:
    for raw, cal in scale.anchors:
        assert scale.calibrate(raw) == cal
        assert scale.to_raw(cal) == raw


@pytest.mark.parametrize("scale", SCALES, ids=lambda s: s.model)
def test_monotone_both_ways(scale: SimilarityScale) -> None:
    for method, coordinate in ((scale.calibrate, 0), (scale.to_raw, 1)):
        xs = sorted({*GRID, *_near(scale, coordinate)})
        ys = [method(x) for x in xs]
        # Non-decreasing to the last bit, strictly increasing over any visible step.
        assert all(a <= b for a, b in pairwise(ys))
        assert all(b - a > 0 for a, b in zip(ys[::10], ys[10::10], strict=False))


@pytest.mark.parametrize("scale", SCALES, ids=lambda s: s.model)
def test_round_trip(scale: SimilarityScale) -> None:
    for x in GRID:
        assert scale.to_raw(scale.calibrate(x)) == pytest.approx(x, abs=1e-12)
        assert scale.calibrate(scale.to_raw(x)) == pytest.approx(x, abs=1e-12)


def test_linear_between_anchors() -> None:
    (r0, c0), (r1, c1) = BUNDLED.anchors[1], BUNDLED.anchors[2]
    middle = BUNDLED.calibrate((r0 + r1) / 2)
    assert middle == pytest.approx((c0 + c1) / 2, abs=1e-12)


def test_identity_outside_zero_one() -> None:
    for x in (-1.0, -0.3, -1e-9, 1.0 + 1e-7, 1.5):
        assert BUNDLED.calibrate(x) == x
        assert BUNDLED.to_raw(x) == x


def test_restatement_cosines_rise_and_floors_fall() -> None:
    """What the map is for on MiniLM: a raw cosine under 1 calibrates higher, so a
    calibrated threshold asks for a lower raw cosine."""
    for x in (0.3, 0.664, 0.75, 0.803, 0.85, 0.95):
        assert BUNDLED.calibrate(x) > x
        assert BUNDLED.to_raw(x) < x


@pytest.mark.parametrize("scale", SCALES, ids=lambda s: s.model)
def test_nan_stays_nan(scale: SimilarityScale) -> None:
    assert math.isnan(scale.calibrate(math.nan))
    assert math.isnan(scale.to_raw(math.nan))


@pytest.mark.parametrize("name", ["openai:text-embedding-3-small", "", "all-MiniLM-L6-v2"])
def test_unknown_models_get_identity(name: str) -> None:
    scale = scale_for(name)
    assert scale is IDENTITY
    assert scale.is_identity
    for x in (0.0, 0.35, 0.7, 0.82, 0.9, 1.0):
        assert scale.calibrate(x) == x
        assert scale.to_raw(x) == x


@pytest.mark.parametrize(
    "anchors",
    [
        ((0.0, 0.0),),
        ((0.1, 0.0), (1.0, 1.0)),
        ((0.0, 0.0), (0.9, 1.0)),
        ((0.0, 0.0), (0.8, 0.9), (0.7, 0.95), (1.0, 1.0)),  # raw goes back
        ((0.0, 0.0), (0.7, 0.9), (0.8, 0.9), (1.0, 1.0)),  # flat: not invertible
        ((0.0, 0.0), (math.nan, 0.5), (1.0, 1.0)),
    ],
)
def test_bad_anchors_are_refused(anchors: tuple[tuple[float, float], ...]) -> None:
    with pytest.raises(ValueError):
        SimilarityScale("bad", anchors)


def test_frozen() -> None:
    with pytest.raises(AttributeError):
        BUNDLED.model = "other"  # type: ignore[misc]
