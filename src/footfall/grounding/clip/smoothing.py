"""Filters along a clip's frames (axis 0) that grounding a clip smooths its corrections with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.metrics.swing import swing_spans


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


def rate_limited_above(values: FloatArray, step: FloatArray | float) -> FloatArray:
    """The least curve ``(F, ...)`` never below ``values`` that changes by at most ``step``
    between two frames (a scalar, or ``(F, ...)``: ``step[t]`` between frames ``t − 1`` and
    ``t``; per column along frames): a step up met by a ramp before it, a step down left by a
    ramp after it."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return values.copy()
    limit = np.broadcast_to(np.asarray(step, dtype=np.float64), values.shape).copy()
    limit[0] = 0.0
    along = np.cumsum(limit, axis=0)  # how far each frame is from the first, in allowed change
    with np.errstate(invalid="ignore"):
        ahead = np.maximum.accumulate(np.where(np.isnan(values), -np.inf, values + along),
                                      axis=0) - along
        behind = np.maximum.accumulate(
            np.where(np.isnan(values), -np.inf, values - along)[::-1], axis=0)[::-1] + along
    ramp = np.maximum(ahead, behind)
    # exactly the values where no ramp lifts them (the sums above round at 1e-16)
    return np.where(np.isnan(values) | (ramp - values <= 1e-12), values, ramp)


def blend_out(values: FloatArray, contacts: NDArray[np.bool_], frames: int,
              speed: float | None = None) -> FloatArray:
    """Per-foot ``values (F, 2, ...)`` held in contact and eased through every swing: the value
    at lift-off faded to zero over ``frames ≥ 1`` frames after it, the value at touch-down
    faded in over ``frames`` before it (weight ``1 − distance / (frames + 1)``); with ``speed``
    (value units per frame, the norm over the trailing axes), a value that would fade faster
    fades over as many frames as it needs at that speed. Where the two fades would overlap, the
    swing blends linearly from the lift-off value to the touch-down value instead (a short
    swing between two tilted stances keeps its tilt rather than dipping towards zero)."""
    extra = (1,) * (values.ndim - 2)
    out = np.where(contacts.reshape(contacts.shape + extra), values, 0.0)

    def reach(frame: int, foot: int) -> int:
        if speed is None:
            return frames
        need = float(np.linalg.norm(values[frame, foot])) / max(speed, 1e-12)
        return max(frames, int(np.ceil(need)))

    for foot, start, stop, lift_off, touch_down in swing_spans(contacts):
        count = stop - start
        since = np.arange(1, count + 1, dtype=np.float64)  # frames since lift-off
        until = count + 1 - since  # frames until touch-down
        if lift_off is not None and touch_down is not None and (
                reach(lift_off, foot) + reach(touch_down, foot) > count):
            after, before = until / (count + 1), since / (count + 1)
        else:
            after = before = np.zeros(count)
            if lift_off is not None:
                after = np.clip(1.0 - since / (reach(lift_off, foot) + 1), 0.0, 1.0)
            if touch_down is not None:
                before = np.clip(1.0 - until / (reach(touch_down, foot) + 1), 0.0, 1.0)
        eased = np.zeros((count, *values.shape[2:]))
        if lift_off is not None:
            eased += after.reshape(-1, *extra) * values[lift_off, foot]
        if touch_down is not None:
            eased += before.reshape(-1, *extra) * values[touch_down, foot]
        out[start:stop, foot] = eased
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
