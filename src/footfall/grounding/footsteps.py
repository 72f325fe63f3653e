"""Planned footsteps (seed 000), the swing curve and tread snapping (seed 002).

Seed 000 walks by a clock of distance: the body has covered ``d`` metres, the walk phase is
``d / step_length`` and each foot (the right half a step behind the left) is planted at a
footstep for the first half of its step and swings to the next one in the second half.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource


#: Phase offsets of the left and right foot (seed 000: L 0, R 0.5).
FOOT_PHASE = np.array([0.0, 0.5])


def smoothstep(t: ArrayLike) -> FloatArray:
    """Hermite ease ``3t² − 2t³`` of ``t`` clipped to [0, 1], any shape."""
    t = np.clip(np.asarray(t, dtype=np.float64), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def swing_height(
    start: ArrayLike, end: ArrayLike, q: ArrayLike, clearance: ArrayLike, lift: ArrayLike
) -> FloatArray:
    """Seed 000's swing foot height ``(...)`` metres at swing progress ``q`` ∈ [0, 1].

    Rises from the ``start`` plant height to ``max(start, end) + clearance`` at mid swing and
    falls to ``end``, each half eased; plus ``lift · sin(πq)`` so the foot clears stair edges.
    """
    start = np.asarray(start, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    top = np.maximum(start, end) + clearance
    rising = start + (top - start) * smoothstep(2.0 * q)
    falling = top + (end - top) * smoothstep(2.0 * q - 1.0)
    return np.where(q < 0.5, rising, falling) + np.asarray(lift) * np.sin(np.pi * q)


def swing_offset(start: ArrayLike, end: ArrayLike, q: ArrayLike) -> FloatArray:
    """Terrain part of the swing curve ``(...)``: start → max(start, end) → end, eased.

    Equal to ``swing_height(start, end, q, c, l) − swing_height(0, 0, q, c, l)``: what the
    ground adds to a swing animated on flat ground, so on flat ground it is exactly zero.
    """
    return swing_height(start, end, q, 0.0, 0.0)


@dataclass(frozen=True)
class StepPlan:
    """Where each foot is in its step; ``(K, 2)`` per field (left, right).

    stance: foot planted. swing: swing progress q ∈ [0, 1] (0 while planted).
    plant: along-track position of the current (or just left) footstep, metres.
    next_plant: along-track position of the next footstep, metres.
    """

    stance: NDArray[np.bool_]
    swing: FloatArray
    plant: FloatArray
    next_plant: FloatArray

    def foot_track(self) -> FloatArray:
        """Along-track foot position ``(K, 2)``: on the plant, or eased towards the next one."""
        eased = smoothstep(self.swing)
        moving = self.plant + (self.next_plant - self.plant) * eased
        return np.where(self.stance, self.plant, moving)


def plan_steps(distance: ArrayLike, step_length: ArrayLike) -> StepPlan:
    """Seed 000's footstep plan for bodies that have walked ``distance (K,)`` metres.

    step_length: ``(K,)`` or scalar, metres (0.62 for the bunny). Foot k's step index is
    ``floor(d/S + o_k)``; its footstep sits at ``(n + 0.25 − o_k)·S`` and it swings in the
    second half of each step.
    """
    distance = np.asarray(distance, dtype=np.float64)[..., None]
    step_length = np.asarray(step_length, dtype=np.float64)
    step_length = step_length[..., None] if step_length.ndim else step_length
    phase = distance / step_length + FOOT_PHASE
    index = np.floor(phase)
    progress = phase - index
    plant = (index + 0.25 - FOOT_PHASE) * step_length
    stance = progress < 0.5
    swing = np.where(stance, 0.0, (progress - 0.5) / 0.5)
    return StepPlan(stance, swing, plant, plant + step_length)


def tread_snap_shift(
    terrain: RaySource,
    plant_xz: ArrayLike,
    forward_xz: ArrayLike,
    heel_back: ArrayLike,
    toe_forward: ArrayLike,
    margin: ArrayLike,
    search: float,
    tolerance: ArrayLike,
    spacing: float,
) -> FloatArray:
    """How far to move planted feet ``(N, 2)`` (xz metres) so none stands near a tread edge.

    Args:
        terrain: a :class:`footfall.terrain.Terrain` (downward rays).
        plant_xz: ``(N, 2)`` ankle positions of the plants.
        forward_xz: ``(N, 2)`` unit horizontal foot directions.
        heel_back, toe_forward: ``(N,)`` or scalar sole extent behind / ahead of the ankle.
        margin: ``(N,)`` or scalar: a sole end closer than this to an edge counts as near it.
        search: metres scanned each way along the foot; tolerance: height step that makes an
            edge; spacing: metres between scan rays.

    The tread is the run of ground around the ankle whose height stays within ``tolerance`` of
    the height under the ankle (seed 002, step 2). When the sole (plus margin) overhangs it, the
    foot moves to the tread centre; a tread with only one edge in reach (a landing) moves the
    foot just clear of that edge. Feet over no ground are left alone.
    """
    plant_xz = np.asarray(plant_xz, dtype=np.float64).reshape(-1, 2)
    forward_xz = np.asarray(forward_xz, dtype=np.float64).reshape(-1, 2)
    count = plant_xz.shape[0]
    if count == 0:
        return np.zeros((0, 2))
    half = int(np.ceil(search / spacing))
    offsets = np.arange(-half, half + 1) * spacing  # (M,)
    samples = plant_xz[:, None, :] + offsets[None, :, None] * forward_xz[:, None, :]
    hits = terrain.raycast_down(samples)  # (N, M)
    height = np.where(hits.hit, hits.height, np.nan)
    centre = height[:, half : half + 1]
    with np.errstate(invalid="ignore"):
        on_tread = np.abs(height - centre) <= np.asarray(tolerance).reshape(-1, 1)
    ahead = np.cumprod(on_tread[:, half:], axis=1).sum(axis=1)  # samples incl. the centre
    behind = np.cumprod(on_tread[:, half::-1], axis=1).sum(axis=1)
    front_edge = (ahead - 0.5) * spacing  # edge lies between the last on- and first off-sample
    back_edge = -(behind - 0.5) * spacing
    has_front = ahead <= half
    has_back = behind <= half
    heel_back = np.broadcast_to(np.asarray(heel_back, dtype=np.float64), (count,))
    toe_forward = np.broadcast_to(np.asarray(toe_forward, dtype=np.float64), (count,))
    margin = np.broadcast_to(np.asarray(margin, dtype=np.float64), (count,))
    low = back_edge + margin + heel_back  # the ankle may go from low …
    high = front_edge - margin - toe_forward  # … to high without the sole nearing an edge
    near_back = has_back & (low > 0.0)
    near_front = has_front & (high < 0.0)
    centred = 0.5 * (back_edge + front_edge) - 0.5 * (toe_forward - heel_back)
    shift = np.zeros(count)
    both = has_front & has_back
    shift = np.where(both & (near_back | near_front), centred, shift)
    shift = np.where(~both & near_back, low, shift)
    shift = np.where(~both & near_front, high, shift)
    shift = np.where(np.isfinite(centre[:, 0]), shift, 0.0)
    return shift[:, None] * forward_xz
