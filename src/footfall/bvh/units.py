"""Guessing a BVH file's length unit and up axis from the size and shape of its skeleton.

BVH files carry no unit and no up axis. A standing adult is 1.4–2.0 m tall, so the unit is the
one (metres, centimetres, inches or CMU units) that puts the body's height in that range (or
nearest to it, within a factor 1.25); otherwise the body is scaled to 1.7 m. The up axis is
the body's long axis: Z when the body is taller along Z than along Y.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat

#: Metres per file unit of the units ``scale="auto"`` recognises.
UNIT_SCALES: dict[str, float] = {"m": 1.0, "cm": 0.01, "inch": 0.0254, "cmu": 0.056444}
#: Heights (metres) accepted as a standing adult.
STANDING_HEIGHT_RANGE: tuple[float, float] = (1.4, 2.0)
#: Height (metres) a body is scaled to when no known unit fits.
FALLBACK_HEIGHT = 1.7

_AXIS_INDEX = {"x": 0, "y": 1, "z": 2}
# Extents within this ratio count as a tie between Y and Z (arms spread along the other axis).
_TIE_RATIO = 1.15
# A unit whose height misses the adult range by at most this factor is still taken.
_NEAR_FACTOR = 1.25

#: Rotation taking a Z-up world to footfall's Y-up world (−90° about X: +Z → +Y, −Y → +Z).
Z_UP_TO_Y_UP = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), -np.pi / 2)


def body_height(points: ArrayLike, up: str) -> float:
    """Extent of ``points (N, 3)`` along the ``up`` axis ("y" or "z"), in the points' unit."""
    points = np.asarray(points, dtype=np.float64)
    column = points[:, _AXIS_INDEX[up]]
    return float(column.max() - column.min()) if column.size else 0.0


def detect_up(points: ArrayLike) -> str:
    """The body's long axis among Y and Z for a pose's points ``(N, 3)``: "y" or "z".

    When the two extents are close (a T-pose with the arms spread along the other axis),
    the vertical axis is told apart by its lack of left/right mirror symmetry.
    """
    points = np.asarray(points, dtype=np.float64)
    extent = points.max(axis=0) - points.min(axis=0)
    if extent[2] > _TIE_RATIO * extent[1]:
        return "z"
    if extent[1] > _TIE_RATIO * extent[2]:
        return "y"
    return "z" if _asymmetry(points[:, 2]) > _asymmetry(points[:, 1]) else "y"


def _asymmetry(values: np.ndarray) -> float:
    """How far ``values (N,)`` are from mirror-symmetric about their mid-range, 0 = symmetric."""
    ordered = np.sort(values)
    extent = ordered[-1] - ordered[0]
    if extent <= 0:
        return 0.0
    mirrored = ordered + ordered[::-1] - (ordered[-1] + ordered[0])
    return float(np.mean(np.abs(mirrored)) / extent)


def choose_scale(height: float) -> tuple[str, float]:
    """``(unit name, metres per file unit)`` putting a body ``height`` tall in adult range.

    Tries metres, centimetres, inches and CMU units in that order. When none lands in
    1.4–2.0 m, the unit landing nearest (within a factor 1.25 of the range, e.g. a 1.3 m
    child or a CMU skeleton whose head joint sits low) is kept; otherwise returns
    ``("fitted", 1.7 / height)`` (or ``("m", 1.0)`` for a body of zero height).
    """
    low, high = STANDING_HEIGHT_RANGE
    if height <= 0 or not np.isfinite(height):
        return "m", 1.0
    distances = {}
    for unit, scale in UNIT_SCALES.items():
        metres = height * scale
        if low <= metres <= high:
            return unit, scale
        distances[unit] = abs(np.log(metres / (low if metres < low else high)))
    nearest = min(distances, key=distances.__getitem__)
    if distances[nearest] <= np.log(_NEAR_FACTOR):
        return nearest, UNIT_SCALES[nearest]
    return "fitted", FALLBACK_HEIGHT / height
