"""Motive skeletons ↔ footfall: a NatNet skeleton description becomes a :class:`Skeleton` with
Motive's bone names (``<skeleton>_<bone>``, ids 1–21) mapped to the canonical humanoid, frames
become local poses; and a clip becomes a Motive skeleton for ``natnet-serve``.

Frames carry bones by id (``(skeleton_id << 16) | bone_id``) in any order, relative to their
parent ("local rigid bodies") or as world poses. With Motive's streaming "Up Axis" set to Z (as
for Unreal) everything comes in a world turned +90° about X: the up axis is read from the
description's rest offsets and a Z-up stream is turned to Y up here, before anything else.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.bvh.units import Y_UP_TO_Z_UP, Z_UP_TO_Y_UP, humanoid_up
from footfall.errors import MappingError, ProtocolError
from footfall.live.natnet_protocol import (
    BoneDescription,
    SkeletonDescription,
    SkeletonPose,
)
from footfall.skeleton import Clip, Skeleton, forward_kinematics

# Motive bone → canonical (Unity HumanBodyBones) bone; the id is Motive's bone id.
MOTIVE_BONES: dict[str, tuple[int, str]] = {
    "Hip": (1, "Hips"), "Ab": (2, "Spine"), "Chest": (3, "Chest"), "Neck": (4, "Neck"),
    "Head": (5, "Head"),
    "LShoulder": (6, "LeftShoulder"), "LUArm": (7, "LeftUpperArm"),
    "LFArm": (8, "LeftLowerArm"), "LHand": (9, "LeftHand"),
    "RShoulder": (10, "RightShoulder"), "RUArm": (11, "RightUpperArm"),
    "RFArm": (12, "RightLowerArm"), "RHand": (13, "RightHand"),
    "LThigh": (14, "LeftUpperLeg"), "LShin": (15, "LeftLowerLeg"), "LFoot": (16, "LeftFoot"),
    "LToe": (17, "LeftToes"),
    "RThigh": (18, "RightUpperLeg"), "RShin": (19, "RightLowerLeg"), "RFoot": (20, "RightFoot"),
    "RToe": (21, "RightToes"),
}
CANONICAL_TO_MOTIVE = {canonical: motive for motive, (_, canonical) in MOTIVE_BONES.items()}


def change_basis(turn: FloatArray, rotations: FloatArray, positions: FloatArray
                 ) -> tuple[FloatArray, FloatArray]:
    """Bone poses re-expressed in a world turned by ``turn`` ``(4,)`` wxyz: positions ``(N, 3)``
    rotated, rotations ``(N, 4)`` wxyz conjugated (``turn · q · turn⁻¹``), so local and world
    poses, and the offsets of a description, stay consistent with one another."""
    return (quat.mul_inv(quat.mul(turn, rotations), turn),
            quat.rotate(turn, positions))


def bone_name(full: str, skeleton: str) -> str:
    """``"Karlie_LThigh"`` → ``"LThigh"`` (the skeleton's name prefix dropped)."""
    prefix = skeleton + "_"
    return full[len(prefix):] if full.startswith(prefix) else full


@dataclass(frozen=True)
class MotiveSkeleton:
    """A streamed skeleton as footfall sees it.

    Attributes:
        description: the NatNet description it came from.
        skeleton: joints parents-first, names without the skeleton prefix, offsets in metres.
        mapping: ``{canonical bone: joint name}`` for the joints with Motive names.
        bone_ids: ``(J,)`` packed frame id of each joint (``(skeleton << 16) | bone``).
        up: the stream's up axis, ``"y"`` or ``"z"``; a Z-up stream's offsets (here) and
            poses (:meth:`pose`) are turned to Y up.
    """

    description: SkeletonDescription
    skeleton: Skeleton
    mapping: dict[str, str]
    bone_ids: NDArray[np.int64]
    sorted_ids: NDArray[np.int64]
    order: NDArray[np.int64]
    up: str = "y"

    @classmethod
    def from_description(cls, description: SkeletonDescription, up: str = "auto"
                         ) -> MotiveSkeleton:
        """Order the bones parents-first (a parent id outside the skeleton makes a root);
        raises :class:`ProtocolError` for a loop, a repeated id or name. ``up``: ``"y"``,
        ``"z"`` or ``"auto"`` (:func:`stream_up`: an unclear rest pose keeps Y)."""
        if up not in ("auto", "y", "z"):
            raise ValueError(f"up axis {up!r}: choose auto, y or z")
        bones = {b.id: b for b in description.bones}
        if len(bones) != len(description.bones):
            raise ProtocolError(f"skeleton {description.name!r}: two bones share an id")
        order: list[BoneDescription] = []
        placed: set[int] = set()
        pending = list(description.bones)
        while pending:  # description order kept wherever it already lists parents first
            rest = []
            for b in pending:
                if b.parent_id in placed or b.parent_id not in bones:  # 0 / -1: a root
                    order.append(b)
                    placed.add(b.id)
                else:
                    rest.append(b)
            if len(rest) == len(pending):
                raise ProtocolError(f"skeleton {description.name!r}: bone parents form a loop")
            pending = rest
        index = {b.id: i for i, b in enumerate(order)}
        names = [bone_name(b.name, description.name) for b in order]
        parents = np.array([index.get(b.parent_id, -1) for b in order], dtype=np.int64)
        offsets = np.array([b.offset for b in order]).reshape(-1, 3)
        try:
            skeleton = Skeleton(names, parents, offsets)
        except Exception as error:  # SkeletonError: repeated names, NaN offsets
            raise ProtocolError(f"skeleton {description.name!r}: {error}") from None
        mapping = {MOTIVE_BONES[n][1]: n for n in names if n in MOTIVE_BONES}
        if up == "auto":
            up = stream_up(skeleton, mapping)
        if up == "z":
            skeleton = Skeleton(names, parents, quat.rotate(Z_UP_TO_Y_UP, offsets))
        ids = np.array([(description.id << 16) | b.id for b in order], dtype=np.int64)
        order_by_id = np.argsort(ids)
        return cls(description, skeleton, mapping, ids, ids[order_by_id], order_by_id, up)

    def pose(self, pose: SkeletonPose, mode: str = "auto",
             previous: tuple[FloatArray, FloatArray] | None = None
             ) -> tuple[FloatArray, FloatArray, str]:
        """One frame's bones → local rotations ``(J, 4)`` wxyz, local translations ``(J, 3)``
        metres, and the mode used: ``local``, ``global`` or, for ``auto``, local when the
        non-root bones sit at their offsets' distances from their parents. Bones missing or
        without a usable pose (zero or NaN) keep ``previous`` (or the rest pose)."""
        joints = self.skeleton.joint_count
        ids = pose.bone_ids
        if len(ids) == joints and np.array_equal(ids, self.bone_ids):
            # The usual frame: every bone, in description order (one gather each).
            rot = np.array(pose.rotations, dtype=np.float64)
            pos = np.array(pose.positions, dtype=np.float64)
            present = np.ones(joints, dtype=bool)
        else:
            slot = np.clip(np.searchsorted(self.sorted_ids, ids), 0, joints - 1)
            known = self.sorted_ids[slot] == ids
            rows = self.order[slot[known]]
            rot = np.zeros((joints, 4))
            pos = np.zeros((joints, 3))
            rot[rows] = pose.rotations[known]
            pos[rows] = pose.positions[known]
            present = np.zeros(joints, dtype=bool)
            present[rows] = True
        if self.up == "z":
            rot, pos = change_basis(Z_UP_TO_Y_UP, rot, pos)
        norm = np.sqrt(np.einsum("ij,ij->i", rot, rot))
        # A bone counts when it came with a usable pose (Motive's per-bone "tracked" bit is
        # not set for skeleton bones in real recordings, so it cannot decide).
        got = present & np.isfinite(norm) & (norm > 1e-6) & np.isfinite(pos).all(-1)
        rot[got] /= norm[got, None]
        if mode == "auto":
            mode = self._guess_mode(got, pos)
        if mode == "global":
            rot, pos = self._local_from_world(rot, pos, got)
        if not got.all():
            held_rot, held_pos = previous if previous is not None else (
                quat.identity((joints,)), self.skeleton.offsets.copy())
            rot[~got] = held_rot[~got]
            pos[~got] = held_pos[~got]
        return rot, pos, mode

    def _guess_mode(self, got: NDArray[np.bool_], pos: FloatArray) -> str:
        inner = got & (self.skeleton.parents >= 0)
        if not inner.any():
            return "local"
        # Bone lengths, not vectors: a recording may mirror its axes against the description.
        error = np.abs(np.linalg.norm(pos[inner], axis=-1)
                       - np.linalg.norm(self.skeleton.offsets[inner], axis=-1))
        return "local" if float(np.median(error)) < 0.01 else "global"

    def _local_from_world(self, rot: FloatArray, pos: FloatArray, got: NDArray[np.bool_]
                          ) -> tuple[FloatArray, FloatArray]:
        parents = self.skeleton.parents
        local_rot = rot.copy()
        local_pos = pos.copy()
        inner = np.nonzero((parents >= 0) & got & got[np.maximum(parents, 0)])[0]
        par = parents[inner]
        local_rot[inner] = quat.inv_mul(rot[par], rot[inner])
        local_pos[inner] = quat.inv_rotate(rot[par], pos[inner] - pos[par])
        return local_rot, local_pos


def stream_up(skeleton: Skeleton, mapping: Mapping[str, str]) -> str:
    """The up axis (``"y"`` or ``"z"``) of a streamed skeleton's rest pose (its offsets
    ``(J, 3)`` with every rotation identity): a humanoid's feet→head line when it clearly lies
    along Y or Z; ``"y"`` for anything else. ``mapping``: ``{canonical bone: joint name}``."""
    joints = skeleton.joint_count
    _, rest = forward_kinematics(skeleton.parents, quat.identity((joints,)), skeleton.offsets)
    rows = {bone: skeleton.index(joint) for bone, joint in mapping.items()}
    return humanoid_up(rows, [rest]) or "y"


def choose_skeleton(descriptions: tuple[SkeletonDescription, ...], name: str | None
                    ) -> SkeletonDescription:
    """The skeleton called ``name`` (or the only/first one); raises :class:`MappingError`."""
    if not descriptions:
        raise MappingError("the stream describes no skeleton")
    if name is None:
        return descriptions[0]
    for d in descriptions:
        if d.name == name:
            return d
    raise MappingError(f"no streamed skeleton named {name!r}; the stream has "
                       f"{', '.join(repr(d.name) for d in descriptions)}")


# ---------------------------------------------------------------------------- clip → Motive


@dataclass(frozen=True)
class ClipStream:
    """A clip renamed as a Motive skeleton, for ``natnet-serve``.

    Attributes:
        description: the skeleton description to stream (bone ids in joint order).
        names: ``(J,)`` the Motive-style bone name (without prefix) of each clip joint.
        bone_ids: ``(J,)`` packed frame ids.
    """

    clip: Clip
    description: SkeletonDescription
    names: list[str]
    bone_ids: NDArray[np.int64]
    up: str = "y"

    @classmethod
    def build(cls, clip: Clip, name: str = "Skeleton", skeleton_id: int = 1,
              mapping: Mapping[str, str] | None = None, up: str = "y") -> ClipStream:
        """Joints mapped to one of Motive's 21 bones take its name and id; the others keep
        their names with ids from 22 on. ``up="z"``: the world turned +90° about X as Motive
        streams it for Z up (``(x, y, z)`` → ``(x, −z, y)``)."""
        if up not in ("y", "z"):
            raise ValueError(f"up axis {up!r}: choose y or z")
        from footfall.humanoid import map_skeleton

        canonical = map_skeleton(clip.skeleton, mapping).mapping
        motive_of = {joint: CANONICAL_TO_MOTIVE[bone] for bone, joint in canonical.items()
                     if bone in CANONICAL_TO_MOTIVE}
        names, ids = [], []
        extra = itertools.count(22)  # the ids of joints that are none of Motive's bones
        for joint in clip.skeleton.names:
            motive = motive_of.get(joint)
            names.append(motive or (joint if joint not in MOTIVE_BONES else f"{joint}_"))
            ids.append(MOTIVE_BONES[motive][0] if motive else next(extra))
        parents = clip.skeleton.parents
        offsets = clip.skeleton.offsets
        if up == "z":
            offsets = quat.rotate(Y_UP_TO_Z_UP, offsets)
        bones = tuple(
            BoneDescription(f"{name}_{names[j]}", ids[j],
                            ids[parents[j]] if parents[j] >= 0 else 0,
                            offsets[j].copy(), np.array([1.0, 0.0, 0.0, 0.0]))
            for j in range(clip.skeleton.joint_count))
        packed = np.array([(skeleton_id << 16) | i for i in ids], dtype=np.int64)
        return cls(clip, SkeletonDescription(name, skeleton_id, bones), names, packed, up)

    def pose(self, frame: int, bone_poses: str = "local") -> SkeletonPose:
        """Frame ``frame`` as NatNet bones: local (relative to the parent) or world poses,
        positions ``(J, 3)`` metres and rotations ``(J, 4)`` wxyz in the stream's up axis."""
        rot = self.clip.rotations[frame]
        pos = self.clip.positions[frame]
        if bone_poses == "global":
            rot, pos = forward_kinematics(self.clip.skeleton.parents, rot, pos)
        if self.up == "z":
            rot, pos = change_basis(Y_UP_TO_Z_UP, rot, pos)
        return SkeletonPose(self.description.id, self.bone_ids, np.asarray(pos),
                            np.asarray(rot), np.ones(len(self.bone_ids), dtype=bool))
