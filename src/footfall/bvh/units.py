"""Guessing a BVH file's length unit and up axis from the size and shape of its skeleton.

BVH files carry no unit and no up axis. The unit is the one that puts the body's height in a
standing adult's range (:func:`choose_scale`); the up axis is a humanoid's feet→head line when
it clearly lies along Y or Z (:func:`humanoid_up`), else BVH's own Y. The body's long axis is
no evidence: a dog or a snake is longer than it is tall.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat

#: Metres per file unit of the units ``scale="auto"`` recognises.
UNIT_SCALES: dict[str, float] = {"m": 1.0, "cm": 0.01, "inch": 0.0254, "cmu": 0.056444,
                                 "mm": 0.001}
#: Heights (metres) accepted as a standing adult.
STANDING_HEIGHT_RANGE: tuple[float, float] = (1.4, 2.0)
#: Height (metres) a body is scaled to when no known unit fits.
FALLBACK_HEIGHT = 1.7
#: Heights (metres) of a plausible character read in metres (a rabbit to a giant robot): a
#: file no unit puts in the adult range stays in metres when its height lands here, so a
#: file footfall wrote (always metres) reads back at its own size.
PLAUSIBLE_METRES: tuple[float, float] = (0.2, 8.0)

#: A humanoid's bottom→top vector must be this many times longer along one axis than the other.
CLEAR_RATIO = 2.0
# A unit whose height misses the adult range by at most this factor is still taken.
_NEAR_FACTOR = 1.25

#: Rotation taking a Z-up world to footfall's Y-up world (−90° about X: +Z → +Y, −Y → +Z).
Z_UP_TO_Y_UP = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), -np.pi / 2)
#: Rotation taking footfall's Y-up world to a Z-up one (+90° about X: (x, y, z) → (x, −z, y)).
Y_UP_TO_Z_UP = quat.inv(Z_UP_TO_Y_UP)


def body_height(points: ArrayLike, up: str) -> float:
    """Extent of ``points (N, 3)`` along the ``up`` axis ("y" or "z"), in the points' unit."""
    points = np.asarray(points, dtype=np.float64)
    column = points[:, "xyz".index(up)]
    return float(column.max() - column.min()) if column.size else 0.0


#: Canonical bones at the top and the bottom of a humanoid, best first.
TOP_BONES: tuple[tuple[str, ...], ...] = (("Head",), ("Neck",), ("UpperChest",), ("Chest",))
BOTTOM_BONES: tuple[tuple[str, ...], ...] = (
    ("LeftFoot", "RightFoot"), ("LeftLowerLeg", "RightLowerLeg"), ("Hips",))


def humanoid_up(rows: Mapping[str, int], poses: Sequence[ArrayLike]) -> str | None:
    """The up axis ("y" or "z") a humanoid shows in the first of ``poses`` where it is clear.

    ``rows`` maps canonical bones (Unity HumanBodyBones names: Head, LeftFoot …) to rows of
    each pose's points ``(N, 3)``; the top joints are the first of :data:`TOP_BONES` present,
    the bottom ones the first of :data:`BOTTOM_BONES` present and apart from the top. The
    bottom→top vector is the body's up; it must lie along Y or Z by a factor
    :data:`CLEAR_RATIO` over the other, else the pose (lying, bent over) says nothing. ``None``
    for a body without both, or no clear pose.
    """

    def joints(choices: tuple[tuple[str, ...], ...], exclude: set[int]) -> list[int]:
        for bones in choices:
            if all(bone in rows for bone in bones):
                found = [rows[bone] for bone in bones]
                if not exclude.intersection(found):
                    return found
        return []

    top = joints(TOP_BONES, set())
    bottom = joints(BOTTOM_BONES, set(top))
    if not (top and bottom):
        return None
    for pose in poses:
        points = np.asarray(pose, dtype=np.float64)
        vector = points[top].mean(axis=0) - points[bottom].mean(axis=0)
        along_y, along_z = abs(vector[1]), abs(vector[2])
        if along_z > CLEAR_RATIO * along_y:
            return "z"
        if along_y > CLEAR_RATIO * along_z:
            return "y"
    return None


def choose_scale(height: float) -> tuple[str, float]:
    """``(unit name, metres per file unit)`` putting a body ``height`` tall in adult range.

    Tries metres, centimetres, inches, CMU units and millimetres in that order (their adult
    ranges do not overlap). When none lands in 1.4–2.0 m, the unit landing nearest (within a
    factor 1.25 of the range, e.g. a 1.3 m child or a CMU skeleton whose head joint sits low)
    is kept; else metres when the height in metres is a plausible character's
    (:data:`PLAUSIBLE_METRES`: a 0.3 m rabbit, a 5 m robot, as footfall writes them); otherwise
    returns ``("fitted", 1.7 / height)`` (or ``("m", 1.0)`` for a body of zero height).
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
    if PLAUSIBLE_METRES[0] <= height <= PLAUSIBLE_METRES[1]:
        return "m", UNIT_SCALES["m"]
    return "fitted", FALLBACK_HEIGHT / height
