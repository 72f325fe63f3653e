"""Snapped footsteps, cast once per footstep and kept between frames (the grounding pipeline's
stage 2).

A footstep (where the animation plants an ankle) is moved by tread snapping (seed 002, step 2:
:func:`~footfall.grounding.footsteps.tread_snap_shift`) and stands on the ground its rays
find; where its sole is aligned, on the line along its sole
(:func:`~footfall.grounding.standing.standing_ground`). The rays are cast once per footstep:
identical footsteps of a batch once, and the last frame's footsteps are kept for the next call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from footfall.arrays import BoolArray, FloatArray
from footfall.grounding.footsteps import tread_snap_shift
from footfall.grounding.params import ParamArrays
from footfall.grounding.stage_kernels import footstep_lookup
from footfall.grounding.standing import standing_ground

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource

#: Values per cached footstep before what it stands on: shift xz, height, hit, snapped (5),
#: then its pitch and whether it stands on the line along its sole (the heights follow).
STEP_VALUES = 7


class FootstepCache:
    """The snapped footsteps of K characters' two feet.

    Args:
        terrain: what the rays are cast on.
        count: number of characters K.
        heel, toe: ``(2,)`` each foot's heel behind and toe ahead of its ankle, metres.
        sole_along: ``(2, S)`` the samples along each sole, metres ahead of its ankle.
    """

    def __init__(self, terrain: RaySource, count: int, heel: FloatArray, toe: FloatArray,
                 sole_along: FloatArray) -> None:
        self.terrain = terrain
        self.count = count
        self.heel, self.toe, self.sole_along = heel, toe, sole_along
        self.reset()

    def reset(self) -> None:
        """Forget the cached footsteps (their snap shift and ground are cast again)."""
        self.keys = np.full((self.count, 2, 2, 2), np.nan)  # (K, foot, plant/next, xz)
        # shift xz, height, hit, snapped, then what it stands on (pitch, found, heights (S,))
        self.values = np.zeros((self.count, 2, 2, STEP_VALUES + self.sole_along.shape[1]))

    def snapped(self, plant_xz: FloatArray, next_xz: FloatArray, forward: FloatArray,
                snap: BoolArray, p: ParamArrays) -> FloatArray:
        """Snapped footsteps ``(N, 2, 2, V)``: per foot, (current plant, next plant) × (snap
        shift xz, ground height, hit, snapped, then the ground it stands on: pitch, found and the
        heights under its sole samples, :func:`~footfall.grounding.standing.standing_ground`);
        N = T·K rows (frame-major) of ``plant_xz``, ``next_xz (N, 2, 2)`` with the feet's
        heading ``forward (N, 2, 3)``, ``snap (K,)``, the characters' parameters ``p``.

        Within a batch identical footsteps are cast once (the earliest frame's direction and
        parameters stand for all), and the last frame's footsteps are cached for the next call.
        """
        count, k = plant_xz.shape[0], self.count
        keys = np.empty((count, 2, 2, 2))  # (N, foot, which, xz)
        values = np.empty((count, 2, 2, self.values.shape[-1]))
        known = np.empty((count, 2, 2), dtype=bool)
        footstep_lookup(plant_xz, next_xz, self.keys, self.values, snap, keys, values, known)
        if not known.all():
            index = np.nonzero(~known)
            # Identical footsteps (same spot, foot and switch) are cast once.
            rows_all = np.column_stack([keys[index], index[1], snap[index[0] % k]])
            _, first, inverse = np.unique(rows_all, axis=0, return_index=True, return_inverse=True)
            full_index, index = index, tuple(i[first] for i in index)
            plant = keys[index]  # (N, 2)
            direction = forward[index[0], index[1]][:, [0, 2]]
            shift = np.zeros_like(plant)
            snapping = snap[index[0] % k]
            if np.any(snapping):
                rows = index[0][snapping] % k
                shift[snapping] = tread_snap_shift(
                    self.terrain, plant[snapping], direction[snapping],
                    self.heel[index[1][snapping]], self.toe[index[1][snapping]],
                    p.tread_margin[rows], float(p.tread_search.max()),
                    p.tread_tolerance[rows], float(p.tread_spacing.min()),
                )
            hits = self.terrain.raycast_down(plant + shift)
            height = np.where(hits.hit, hits.height, 0.0)
            # where its sole is aligned, a planted foot stands on the line along its sole: the
            # rays are cast once per footstep, the stance frames rest on them and the swings
            # start and end there
            stands = np.zeros((len(plant), STEP_VALUES - 5 + self.sole_along.shape[1]))
            rows = index[0] % k
            aligned = p.foot_align[rows] & p.ik[rows]
            if np.any(aligned):
                ground, pitch, on_line, heights = standing_ground(
                    self.terrain, (plant + shift)[aligned], direction[aligned],
                    self.sole_along[index[1][aligned]], p.steep_normal_y[rows[aligned]],
                    p.max_slope[rows[aligned]])
                height[aligned] = np.where(on_line, ground, height[aligned])
                stands[aligned] = np.column_stack([pitch, on_line, heights])
            computed = np.column_stack([shift, height, hits.hit, snapping, stands])
            values[full_index] = computed[inverse.reshape(-1)]
        if count:  # (a batch of no frames keeps the cache as it was)
            # This call's own arrays: one frame's are kept whole, a batch's last frame copied
            # (so the batch's memory is not held).
            self.keys = keys if count == k else keys[-k:].copy()
            self.values = values if count == k else values[-k:].copy()
        return values
