"""How a retargeted body moves compared with its source, measured on plain arrays (issue 35).

Every function here takes positions / rotations already read from a file (the source clip's own
joints and End Sites, the written output's joints or skinned mesh) and knows nothing of the
retargeter. Used by ``tools/feet_table.py`` and the tests; checked on synthetic motion whose
answer is known in ``tests/test_motion_measures.py``.

Conventions: metres, seconds, Y up, quaternions ``(..., 4)`` w, x, y, z; angles returned in
degrees (they go straight into tables).
"""

from __future__ import annotations

import numpy as np

from footfall import quat
from footfall.footing.runs import segments

STANCE_BAND = 0.02  # metres above a foot's low level that still count as standing on it
STANCE_SPEED = 0.3  # metres per second of horizontal speed below which a low foot stands
PATCH_BAND = 0.01  # metres: the contact patch is the points this close to the lowest one
MIN_SWING = 0.1  # seconds: a shorter run of free frames is no swing


def largest_turn(world: np.ndarray) -> float:
    """Largest turn (degrees) of a body between two consecutive frames: ``world (F, ..., 4)``
    world rotations (several bodies side by side allowed); NaN with fewer than two frames."""
    world = np.asarray(world, dtype=np.float64)
    if len(world) < 2:
        return float("nan")
    return float(np.degrees(quat.angle_between(world[1:], world[:-1])).max())


def lowest_points(points: np.ndarray) -> np.ndarray:
    """``(F, 3)`` the lowest of ``points (F, P, 3)`` in each frame (NaN points ignored)."""
    y = np.where(np.isfinite(points[..., 1]), points[..., 1], np.inf)
    return np.take_along_axis(points, y.argmin(axis=1)[:, None, None], axis=1)[:, 0]


def stance(lowest: np.ndarray, fps: float, band: float = STANCE_BAND,
           speed: float = STANCE_SPEED) -> np.ndarray:
    """``(F,)`` whether a foot stands: its lowest point ``lowest (F, 3)`` slower than ``speed``
    horizontally (the speed of a frame: from the frame before; the first frame takes the
    second's) and within ``band`` above its low level — the median height of that point over
    its slow frames, the height it rests at (a percentile of all frames would be the dip of
    the toe at push-off on a joints-only foot, a few centimetres below its flat stance)."""
    lowest = np.asarray(lowest, dtype=np.float64)
    moving = np.zeros(len(lowest))
    if len(lowest) > 1:
        moving[1:] = np.linalg.norm(np.diff(lowest[:, [0, 2]], axis=0), axis=-1) * fps
        moving[0] = moving[1]
    slow = moving < speed
    if not slow.any():
        return slow
    level = np.median(lowest[slow, 1])
    return (lowest[:, 1] - level < band) & slow


def patch_steps(points: np.ndarray, band: float = PATCH_BAND) -> np.ndarray:
    """``(F - 1, 2)`` horizontal (x, z) step of a contact patch from each frame to the next,
    metres: the points of ``points (F, P, 3)`` within ``band`` of the lowest in frame f,
    followed point by point into frame f + 1, their mean displacement. A patch that rolls
    (heel → toe) changes its points from frame to frame without moving them: no step."""
    points = np.asarray(points, dtype=np.float64)
    y = points[..., 1]
    low = np.nanmin(y, axis=1, keepdims=True)
    patch = (y[:-1] <= low[:-1] + band) & np.isfinite(y[:-1])  # (F - 1, P)
    step = points[1:][..., [0, 2]] - points[:-1][..., [0, 2]]  # (F - 1, P, 2)
    step = np.where(patch[..., None], np.nan_to_num(step), 0.0)
    return step.sum(axis=1) / np.maximum(patch.sum(axis=1), 1)[:, None]


def slide(points: np.ndarray, planted: np.ndarray, fps: float, band: float = PATCH_BAND
          ) -> tuple[float, float]:
    """How a planted foot's contact patch slides: the median of its horizontal speed (m/s) over
    the steps whose both frames are ``planted (F,)``, and its worst drift (metres): the
    largest distance the patch travelled (its steps added up) within one stance. NaN without
    a planted step."""
    steps = patch_steps(points, band)
    both = np.asarray(planted[:-1], bool) & np.asarray(planted[1:], bool)
    if not both.any():
        return float("nan"), float("nan")
    speed = np.linalg.norm(steps[both], axis=-1) * fps
    return float(np.median(speed)), float(_drifts(steps, both).max())


def stance_drifts(points: np.ndarray, planted: np.ndarray, band: float = PATCH_BAND
                  ) -> np.ndarray:
    """``(S,)`` how far the contact patch of ``points (F, P, 3)`` travels (its steps,
    :func:`patch_steps`, added up; metres) within each stance: each run of steps whose both
    frames are ``planted (F,)``, in order. Two bodies measured over the same ``planted`` get
    the same stances, so their drifts compare stance by stance."""
    both = np.asarray(planted[:-1], bool) & np.asarray(planted[1:], bool)
    return _drifts(patch_steps(points, band), both)


def _drifts(steps: np.ndarray, both: np.ndarray) -> np.ndarray:
    """``(S,)`` the length of the sum of ``steps (F - 1, 2)`` over each run of ``both``."""
    return np.array([float(np.linalg.norm(steps[a:b].sum(axis=0))) for a, b in segments(both)])


def joint_angle(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``(F,)`` how far the limb a → b → c bends at b, degrees (0 = straight): the angle
    between a → b and b → c, e.g. the knee's flexion from hip, knee and ankle ``(F, 3)``."""
    u, v = np.asarray(b) - np.asarray(a), np.asarray(c) - np.asarray(b)
    cos = (u * v).sum(-1) / np.maximum(np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1),
                                       1e-12)
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def lean(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``(F,)`` how far the segment low → high ``(F, 3)`` leans from vertical, degrees (the
    trunk's lean from its hips to its neck)."""
    d = np.asarray(high) - np.asarray(low)
    cos = d[:, 1] / np.maximum(np.linalg.norm(d, axis=-1), 1e-12)
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def swing_lifts(height: np.ndarray, planted: np.ndarray, fps: float,
                min_swing: float = MIN_SWING) -> np.ndarray:
    """Per swing of one foot, how high ``height (F,)`` rose above its stance level (its median
    over the ``planted (F,)`` frames), metres. A swing is a run of free frames at least
    ``min_swing`` seconds long that touches neither end of the clip."""
    planted = np.asarray(planted, dtype=bool)
    if not planted.any():
        return np.zeros(0)
    level = float(np.median(height[planted]))
    return np.array([height[a:b].max() - level for a, b in segments(~planted)
                     if a > 0 and b < len(height) and (b - a) / fps >= min_swing])


#: The percentile of a planted ankle's height over its sole taken as the foot standing flat.
FLAT_FOOT_PERCENTILE = 10


def leg_length(hip: np.ndarray, knee: np.ndarray, ankle: np.ndarray, sole: np.ndarray,
               planted: np.ndarray) -> float:
    """One leg's length, metres: thigh + shin (median bone lengths over the frames ``(F, 3)``)
    + the ankle's height over its sole's lowest point ``sole (F, 3)`` while ``planted (F,)``
    (every frame when never planted), as the foot stands flat: the
    :data:`FLAT_FOOT_PERCENTILE` th percentile, for a planted foot rolled onto its ball or
    toes (a heel-off, a kneel) only raises the ankle over the sole."""
    thigh = np.median(np.linalg.norm(np.asarray(knee) - hip, axis=-1))
    shin = np.median(np.linalg.norm(np.asarray(ankle) - knee, axis=-1))
    on = np.asarray(planted, dtype=bool)
    on = on if on.any() else np.ones(len(on), dtype=bool)
    foot = np.percentile(np.asarray(ankle)[on, 1] - np.asarray(sole)[on, 1],
                         FLAT_FOOT_PERCENTILE)
    return float(thigh + shin + foot)
