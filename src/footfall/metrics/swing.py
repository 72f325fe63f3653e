"""A swinging foot judged against the ground blended from lift-off to touch-down.

Over stairs the ground straight under a swinging foot jumps at every riser, so a swing's height
"above the ground under it" says nothing about whether a lift was needed. Here the ground a swing
is judged against is the ground its foot stood on at lift-off, blended into the ground it stands
on at touch-down by how far the foot has travelled horizontally between the two (a ramp from tread
to tread). A grounded swing keeps the source's height above that blended ground; what it rises
beyond it is its *lift*, needed only where the terrain would cut the foot.

Shapes: ``F`` frames first, then feet (2).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.footing.runs import runs


def swing_spans(contacts: NDArray[np.bool_]) -> list[tuple[int, int, int, int | None, int | None]]:
    """Every swing of ``contacts (F, feet)``: ``(foot, start, stop, lift_off, touch_down)`` with
    frames ``start:stop`` not in contact, ``lift_off`` the contact frame before (None at the
    clip's start) and ``touch_down`` the contact frame after (None at its end). A foot that never
    touches down has no swing."""
    spans = []
    frames = contacts.shape[0]
    for foot in range(contacts.shape[1]):
        planted = contacts[:, foot]
        if not planted.any():
            continue
        for start, stop in zip(*runs(~planted), strict=True):
            spans.append((foot, int(start), int(stop), int(start) - 1 if start > 0 else None,
                          int(stop) if stop < frames else None))
    return spans


def blend_across_swings(values: FloatArray, contacts: NDArray[np.bool_],
                        positions: FloatArray) -> FloatArray:
    """``values (F, feet)`` kept in contact frames and, in every swing, blended from their value
    at lift-off to their value at touch-down by the foot's horizontal progress: the share of the
    path ``positions (F, feet, 3)`` travelled since lift-off out of the whole swing's path
    (before the first contact and after the last, the nearest contact's value). A foot that
    never touches down keeps its values."""
    out = np.array(values, dtype=np.float64, copy=True)
    for foot, start, stop, lift_off, touch_down in swing_spans(contacts):
        if lift_off is None and touch_down is None:
            continue
        if lift_off is None or touch_down is None:
            out[start:stop, foot] = values[lift_off if touch_down is None else touch_down, foot]
            continue
        path = positions[lift_off:touch_down + 1, foot][:, [0, 2]]
        travelled = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(path, axis=0),
                                                                    axis=-1))])
        share = travelled / travelled[-1] if travelled[-1] > 1e-9 else np.linspace(
            0.0, 1.0, len(travelled))
        a, b = values[lift_off, foot], values[touch_down, foot]
        out[start:stop, foot] = a + (b - a) * share[1:-1]
    return out


def swing_lift(source_ankle: FloatArray, ankle: FloatArray, contacts: NDArray[np.bool_]
               ) -> FloatArray:
    """How far each swinging foot ``(F, feet)`` (metres; 0 in contact) rises above the source's
    height over the blended ground: the vertical move of its ankle ``ankle (F, feet, 3)`` from
    the source's ``source_ankle`` less that move blended from lift-off to touch-down
    (:func:`blend_across_swings`)."""
    moved = ankle[..., 1] - source_ankle[..., 1]
    lift = moved - blend_across_swings(moved, contacts, source_ankle)
    return np.where(contacts, 0.0, lift)
