"""Which way a humanoid's rest pose stands: the turn that stands it up, facing +Z.

Some files keep a rest pose that lies (a Z-up capture) or faces +X or −Z. Anything that reads
the rest pose as "standing" (the retargeter's calibration, the walker's rig measures) first turns
it with :func:`upright_turn`. The turn is a quarter turn (axes onto axes): a file of another
convention holds the same rest pose with its axes swapped, and standing it up must undo exactly
that swap, not also straighten the few degrees a capture's rest pose leans by.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray
from footfall.skeleton import Skeleton, forward_kinematics

_BONES = ("Hips", "LeftUpperLeg", "RightUpperLeg", "LeftFoot", "RightFoot")


def _quarter_turns() -> FloatArray:
    """The 24 rotation matrices ``(24, 3, 3)`` that map the axes onto the axes (±1 entries)."""
    out = []
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        for signs in np.ndindex(2, 2, 2):
            matrix = np.zeros((3, 3))
            matrix[[0, 1, 2], perm] = [1.0 - 2.0 * s for s in signs]
            if np.linalg.det(matrix) > 0.0:
                out.append(matrix)
    return np.array(out)


_QUARTER_TURNS = _quarter_turns()


def upright_turn(skeleton: Skeleton, mapping: Mapping[str, str],
                 pose: ArrayLike | None = None) -> FloatArray:
    """World rotation ``(4,)`` that stands ``skeleton`` up in ``pose`` (``(J, 4)`` local
    rotations, rest by default; ``mapping``: canonical bone → joint name).

    The quarter turn nearest to the one that puts the hips above the feet (+Y) and the left hip
    on +X (facing +Z); the identity when the legs cannot tell.
    """
    if not all(b in mapping for b in _BONES):
        return quat.identity(())
    local = (quat.identity((skeleton.joint_count,)) if pose is None
             else np.asarray(pose, dtype=np.float64))
    _, gpos = forward_kinematics(skeleton.parents, local, skeleton.offsets)
    at = {b: gpos[skeleton.index(mapping[b])] for b in _BONES}
    up = at["Hips"] - 0.5 * (at["LeftFoot"] + at["RightFoot"])
    height = float(np.linalg.norm(up))
    if not height > 1e-9:
        return quat.identity(())
    up = up / height
    lateral = at["LeftUpperLeg"] - at["RightUpperLeg"]
    lateral = lateral - np.dot(lateral, up) * up
    if not np.linalg.norm(lateral) > 1e-9:
        return quat.identity(())
    lateral /= np.linalg.norm(lateral)
    # Columns: where the body's left, up and forward axes point now; the transpose turns them
    # onto +X, +Y, +Z.
    body = np.stack([lateral, up, np.cross(lateral, up)], axis=-1)
    # The quarter turn nearest to body.T: the largest trace of (turn^T body.T).
    nearest = _QUARTER_TURNS[int(np.argmax(np.einsum("kij,ji->k", _QUARTER_TURNS, body)))]
    return quat.normalize(quat.from_matrix(nearest))


def upright_pose(skeleton: Skeleton, mapping: Mapping[str, str], pose: ArrayLike) -> FloatArray:
    """Local rotations ``(J, 4)`` of ``pose`` with every root turned by :func:`upright_turn`
    (unchanged when the pose already stands)."""
    local = np.array(pose, dtype=np.float64, copy=True)
    turn = upright_turn(skeleton, mapping, local)
    roots = np.nonzero(skeleton.parents < 0)[0]
    local[roots] = quat.mul(turn, local[roots])
    return local


def stood_up(skeleton: Skeleton, mapping: Mapping[str, str]) -> Skeleton:
    """The same bones with a rest pose that stands: every offset below a root and every End
    Site turned by :func:`upright_turn` (the skeleton itself when its rest pose stands). Its
    identity pose is the original's :func:`upright_pose`, with world-aligned joints — what a
    walker that builds its pose from the rest offsets needs."""
    turn = upright_turn(skeleton, mapping)
    if turn[0] == 1.0:
        return skeleton
    below = skeleton.parents >= 0
    offsets = skeleton.offsets.copy()
    offsets[below] = quat.rotate(turn, offsets[below])
    sites = {j: quat.rotate(turn, site) for j, site in skeleton.end_sites.items()}
    return Skeleton(skeleton.names, skeleton.parents, offsets, sites)
