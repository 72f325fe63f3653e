"""Contact metrics on arrays (seed 002; PhysDiff; GMD's foot-skate ratio), any terrain.

Everything is measured on the *solved* feet (seed 002's lesson: measuring the IK target says
nothing, it is the ground by construction). Soles are sampled every centimetre; a sample's gap
is its height above the ground straight under it (+ floating, − sinking).

Shapes: ``F`` frames first, then any batch axes (characters, feet), then ``S`` sole samples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource


#: Seed 002: a sole sample more than 2 cm (2 px there) off the ground is a support defect.
DEFECT_THRESHOLD = 0.02
#: footfall's contact_skate_ratio: a planted foot faster than this (m/s) skates (GMD's speed).
SKATE_SPEED = 0.5


#: Sole width as a share of the sole's length (a human foot: ~0.10 m wide, 0.26 m long).
SOLE_WIDTH_RATIO = 0.38


def sole_grid(
    sole: ArrayLike, up: ArrayLike, width: float, columns: int = 3
) -> FloatArray:
    """A sole sampled across its width as well as along it: ``(S · columns, 3)`` points.

    sole: ``(S, 3)`` samples along the sole's centre line (any frame); up: ``(3,)`` the sole's
    normal in that frame; width: metres between the outer columns. Each centre sample is
    repeated at ``columns`` evenly spaced offsets across the sole (perpendicular to the centre
    line and to ``up``), so a roll of the foot against a sideways slope shows in the gaps.
    """
    sole = np.asarray(sole, dtype=np.float64)
    up = np.asarray(up, dtype=np.float64)
    along = sole[-1] - sole[0]
    side = np.cross(up, along)
    norm = np.linalg.norm(side)
    if sole.shape[0] < 2 or norm < 1e-12 or columns < 2:
        return sole.copy()
    side /= norm
    offsets = np.linspace(-width / 2, width / 2, columns)
    return (sole[None, :, :] + offsets[:, None, None] * side).reshape(-1, 3)


def ground_gaps(terrain: RaySource, points: ArrayLike) -> FloatArray:
    """Signed height ``(...)`` of points ``(..., 3)`` above the ground under them; NaN off the
    terrain (no ground to measure against) and for NaN points (padding)."""
    points = np.asarray(points, dtype=np.float64)
    valid = np.all(np.isfinite(points), axis=-1)
    hits = terrain.raycast_down(np.where(valid[..., None], points[..., [0, 2]], 0.0))
    return np.where(hits.hit & valid, points[..., 1] - hits.height, np.nan)


def _masked_mean(values: FloatArray, mask: NDArray[np.bool_]) -> float:
    mask = mask & np.isfinite(values)
    return float(values[mask].mean()) if np.any(mask) else 0.0


def contact_metrics(
    gaps: ArrayLike, stance: ArrayLike, threshold: float = DEFECT_THRESHOLD
) -> dict[str, float]:
    """Seed 002's sole metrics over feet in stance.

    gaps: ``(F, ..., S)`` sole-sample gaps, metres; stance: ``(F, ...)`` bool.
    Returns ``contact_error_m`` (mean |gap| over stance samples), ``support_defect_ratio``
    (share of those samples with |gap| > threshold), ``penetration_m`` / ``floating_m`` (mean over
    stance feet of how far the lowest sole sample is below / above the ground, PhysDiff-style).
    """
    gaps = np.asarray(gaps, dtype=np.float64)
    stance = np.asarray(stance, dtype=bool)
    samples = np.broadcast_to(stance[..., None], gaps.shape)
    lowest = np.nanmin(np.where(np.isfinite(gaps), gaps, np.inf), axis=-1)
    lowest = np.where(np.isfinite(lowest), lowest, np.nan)
    with np.errstate(invalid="ignore"):
        defects = (np.abs(gaps) > threshold).astype(np.float64)
    defects = np.where(np.isfinite(gaps), defects, np.nan)
    return {
        "contact_error_m": _masked_mean(np.abs(gaps), samples),
        "support_defect_ratio": _masked_mean(defects, samples),
        "penetration_m": _masked_mean(np.maximum(-lowest, 0.0), stance),
        "floating_m": _masked_mean(np.maximum(lowest, 0.0), stance),
    }


def stance_slip(positions: ArrayLike, stance: ArrayLike) -> float:
    """Mean horizontal distance ``m`` a planted foot moves per frame (PhysDiff skating).

    positions: ``(F, ..., 3)`` foot (ankle) positions; stance: ``(F, ...)``; a frame pair counts
    when the foot is in stance in both frames.
    """
    positions = np.asarray(positions, dtype=np.float64)
    stance = np.asarray(stance, dtype=bool)
    if positions.shape[0] < 2:
        return 0.0
    step = np.linalg.norm(np.diff(positions[..., [0, 2]], axis=0), axis=-1)
    return _masked_mean(step, stance[1:] & stance[:-1])


def hips_jerk(heights: ArrayLike, dt: float) -> float:
    """Mean absolute vertical jerk ``m/s³`` of hips heights ``(F, ...)`` sampled every dt."""
    heights = np.asarray(heights, dtype=np.float64)
    if heights.shape[0] < 4:
        return 0.0
    jerk = np.diff(heights, n=3, axis=0) / dt**3
    return float(np.nanmean(np.abs(jerk)))


def clamped_ratio(clamped: ArrayLike) -> float:
    """Share of frames ``(F, ...)`` in which any leg had to be clamped (stretched to its limit)."""
    clamped = np.asarray(clamped, dtype=bool)
    if clamped.size == 0:
        return 0.0
    per_frame = clamped.reshape(clamped.shape[0], -1).any(axis=1)
    return float(per_frame.mean())


#: GMD's released evaluation (``calculate_skating_ratio``): HumanML3D motion at 20 fps, a foot in
#: contact below 5 cm in both frames of a pair, skating above 0.5 m/s both in that pair and in the
#: 5-frame centred moving average (zero-padded at the ends: ``uniform_filter1d``, "constant").
GMD_FPS = 20.0
GMD_HEIGHT = 0.05
GMD_SPEED = 0.5
GMD_WINDOW = 5


def gmd_frame_step(fps: float) -> int:
    """HumanML3D's frame skipping to 20 fps: every ``int(fps / 20)``-th frame (at least 1; at
    30 fps every frame, then taken as 20 fps, as the released code does)."""
    return max(1, int(fps / GMD_FPS))


def _centred_moving_average(values: FloatArray, window: int) -> FloatArray:
    """Moving average over axis 0 with zeros outside the series (``mode="constant"``)."""
    before = window // 2
    after = window - 1 - before
    padded = np.concatenate(
        [np.zeros((before, *values.shape[1:])), values, np.zeros((after, *values.shape[1:]))]
    )
    sums = np.cumsum(np.concatenate([np.zeros((1, *values.shape[1:])), padded]), axis=0)
    return (sums[window:] - sums[:-window]) / window


def gmd_foot_skate_ratio(
    positions: ArrayLike, fps: float, left_toe: int, right_toe: int,
    floor: float | None = None,
) -> float:
    """GMD's foot-skate ratio exactly as its released code computes it (rule: the GMD_*
    constants): skating pairs / pairs, 0 for fewer than 2.

    positions: ``(T, J, 3)`` world joint positions, metres, Y up, at ``fps``, resampled by
    frame skipping (:func:`gmd_frame_step`); the floor is ``floor`` when given (HumanML3D
    joints: 0, the height GMD's code measures from), else the lowest joint over the resampled
    clip (HumanML3D's preprocessing, for clips that never went through it); the feet are the
    toe-base joints (HumanML3D's 10 and 11); the speed is displacement × 20.
    """
    positions = np.asarray(positions, dtype=np.float64)
    if positions.ndim != 3 or positions.shape[-1] != 3:
        raise ValueError(f"positions must be (T, J, 3), got {positions.shape}")
    sampled = positions[:: gmd_frame_step(fps)]
    if sampled.shape[0] < 2:
        return 0.0
    if floor is None:
        floor = float(np.nanmin(sampled[..., 1]))
    feet = sampled[:, [left_toe, right_toe]]
    heights = feet[..., 1] - floor
    speed = np.linalg.norm(np.diff(feet[..., [0, 2]], axis=0), axis=-1) * GMD_FPS
    average = _centred_moving_average(speed, GMD_WINDOW)
    contact = (heights[:-1] < GMD_HEIGHT) & (heights[1:] < GMD_HEIGHT)
    skating = contact & (speed > GMD_SPEED) & (average > GMD_SPEED)
    return float(skating.any(axis=-1).sum() / skating.shape[0])


#: PhysDiff (Yuan et al. 2023) measures the body's lowest point against the ground with a 5 mm
#: tolerance; footfall uses the lowest joint (no body mesh) and reports millimetres.
PHYSDIFF_TOLERANCE = 0.005


def physdiff_metrics(heights: ArrayLike, horizontal: ArrayLike) -> dict[str, float]:
    """PhysDiff-style penetration, floating and sliding of the lowest joint, in millimetres.

    heights: ``(T, J)`` each joint's height above the ground straight under it, metres (NaN
    where there is no ground); horizontal: ``(T, J, 2)`` the joints' ground-plane positions.
    Per frame the lowest joint is taken. ``penetration_mm``: mean over frames of how far it is
    below the ground; ``floating_mm``: mean over frames of how far it is above the ground beyond
    the 5 mm tolerance; ``sliding_mm``: mean horizontal displacement of that joint to the next
    frame over the frame pairs where it touches the ground (within 5 mm) in both frames.
    """
    heights = np.asarray(heights, dtype=np.float64)
    horizontal = np.asarray(horizontal, dtype=np.float64)
    frames = heights.shape[0]
    if frames == 0:
        return {"penetration_mm": 0.0, "floating_mm": 0.0, "sliding_mm": 0.0}
    filled = np.where(np.isfinite(heights), heights, np.inf)
    lowest_joint = np.argmin(filled, axis=1)
    lowest = filled[np.arange(frames), lowest_joint]
    valid = np.isfinite(lowest)
    penetration = np.maximum(-lowest, 0.0)
    floating = np.maximum(lowest - PHYSDIFF_TOLERANCE, 0.0)
    touching = valid & (np.abs(lowest) <= PHYSDIFF_TOLERANCE)
    sliding = 0.0
    if frames >= 2:
        pairs = touching[:-1] & touching[1:]
        pair = np.arange(frames - 1)
        joint = lowest_joint[:-1]
        step = np.linalg.norm(horizontal[1:][pair, joint] - horizontal[:-1][pair, joint], axis=-1)
        sliding = float(step[pairs].mean()) if np.any(pairs) else 0.0
    return {
        "penetration_mm": 1000.0 * (float(penetration[valid].mean()) if np.any(valid) else 0.0),
        "floating_mm": 1000.0 * (float(floating[valid].mean()) if np.any(valid) else 0.0),
        "sliding_mm": 1000.0 * sliding,
    }


def contact_skate_ratio(
    foot_positions: ArrayLike, contacts: ArrayLike, fps: float, speed: float = SKATE_SPEED
) -> float:
    """Share of frame pairs in which a foot in contact (``(F, feet)``, both frames) moves
    horizontally faster than ``speed`` m/s; positions ``(F, feet, 3)``. Unlike GMD's ratio, a
    fast swing close to the ground does not count."""
    positions = np.asarray(foot_positions, dtype=np.float64)
    contacts = np.asarray(contacts, dtype=bool)
    if positions.shape[0] < 2:
        return 0.0
    velocity = np.linalg.norm(np.diff(positions[..., [0, 2]], axis=0), axis=-1) * fps
    skating = contacts[1:] & contacts[:-1] & (velocity > speed)
    return float(skating.any(axis=-1).mean())
