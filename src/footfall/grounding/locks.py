"""Planted feet held in world space (Holden's foot locking), by no more than the source slid.

A resting ball is locked where the output foot already is when its contact begins; the lock
lets go when the contact ends, or when the source moves the ball faster than a stance slip or
further than the slip radius from the lock. A ball that speeds up steadily past the slip speed
is being pushed off (the foot rolls over its toe tip): the lock lets go where that speed-up
begins (the clip is known ahead).

A released correction is handed back where it adds least to the foot's motion (a foot on the
ground must not slide; a foot in the air may move):

* wherever the source moves the ball slower than a stance slip, by as much as keeps the ball
  under the slip speed (a slow start of a push-off takes it while the foot is still planted);
* in the air (out of contact, the ball risen out of its resting band), also by as much as the
  ball has risen over the band and :data:`AIR_SHARE` of the way it travels;
* at the latest ``blend_seconds`` after the foot starts to move (faster than a stance slip, or
  out of contact), eased in cubically: little in the first frames, when a toe rolling off the
  floor still touches it, and a foot dragged along the floor keeps none of it for longer
  (eased in linearly or quadratically, or from the contact's end, the circle's pair below
  still read 0.040, or a drag outlived the source's stance: the cube is chosen, not derived).

Handed back linearly within 0.1 s of the release instead, a toe still on the floor at push-off
slid 0.47 → 0.68 m/s, over GMD's 0.5 (cmu_01_01 bent into a circle, frame 414: GMD's ratio
0.030 → 0.040 on level ground, issue 36 item 1); kept whole until the ball rose, corrections
outlived the source's stances (a shuffle, a foot dragged in contact: up to 45 mm beyond the
source's defects on level ground, independent scorer). A sequential filter over frames.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray
from footfall.footing import horizontal_speeds

#: A released correction is handed back within this long (seconds) of the foot's starting to
#: move, and a push-off is looked for this far ahead of the ball's passing the slip speed.
BLEND_SECONDS = 0.1
#: In the air, a released correction is also handed back by this share of the ball's
#: horizontal travel (at 0.25, the circle's toe above moved 0.5 m/s again, two frames after its
#: contact ended, 0.1 mm out of its resting band).
AIR_SHARE = 0.1
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
    rise: ArrayLike,
    fps: float,
    slip_speed: float = SLIP_SPEED,
    slip_radius: float = SLIP_RADIUS,
    blend_seconds: float = BLEND_SECONDS,
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Horizontal corrections that hold each planted ball where it landed.

    ball: ``(F, feet, 3)`` world positions of the balls of the feet (or whatever point should
    stay put); contacts: ``(F, feet)``; rise: ``(F, feet)`` how far each ball is above its
    resting band (metres, ≤ 0 in it; NaN counts as in it). Returns the correction
    ``(F, feet, 2)`` (x, z) to add to the foot, and ``locked (F, feet)`` where a lock holds
    (locks, and how a released correction is handed back, as in the module docstring).
    """
    ball = np.asarray(ball, dtype=np.float64)[..., [0, 2]]
    contacts = np.asarray(contacts, dtype=bool)
    rise = np.nan_to_num(np.asarray(rise, dtype=np.float64), nan=0.0)
    frames, feet = contacts.shape
    speed = horizontal_speeds(np.insert(ball, 1, 0.0, axis=-1), fps, centred=True)
    leaving = (speed > slip_speed) | push_offs(speed, fps, slip_speed, blend_seconds)
    travel = np.zeros((frames, feet))
    travel[1:] = np.linalg.norm(np.diff(ball, axis=0), axis=-1)
    span = max(blend_seconds * fps, 1.0)
    shift = np.zeros((frames, feet, 2))
    locked = np.zeros((frames, feet), dtype=bool)
    for foot in range(feet):
        held = False
        spent = False  # the lock of this contact let go: no new lock until the next contact
        lock = np.zeros(2)
        current = np.zeros(2)
        back = _HandBack()
        for f in range(frames):
            if not contacts[f, foot]:
                spent = False
            if held and (not contacts[f, foot] or leaving[f, foot]):
                held, spent = False, bool(contacts[f, foot])
                back = _HandBack(current)
            if not held and not spent and contacts[f, foot] and not leaving[f, foot]:
                held, lock = True, ball[f, foot] + current
                back = _HandBack()
            if held:
                wanted = lock - ball[f, foot]
                if np.hypot(*wanted) > slip_radius:
                    held, spent = False, True
                    back = _HandBack(current)
                else:
                    current = wanted
                    locked[f, foot] = True
            if not held and back.size > 0:
                planted = bool(contacts[f, foot])
                moving = not planted or speed[f, foot] > slip_speed
                air = not planted and rise[f, foot] > 0.0
                step = max(slip_speed - speed[f, foot], 0.0) / fps
                current = back.next(step + (AIR_SHARE * travel[f, foot] if air else 0.0),
                                    rise[f, foot] if not planted else 0.0, moving, span)
            shift[f, foot] = current
    return shift, locked


class _HandBack:
    """A released correction ``owed (2,)`` being handed back (see the module docstring)."""

    def __init__(self, owed: FloatArray | None = None) -> None:
        self.owed = np.zeros(2) if owed is None else owed
        self.size = float(np.hypot(*self.owed))
        self.given = 0.0  # metres handed back so far
        self.risen = 0.0  # the highest the ball has been over its resting band since
        self.moving = 0  # frames since the foot started to move (0: not yet)

    def next(self, step: float, rise: float, moving: bool, span: float) -> FloatArray:
        """The correction left in the next frame: ``step`` (metres) more handed back, at least
        as much as the ball has risen (``rise``, metres over its band) and the cubic ease over
        ``span`` frames from when the foot started ``moving``."""
        if self.moving or moving:
            self.moving += 1
        self.risen = max(self.risen, rise)
        eased = min(self.moving / span, 1.0) ** 3 * self.size
        self.given = min(self.size, max(self.given + step, self.risen, eased))
        left = self.owed * (1.0 - self.given / self.size)
        if self.given >= self.size:
            self.size = 0.0
        return left
