"""Two-bone IK applied to a skeleton pose: FK, solve, write back local rotations."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.ik.two_bone import TwoBoneResult, solve_two_bone
from footfall.skeleton import FKPlan, forward_kinematics


def _path(parents: np.ndarray, ancestor: int, joint: int, what: str) -> list[int]:
    """Joints from ``ancestor`` down to just above ``joint``; raises if it is no ancestor."""
    path: list[int] = []
    j = int(parents[joint])
    while j != ancestor:
        if j < 0:
            raise SkeletonError(f"solve_limb: chain {what} joint {ancestor} is not an ancestor "
                                f"of joint {joint}")
        path.append(j)
        j = int(parents[j])
    path.append(ancestor)
    return path[::-1]


def solve_limb(
    parents: ArrayLike, rotations: ArrayLike, translations: ArrayLike, chain: tuple[int, int, int],
    target: ArrayLike, pole: ArrayLike | None = None, *, target_rotation: ArrayLike | None = None,
    position_weight: ArrayLike = 1.0, rotation_weight: ArrayLike = 1.0,
    pole_weight: ArrayLike = 1.0, max_reach: ArrayLike = 0.999,
) -> tuple[FloatArray, TwoBoneResult]:
    """Solve one limb of a posed skeleton and return its new local rotations.

    Args:
        parents, rotations, translations: the pose, ``(J,)`` parent indices (parents first),
            ``(..., J, 4)`` local rotations and ``(..., J, 3)`` local translations (metres).
        chain: ``(root, mid, tip)`` joint indices, e.g. upper leg, lower leg, foot; joints
            between them (twist bones) turn rigidly with the bone above.
        target: ``(..., 3)`` world position for the tip joint.
        pole: ``(..., 3)`` world bend goal, or None to keep the current bend plane.
        target_rotation: ``(..., 4)`` wanted world rotation of the tip joint; without it the tip
            keeps its world rotation.
        position_weight, rotation_weight, pole_weight, max_reach: as in :func:`solve_two_bone`.

    Returns:
        ``(new_rotations (..., J, 4), result)``: every joint's local rotation (only the chain's
        change) and the :class:`TwoBoneResult` in world space.
    """
    parents = np.asarray(parents)
    rotations = np.asarray(rotations, dtype=np.float64)
    translations = np.asarray(translations, dtype=np.float64)
    joint_count = parents.shape[0] if parents.ndim == 1 else -1
    if joint_count < 0 or rotations.shape[-2:] != (joint_count, 4) or (
            translations.shape[-2:] != (joint_count, 3)):
        raise SkeletonError(f"solve_limb: expected parents (J,), rotations (..., J, 4), "
                            f"translations (..., J, 3); got {parents.shape}, {rotations.shape}, "
                            f"{translations.shape}")
    if len(chain) != 3 or any(not 0 <= int(j) < joint_count for j in chain):
        raise SkeletonError(f"solve_limb: chain must be three joint indices in [0, {joint_count}), "
                            f"got {chain}")
    root, mid, tip = (int(j) for j in chain)
    upper_path = _path(parents, root, mid, "root")
    lower_path = _path(parents, mid, tip, "mid")

    global_rot, global_pos = forward_kinematics(parents, rotations, translations)
    result = solve_two_bone(
        global_pos[..., root, :], global_pos[..., mid, :], global_pos[..., tip, :], target, pole,
        target_rotation=target_rotation, tip_rotation=global_rot[..., tip, :],
        position_weight=position_weight, rotation_weight=rotation_weight, pole_weight=pole_weight,
        max_reach=max_reach,
    )
    shape = result.mid.shape[:-1]
    new_global = np.array(np.broadcast_to(global_rot, (*shape, joint_count, 4)))
    new_local = np.array(np.broadcast_to(rotations, (*shape, joint_count, 4)))
    for joints, delta in ((upper_path, result.upper_rotation), (lower_path, result.lower_rotation)):
        new_global[..., joints, :] = quat.mul(delta[..., None, :], new_global[..., joints, :])
    if result.tip_rotation is not None:
        new_global[..., tip, :] = result.tip_rotation
    moved = [*upper_path, *lower_path, tip]
    new_local[..., moved, :] = FKPlan(parents).local_rotations(new_global)[..., moved, :]
    return new_local, result
