"""A clip's stance level, the one rule: where each foot's *support joints* ``(P,)`` (ankle,
ball, toe tips: measured joints, not a modelled sole) are when it is planted — its *planted
heights* ``(2, P)``, a low percentile over its contacts (:func:`planted_heights`) — and how far
a foot is above (+, floating) or below (−, sinking) them, its *stance defect* ``(F, 2)``
(:func:`stance_defect`). Clip grounding holds a planted foot to its planted heights over the
ground under it, and measures what the source itself gets wrong by the defect; a stream's stance
level is learned frame by frame instead (:mod:`footfall.footing.tracker`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray

#: A foot's planted height is the low percentile of its support joints' heights in stance.
REST_PERCENTILE = 5


def planted_heights(heights: FloatArray, contacts: NDArray[np.bool_]) -> FloatArray:
    """Each foot's support joint heights ``(2, P)`` when planted: a low percentile over its
    ``contacts (F, 2)`` (over every frame for a foot that never touches down)."""
    rest = np.empty(heights.shape[1:])
    for foot in range(heights.shape[1]):
        frames = contacts[:, foot] if contacts[:, foot].any() else slice(None)
        rest[foot] = np.nanpercentile(heights[frames, foot], REST_PERCENTILE, axis=0)
    return rest


def stance_defect(heights: FloatArray, rest: FloatArray) -> FloatArray:
    """How far each foot ``(F, 2)`` is above (+) or below (−) planted, from its support joints'
    ``heights (F, 2, P)`` (ankle, ball, toe tips) against their planted heights ``rest (2, P)``.

    It floats by what its lowest support joint is above planted (a foot on its toe tips at
    push-off is planted). It sinks by what its ankle is below planted (a heel pressed into the
    ground), or its ball — but a ball no deeper than the foot's lowest point is under the
    ground ``heights`` are measured over: a toe tip alone under the floor is a bent toe, not a
    sunken foot, and a ball pressed under its planted height while every point stays out of the
    ground (toes turned up, :mod:`footfall.grounding.clip.toe_bend`) needs no lift; one whose
    foot goes into the ground needs the least lift that takes it out.
    """
    relative = heights - rest
    finite = np.isfinite(relative)
    lifted = np.min(np.where(finite, relative, np.inf), axis=-1)
    lowest = np.min(np.where(finite, heights, np.inf), axis=-1)
    ankle = np.where(finite[..., 0], relative[..., 0], np.inf)
    ball = np.where(finite[..., 1], np.maximum(relative[..., 1], lowest), np.inf)
    sunk = np.minimum(ankle, ball)
    defect = np.where(lifted > 0, lifted, np.minimum(sunk, 0.0))
    return np.where(np.isfinite(defect) & np.isfinite(lifted), defect, 0.0)
