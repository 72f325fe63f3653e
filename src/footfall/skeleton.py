"""Skeletons, clips and batched forward kinematics.

A :class:`Skeleton` is a joint hierarchy with rest offsets; a :class:`Clip` holds local joint
rotations ``(F, J, 4)`` and local translations ``(F, J, 3)`` per frame. Leading axes before the
joint axis may be anything (frames, characters, both). Joints are ordered so that a parent comes
before its children.

Forward kinematics is written once, here: an :class:`FKPlan` (built once per ``parents``,
optionally for a joint subset) runs one compiled loop over batch rows and joints (a NumPy form
costs two calls per joint: their overhead dominates one live frame, their temporaries a crowd).
:func:`forward_kinematics` and :func:`local_from_global` are the one-call forms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.jit import kernel
from footfall.quat import mul_s, rotate_s


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
                raise SkeletonError(f"joint {j} ({self.names[j]!r}) has parent {p}; parents must "
                                    "precede children")
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


@kernel(nogil=True)
def _fk_kernel(order: NDArray[np.int64], parents: NDArray[np.int64], rotations: FloatArray,
               translations: FloatArray, out_rotations: FloatArray, out_positions: FloatArray,
               mode: int, clear: NDArray[np.int64]) -> None:  # pragma: no cover - compiled
    """Global rotations and/or positions of the joints ``order`` (parents first), in place.

    ``rotations (R, J, 4)`` and ``translations (T, J, 3)`` hold R and T batch rows, each either
    the full batch B or 1 (one pose for all rows); ``out_* (B, J, ·)``. Mode 0: rotations and
    positions; 1: rotations only; 2: positions, ``rotations`` being the global ones already.
    A parent outside ``order`` is read from ``out_rotations`` / ``out_positions`` (mode 2:
    ``rotations``) as the caller filled it. The joints ``clear`` are set to zero.
    """
    batch = out_rotations.shape[0] if mode != 2 else out_positions.shape[0]
    per_rotation = rotations.shape[0] > 1
    per_translation = translations.shape[0] > 1
    for b in range(batch):
        rb = b if per_rotation else 0
        tb = b if per_translation else 0
        for k in range(clear.shape[0]):
            if mode != 2:
                out_rotations[b, clear[k], :] = 0.0
            if mode != 1:
                out_positions[b, clear[k], :] = 0.0
        for k in range(order.shape[0]):
            j = order[k]
            p = parents[j]
            if p < 0:
                if mode != 2:
                    for c in range(4):
                        out_rotations[b, j, c] = rotations[rb, j, c]
                if mode != 1:
                    for c in range(3):
                        out_positions[b, j, c] = translations[tb, j, c]
                continue
            if mode == 2:
                parent = (rotations[rb, p, 0], rotations[rb, p, 1], rotations[rb, p, 2],
                          rotations[rb, p, 3])
            else:
                parent = (out_rotations[b, p, 0], out_rotations[b, p, 1],
                          out_rotations[b, p, 2], out_rotations[b, p, 3])
                world = mul_s(parent, (rotations[rb, j, 0], rotations[rb, j, 1],
                                       rotations[rb, j, 2], rotations[rb, j, 3]))
                for c in range(4):
                    out_rotations[b, j, c] = world[c]
            if mode != 1:
                step = rotate_s(parent, (translations[tb, j, 0], translations[tb, j, 1],
                                         translations[tb, j, 2]))
                for c in range(3):
                    out_positions[b, j, c] = out_positions[b, p, c] + step[c]


_NONE = np.empty((1, 1, 4))  # stands in for an array a mode does not read or write
_NONE3 = np.empty((1, 1, 3))
_NO_JOINTS = np.empty(0, dtype=np.int64)


class FKPlan:
    """Forward kinematics for one hierarchy, its joint order worked out once.

    Args:
        parents: ``(J,)`` parent indices (−1 for roots), parents before children.
        joints: optional joint indices; then only those are computed. With
            ``ancestors=True`` (default) their ancestors are added, and the other rows of a
            result are zeros. With ``ancestors=False`` the set is taken as it is: a parent
            outside it must already be filled in the ``out`` array passed to
            :meth:`rotations` or :meth:`positions`.

    Arrays have any leading batch shape ``(..., J, ·)`` (frames, characters, both, or none);
    an input without batch axes (``(J, ·)``) serves every batch row.
    """

    def __init__(self, parents: ArrayLike, joints: ArrayLike | None = None, *,
                 ancestors: bool = True) -> None:
        self.parents: NDArray[np.int64] = np.ascontiguousarray(parents, dtype=np.int64)
        count = self._count = len(self.parents)
        wanted = np.ones(count, dtype=bool)
        if joints is not None:
            wanted[:] = False
            for k in np.asarray(joints, dtype=np.int64).reshape(-1).tolist():
                if not -count <= k < count:
                    raise SkeletonError(f"joint {k} is out of range for {count} joints")
                k %= count
                if not ancestors:
                    wanted[k] = True
                while k >= 0 and not wanted[k]:
                    wanted[k] = True
                    k = int(self.parents[k])
        #: The computed joints, ascending (so parents come first).
        self.joints: NDArray[np.int64] = np.nonzero(wanted)[0].astype(np.int64)
        self.complete = bool(wanted.all())
        # Rows a new result holds zeros in (when the plan is not complete).
        self._others: NDArray[np.int64] = np.nonzero(~wanted)[0].astype(np.int64)
        self._roots = np.nonzero(self.parents < 0)[0]
        self._parent_or_self = np.where(self.parents < 0, np.arange(count), self.parents)

    @property
    def joint_count(self) -> int:
        """Number of joints J of the hierarchy."""
        return len(self.parents)

    def __call__(self, rotations: ArrayLike, translations: ArrayLike,
                 out: tuple[FloatArray, FloatArray] | None = None
                 ) -> tuple[FloatArray, FloatArray]:
        """``(global_rotations (..., J, 4), global_positions (..., J, 3))`` from local
        ``rotations (..., J, 4)`` and ``translations (..., J, 3)`` (metres).

        ``out``: optional ``((..., J, 4), (..., J, 3))`` arrays written in place (and
        returned); rows outside the plan's joints are left as they are, as in
        :meth:`rotations` (parents the plan reads from, or memory a later pass fills).
        """
        given_rot, given_pos = (None, None) if out is None else out
        rot, trans, batch = self._inputs(rotations, translations, given_rot)
        if out is not None and out[1].shape[:-2] != batch:
            raise SkeletonError(f"out has shapes {out[0].shape} and {out[1].shape}; expected "
                                f"batch shape {batch} for both")
        out_rot = self._output(given_rot, batch, 4)
        out_pos = self._output(given_pos, batch, 3)
        _fk_kernel(self.joints, self.parents, rot, trans, out_rot, out_pos, 0,
                   self._others if out is None else _NO_JOINTS)
        return (self._result(out_rot, given_rot, batch, 4),
                self._result(out_pos, given_pos, batch, 3))

    def rotations(self, rotations: ArrayLike, out: FloatArray | None = None) -> FloatArray:
        """Global rotations ``(..., J, 4)`` from local ``rotations (..., J, 4)``.

        ``out``: optional ``(..., J, 4)`` array written in place (and returned); rows outside
        the plan's joints are left as they are (parents the plan reads from).
        """
        if self._one_frame(rotations, 4, out):  # a live frame: no batch to shape
            assert isinstance(rotations, np.ndarray)
            work = np.empty((self._count, 4)) if out is None else out
            _fk_kernel(self.joints, self.parents, rotations.reshape(1, self._count, 4), _NONE3,
                       work.reshape(1, self._count, 4), _NONE3, 1,
                       self._others if out is None else _NO_JOINTS)
            return work
        rot, _, batch = self._inputs(rotations, None, out)
        work = self._output(out, batch, 4)
        _fk_kernel(self.joints, self.parents, rot, _NONE3, work, _NONE3, 1,
                   self._others if out is None else _NO_JOINTS)
        return self._result(work, out, batch, 4)

    def positions(self, world_rotations: ArrayLike, translations: ArrayLike,
                  out: FloatArray | None = None) -> FloatArray:
        """Global positions ``(..., J, 3)`` from known global rotations ``(..., J, 4)`` and
        local ``translations``; ``out`` as in :meth:`rotations`."""
        if (self._one_frame(world_rotations, 4, None) and self._one_frame(translations, 3, out)):
            assert isinstance(world_rotations, np.ndarray) and isinstance(translations, np.ndarray)
            work = np.empty((self._count, 3)) if out is None else out
            _fk_kernel(self.joints, self.parents, world_rotations.reshape(1, self._count, 4),
                       translations.reshape(1, self._count, 3), _NONE,
                       work.reshape(1, self._count, 3), 2,
                       self._others if out is None else _NO_JOINTS)
            return work
        rot, trans, batch = self._inputs(world_rotations, translations, out)
        work = self._output(out, batch, 3)
        _fk_kernel(self.joints, self.parents, rot, trans, _NONE, work, 2,
                   self._others if out is None else _NO_JOINTS)
        return self._result(work, out, batch, 3)

    def local_rotations(self, world_rotations: ArrayLike) -> FloatArray:
        """Local rotations ``(..., J, 4)`` from global ones (roots keep theirs), all joints."""
        world = np.asarray(world_rotations, dtype=np.float64)
        local = quat.inv_mul(world[..., self._parent_or_self, :], world)
        local[..., self._roots, :] = world[..., self._roots, :]
        return local

    def _one_frame(self, array: ArrayLike, width: int, out: FloatArray | None) -> bool:
        """Whether ``array`` (and ``out``, if given) is one C-ordered float64 ``(J, width)``
        frame, which the kernel takes as it is (the batch path shapes the same memory)."""
        shape = (self._count, width)
        return (type(array) is np.ndarray and array.shape == shape
                and array.dtype == np.float64 and array.flags.c_contiguous
                and (out is None or (type(out) is np.ndarray and out.shape == shape
                                     and out.dtype == np.float64 and out.flags.c_contiguous)))

    def _inputs(self, rotations: ArrayLike, translations: ArrayLike | None,
                out: FloatArray | None = None
                ) -> tuple[FloatArray, FloatArray, tuple[int, ...]]:
        """Kernel inputs ``(R, J, 4)``, ``(T, J, 3)`` and the batch shape (``out``'s if given,
        else the inputs' broadcast)."""
        rot = np.asarray(rotations, dtype=np.float64)
        self._check(rot, 4, "rotations")
        batch = rot.shape[:-2] if out is None else out.shape[:-2]
        if translations is None:
            if rot.shape[:-2] != batch and _broadcast(batch, rot.shape[:-2]) != batch:
                raise SkeletonError(f"out has batch shape {batch}, too small for rotations "
                                    f"of shape {rot.shape}")
            return _rows(rot, batch, 4), _NONE3, batch
        trans = np.asarray(translations, dtype=np.float64)
        self._check(trans, 3, "translations")
        if trans.shape[:-2] != batch:
            batch = _broadcast(batch, trans.shape[:-2])
        if out is not None and (batch != out.shape[:-2]
                                or _broadcast(batch, rot.shape[:-2]) != batch):
            raise SkeletonError(f"out has shape {out.shape}, too small for inputs of shapes "
                                f"{rot.shape} and {trans.shape}")
        return _rows(rot, batch, 4), _rows(trans, batch, 3), batch

    def _check(self, array: FloatArray, width: int, name: str) -> None:
        if array.shape[-2:] != (self._count, width) or array.ndim < 2:
            raise SkeletonError(f"{name} have shape {array.shape}, expected "
                                f"(..., {self.joint_count}, {width})")

    def _output(self, out: FloatArray | None, batch: tuple[int, ...], width: int) -> FloatArray:
        """``(B, J, width)`` memory to write: ``out`` itself when it is C-ordered, else new."""
        rows = math.prod(batch)
        shape = (rows, self._count, width)
        if out is None:
            return np.empty(shape)
        if out.shape != (*batch, self._count, width):
            raise SkeletonError(f"out has shape {out.shape}, expected "
                                f"{(*batch, self._count, width)}")
        if out.dtype == np.float64 and out.flags.c_contiguous:
            return out.reshape(shape)
        return np.ascontiguousarray(out, dtype=np.float64).reshape(shape)

    def _result(self, work: FloatArray, out: FloatArray | None, batch: tuple[int, ...],
                width: int) -> FloatArray:
        result = work.reshape(*batch, self._count, width)
        if out is None:
            return result
        if not np.shares_memory(result, out):
            out[...] = result
        return out


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """``np.broadcast_shapes(a, b)``, raising :class:`SkeletonError` for batch shapes that do
    not broadcast."""
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        raise SkeletonError(f"batch shapes {a} and {b} do not broadcast") from None


def _rows(array: FloatArray, batch: tuple[int, ...], width: int) -> FloatArray:
    """``array (..., J, width)`` as C-ordered ``(B, J, width)`` rows, or ``(1, J, width)`` when
    it has no batch of its own (broadcast inside the kernel, not copied)."""
    joints = array.shape[-2]
    if array.shape[:-2] == batch:
        return np.ascontiguousarray(array).reshape(-1, joints, width)
    if math.prod(array.shape[:-2]) == 1:
        return np.ascontiguousarray(array).reshape(1, joints, width)
    return np.ascontiguousarray(np.broadcast_to(array, (*batch, joints, width))).reshape(
        -1, joints, width)


def forward_kinematics(
    parents: ArrayLike, rotations: ArrayLike, translations: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Global ``(rotations (..., J, 4), positions (..., J, 3))`` from local ``rotations (..., J,
    4)`` and ``translations (..., J, 3)`` (metres) under ``parents (J,)``, parents first; builds
    an :class:`FKPlan` per call (hot loops keep one)."""
    return FKPlan(parents)(rotations, translations)


def local_from_global(
    parents: ArrayLike, global_rotations: ArrayLike, global_positions: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Inverse of :func:`forward_kinematics`: local rotations and translations (shapes as
    there)."""
    parents = np.asarray(parents)
    global_rotations = np.asarray(global_rotations, dtype=np.float64)
    global_positions = np.asarray(global_positions, dtype=np.float64)
    local_rot = FKPlan(parents).local_rotations(global_rotations)
    local_pos = global_positions.copy()
    has_parent = parents >= 0
    p = parents[has_parent]
    local_pos[..., has_parent, :] = quat.inv_rotate(
        global_rotations[..., p, :],
        global_positions[..., has_parent, :] - global_positions[..., p, :])
    return local_rot, local_pos


def chain_local_rotations(parent_world: ArrayLike, chain_world: ArrayLike) -> FloatArray:
    """Local rotations ``(..., n, 4)`` of a joint chain (each joint the child of the one
    before) from its world rotations ``chain_world (..., n, 4)`` and the world rotation of the
    first joint's parent ``parent_world (..., 4)``: how IK results go back into a pose."""
    chain = np.asarray(chain_world, dtype=np.float64)
    parent = np.asarray(parent_world, dtype=np.float64)
    above = np.concatenate([np.broadcast_to(parent[..., None, :], (*chain.shape[:-2], 1, 4)),
                            chain[..., :-1, :]], axis=-2)
    return quat.inv_mul(above, chain)


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
            raise SkeletonError(f"rotations have shape {self.rotations.shape}, expected "
                                f"(F, {joints}, 4)")
        if self.positions.shape != self.rotations.shape[:-1] + (3,):
            raise SkeletonError(f"positions have shape {self.positions.shape}, expected "
                                f"{self.rotations.shape[:-1] + (3,)}")
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
        """The clip at another frame rate (translations lerped, rotations slerped); its last
        frame falls at or before the original end."""
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
        pos = (self.positions[lower] * (1.0 - t)[:, None, None]
               + self.positions[lower + 1] * t[:, None, None])
        return Clip(self.skeleton, rot, pos, fps)

    def concatenate(self, *others: Clip) -> Clip:
        """This clip followed by ``others`` (same skeleton and frame rate required)."""
        for other in others:
            if other.skeleton.names != self.skeleton.names or not np.array_equal(
                    other.skeleton.parents, self.skeleton.parents):
                raise SkeletonError("cannot concatenate clips of different skeletons")
            if abs(other.fps - self.fps) > 1e-9:
                raise SkeletonError(f"cannot concatenate clips at {self.fps} and {other.fps} fps; "
                                    "resample first")
        rotations = np.concatenate([self.rotations, *(o.rotations for o in others)], axis=0)
        positions = np.concatenate([self.positions, *(o.positions for o in others)], axis=0)
        return Clip(self.skeleton, rotations, positions, self.fps)

    def check_finite(self) -> None:
        """Raise :class:`SkeletonError` naming the first frame and joint holding NaN or inf."""
        bad = ~(np.all(np.isfinite(self.rotations), axis=-1)
                & np.all(np.isfinite(self.positions), axis=-1))
        if np.any(bad):
            frame, joint = np.argwhere(bad)[0]
            raise SkeletonError(f"clip has NaN or inf at frame {int(frame)}, joint {int(joint)} "
                                f"({self.skeleton.names[int(joint)]!r})")
