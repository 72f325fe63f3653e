"""Filters along a clip's frames (axis 0) that grounding a clip smooths its corrections with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from footfall.arrays import FloatArray


def smooth(values: FloatArray, window: int, reduce: Callable[..., Any] = np.mean) -> FloatArray:
    """Centred moving average (or ``reduce``: ``np.max``) ``(F, ...)`` along frames over
    ``window`` frames (edges held)."""
    if window < 2 or values.shape[0] < 2:
        return values.copy()
    half = window // 2
    pad = [(half, half)] + [(0, 0)] * (values.ndim - 1)
    view = sliding_window_view(np.pad(values, pad, mode="edge"), 2 * half + 1, axis=0)
    return reduce(view, axis=-1)


def smooth_above(values: FloatArray, window: int) -> FloatArray:
    """A smooth curve ``(F, ...)`` never below ``values``: moving maximum, then moving average
    (per column along frames)."""
    return smooth(smooth(values, window, np.max), window)


def spread_above(values: FloatArray, window: int) -> FloatArray:
    """The least curve ``(F, ...)`` never below ``values`` that spreads each frame's value to
    the frames around it as :func:`smooth_above` over ``window`` frames does to a lone peak:
    falling linearly to zero ``2 * (window // 2) + 1`` frames away (per column along frames,
    edges held). Never above :func:`smooth_above` (equal at a lone peak or a step); lower
    between two peaks, where the moving maximum fills the valley before averaging."""
    reach = 2 * (window // 2) + 1
    if reach < 2 or values.shape[0] < 2:
        return values.copy()
    frames = values.shape[0]
    out = values.copy()
    for k in range(1, reach):
        weight = 1.0 - k / reach
        ahead = values[np.minimum(np.arange(frames) + k, frames - 1)]
        behind = values[np.maximum(np.arange(frames) - k, 0)]
        out = np.maximum(out, weight * np.maximum(ahead, behind))
    return out


def blend_out(values: FloatArray, contacts: NDArray[np.bool_], frames: int) -> FloatArray:
    """Per-foot ``values (F, 2)`` held in contact, faded to zero over ``frames ≥ 1`` outside
    it."""
    out = np.where(contacts, values, 0.0)
    index = np.arange(values.shape[0])
    for foot in range(values.shape[1]):
        contact_frames = np.nonzero(contacts[:, foot])[0]
        if contact_frames.size == 0:
            continue
        after = np.searchsorted(contact_frames, index)
        nearest = contact_frames[np.clip(after, 0, contact_frames.size - 1)]
        before = contact_frames[np.clip(after - 1, 0, contact_frames.size - 1)]
        closer = np.where(np.abs(before - index) < np.abs(nearest - index), before, nearest)
        distance = np.abs(closer - index)
        weight = np.clip(1.0 - distance / (frames + 1), 0.0, 1.0)
        out[:, foot] = np.where(contacts[:, foot], out[:, foot], values[closer, foot] * weight)
    return out


def fill_missing(values: FloatArray) -> FloatArray:
    """``(F, ...)`` with NaN replaced by the nearest earlier finite value along frames (the
    next one before the first; 0 where a column has none)."""
    finite = np.isfinite(values)
    index = np.where(finite, np.arange(len(values)).reshape(-1, *([1] * (values.ndim - 1))), -1)
    last = np.maximum.accumulate(index, axis=0)
    first = np.argmax(finite, axis=0)
    last = np.where(last < 0, first, last)
    out = np.take_along_axis(values, last, axis=0)
    return np.where(np.isfinite(out), out, 0.0)
