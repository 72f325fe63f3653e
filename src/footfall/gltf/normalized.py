"""A VRM avatar's poses as VRM's *normalized* humanoid sees them, and back.

VMC receivers and VRM Animation files do not speak an avatar's own bone frames. They speak the
normalized humanoid: the model in its T-pose with every bone's rotation the identity (VRM 0.x
stored models that way; VRM 1.0 keeps any rest rotation and describes the conversion in the
VRMC_vrm_animation spec's "how to transform human pose"). A bone's normalized pose is its turn
away from the T-pose in model axes, relative to its humanoid parent's turn::

    N_j = W_j · R_j⁻¹          (W: the bone's world rotation, R: its world rotation at rest)
    n_j = N_parent⁻¹ · N_j     (the normalized local rotation; the hips: N_hips)

and its normalized local position is where it sits from its humanoid parent in the parent's
turned axes (the hips: its position in model space). Joints between two humanoid bones that are
no humanoid bone themselves turn with their parent (they keep their rest local rotation).
Model space is footfall's (Y up, facing +Z; a VRM 0.x avatar has been turned by the reader).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import GLTFError
from footfall.gltf.avatar import Avatar
from footfall.skeleton import FKPlan, Skeleton


@dataclass(frozen=True)
class NormalizedHumanoid:
    """The humanoid bones of one avatar and their rest pose.

    Attributes:
        skeleton: the avatar's skeleton (its offsets are the T-pose's).
        rest_rotations: ``(J, 4)`` the avatar's local rotations in the T-pose (its rest pose).
        bones: canonical names of the humanoid bones, parents before children.
        joints: ``(B,)`` their joint indices in ``skeleton``.
        parents: ``(B,)`` index in ``bones`` of each bone's humanoid parent (−1: the hips).
        rest_world: ``(B, 4)`` their world rotations in the T-pose.
    """

    skeleton: Skeleton
    rest_rotations: FloatArray
    bones: tuple[str, ...]
    joints: NDArray[np.int64]
    parents: NDArray[np.int64]
    rest_world: FloatArray

    @classmethod
    def of(cls, avatar: Avatar) -> NormalizedHumanoid:
        """The normalized humanoid of a VRM ``avatar`` (:class:`GLTFError` for plain glTF)."""
        if avatar.humanoid is None:
            raise GLTFError(f"{avatar.path}: not a VRM avatar (no humanoid bone map)")
        skeleton = avatar.skeleton
        index_of = {skeleton.index(name): bone for bone, name in avatar.humanoid.items()}
        joints = np.array(sorted(index_of), dtype=np.int64)
        position = {int(j): n for n, j in enumerate(joints)}
        parents = []
        for joint in joints:
            above = int(skeleton.parents[joint])
            while above >= 0 and above not in position:
                above = int(skeleton.parents[above])
            parents.append(position.get(above, -1))
        if parents.count(-1) != 1:
            raise GLTFError(f"{avatar.path}: the humanoid bones do not hang from one hips bone")
        rest = quat.normalize(avatar.rest_rotations)
        world = FKPlan(skeleton.parents).rotations(rest)
        return cls(skeleton, rest, tuple(index_of[int(j)] for j in joints), joints,
                   np.array(parents, dtype=np.int64), world[joints])

    @property
    def hips(self) -> int:
        """Index in :attr:`bones` of the hips (the one bone without a humanoid parent)."""
        return int(np.flatnonzero(self.parents < 0)[0])

    def normalize(self, rotations: ArrayLike, positions: ArrayLike
                  ) -> tuple[FloatArray, FloatArray]:
        """Normalized local ``(rotations (..., B, 4), positions (..., B, 3))`` of the bones
        for an avatar pose: local ``rotations (..., J, 4)`` and ``positions (..., J, 3)``
        (metres; a scaled avatar's offsets are taken as they come)."""
        world, at = FKPlan(self.skeleton.parents)(rotations, positions)
        turn = quat.mul_inv(world[..., self.joints, :], self.rest_world)  # N, (..., B, 4)
        bone_at = at[..., self.joints, :]
        parent = np.maximum(self.parents, 0)
        local = quat.inv_mul(turn[..., parent, :], turn)
        offset = quat.inv_rotate(turn[..., parent, :], bone_at - bone_at[..., parent, :])
        hips = self.hips
        local[..., hips, :] = turn[..., hips, :]
        offset[..., hips, :] = bone_at[..., hips, :]
        return quat.normalize(local), offset

    def pose(self, rotations: ArrayLike, hips_position: ArrayLike,
             offsets: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        """The avatar pose ``(rotations (..., J, 4), positions (..., J, 3))`` for normalized
        local ``rotations (..., B, 4)`` and the hips' model-space ``hips_position (..., 3)``;
        the other joints sit at ``offsets (J, 3)`` (default: the skeleton's)."""
        normalized = quat.normalize(np.asarray(rotations, dtype=np.float64))
        batch = normalized.shape[:-2]
        skeleton = self.skeleton
        count = skeleton.joint_count
        turn = np.empty(normalized.shape)
        for b, parent in enumerate(self.parents):  # parents come first
            turn[..., b, :] = (normalized[..., b, :] if parent < 0
                               else quat.mul(turn[..., parent, :], normalized[..., b, :]))
        bone_of = {int(j): b for b, j in enumerate(self.joints)}
        world = np.empty((*batch, count, 4))
        local = np.empty((*batch, count, 4))
        for j in range(count):  # parents before children
            parent = int(skeleton.parents[j])
            if j in bone_of:
                b = bone_of[j]
                world[..., j, :] = quat.mul(turn[..., b, :], self.rest_world[b])
            else:
                above = world[..., parent, :] if parent >= 0 else quat.identity(batch)
                world[..., j, :] = quat.mul(above, self.rest_rotations[j])
            local[..., j, :] = (world[..., j, :] if parent < 0
                                else quat.inv_mul(world[..., parent, :], world[..., j, :]))
        base = skeleton.offsets if offsets is None else np.asarray(offsets, dtype=np.float64)
        positions = np.broadcast_to(base, (*batch, count, 3)).copy()
        positions[..., int(self.joints[self.hips]), :] = hips_position
        return quat.normalize(local), positions
