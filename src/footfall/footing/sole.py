"""How a sole rests on the ground under it: the one rule, for clips and the per-frame pipeline.

The ground is sampled along the foot (heights at distances ahead of the ankle). The foot rests on
the *upper hull* of those samples, along the hull's edge over the point that carries the weight:
the pair of samples — one at or behind that point, one ahead of it — whose line is highest
there. A rock under the heel tilts the toes down onto the ground beyond it, one under the ball
tilts them up onto it. The edge is then kept within the slopes the ground has between its two
ends (between two points of smooth ground some point always has the line's slope): a line that
the ground's own slopes do not allow crosses a step — a riser, which no downward ray meets.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray


def resting_edge(height: FloatArray, along: FloatArray, local: FloatArray,
                 usable: NDArray[np.bool_], at: FloatArray | float,
                 hull: NDArray[np.bool_] | None = None
                 ) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], NDArray[np.bool_]]:
    """The edge a sole rests on, over ground samples ``(..., S)``.

    Args:
        height: the ground's height under each sample, metres (any value where not usable).
        along: each sample's distance ahead of the ankle along the foot, metres.
        local: the ground's own slope at each sample along the foot (rise per metre).
        usable: the samples to rest on (hit, not too steep, known).
        at: ``(...)`` or a float: where the weight is, metres ahead of the ankle.
        hull: ``(S,)`` or ``(..., S)`` the samples the foot stands on (default: every usable
            one); the others only bound the kept slope.

    Returns the edge's slope ``(...)`` (rise per metre toward the toes), that slope kept
    within the ground's own slopes between the edge's ends ``(...)``, whether an edge was
    found ``(...)`` and whether the kept slope differs from the edge's (the edge crosses a
    step) ``(...)``. Where no edge is found both slopes are 0.
    """
    weight = np.asarray(at, dtype=np.float64)[..., None]  # (..., 1)
    stands = usable if hull is None else usable & hull
    pair = (stands & (along <= weight))[..., :, None] & (stands & (along > weight))[..., None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (height[..., None, :] - height[..., :, None]) / (
            along[..., None, :] - along[..., :, None])
        line = np.where(pair, height[..., :, None]
                        + slope * (weight[..., None] - along[..., :, None]), -np.inf)
    flat = (*line.shape[:-2], -1)
    best = line.reshape(flat).argmax(axis=-1)[..., None]
    slope = np.take_along_axis(slope.reshape(flat), best, axis=-1)[..., 0]
    samples = along.shape[-1]
    start = np.take_along_axis(along, best // samples, axis=-1)
    stop = np.take_along_axis(along, best % samples, axis=-1)
    found = pair.reshape(flat).any(axis=-1) & np.isfinite(slope)
    inside = usable & (along >= start - 1e-6) & (along <= stop + 1e-6)
    with np.errstate(invalid="ignore"):
        lowest = np.where(inside, local, np.inf).min(axis=-1)
        highest = np.where(inside, local, -np.inf).max(axis=-1)
        kept = np.clip(slope, lowest, highest)
        step = found & ~(np.abs(kept - slope) <= 1e-9)
    return (np.where(found, slope, 0.0), np.where(found & (lowest <= highest), kept, 0.0),
            found, step)
