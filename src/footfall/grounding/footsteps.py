"""Planned footsteps (seed 000), the swing curve and tread snapping (seed 002).

Seed 000 walks by a clock of distance: the body has covered ``d`` metres, the walk phase is
``d / step_length`` and each foot (the right half a step behind the left) is planted at a
footstep for the first half of its step and swings to the next one in the second half.

Scalar forms (``*_s``) for compiled stages; NumPy forms over :func:`footfall.arrays.scalar_rows`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray, kernel_rows, scalar_rows
from footfall.jit import helper, kernel
from footfall.quat import max_nan
from footfall.ramps import smoothstep_s

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource


#: Phase offsets of the left and right foot (seed 000: L 0, R 0.5).
FOOT_PHASE = np.array([0.0, 0.5])



@helper
def swing_height_s(start: float, end: float, q: float, clearance: float, lift: float) -> float:
    """:func:`swing_height` of one foot (compiled kernels)."""
    top = max_nan(start, end) + clearance
    if q < 0.5:
        height = start + (top - start) * smoothstep_s(2.0 * q)
    else:
        height = top + (end - top) * smoothstep_s(2.0 * q - 1.0)
    return height + lift * math.sin(math.pi * q)


@helper
def step_plan_s(distance: float, step_length: float, foot_phase: float
                ) -> tuple[bool, float, float, float]:
    """:func:`plan_steps` of one foot: ``(stance, swing, plant, next_plant)``."""
    phase = distance / step_length + foot_phase
    index = math.floor(phase)
    progress = phase - index
    plant = (index + 0.25 - foot_phase) * step_length
    stance = progress < 0.5
    swing = 0.0 if stance else (progress - 0.5) / 0.5
    return stance, swing, plant, plant + step_length


@helper
def foot_track_s(stance: bool, swing: float, plant: float, next_plant: float) -> float:
    """:meth:`StepPlan.foot_track` of one foot: on the plant, or eased towards the next."""
    if stance:
        return plant
    return plant + (next_plant - plant) * smoothstep_s(swing)


@kernel(error_model="numpy")
def _swing_rows(start: FloatArray, end: FloatArray, q: FloatArray, clearance: FloatArray,
                lift: FloatArray, ease: bool, out: FloatArray) -> None:  # pragma: no cover
    for i in range(out.shape[0]):
        if ease:
            out[i] = smoothstep_s(q[i])
        else:
            out[i] = swing_height_s(start[i], end[i], q[i], clearance[i], lift[i])


@kernel(error_model="numpy")
def _plan_rows(distance: FloatArray, step_length: FloatArray, foot_phase: FloatArray,
               stance: NDArray[np.bool_], swing: FloatArray, plant: FloatArray,
               next_plant: FloatArray, track: FloatArray) -> None:  # pragma: no cover
    for i in range(distance.shape[0]):
        for f in range(foot_phase.shape[0]):
            on, q, at, to = step_plan_s(distance[i], step_length[i], foot_phase[f])
            stance[i, f], swing[i, f], plant[i, f], next_plant[i, f] = on, q, at, to
            track[i, f] = foot_track_s(on, q, at, to)


def smoothstep(t: ArrayLike) -> FloatArray:
    """Hermite ease ``3t² − 2t³`` of ``t`` clipped to [0, 1], any shape."""
    return scalar_rows(_swing_rows, (t,) * 5, True)


def swing_height(
    start: ArrayLike, end: ArrayLike, q: ArrayLike, clearance: ArrayLike, lift: ArrayLike
) -> FloatArray:
    """Seed 000's swing foot height ``(...)`` metres at swing progress ``q`` ∈ [0, 1].

    Rises from the ``start`` plant height to ``max(start, end) + clearance`` at mid swing and
    falls to ``end``, each half eased; plus ``lift · sin(πq)`` so the foot clears stair edges.
    """
    return scalar_rows(_swing_rows, (start, end, q, clearance, lift), False)


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

    #: Along-track foot position ``(K, 2)``: on the plant, or eased towards the next one.
    track: FloatArray

    def foot_track(self) -> FloatArray:
        """:attr:`track`."""
        return self.track


def plan_steps(distance: ArrayLike, step_length: ArrayLike) -> StepPlan:
    """Seed 000's footstep plan for bodies that have walked ``distance (K,)`` metres.

    step_length: ``(K,)`` or scalar, metres (0.62 for the bunny). Foot k's step index is
    ``floor(d/S + o_k)``; its footstep sits at ``(n + 0.25 − o_k)·S`` and it swings in the
    second half of each step.
    """
    shape = np.broadcast_shapes(np.shape(distance), np.shape(step_length))
    fields = np.empty((4, *shape, 2))
    stance = np.empty((*shape, 2), dtype=bool)
    _plan_rows(kernel_rows(distance, shape), kernel_rows(step_length, shape), FOOT_PHASE,
               stance.reshape(-1, 2), *(f.reshape(-1, 2) for f in fields))
    return StepPlan(stance, fields[0], fields[1], fields[2], fields[3])


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
        plant_xz, forward_xz: ``(N, 2)`` ankle positions of the plants, unit foot directions.
        heel_back, toe_forward, margin: ``(N,)`` or scalar sole extent behind / ahead of the
            ankle, and how close to an edge a sole end counts as near it.
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
    offsets = np.arange(-half, half + 1) * spacing  # (M,) scan positions along the foot
    tolerance = np.broadcast_to(np.asarray(tolerance, dtype=np.float64), (count,))

    def heights(rows: NDArray[np.int64], at: NDArray[np.int64]) -> FloatArray:
        """Ground height under scan steps ``at (R, S)`` of the feet ``rows (R,)``, NaN if missed."""
        samples = plant_xz[rows, None, :] + offsets[at][:, :, None] * forward_xz[rows, None, :]
        hits = terrain.raycast_down(samples)
        return np.where(hits.hit, hits.height, np.nan)

    centre = heights(np.arange(count), np.full((count, 1), half))[:, 0]
    # The run of samples on the tread from the ankle, counted outwards each way (the ankle's
    # own sample included). A side's scan stops at its first sample off the tread (the samples
    # beyond it change nothing), so the rays go out in windows of about doubling length.
    with np.errstate(invalid="ignore"):
        on_centre = np.abs(centre - centre) <= tolerance
    ahead = on_centre.astype(np.int64)
    behind = ahead.copy()
    scanning = [on_centre.copy(), on_centre.copy()]  # (ahead, behind) still on the tread
    first = 1
    while first <= half and (scanning[0].any() or scanning[1].any()):
        steps = np.arange(first, min(2 * first + 4, half) + 1)  # scan steps of this window
        sides = [np.nonzero(open_rows)[0] for open_rows in scanning]
        rows = np.concatenate(sides)
        at = np.concatenate([np.broadcast_to(half + steps, (sides[0].size, steps.size)),
                             np.broadcast_to(half - steps, (sides[1].size, steps.size))])
        with np.errstate(invalid="ignore"):
            on_tread = np.abs(heights(rows, at) - centre[rows, None]) <= tolerance[rows, None]
        run = np.cumprod(on_tread, axis=1).sum(axis=1)
        ahead[sides[0]] += run[: sides[0].size]
        behind[sides[1]] += run[sides[0].size:]
        scanning[0][sides[0]] = run[: sides[0].size] == steps.size
        scanning[1][sides[1]] = run[sides[0].size:] == steps.size
        first = steps[-1] + 1
    front_edge = (ahead - 0.5) * spacing  # edge lies between the last on- and first off-sample
    back_edge = -(behind - 0.5) * spacing
    has_front = ahead <= half
    has_back = behind <= half
    heel_back, toe_forward, margin = (np.broadcast_to(np.asarray(v, dtype=np.float64), (count,))
                                      for v in (heel_back, toe_forward, margin))
    low = back_edge + margin + heel_back  # the ankle may go from low …
    high = front_edge - margin - toe_forward  # … to high without the sole nearing an edge
    near_back = has_back & (low > 0.0)
    near_front = has_front & (high < 0.0)
    centred = 0.5 * (back_edge + front_edge) - 0.5 * (toe_forward - heel_back)
    one_edge = np.where(near_back, low, np.where(near_front, high, 0.0))  # one edge in reach
    shift = np.where(has_front & has_back, np.where(near_back | near_front, centred, 0.0),
                     one_edge)
    shift = np.where(np.isfinite(centre), shift, 0.0)
    return shift[:, None] * forward_xz
