"""Planted feet held in world space (the walk-cycle reference's locked feet; Holden's foot
locking), by no more than the source itself slid.

A resting ball is locked where the output foot already is when its contact begins; the lock
lets go when the contact ends, when the source moves the ball faster than a stance slip or
further than the slip radius from the lock, and its last correction then fades to zero within
``blend_seconds`` so the foot never pops. This is a sequential filter over frames (a loop over
time is the method).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray
from footfall.grounding.contacts import horizontal_speed

BLEND_SECONDS = 0.1
#: A planted ball is held only while the source moves it slower than a walk's stance slip
#: (m/s) and no further than SLIP_RADIUS (m) from where it was locked; past either the lock lets
#: go, blended out over ``blend_seconds``, and stays off until the next contact.
SLIP_SPEED = 0.4
SLIP_RADIUS = 0.05


def slip_locks(
    ball: ArrayLike,
    contacts: ArrayLike,
    fps: float,
    slip_speed: float = SLIP_SPEED,
    slip_radius: float = SLIP_RADIUS,
    blend_seconds: float = BLEND_SECONDS,
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Horizontal corrections that hold each planted ball where it landed.

    ball: ``(F, feet, 3)`` world positions of the balls of the feet (or whatever point should
    stay put); contacts: ``(F, feet)``. Returns the correction ``(F, feet, 2)`` (x, z) to add to
    the foot, and ``pinned (F, feet)`` where a lock holds. A lock starts where the output foot
    already is (no jump); when it lets go its last correction fades linearly to zero within
    ``blend_seconds``. The correction is never larger than the source's own slip since the lock.
    """
    ball = np.asarray(ball, dtype=np.float64)[..., [0, 2]]
    contacts = np.asarray(contacts, dtype=bool)
    frames, feet = contacts.shape
    speed = horizontal_speed(np.insert(ball, 1, 0.0, axis=-1), fps)
    shift = np.zeros((frames, feet, 2))
    pinned = np.zeros((frames, feet), dtype=bool)
    for foot in range(feet):
        held = False
        spent = False  # the lock of this contact let go: no new lock until the next contact
        lock = np.zeros(2)
        current = np.zeros(2)
        step = 0.0
        for f in range(frames):
            if not contacts[f, foot]:
                spent = False
            if held and (not contacts[f, foot] or speed[f, foot] > slip_speed):
                held = False
                spent = contacts[f, foot]
            if not held and not spent and contacts[f, foot] and speed[f, foot] <= slip_speed:
                held, lock = True, ball[f, foot] + current
            if held:
                wanted = lock - ball[f, foot]
                if np.hypot(*wanted) > slip_radius:
                    held, spent = False, True
                else:
                    current = wanted
                    step = np.hypot(*current) / max(blend_seconds * fps, 1.0)
                    pinned[f, foot] = True
            if not held:
                size = np.hypot(*current)
                current = current * (max(size - step, 0.0) / size) if size > 0 else current
            shift[f, foot] = current
    return shift, pinned
