"""Planted feet held in world space (Holden's foot locking), by no more than the source slid.

A resting ball is locked where the output foot already is when its contact begins; the lock
lets go when the contact ends, when the source moves the ball faster than a stance slip or
further than the slip radius from the lock, and its last correction then fades to zero within
``blend_seconds`` so the foot never pops. A ball that speeds up steadily past the slip speed
is being pushed off (the foot rolls over its toe tip): the lock lets go where that speed-up
begins (the clip is known ahead), else the ball is handed back after the roll faster than the
source moved it. A sequential filter over frames.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray
from footfall.footing import horizontal_speeds

BLEND_SECONDS = 0.1
#: A lock lets go (until the next contact) when the source moves the ball faster than a walk's
#: stance slip (m/s) or further than SLIP_RADIUS (m) from where it was locked.
SLIP_SPEED = 0.4
SLIP_RADIUS = 0.05
#: A push-off: the ball's speed rising by more than this (m/s) from each frame to the next, up
#: to the one where it passes the slip speed, at most ``blend_seconds`` before it (the rise of a
#: real push-off is 0.01–0.2 m/s a frame at 30–60 fps: any steady rise counts).
PUSH_OFF_RISE = 1e-3
#: The rise is judged between frames this far apart (seconds; one frame at 30 fps or less): at
#: a higher rate the ball's speed wobbles from frame to frame (a clip resampled from 30 to 120
#: fps moves at a nearly even speed between its keys), and a push-off judged frame by frame was
#: missed there — the lock held the ball 21 mm back for 0.1 s past the stance the 30 fps clip let
#: go of (mixamo_stepping at 120 fps on level ground, issue 36 item 1).
PUSH_OFF_STEP_SECONDS = 1.0 / 30.0


def push_offs(speed: FloatArray, fps: float, slip_speed: float = SLIP_SPEED,
              seconds: float = BLEND_SECONDS) -> NDArray[np.bool_]:
    """Frames ``(F, feet)`` in which a ball's ``speed (F, feet)`` (m/s) rises in every frame —
    by more than :data:`PUSH_OFF_RISE` over the last :data:`PUSH_OFF_STEP_SECONDS` — into a
    frame where it passes ``slip_speed``, within ``seconds`` before that frame."""
    rising = np.zeros(speed.shape, dtype=bool)
    apart = max(1, int(round(PUSH_OFF_STEP_SECONDS * fps)))
    rising[apart:] = speed[apart:] - speed[:-apart] > PUSH_OFF_RISE
    passing = np.zeros(speed.shape, dtype=bool)
    passing[1:] = (speed[1:] > slip_speed) & (speed[:-1] <= slip_speed)
    reach = max(1, int(round(seconds * fps)))
    found = np.zeros(speed.shape, dtype=bool)
    for frame, foot in zip(*np.nonzero(passing), strict=True):
        start = frame
        while start > 0 and frame - start < reach and rising[start - 1, foot]:
            start -= 1
        found[start:frame, foot] = True
    return found


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
    the foot, and ``locked (F, feet)`` where a lock holds (locks as in the module docstring;
    the fade is linear).
    """
    ball = np.asarray(ball, dtype=np.float64)[..., [0, 2]]
    contacts = np.asarray(contacts, dtype=bool)
    frames, feet = contacts.shape
    speed = horizontal_speeds(np.insert(ball, 1, 0.0, axis=-1), fps, centred=True)
    leaving = (speed > slip_speed) | push_offs(speed, fps, slip_speed, blend_seconds)
    shift = np.zeros((frames, feet, 2))
    locked = np.zeros((frames, feet), dtype=bool)
    for foot in range(feet):
        held = False
        spent = False  # the lock of this contact let go: no new lock until the next contact
        lock = np.zeros(2)
        current = np.zeros(2)
        step = 0.0
        for f in range(frames):
            if not contacts[f, foot]:
                spent = False
            if held and (not contacts[f, foot] or leaving[f, foot]):
                held = False
                spent = contacts[f, foot]
            if not held and not spent and contacts[f, foot] and not leaving[f, foot]:
                held, lock = True, ball[f, foot] + current
            if held:
                wanted = lock - ball[f, foot]
                if np.hypot(*wanted) > slip_radius:
                    held, spent = False, True
                else:
                    current = wanted
                    step = np.hypot(*current) / max(blend_seconds * fps, 1.0)
                    locked[f, foot] = True
            if not held:
                size = np.hypot(*current)
                current = current * (max(size - step, 0.0) / size) if size > 0 else current
            shift[f, foot] = current
    return shift, locked
