"""A planted sole turned by the ground it stands on, eased through the swings between
(:func:`foot_tilt`: seed 004's NormalToRotator in 3D, for a whole clip)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.clip_feet import ClipFeet
from footfall.footing.sole import resting_edge
from footfall.grounding.clip.smoothing import blend_out, smooth
from footfall.grounding.foot_align import align_rotation, slope_angles
from footfall.grounding.params import GroundingParams
from footfall.terrain.base import RaySource

#: The weight of a planted foot is taken this far ahead of its ankle (metres) when finding the
#: ground line it stands on (:func:`standing_slope`).
STANDING_AHEAD = 0.001
#: The fastest a sole's tilt to the ground fades in or out through a swing (radians per second):
#: a foot leaving a 30° slope turns back over a sixth of a second, not within the blend's
#: 0.1 s (:data:`~footfall.grounding.clip.plan.BLEND_SECONDS`), whose 7.5° a frame at 30 fps,
#: added to the source's own turn at push-off, snapped the foot (cmu_01_01 at 30 fps on the
#: rocks: 29.8° in a frame where the source turns 21.1° at most; 23.9° now). Slower, the tilt
#: held into the swing lowered a toe tip into the rock ahead (mixamo_stepping bent into an
#: eight on the rocks: 7.3 mm at 90°/s, beyond the source's dip + 5 mm; 4.3 mm at this speed).
TILT_SPEED = np.radians(180.0)


def foot_tilt(feet: ClipFeet, shift: FloatArray, terrain: RaySource, contacts: NDArray[np.bool_],
              params: GroundingParams, blend: int, fps: float) -> FloatArray:
    """World rotations ``(F, 2, 4)`` turning each planted sole by the ground it stands on (seed
    004's NormalToRotator in 3D): pitched along the line under the points it stands on, rolled
    by the mean side slope from heel to ball (:func:`standing_slope`; steep faces ignored,
    clamped), eased through the swings (:func:`~footfall.grounding.clip.smoothing.blend_out`:
    the tilt at lift-off faded out and the one at touch-down faded in over ``blend`` frames,
    or slower, at :data:`TILT_SPEED`, when large; a swing too short for both blended from one
    to the other) and smoothed; the identity on level ground."""
    forward = feet.ball - feet.ankle
    slope, normal = standing_slope(feet, shift, terrain, params.steep_normal_y)
    _, roll = slope_angles(normal, forward, params.steep_normal_y, params.max_slope)
    pitch = np.clip(np.arctan(slope), -params.max_slope, params.max_slope)
    # eased as world rotation vectors: a swinging foot's own forward (pointing down mid-swing)
    # would turn a held pitch about another axis
    standing = contacts[..., None] & np.isfinite(forward).all(axis=-1, keepdims=True)
    turn = quat.to_scaled_angle_axis(align_rotation(
        np.where(standing[..., 0], pitch, 0.0), np.where(standing[..., 0], roll, 0.0),
        np.where(standing, forward, np.array([1.0, 0.0, 0.0]))))
    turn = smooth(blend_out(np.where(standing, turn, 0.0), contacts, blend, TILT_SPEED / fps),
                  blend)
    level = np.all(np.abs(turn) < 1e-12, axis=-1)
    return np.where(level[..., None], quat.identity(level.shape), quat.from_scaled_angle_axis(turn))


def standing_slope(feet: ClipFeet, shift: FloatArray, terrain: RaySource,
                   steep_normal_y: float) -> tuple[FloatArray, FloatArray]:
    """The ground each planted foot stands on, from its heel to its toes (moved by ``shift
    (F, 2, 2)``): the slope ``(F, 2)`` (rise per metre towards the toes) of the line it stands
    on, and the mean unit normal ``(F, 2, 3)`` of the ground from its heel to its ball (the side
    slope).

    The line is the edge, just ahead of the ankle where the weight is
    (:data:`STANDING_AHEAD`), of the upper hull of the ground under the points it stands on
    (ankle, heel, ball, toe tips): a rock under the heel tilts the toes down onto the ground
    beyond it, one under the ball tilts them up onto it. It is kept within the slopes the ground
    has between those points (the sole samples every 1 cm: on smooth ground a line between two
    points of it always is), so a step between them (a riser, never met by a downward ray)
    leaves a tread's own slope. Steep faces (normal.y below ``steep_normal_y``) and misses are
    left out."""
    ankle = feet.ankle[..., [0, 2]] + shift
    forward = feet.ball[..., [0, 2]] + shift - ankle
    forward /= np.maximum(np.linalg.norm(forward, axis=-1, keepdims=True), 1e-12)
    stands = np.concatenate([ankle[:, :, None], feet.touch[..., [0, 2]] + shift[:, :, None]],
                            axis=2)  # (F, 2, P) the points it stands on
    xz = np.concatenate([stands, feet.sole[..., [0, 2]] + shift[:, :, None]], axis=2)
    known = np.isfinite(xz).all(axis=-1)
    hits = terrain.raycast_down(np.where(known[..., None], xz, ankle[:, :, None]))
    usable = known & hits.hit & (hits.normal[..., 1] >= steep_normal_y)
    along = np.einsum("fsnk,fsk->fsn", xz - ankle[:, :, None], forward)  # metres ahead
    with np.errstate(invalid="ignore", divide="ignore"):
        local = -np.einsum("fsnk,fsk->fsn", hits.normal[..., [0, 2]], forward) / hits.normal[
            ..., 1]
    count = stands.shape[2]
    points = np.arange(along.shape[-1]) < count  # the sole samples after them bound the slope
    ground = np.where(usable, hits.point[..., 1], np.nan)
    x, ok = along[..., :count], usable[..., :count]
    low = np.where(ok, x, np.inf).min(axis=-1)
    high = np.where(ok, x, -np.inf).max(axis=-1)
    at = np.clip(STANDING_AHEAD, low + 1e-6, high - 1e-6)  # inside the points' span
    # the upper hull's edge over the weight, kept within the ground's slopes (footing.sole);
    # over a step between the points the tread's own slope
    _, slope, _, _ = resting_edge(ground, along, local, usable, at, hull=points)
    reach = np.linalg.norm(feet.ball[..., [0, 2]] + shift - ankle, axis=-1)
    heel_to_ball = usable & (along <= reach[..., None] + 1e-6)
    total = np.where(heel_to_ball[..., None], hits.normal, 0.0).sum(axis=2)
    total = np.where(heel_to_ball.any(axis=2)[..., None], total, np.array([0.0, 1.0, 0.0]))
    return slope, total / np.linalg.norm(total, axis=-1, keepdims=True)
