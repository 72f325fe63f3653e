"""Planted feet locked in world space (seed 003 #09; Holden's foot locking) and the footstep
plan of a clip from its contacts.

A contact locks the ankle where it touched down; the lock is released when the contact ends or
the animated ankle drifts past the unlock radius, and then blended out over ``blend_seconds`` so
the foot never pops. This is a sequential filter over frames (a loop over time is the method).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.grounding.contacts import CONTACT_SPEED, horizontal_speed, segments

FloatArray = NDArray[np.float64]

UNLOCK_RADIUS = 0.2
#: A planted foot's heading is held until the animation has turned it this far (radians; a
#: pivot on the ball when turning on the spot), then it follows, blended.
UNLOCK_ANGLE = 0.35
BLEND_SECONDS = 0.1


def foot_locks(
    ankle_xz: ArrayLike,
    contacts: ArrayLike,
    fps: float,
    unlock_radius: float = UNLOCK_RADIUS,
    blend_seconds: float = BLEND_SECONDS,
    anchor: ArrayLike | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Lock positions ``(F, feet, 2)`` and weights ``(F, feet)`` for points ``(F, feet, 2)``
    (the ankle, or the ball of the foot: whatever should stay put while planted).

    anchor: optional ``(F, feet)`` frame indices; a lock taken at frame f holds the point where
    it is at frame ``anchor[f]`` (where it comes to rest) instead of where it is at f.
    """
    ankle_xz = np.asarray(ankle_xz, dtype=np.float64)
    contacts = np.asarray(contacts, dtype=bool)
    frames_index = np.arange(contacts.shape[0])[:, None]
    anchor = np.broadcast_to(frames_index, contacts.shape) if anchor is None else anchor
    anchor = np.asarray(anchor, dtype=np.int64)
    frames, feet = contacts.shape
    lock = ankle_xz.copy()
    weight = np.zeros((frames, feet))
    fade = 1.0 / max(blend_seconds * fps, 1.0)
    for foot in range(feet):
        held = False
        released_in_contact = False
        position = ankle_xz[0, foot].copy()
        w = 0.0
        for f in range(frames):
            touching = contacts[f, foot]
            if not touching:
                released_in_contact = False
            if touching and not held and not released_in_contact and w == 0.0:
                held, position, w = True, ankle_xz[anchor[f, foot], foot].copy(), 1.0
            elif held and (not touching or
                           np.linalg.norm(ankle_xz[f, foot] - position) > unlock_radius):
                held = False
                released_in_contact = touching
            if not held:
                w = max(0.0, w - fade)
            lock[f, foot] = position
            weight[f, foot] = w
    return lock, weight


def release_over_swing(
    weight: ArrayLike, contacts: ArrayLike, swing: ArrayLike
) -> FloatArray:
    """Lock weights ``(F, feet)`` that let go over the swing that follows each contact.

    weight: from :func:`foot_locks` (its short fade stays for a lock released inside a
    contact); swing: ``(F, feet)`` progress in [0, 1] between contacts (:func:`contact_plan`).
    After a contact the weight it ended with falls as ``1 − smoothstep(swing)``, so the drift a
    lock held back is paid while the foot is in the air — starting slowly while it is still low
    — instead of within ``blend_seconds`` of lift-off, where it made the foot skate.
    """
    from footfall.grounding.footsteps import smoothstep

    weight = np.asarray(weight, dtype=np.float64)
    contacts = np.asarray(contacts, dtype=bool)
    frames = weight.shape[0]
    index = np.where(contacts, np.arange(frames)[:, None], -1)
    last = np.maximum.accumulate(index, axis=0)  # last contact frame so far, -1 before any
    held = np.take_along_axis(weight, np.maximum(last, 0), axis=0)
    fading = np.where(last >= 0, held * (1.0 - smoothstep(swing)), 0.0)
    return np.where(contacts, weight, fading)


def contact_plan(
    ankle_xz: ArrayLike, contacts: ArrayLike
) -> tuple[NDArray[np.bool_], FloatArray, FloatArray, FloatArray]:
    """Footsteps of a clip: ``(stance, swing, plant_xz, next_plant_xz)`` per frame and foot.

    Each contact segment is a footstep at the ankle position where it began; between two
    segments the foot swings from one to the next (progress by frame). Before the first and after
    the last contact the foot keeps the nearest footstep.
    """
    ankle_xz = np.asarray(ankle_xz, dtype=np.float64)
    contacts = np.asarray(contacts, dtype=bool)
    frames, feet = contacts.shape
    swing = np.zeros((frames, feet))
    plant = ankle_xz.copy()
    next_plant = ankle_xz.copy()
    for foot in range(feet):
        steps = segments(contacts[:, foot])
        if not steps:
            continue
        spots = [ankle_xz[start, foot] for start, _ in steps]
        first = steps[0][0]
        plant[:first, foot] = next_plant[:first, foot] = spots[0]
        for i, (start, stop) in enumerate(steps):
            plant[start:stop, foot] = next_plant[start:stop, foot] = spots[i]
            after = steps[i + 1][0] if i + 1 < len(steps) else frames
            plant[stop:after, foot] = spots[i]
            next_plant[stop:after, foot] = spots[i + 1] if i + 1 < len(steps) else spots[i]
            if after > stop:
                swing[stop:after, foot] = (np.arange(stop, after) - stop + 1) / (after - stop + 1)
    return contacts.copy(), swing, plant, next_plant


def rest_frames(contacts: ArrayLike, settled: ArrayLike) -> NDArray[np.int64]:
    """For each frame ``(F, feet)``: the first frame at or after it, in the same contact, where
    the foot has ``settled`` ``(F, feet)``; the frame itself when there is none."""
    contacts = np.asarray(contacts, dtype=bool)
    settled = np.asarray(settled, dtype=bool) & contacts
    frames = contacts.shape[0]
    index = np.broadcast_to(np.arange(frames)[:, None], contacts.shape)
    later = np.where(settled, index, frames)
    first = np.minimum.accumulate(later[::-1], axis=0)[::-1]  # next settled frame, or F
    starts = contacts & ~np.concatenate([np.zeros_like(contacts[:1]), contacts[:-1]])
    run = np.cumsum(starts, axis=0)  # contact run id of each frame
    same = first < frames
    same &= np.take_along_axis(run, np.minimum(first, frames - 1), axis=0) == run
    return np.where(same & contacts, first, index)


def heading(direction: ArrayLike) -> FloatArray:
    """Heading angle ``(...)`` about +Y of horizontal directions ``(..., 3)`` (0 along +Z)."""
    direction = np.asarray(direction, dtype=np.float64)
    return np.arctan2(direction[..., 0], direction[..., 2])


def ball_locks(
    ankle: ArrayLike,
    ball: ArrayLike,
    contacts: ArrayLike,
    fps: float,
    unlock_radius: float = UNLOCK_RADIUS,
    blend_seconds: float = BLEND_SECONDS,
    settle_speed: float = CONTACT_SPEED,
    unlock_angle: float = UNLOCK_ANGLE,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Locks that pin the ball of each planted foot and its heading.

    ankle, ball: ``(F, feet, 3)`` world positions. Returns the ankle (x, z) that keeps the ball on
    its lock ``(F, feet, 2)``, the weights ``(F, feet)`` and the turn about +Y ``(F, feet)`` that
    keeps the foot's heading. Pinning the ball rather than the ankle lets the heel rise at
    push-off without dragging the toes. The ball is pinned where it comes to rest: after heel
    strike it may still be coming down (faster than ``settle_speed`` m/s), and pinning it where
    it was then would hold the foot short of where it lands.
    """
    ankle = np.asarray(ankle, dtype=np.float64)
    ball = np.asarray(ball, dtype=np.float64)
    contacts = np.asarray(contacts, dtype=bool)
    anchor = rest_frames(contacts, horizontal_speed(ball, fps) < settle_speed)
    ball_lock, weight = foot_locks(
        ball[..., [0, 2]], contacts, fps, unlock_radius, blend_seconds, anchor
    )
    angle = np.unwrap(heading(ball - ankle), axis=0)
    held, turning = foot_locks(angle[..., None], contacts, fps, unlock_angle, blend_seconds,
                               anchor)
    turn = (held[..., 0] - angle) * turning
    offset = (ankle - ball)[..., [0, 2]]  # ball → ankle, turned with the foot
    return ball_lock + turn_xz(offset, turn), weight, turn


def turn_xz(vectors: ArrayLike, turn: ArrayLike) -> FloatArray:
    """Horizontal vectors ``(..., 2)`` as (x, z) turned by ``turn (...)`` radians about +Y."""
    vectors = np.asarray(vectors, dtype=np.float64)
    cos, sin = np.cos(turn), np.sin(turn)
    return np.stack(
        [cos * vectors[..., 0] + sin * vectors[..., 1],
         -sin * vectors[..., 0] + cos * vectors[..., 1]],
        axis=-1,
    )


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
