"""Prop attach points on the hands and head, and the props attached to them (seed 001).

Each attach point is a target frame fixed to a bone, placed in the calibration (T-) pose at the
bone position plus a world offset, turned by a fixed rotation, with props hanging under it.
Seed 001's default offsets are in Unity's frame (+X = the character's right); footfall's has +X
on the character's left, so X flips sign.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import MappingError, SettingsError
from footfall.skeleton import Skeleton, forward_kinematics

ATTACH_POINTS = ("left_hand", "right_hand", "head")
_BONES = {"left_hand": "LeftHand", "right_hand": "RightHand", "head": "Head"}
# Seed 001's default offsets, in Unity's frame (X = character's right).
SEED_OFFSETS_UNITY = {
    "left_hand": (-0.039, -0.022, 0.0),
    "right_hand": (0.039, -0.022, 0.0),
    "head": (0.0, 0.16, 0.0),
}
# The same in footfall's frame (X = character's left), metres.
DEFAULT_OFFSETS = {name: (-x, y, z) for name, (x, y, z) in SEED_OFFSETS_UNITY.items()}
DEFAULT_ROTATIONS_DEG = {"left_hand": (90.0, 0.0, 0.0), "right_hand": (90.0, 0.0, 0.0),
                         "head": (0.0, 0.0, 0.0)}


@dataclass(frozen=True)
class AttachPoint:
    """A frame fixed to a bone.

    Attributes:
        bone: joint index it follows.
        local_position: ``(3,)`` position in the bone's frame, metres.
        local_rotation: ``(4,)`` rotation relative to the bone.
    """

    bone: int
    local_position: FloatArray
    local_rotation: FloatArray


@dataclass
class PropAttachments:
    """Attach points of one avatar and the props held at each (prop name → point)."""

    points: dict[str, AttachPoint]
    props: dict[str, str] = field(default_factory=dict)
    prop_offsets: dict[str, tuple[FloatArray, FloatArray]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        skeleton: Skeleton,
        mapping: Mapping[str, str],
        calibration_rotations: ArrayLike | None = None,
        offsets: Mapping[str, ArrayLike] | None = None,
    ) -> PropAttachments:
        """Attach points on the bones ``mapping`` ({canonical: joint}) names for LeftHand,
        RightHand and Head, placed in the calibration pose (``(J, 4)`` local rotations,
        default rest) at bone + ``offsets[point]`` (world, metres; default the seed's)."""
        local = (quat.identity((skeleton.joint_count,)) if calibration_rotations is None
                 else calibration_rotations)  # forward_kinematics converts it
        grot, gpos = forward_kinematics(skeleton.parents, local, skeleton.offsets)
        chosen: dict[str, ArrayLike] = {**DEFAULT_OFFSETS, **(offsets or {})}
        points = {}
        for point, bone_name in _BONES.items():
            name = mapping.get(bone_name)
            if name is None:
                continue
            if name not in skeleton.names:
                raise MappingError(f"{bone_name} maps to {name!r}, which the skeleton lacks")
            j = skeleton.index(name)
            world_rotation = quat.from_euler(np.radians(DEFAULT_ROTATIONS_DEG[point]), "XYZ")
            points[point] = AttachPoint(
                bone=j,
                local_position=quat.inv_rotate(grot[j], np.asarray(chosen[point], dtype=float)),
                local_rotation=quat.inv_mul(grot[j], world_rotation),
            )
        return cls(points)

    def attach(
        self,
        prop: str,
        point: str,
        position: ArrayLike = (0.0, 0.0, 0.0),
        rotation: ArrayLike = (1.0, 0.0, 0.0, 0.0),
    ) -> None:
        """Hang ``prop`` under ``point`` (moving it from wherever it was), with a local offset."""
        if point not in ATTACH_POINTS:
            raise SettingsError(f"unknown attach point {point!r}; choose one of {ATTACH_POINTS}")
        if point not in self.points:
            raise MappingError(f"this avatar has no {_BONES[point]} bone to attach {prop!r} to")
        self.props[prop] = point
        self.prop_offsets[prop] = (np.asarray(position, dtype=np.float64),
                                   quat.normalize(rotation))

    def detach(self, prop: str) -> None:
        """Release ``prop``; raises SettingsError if it is not attached."""
        if prop not in self.props:
            raise SettingsError(f"prop {prop!r} is not attached")
        del self.props[prop]
        del self.prop_offsets[prop]

    def attached(self, point: str) -> list[str]:
        """Names of the props held at ``point``, in attach order."""
        if point not in ATTACH_POINTS:
            raise SettingsError(f"unknown attach point {point!r}; choose one of {ATTACH_POINTS}")
        return [prop for prop, where in self.props.items() if where == point]

    def point_transforms(
        self, global_rotations: ArrayLike, global_positions: ArrayLike
    ) -> dict[str, tuple[FloatArray, FloatArray]]:
        """World ``(position (..., 3), rotation (..., 4))`` of each attach point for a posed
        skeleton (global rotations ``(..., J, 4)``, positions ``(..., J, 3)``)."""
        grot = np.asarray(global_rotations, dtype=np.float64)
        gpos = np.asarray(global_positions, dtype=np.float64)
        out = {}
        for name, point in self.points.items():
            bone_rot = grot[..., point.bone, :]
            out[name] = (gpos[..., point.bone, :] + quat.rotate(bone_rot, point.local_position),
                         quat.mul(bone_rot, point.local_rotation))
        return out

    def prop_transforms(
        self, global_rotations: ArrayLike, global_positions: ArrayLike
    ) -> dict[str, tuple[FloatArray, FloatArray]]:
        """World ``(position (..., 3), rotation (..., 4))`` of every attached prop."""
        frames = self.point_transforms(global_rotations, global_positions)
        out = {}
        for prop, point in self.props.items():
            position, rotation = frames[point]
            local_position, local_rotation = self.prop_offsets[prop]
            out[prop] = (position + quat.rotate(rotation, local_position),
                         quat.mul(rotation, local_rotation))
        return out
