"""The ground a planted foot stands on in the per-frame pipeline: rays along its sole, the line
it rests on and how high that line is under its ankle.

A single ray under the ankle gives the height and slope of one point. A foot across a rock's
edge then gets that point's slope: with the ankle on a rock's rising flank the toes turn into
the rock (clamped to the sole's largest slope, they stay in it), with the ankle on its crest and
the toes over the far side they turn up into the air (the bunny's straight walk on the rocks:
stances 10–16 cm off). Here the sole samples the ground from heel to toe (:data:`SOLE_RAYS`
rays) and the foot rests on the upper hull of what it finds, at the edge just ahead of the
ankle where the weight is: pitched along that edge (kept within the sole's largest slope) and
lowered until its sole touches the highest of the samples. An edge steeper or shallower than
the ground between its two ends ever is crosses a step (a riser, which no downward ray meets):
there the foot stands on the ray under its ankle as before, and tread snapping moves it.

Shapes: ``N`` rows (frames × characters), 2 feet, ``S`` sole samples heel to toe.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.footing.sole import resting_edge
from footfall.jit import helper

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource

#: Rays cast along each planted sole, heel to toe (about 2 cm apart on a 17 cm sole).
SOLE_RAYS = 9
#: The weight of a planted foot is taken this far ahead of its ankle (metres).
WEIGHT_AHEAD = 0.001


def sole_offsets(heel_back: FloatArray, toe_forward: FloatArray) -> FloatArray:
    """Where ``(2, S)`` the sole samples lie along each foot, metres ahead of the ankle (heel
    ``-heel_back (2,)`` to toe ``toe_forward (2,)``, the ankle's own point among them)."""
    share = np.linspace(0.0, 1.0, SOLE_RAYS)
    along = -heel_back[:, None] + share * (heel_back + toe_forward)[:, None]
    nearest = np.argmin(np.abs(along), axis=-1)
    along[np.arange(2), nearest] = 0.0  # one ray straight under the ankle
    return along


def standing_ground(terrain: RaySource, ankle_xz: FloatArray, heading: FloatArray,
                    along: FloatArray, steep_normal_y: FloatArray, max_slope: FloatArray
                    ) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], FloatArray]:
    """The ground a foot would stand on with its ankle at ``ankle_xz (..., 2)`` heading along
    ``heading (..., 2)`` (x, z unit), sampled at ``along (..., S)`` metres ahead of the ankle
    (:func:`sole_offsets`; one of them 0): the height ``(...)`` under the ankle of the line it
    rests on, that line's pitch ``(...)`` (radians, + toes up) and where it stands on that line
    ``(...)`` (not where the ray under the ankle missed, nor over a step: there the height is
    that ray's answer, the pitch 0), and the ground's
    height under each sample ``(..., S)`` (NaN on a miss or a face steeper than
    ``steep_normal_y (...)``; :func:`rest_height_s` rests a sole pitched otherwise on them).
    ``max_slope (...)``: the pitch's limit, radians."""
    points = ankle_xz[..., None, :] + along[..., None] * heading[..., None, :]
    hits = terrain.raycast_down(points)  # (..., S)
    up = hits.normal[..., 1]
    usable = hits.hit & (up >= np.asarray(steep_normal_y)[..., None])
    with np.errstate(invalid="ignore", divide="ignore"):
        local = -np.einsum("...sk,...k->...s", hits.normal[..., [0, 2]], heading) / up
    height = np.where(usable, hits.point[..., 1], np.nan)
    x = np.broadcast_to(along, height.shape)
    # the upper hull's edge over the weight, kept within the ground's slopes (footing.sole);
    # over a step (a riser under the foot, which no downward ray meets) tread snapping's case:
    # the foot stands as it did
    _, kept, found, step = resting_edge(height, x, local, usable, WEIGHT_AHEAD)
    slope = np.where(found & ~step, kept, 0.0)
    pitch = np.clip(np.arctan(slope), -np.asarray(max_slope), np.asarray(max_slope))
    # rested on the highest sample under the pitched sole, never below the ground at the ankle
    centre = np.argmin(np.abs(x), axis=-1)[..., None]
    under = np.take_along_axis(hits.point[..., 1], centre, -1)[..., 0]
    hit = np.take_along_axis(hits.hit, centre, -1)[..., 0]
    with np.errstate(invalid="ignore"):
        rest = np.where(usable, height - np.tan(pitch)[..., None] * x, -np.inf).max(axis=-1)
    ground = np.maximum(rest, under)
    on_line = hit & ~step
    return np.where(on_line, ground, under), np.where(on_line, pitch, 0.0), on_line, height


@helper
def rest_height_s(heights: FloatArray, along: FloatArray, pitch: float, under: float) -> float:
    """How high (metres) the point of a sole under its ankle rests, pitched by ``pitch``
    (radians, + toes up) over the ground's ``heights (S,)`` at ``along (S,)`` metres ahead of
    the ankle (NaN: left out): on the highest of them, never below ``under`` (the ground
    straight under the ankle)."""
    rise = math.tan(pitch)
    out = under
    for i in range(heights.shape[0]):
        if heights[i] == heights[i]:  # not NaN
            out = max(out, heights[i] - rise * along[i])
    return out
