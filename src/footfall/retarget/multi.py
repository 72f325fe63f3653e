"""One pose copied onto many avatars (seed 001's SimplePoseTransfer).

Per target and bone the rest-pose rotation difference ``inv(source_world) * target_world`` is
cached; at runtime ``target_world = source_world * difference``, the hips go to the source hips
plus a per-target world offset, and (per target) the root scale follows the source's root scale
ratio. Targets sharing a skeleton are solved together as one batch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.retarget.calibration import canonical_mapping, correspond, match_directions
from footfall.skeleton import FKPlan, Skeleton


@dataclass
class CopyTarget:
    """One avatar to copy onto.

    Attributes:
        skeleton: its skeleton.
        hip_offset: ``(3,)`` world offset added to the source hips position, metres.
        sync_root_scale: follow the source's root scale ratio.
        transfer_head_scale: give the target's head the source's head scale.
        rest: ``(J, 4)`` rest local rotations (glTF avatars), identity by default.
        mapping: ``{canonical bone: joint}`` override.
    """

    skeleton: Skeleton
    hip_offset: ArrayLike = (0.0, 0.0, 0.0)
    sync_root_scale: bool = True
    transfer_head_scale: bool = True
    rest: ArrayLike | None = None
    mapping: Mapping[str, str | None] | None = None


@dataclass
class CopiedPose:
    """A target's pose: local ``rotations (..., J, 4)``, ``positions (..., J, 3)``, root
    ``scale`` (uniform; already applied to the positions), and ``joint_scales (J,)`` (the
    source's head scale on the head when ``transfer_head_scale``)."""

    rotations: FloatArray
    positions: FloatArray
    scale: float
    joint_scales: FloatArray


@dataclass
class _Group:
    skeleton: Skeleton
    members: list[int]
    target_joints: NDArray[np.int64]
    source_joints: NDArray[np.int64]
    offsets: FloatArray  # (N, M, 4)
    rest: FloatArray  # (N, J, 4)
    hips: int
    head: int
    unmapped: FKPlan
    hip_offsets: FloatArray = field(default_factory=lambda: np.zeros((0, 3)))
    sync: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))


class PoseCopier:
    """Copy poses of ``source`` onto every target of ``targets`` (see :class:`CopyTarget`)."""

    def __init__(self, source: Skeleton, targets: Sequence[CopyTarget],
                 source_mapping: Mapping[str, str | None] | None = None,
                 source_rest: ArrayLike | None = None) -> None:
        if not targets:
            raise SkeletonError("PoseCopier needs at least one target")
        self.source = source
        self.targets = list(targets)
        self._source_fk = FKPlan(source.parents)
        source_map = canonical_mapping(source, source_mapping, "source")
        rest_source = (quat.identity((source.joint_count,)) if source_rest is None
                       else quat.normalize(source_rest))
        source_world = self._source_fk.rotations(rest_source)
        self._source_hips = source.index(source_map["Hips"])
        groups: dict[int, _Group] = {}
        for k, entry in enumerate(self.targets):
            skeleton = entry.skeleton
            target_map = canonical_mapping(skeleton, entry.mapping, f"target {k}")
            rest = (quat.identity((skeleton.joint_count,)) if entry.rest is None
                    else quat.normalize(entry.rest))
            rest = match_directions(source, skeleton, source_map, target_map, rest_source, rest)
            pairs = correspond(source, skeleton, source_map, target_map)
            target_world = FKPlan(skeleton.parents).rotations(rest)
            offsets = quat.inv_mul(source_world[pairs.source_joints],
                                   target_world[pairs.target_joints])
            key = id(skeleton)
            if key not in groups:
                unmapped = np.setdiff1d(np.arange(skeleton.joint_count), pairs.target_joints)
                groups[key] = _Group(skeleton, [], pairs.target_joints, pairs.source_joints,
                                     np.zeros((0, len(pairs.target_joints), 4)),
                                     np.zeros((0, skeleton.joint_count, 4)), pairs.hips[0],
                                     skeleton.index(target_map["Head"]) if "Head" in target_map
                                     else -1,
                                     FKPlan(skeleton.parents, unmapped, ancestors=False))
            group = groups[key]
            group.members.append(k)
            group.offsets = np.concatenate([group.offsets, offsets[None]])
            group.rest = np.concatenate([group.rest, rest[None]])
            group.hip_offsets = np.concatenate(
                [group.hip_offsets, np.asarray(entry.hip_offset, dtype=np.float64)[None]])
            group.sync = np.append(group.sync, bool(entry.sync_root_scale))
        self._groups = list(groups.values())

    def copy(self, rotations: ArrayLike, positions: ArrayLike, root_scale: float = 1.0,
             head_scale: float = 1.0) -> list[CopiedPose]:
        """Poses of every target (in ``targets`` order) for source local ``rotations
        (..., Js, 4)`` and ``positions (..., Js, 3)``; ``root_scale`` is the source root's scale
        relative to its original (targets with ``sync_root_scale`` follow it), ``head_scale``
        the source's head scale (given to targets with ``transfer_head_scale``)."""
        srot, spos = self._source_fk(rotations, positions)
        hips_source = spos[..., self._source_hips, :]
        out: list[CopiedPose | None] = [None] * len(self.targets)
        for group in self._groups:
            count, joints = len(group.members), group.skeleton.joint_count
            batch = srot.shape[:-2]
            # Targets first: (N, ..., J, 4).
            offsets = group.offsets.reshape((count,) + (1,) * len(batch) + group.offsets.shape[1:])
            world = np.empty((count, *batch, joints, 4))
            world[..., group.target_joints, :] = quat.mul(srot[..., group.source_joints, :],
                                                          offsets)
            rest = group.rest.reshape((count,) + (1,) * len(batch) + group.rest.shape[1:])
            group.unmapped.rotations(rest, out=world)  # below their mapped parents
            local = group.unmapped.local_rotations(world)
            scale = np.where(group.sync, root_scale, 1.0)
            shape = (count,) + (1,) * len(batch) + (1, 1)
            lpos = np.broadcast_to(group.skeleton.offsets, (count, *batch, joints, 3)) \
                * scale.reshape(shape)  # a new array, written below
            hips = group.hips
            offset = group.hip_offsets.reshape((count,) + (1,) * len(batch) + (3,))
            hips_world = hips_source + offset
            parent = int(group.skeleton.parents[hips])
            if parent < 0:
                lpos[..., hips, :] = hips_world
            else:
                parent_rot, parent_pos = FKPlan(group.skeleton.parents)(local, lpos)
                lpos[..., hips, :] = quat.inv_rotate(parent_rot[..., parent, :],
                                                     hips_world - parent_pos[..., parent, :])
            for n, member in enumerate(group.members):
                joint_scales = np.ones(joints)
                if group.head >= 0 and self.targets[member].transfer_head_scale:
                    joint_scales[group.head] = head_scale
                out[member] = CopiedPose(local[n], lpos[n], float(scale[n]), joint_scales)
        return [pose for pose in out if pose is not None]
