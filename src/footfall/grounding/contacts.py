"""Foot contacts from a clip itself (no labels): low and slow feet, median-filtered, held.

A foot is in contact when its lowest sole point is near the clip's floor and its heel (ankle) or
toe is nearly still — the heel carries the contact after heel strike, the toe before push-off.
Single-frame flickers are removed with a median filter (Holden's foot locking uses toe speed
below 0.15 m/s and a median filter the same way). A contact is then *held* (hysteresis) over the
neighbouring frames in which the foot still touches the floor — its lowest heel or toe point
within ``HOLD_HEIGHT`` — but slides slower than ``HOLD_SPEED``: a planted toe that slides at
push-off is still planted, and must be locked, not released to skate.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike, NDArray

from footfall.footing.runs import segments

#: Defaults (metres, m/s, seconds: a 5-frame median filter at 60 fps, scaled with the frame rate).
CONTACT_HEIGHT = 0.04
CONTACT_SPEED = 0.3
MEDIAN_SECONDS = 5 / 60
#: Hysteresis (metres, m/s; a swinging foot is faster: 2 – 4 m/s in the test clips).
HOLD_HEIGHT = 0.02
HOLD_SPEED = 1.0
#: A break in a contact shorter than 0.2 s over which the foot moves less than 5 cm is no step
#: (a weight shift while standing): the contact is bridged instead of released and re-locked.
BRIDGE_SECONDS = 0.2
BRIDGE_DISTANCE = 0.05


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
    still = np.minimum(np.asarray(heel_speed), np.asarray(toe_speed)) < speed
    raw = (np.asarray(sole_height, dtype=np.float64) < height) & still
    return median_filter(raw, int(round(median_seconds * fps)))


def hold_contacts(
    contacts: ArrayLike,
    point_height: ArrayLike,
    point_speed: ArrayLike,
    height: float = HOLD_HEIGHT,
    speed: float = HOLD_SPEED,
) -> NDArray[np.bool_]:
    """Contacts ``(F, feet)`` held (the module docstring's hysteresis) over the frames around
    them in which ``point_height (F, feet)`` (m above the floor) is below ``height`` and
    ``point_speed (F, feet)`` (m/s) below ``speed``."""
    contacts = np.asarray(contacts, dtype=bool)
    with np.errstate(invalid="ignore"):
        touching = (np.asarray(point_height) < height) & (np.asarray(point_speed) < speed)
    out = contacts.copy()
    for foot in range(contacts.shape[1]):
        # Grown both ways through touching frames: every run of touching or contact frames
        # that holds a contact.
        for start, stop in segments(contacts[:, foot] | touching[:, foot]):
            out[start:stop, foot] |= contacts[start:stop, foot].any()
    return out


def bridge_gaps(
    contacts: ArrayLike,
    positions: ArrayLike,
    fps: float,
    seconds: float = BRIDGE_SECONDS,
    distance: float = BRIDGE_DISTANCE,
) -> NDArray[np.bool_]:
    """Contacts ``(F, feet)`` with short breaks closed: a gap of at most ``seconds`` between two
    contacts, over which the foot's position ``(F, feet, 3)`` moves less than ``distance``
    horizontally, is part of one contact (released and re-locked, the foot would jump)."""
    contacts = np.asarray(contacts, dtype=bool)
    positions = np.asarray(positions, dtype=np.float64)
    out = contacts.copy()
    longest = seconds * fps
    for foot in range(contacts.shape[1]):
        steps = segments(contacts[:, foot])
        for (_, stop), (start, _) in zip(steps[:-1], steps[1:], strict=True):
            step = positions[start, foot] - positions[stop - 1, foot]
            moved = np.hypot(step[0], step[2])
            if start - stop <= longest and moved < distance:
                out[stop:start, foot] = True
    return out
