"""Skeletons, clips and batched forward kinematics.

A :class:`Skeleton` is a joint hierarchy with rest offsets; a :class:`Clip` holds local joint
rotations ``(F, J, 4)`` and local translations ``(F, J, 3)`` per frame. Leading axes before the
joint axis may be anything (frames, characters, both): FK loops once over joints and is
vectorised over everything else. Joints are ordered so that a parent comes before its children.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.errors import SkeletonError

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Skeleton:
    """A joint hierarchy.

    Attributes:
        names: joint names, length J.
        parents: ``(J,)`` int array, parent index of each joint, −1 for the root(s);
            ``parents[j] < j`` always.
        offsets: ``(J, 3)`` rest translation of each joint from its parent, metres.
        end_sites: optional ``{joint index: (3,) offset}`` of BVH End Sites (tip markers).
    """

    names: list[str]
    parents: NDArray[np.int64]
    offsets: FloatArray
    end_sites: dict[int, FloatArray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        parents = np.asarray(self.parents, dtype=np.int64)
        offsets = np.asarray(self.offsets, dtype=np.float64)
        object.__setattr__(self, "parents", parents)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "names", list(self.names))
        count = len(self.names)
        if count == 0:
            raise SkeletonError("a skeleton needs at least one joint")
        if parents.shape != (count,):
            raise SkeletonError(f"parents has shape {parents.shape}, expected ({count},)")
        if offsets.shape != (count, 3):
            raise SkeletonError(f"offsets has shape {offsets.shape}, expected ({count}, 3)")
        for j, p in enumerate(parents):
            if p >= j or p < -1:
                raise SkeletonError(
                    f"joint {j} ({self.names[j]!r}) has parent {p}; parents must precede children"
                )
        if len(set(self.names)) != count:
            raise SkeletonError("joint names must be unique")
        if not np.all(np.isfinite(offsets)):
            raise SkeletonError("offsets contain NaN or inf")

    @property
    def joint_count(self) -> int:
        """Number of joints J."""
        return len(self.names)

    def index(self, name: str) -> int:
        """Index of the joint called ``name``; raises :class:`SkeletonError` if absent."""
        try:
            return self.names.index(name)
        except ValueError:
            raise SkeletonError(f"no joint named {name!r}") from None

    def children(self, joint: int) -> list[int]:
        """Indices of the direct children of ``joint``."""
        return [int(j) for j in np.nonzero(self.parents == joint)[0]]

    def chain(self, joint: int) -> list[int]:
        """Joint indices from the root down to ``joint`` (inclusive)."""
        out = []
        while joint >= 0:
            out.append(joint)
            joint = int(self.parents[joint])
        return out[::-1]

    def bone_lengths(self) -> FloatArray:
        """``(J,)`` rest length of the bone from each joint's parent to the joint, metres."""
        return np.linalg.norm(self.offsets, axis=-1)

    def rest_positions(self) -> FloatArray:
        """``(J, 3)`` global joint positions of the rest pose (identity rotations)."""
        rotations = quat.identity((self.joint_count,))
        return forward_kinematics(self.parents, rotations, self.offsets)[1]


def forward_kinematics(
    parents: ArrayLike, rotations: ArrayLike, translations: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Global rotations and positions from local ones.

    Args:
        parents: ``(J,)`` parent indices (−1 for roots), parents before children.
        rotations: ``(..., J, 4)`` local rotations.
        translations: ``(..., J, 3)`` local translations (offset from the parent), metres.

    Returns:
        ``(global_rotations (..., J, 4), global_positions (..., J, 3))``.
    """
    parents = np.asarray(parents)
    rotations = np.asarray(rotations, dtype=np.float64)
    translations = np.asarray(translations, dtype=np.float64)
    shape = np.broadcast_shapes(rotations.shape[:-1], translations.shape[:-1])
    rotations = np.broadcast_to(rotations, (*shape, 4))
    translations = np.broadcast_to(translations, (*shape, 3))
    global_rot = np.empty((*shape, 4))
    global_pos = np.empty((*shape, 3))
    for j, p in enumerate(parents):
        if p < 0:
            global_rot[..., j, :] = rotations[..., j, :]
            global_pos[..., j, :] = translations[..., j, :]
        else:
            global_rot[..., j, :] = quat.mul(global_rot[..., p, :], rotations[..., j, :])
            global_pos[..., j, :] = global_pos[..., p, :] + quat.rotate(
                global_rot[..., p, :], translations[..., j, :]
            )
    return global_rot, global_pos


def local_from_global(
    parents: ArrayLike, global_rotations: ArrayLike, global_positions: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Inverse of :func:`forward_kinematics`: local rotations and translations.

    Shapes as in :func:`forward_kinematics`.
    """
    parents = np.asarray(parents)
    global_rotations = np.asarray(global_rotations, dtype=np.float64)
    global_positions = np.asarray(global_positions, dtype=np.float64)
    local_rot = global_rotations.copy()
    local_pos = global_positions.copy()
    has_parent = parents >= 0
    p = np.where(has_parent, parents, 0)
    parent_rot = global_rotations[..., p, :]
    parent_pos = global_positions[..., p, :]
    rel_rot = quat.inv_mul(parent_rot, global_rotations)
    rel_pos = quat.inv_rotate(parent_rot, global_positions - parent_pos)
    local_rot[..., has_parent, :] = rel_rot[..., has_parent, :]
    local_pos[..., has_parent, :] = rel_pos[..., has_parent, :]
    return local_rot, local_pos


@dataclass
class Clip:
    """An animation: local rotations and translations per frame.

    Attributes:
        skeleton: the joint hierarchy (J joints).
        rotations: ``(F, J, 4)`` local joint rotations (w, x, y, z).
        positions: ``(F, J, 3)`` local joint translations, metres; for joints without animated
            translation this is the skeleton offset repeated.
        fps: frames per second.
    """

    skeleton: Skeleton
    rotations: FloatArray
    positions: FloatArray
    fps: float

    def __post_init__(self) -> None:
        self.rotations = np.asarray(self.rotations, dtype=np.float64)
        self.positions = np.asarray(self.positions, dtype=np.float64)
        joints = self.skeleton.joint_count
        if self.rotations.ndim < 2 or self.rotations.shape[-2:] != (joints, 4):
            raise SkeletonError(
                f"rotations have shape {self.rotations.shape}, expected (F, {joints}, 4)"
            )
        if self.positions.shape != self.rotations.shape[:-1] + (3,):
            raise SkeletonError(
                f"positions have shape {self.positions.shape}, expected "
                f"{self.rotations.shape[:-1] + (3,)}"
            )
        if not (np.isfinite(self.fps) and self.fps > 0):
            raise SkeletonError(f"fps must be positive, got {self.fps}")

    @classmethod
    def from_rest(cls, skeleton: Skeleton, frames: int = 1, fps: float = 60.0) -> Clip:
        """A clip holding the rest pose for ``frames`` frames."""
        rotations = quat.identity((frames, skeleton.joint_count))
        positions = np.broadcast_to(skeleton.offsets, (frames, skeleton.joint_count, 3)).copy()
        return cls(skeleton, rotations, positions, fps)

    @property
    def frame_count(self) -> int:
        """Number of frames F."""
        return int(self.rotations.shape[0])

    @property
    def duration(self) -> float:
        """Length in seconds, ``(F − 1) / fps``."""
        return max(self.frame_count - 1, 0) / self.fps

    def forward_kinematics(self) -> tuple[FloatArray, FloatArray]:
        """``(global_rotations (F, J, 4), global_positions (F, J, 3))``."""
        return forward_kinematics(self.skeleton.parents, self.rotations, self.positions)

    def global_positions(self) -> FloatArray:
        """Global joint positions ``(F, J, 3)``, metres."""
        return self.forward_kinematics()[1]

    def global_rotations(self) -> FloatArray:
        """Global joint rotations ``(F, J, 4)``."""
        return self.forward_kinematics()[0]

    def copy(self) -> Clip:
        """A deep copy (the skeleton is shared; it is immutable)."""
        return Clip(self.skeleton, self.rotations.copy(), self.positions.copy(), self.fps)

    def __getitem__(self, frames: slice | ArrayLike) -> Clip:
        """Frames selected by a slice or index array, as a new clip."""
        if isinstance(frames, (int, np.integer)):
            frames = slice(int(frames), int(frames) + 1)
        index = frames if isinstance(frames, slice) else np.asarray(frames)
        return Clip(self.skeleton, self.rotations[index], self.positions[index], self.fps)

    def resample(self, fps: float) -> Clip:
        """The clip at another frame rate: translations lerped, rotations slerped.

        The duration is kept (the last frame falls at or before the original end).
        """
        if not (np.isfinite(fps) and fps > 0):
            raise SkeletonError(f"fps must be positive, got {fps}")
        if self.frame_count < 2:
            return Clip(self.skeleton, self.rotations.copy(), self.positions.copy(), fps)
        count = int(np.floor(self.duration * fps + 1e-9)) + 1
        source = np.arange(count) * (self.fps / fps)
        lower = np.clip(np.floor(source).astype(int), 0, self.frame_count - 2)
        t = np.clip(source - lower, 0.0, 1.0)
        rotations = quat.unroll_sign(self.rotations, axis=0)
        rot = quat.slerp(rotations[lower], rotations[lower + 1], t[:, None])
        pos = (
            self.positions[lower] * (1.0 - t)[:, None, None]
            + self.positions[lower + 1] * t[:, None, None]
        )
        return Clip(self.skeleton, rot, pos, fps)

    def concatenate(self, *others: Clip) -> Clip:
        """This clip followed by ``others`` (same skeleton and frame rate required)."""
        for other in others:
            if other.skeleton.names != self.skeleton.names or not np.array_equal(
                other.skeleton.parents, self.skeleton.parents
            ):
                raise SkeletonError("cannot concatenate clips of different skeletons")
            if abs(other.fps - self.fps) > 1e-9:
                raise SkeletonError(
                    f"cannot concatenate clips at {self.fps} and {other.fps} fps; resample first"
                )
        rotations = np.concatenate([self.rotations, *(o.rotations for o in others)], axis=0)
        positions = np.concatenate([self.positions, *(o.positions for o in others)], axis=0)
        return Clip(self.skeleton, rotations, positions, self.fps)

    def check_finite(self) -> None:
        """Raise :class:`SkeletonError` naming the first frame and joint holding NaN or inf."""
        bad = ~(np.all(np.isfinite(self.rotations), axis=-1)
                & np.all(np.isfinite(self.positions), axis=-1))
        if np.any(bad):
            frame, joint = np.argwhere(bad)[0]
            raise SkeletonError(
                f"clip has NaN or inf at frame {int(frame)}, joint {int(joint)} "
                f"({self.skeleton.names[int(joint)]!r})"
            )
