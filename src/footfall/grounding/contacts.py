"""Foot contacts from a clip itself (no labels): low and slow feet, median-filtered.

A foot is in contact when its lowest sole point is near the clip's floor and its heel (ankle) or
toe is nearly still — the heel carries the contact after heel strike, the toe before push-off.
Single-frame flickers are removed with a median filter (Holden's foot locking uses toe speed
below 0.15 m/s and a median filter the same way).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike, NDArray

#: Defaults: lowest sole point within 4 cm of the floor, heel or toe slower than 0.3 m/s,
#: 5-frame median filter at 60 fps (scaled with the frame rate).
CONTACT_HEIGHT = 0.04
CONTACT_SPEED = 0.3
MEDIAN_SECONDS = 5 / 60


def horizontal_speed(positions: ArrayLike, fps: float) -> NDArray[np.float64]:
    """Horizontal speed ``(F, ...)`` m/s of positions ``(F, ..., 3)`` (central differences)."""
    positions = np.asarray(positions, dtype=np.float64)[..., [0, 2]]
    if positions.shape[0] < 2:
        return np.zeros(positions.shape[:-1])
    velocity = np.gradient(positions, axis=0) * fps
    return np.linalg.norm(velocity, axis=-1)


def median_filter(flags: ArrayLike, window: int) -> NDArray[np.bool_]:
    """Majority vote of bool ``(F, ...)`` over a centred odd ``window`` along frames."""
    flags = np.asarray(flags, dtype=bool)
    window = max(1, int(window) | 1)
    if window == 1 or flags.shape[0] < window:
        return flags.copy()
    half = window // 2
    padded = np.concatenate([np.repeat(flags[:1], half, 0), flags, np.repeat(flags[-1:], half, 0)])
    votes = sliding_window_view(padded.astype(np.int8), window, axis=0).sum(axis=-1)
    return votes > half


def detect_contacts(
    sole_height: ArrayLike,
    heel_speed: ArrayLike,
    toe_speed: ArrayLike,
    fps: float,
    height: float = CONTACT_HEIGHT,
    speed: float = CONTACT_SPEED,
    median_seconds: float = MEDIAN_SECONDS,
) -> NDArray[np.bool_]:
    """Contacts ``(F, feet)`` from the lowest sole point's height above the floor ``(F, feet)``
    and heel / toe horizontal speeds ``(F, feet)`` m/s."""
    sole_height = np.asarray(sole_height, dtype=np.float64)
    still = np.minimum(np.asarray(heel_speed), np.asarray(toe_speed)) < speed
    raw = (sole_height < height) & still
    return median_filter(raw, int(round(median_seconds * fps)))


def segments(flags: ArrayLike) -> list[tuple[int, int]]:
    """``[(start, stop), ...]`` frame ranges (stop exclusive) where a 1-D bool array is True."""
    flags = np.asarray(flags, dtype=bool).astype(np.int8)
    edges = np.diff(np.concatenate([[0], flags, [0]]))
    return list(zip(np.nonzero(edges == 1)[0].tolist(), np.nonzero(edges == -1)[0].tolist(),
                    strict=True))
