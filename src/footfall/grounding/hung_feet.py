"""Rigs whose feet do not hang below their shins, as the grounding needs them.

IK rigs (RobotExpressive) hang each foot from the root and let a solver carry it to the end of
the shin; the grounding's leg IK turns hip and knee and expects the foot to follow. Here such a
foot is hung below its lower leg (at the rest pose's shin, in the lower leg's frame), the joints
reordered so parents come first, and poses are carried over both ways: the world pose is the
same, only the foot's local rotation and translation are written against another parent.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.skeleton import Skeleton, forward_kinematics


class HungFeet:
    """``skeleton`` with every detached foot of ``legs`` hung below its lower leg.

    Args:
        skeleton: the rig.
        legs: ``(upper, lower, foot)`` joint indices of each leg.
        rest: ``(J, 4)`` local rotations of the rest pose whose shin lengths the hung feet
            keep (None: identity).

    Attributes:
        skeleton: the rig the grounding sees (the rig itself when no foot is detached).
        index: ``(J,)`` each rig joint's index in :attr:`skeleton`.
    """

    def __init__(self, skeleton: Skeleton, legs: Iterable[tuple[int, int, int]],
                 rest: FloatArray | None = None) -> None:
        count = skeleton.joint_count
        parents = skeleton.parents.copy()
        self._rig_parents = skeleton.parents
        pairs = [(int(lower), int(foot)) for upper, lower, foot in legs
                 if skeleton.parents[foot] != lower]
        self._lower = np.array([lower for lower, _ in pairs], dtype=np.int64)
        self._feet = np.array([foot for _, foot in pairs], dtype=np.int64)
        self.order = np.arange(count)
        self.index = np.arange(count)
        if not pairs:
            self.skeleton = skeleton
            return
        pose = quat.identity((count,)) if rest is None else np.asarray(rest, dtype=np.float64)
        world, positions = forward_kinematics(skeleton.parents, pose, skeleton.offsets)
        offsets = skeleton.offsets.copy()
        for lower, foot in pairs:
            if foot in skeleton.chain(lower):
                raise SkeletonError(f"foot {skeleton.names[foot]!r} is above its lower leg "
                                    f"{skeleton.names[lower]!r}")
            parents[foot] = lower
            offsets[foot] = quat.inv_rotate(world[lower], positions[foot] - positions[lower])
        order: list[int] = []
        placed = np.zeros(count, dtype=bool)
        for joint in range(count):  # each joint after its (new) parents
            chain = []
            while joint >= 0 and not placed[joint]:
                chain.append(joint)
                placed[joint] = True
                joint = int(parents[joint])
            order.extend(reversed(chain))
        self.order = np.array(order, dtype=np.int64)
        self.index = np.argsort(self.order)
        hung_parents = np.where(parents[self.order] >= 0,
                                self.index[np.maximum(parents[self.order], 0)], -1)
        self.skeleton = Skeleton([skeleton.names[j] for j in order], hung_parents,
                                 offsets[self.order],
                                 {int(self.index[j]): site
                                  for j, site in skeleton.end_sites.items()})

    @property
    def detached(self) -> bool:
        """Whether any foot was hung."""
        return len(self._feet) > 0

    def hang(self, rotations: FloatArray, translations: FloatArray
             ) -> tuple[FloatArray, FloatArray]:
        """A rig pose, local ``(..., J, 4)``, ``(..., J, 3)``, as the hung skeleton's."""
        if not self.detached:
            return rotations, translations
        world, positions = forward_kinematics(self._rig_parents, rotations, translations)
        rotations, translations = rotations.copy(), translations.copy()
        lower = world[..., self._lower, :]
        rotations[..., self._feet, :] = quat.mul(quat.inv(lower), world[..., self._feet, :])
        translations[..., self._feet, :] = quat.inv_rotate(
            lower, positions[..., self._feet, :] - positions[..., self._lower, :])
        return rotations[..., self.order, :], translations[..., self.order, :]

    def unhang(self, global_rotations: FloatArray, global_positions: FloatArray,
               rotations: FloatArray, translations: FloatArray
               ) -> tuple[FloatArray, FloatArray]:
        """A hung skeleton's pose (world and local, ``(..., J, 4)``, ``(..., J, 3)``) as the
        rig's local pose."""
        if not self.detached:
            return rotations, translations
        rotations = rotations[..., self.index, :].copy()
        translations = translations[..., self.index, :].copy()
        world = global_rotations[..., self.index, :]
        positions = global_positions[..., self.index, :]
        for foot in self._feet:
            parent = self._rig_parents[foot]
            if parent < 0:
                rotations[..., foot, :] = world[..., foot, :]
                translations[..., foot, :] = positions[..., foot, :]
                continue
            rotations[..., foot, :] = quat.mul(quat.inv(world[..., parent, :]),
                                               world[..., foot, :])
            translations[..., foot, :] = quat.inv_rotate(
                world[..., parent, :], positions[..., foot, :] - positions[..., parent, :])
        return rotations, translations


def hung_feet_of(skeleton: Skeleton) -> HungFeet | None:
    """The :class:`HungFeet` of a humanoid rig whose feet do not hang below their shins (its
    legs found by ``footfall.humanoid``'s names), or None when every foot does (or the rig names
    no legs: the grounding then says what it misses)."""
    from footfall.errors import FootfallError
    from footfall.humanoid import map_skeleton

    try:
        mapping = map_skeleton(skeleton).mapping
    except FootfallError:
        return None
    parts = ("UpperLeg", "LowerLeg", "Foot")
    if not all(f"{side}{part}" in mapping for side in ("Left", "Right") for part in parts):
        return None
    legs = [tuple(skeleton.index(mapping[f"{side}{part}"]) for part in parts)
            for side in ("Left", "Right")]
    if all(skeleton.parents[foot] == lower for _, lower, foot in legs):
        return None
    try:
        hung = HungFeet(skeleton, legs)  # type: ignore[arg-type]
    except SkeletonError:
        return None
    return hung if hung.detached else None
