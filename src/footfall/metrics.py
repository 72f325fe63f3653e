"""Contact metrics for any motion on any terrain (seed 002; PhysDiff; GMD's foot-skate ratio).

Everything is measured on the *solved* feet (seed 002's lesson: measuring the IK target says
nothing, it is the ground by construction). Soles are sampled every centimetre; a sample's gap
is its height above the ground straight under it (+ floating, − sinking).

Shapes: ``F`` frames first, then any batch axes (characters, feet), then ``S`` sole samples.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat

FloatArray = NDArray[np.float64]

#: Seed 002: a sole sample more than 2 cm (2 px there) off the ground is a support defect.
DEFECT_THRESHOLD = 0.02
#: GMD (2023) foot-skate ratio: contact below 5 cm in both frames, skating above 0.5 m/s.
SKATE_HEIGHT = 0.05
SKATE_SPEED = 0.5
#: GMD averages over 5 frames of 20 fps motion: 0.25 s, kept in seconds at any frame rate.
SKATE_WINDOW_SECONDS = 5 / 20


def sole_world(
    foot_rotations: ArrayLike, ankle_positions: ArrayLike, sole: ArrayLike
) -> FloatArray:
    """World positions ``(..., S, 3)`` of sole samples ``(S, 3)`` (ankle frame) for feet with
    world rotations ``(..., 4)`` and ankle positions ``(..., 3)``."""
    foot_rotations = np.asarray(foot_rotations, dtype=np.float64)[..., None, :]
    ankle_positions = np.asarray(ankle_positions, dtype=np.float64)[..., None, :]
    return ankle_positions + quat.rotate(foot_rotations, np.asarray(sole, dtype=np.float64))


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


def ground_gaps(terrain: Any, points: ArrayLike) -> FloatArray:
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


def pelvis_jerk(heights: ArrayLike, dt: float) -> float:
    """Mean absolute vertical jerk ``m/s³`` of pelvis heights ``(F, ...)`` sampled every dt."""
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


def foot_skate_ratio(
    foot_positions: ArrayLike,
    foot_heights: ArrayLike,
    fps: float,
    height: float = SKATE_HEIGHT,
    speed: float = SKATE_SPEED,
    window_seconds: float = SKATE_WINDOW_SECONDS,
) -> float:
    """GMD's foot-skate ratio: share of frame pairs in which a grounded foot slides.

    foot_positions: ``(F, feet, 3)`` world foot (toe) positions; foot_heights: ``(F, feet)``
    heights above the ground. A foot is in contact when below ``height`` in both frames of a
    pair; it skates when its horizontal speed and its moving average over ``window_seconds``
    (GMD: 5 frames at 20 fps) both exceed ``speed``. Returns skating pairs / (F − 1).
    """
    positions = np.asarray(foot_positions, dtype=np.float64)
    heights = np.asarray(foot_heights, dtype=np.float64)
    if positions.shape[0] < 2:
        return 0.0
    velocity = np.linalg.norm(np.diff(positions[..., [0, 2]], axis=0), axis=-1) * fps
    window = max(1, int(round(window_seconds * fps)))
    kernel = np.ones(window) / window
    average = np.apply_along_axis(lambda v: np.convolve(v, kernel, mode="same"), 0, velocity)
    with np.errstate(invalid="ignore"):
        contact = (heights[:-1] < height) & (heights[1:] < height)
    skating = contact & (velocity > speed) & (average > speed)
    return float(skating.any(axis=-1).mean())


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


def score_clip(
    clip: Any, terrain: Any, contacts: ArrayLike | None = None, legs: Any = None
) -> dict[str, float]:
    """Score any clip (:class:`footfall.skeleton.Clip`, metres) as it stands on ``terrain``.

    Contacts ``(F, 2)`` are detected from the motion when not given (feet low and slow above
    the clip's own floor). Returns contact_error_m, support_defect_ratio, penetration_m,
    floating_m, foot_skate_ratio (GMD), stance_slip_m and contact_skate_ratio.
    """
    from footfall.grounding.postprocess import measure_clip

    return measure_clip(clip, terrain, contacts, legs)
