"""Seed 001's FK↔IK position weight on component arrays (private).

The full-weight deltas are slerped from the identity and the middle and end joints moved by
them, without leaving the solver's structure of arrays (``footfall.quat`` works on ``(..., 4)``
arrays and would need stacking and splitting per call).
"""

from __future__ import annotations

import numpy as np

from footfall.ik import _components as C
from footfall.ik._components import FloatArray


def slerp_from_identity(q: C.Quat, t: FloatArray) -> C.Quat:
    """``quat.slerp(identity, q, t)`` on components: the shorter arc, nlerp when nearly equal."""
    d = q[0]
    flip = d < 0
    if flip.any():
        q = tuple(np.where(flip, -c, c) for c in q)  # type: ignore[assignment]
    d = np.abs(d)
    theta = np.arccos(np.minimum(d, 1.0))
    sin_theta = np.sin(theta)
    near = sin_theta < 1e-6
    safe = np.where(near, 1.0, sin_theta)
    wa = np.where(near, 1.0 - t, np.sin((1.0 - t) * theta) / safe)
    wb = np.where(near, t, np.sin(t * theta) / safe)
    w, x, y, z = wa + wb * q[0], wb * q[1], wb * q[2], wb * q[3]
    norm = w * w
    norm += x * x
    norm += y * y
    norm += z * z
    norm = np.sqrt(norm)
    ok = norm > 1e-12
    if ok.all():
        return w / norm, x / norm, y / norm, z / norm
    safe = np.where(ok, norm, 1.0)
    zero = np.zeros_like(norm)
    return (np.where(ok, w / safe, 1.0), np.where(ok, x / safe, zero),
            np.where(ok, y / safe, zero), np.where(ok, z / safe, zero))


def blend(
    root: C.Vec, mid: C.Vec, tip: C.Vec, upper_delta: C.Quat, lower_delta: C.Quat,
    weight: FloatArray,
) -> tuple[C.Vec, C.Vec, C.Quat, C.Quat]:
    """Seed 001's weights: slerp the upper bone and the knee's own (relative) turn between FK
    and IK; returns ``(mid, tip, upper_delta, lower_delta)`` on components."""
    conjugate = (upper_delta[0], -upper_delta[1], -upper_delta[2], -upper_delta[3])
    knee_turn = C.qmul(conjugate, lower_delta)
    upper_delta = slerp_from_identity(upper_delta, weight)
    lower_delta = C.qmul(upper_delta, slerp_from_identity(knee_turn, weight))
    new_mid = C.add(root, C.qrotate(upper_delta, C.sub(mid, root)))
    new_tip = C.add(new_mid, C.qrotate(lower_delta, C.sub(tip, mid)))
    return new_mid, new_tip, upper_delta, lower_delta
