"""Forward kinematics by depth level: one batched step per tree level instead of per joint.

A 55-joint humanoid is about 12 levels deep, so FK costs 12 gathers instead of 55 — this is
what makes one live frame cheap (numpy call overhead dominates at batch size 1) while staying
fully batched over frames and characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
_CONJUGATE = np.array([1.0, -1.0, -1.0, -1.0])


@dataclass(frozen=True)
class Levels:
    """Joints grouped by depth: ``joints[d]`` and their ``parents[d]`` (depth ≥ 1).

    For a set closed under ancestors, ``members`` lists its joints and ``ancestors`` is the
    ``(K, K)`` 0/1 matrix "column k is row i or one of its ancestors": one frame's positions are
    then a single matrix product of per-joint offsets (fewer numpy calls than the levels).
    """

    roots: NDArray[np.int64]
    joints: tuple[NDArray[np.int64], ...]
    parents: tuple[NDArray[np.int64], ...]
    members: NDArray[np.int64] | None = None
    member_parents: NDArray[np.int64] | None = None
    ancestors: FloatArray | None = None

    @property
    def one_frame_order(self) -> tuple[list[int], list[tuple[int, int]]]:
        """Roots and ``(joint, parent)`` pairs, parents first, as Python ints (cached)."""
        cached = self.__dict__.get("_one_frame_order")
        if cached is None:
            pairs = [(j, p) for idx, par in zip(self.joints, self.parents, strict=True)
                     for j, p in zip(idx.tolist(), par.tolist(), strict=True)]
            cached = (self.roots.tolist(), pairs)
            object.__setattr__(self, "_one_frame_order", cached)
        return cached

    @property
    def one_frame_steps(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """``members``, the rows of the non-roots among them and their parents (cached)."""
        cached = self.__dict__.get("_one_frame_steps")
        if cached is None:
            assert self.members is not None and self.member_parents is not None
            inner = np.nonzero(self.member_parents >= 0)[0]
            cached = (self.members, inner, self.member_parents[inner])
            object.__setattr__(self, "_one_frame_steps", cached)
        return cached

    @classmethod
    def of(cls, parents: ArrayLike, subset: ArrayLike | None = None) -> Levels:
        """Levels of a hierarchy (``parents (J,)``, −1 for roots); with ``subset`` only those
        joints are listed (their parents still come from the full hierarchy)."""
        parents = np.asarray(parents, dtype=np.int64)
        depth = np.zeros(len(parents), dtype=np.int64)
        for j, p in enumerate(parents):
            depth[j] = 0 if p < 0 else depth[p] + 1
        keep = np.ones(len(parents), dtype=bool)
        if subset is not None:
            keep[:] = False
            keep[np.asarray(subset, dtype=np.int64)] = True
        roots = np.nonzero((depth == 0) & keep)[0]
        joints, parent_list = [], []
        for d in range(1, int(depth.max()) + 1 if len(depth) else 1):
            idx = np.nonzero((depth == d) & keep)[0]
            if len(idx):
                joints.append(idx)
                parent_list.append(parents[idx])
        members = np.nonzero(keep)[0]
        if not all(parents[j] < 0 or keep[parents[j]] for j in members):
            return cls(roots, tuple(joints), tuple(parent_list))
        row = {int(j): i for i, j in enumerate(members)}
        ancestors = np.zeros((len(members), len(members)))
        for i, member in enumerate(members):
            k = int(member)
            while k >= 0:
                ancestors[i, row[k]] = 1.0
                k = int(parents[k])
        return cls(roots, tuple(joints), tuple(parent_list), members, parents[members],
                   ancestors)


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """``np.broadcast_shapes(a, b)``, skipped for equal shapes (most calls of a live frame)."""
    return a if a == b else np.broadcast_shapes(a, b)


def qmul(a: FloatArray, b: FloatArray) -> FloatArray:
    """Hamilton product ``a * b`` of ``(..., 4)`` arrays, with few temporaries."""
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    out = np.empty(_broadcast(a.shape, b.shape))
    out[..., 0] = aw * bw - ax * bx - ay * by - az * bz
    out[..., 1] = aw * bx + ax * bw + ay * bz - az * by
    out[..., 2] = aw * by - ax * bz + ay * bw + az * bx
    out[..., 3] = aw * bz + ax * by - ay * bx + az * bw
    return out


def qrotate(q: FloatArray, v: FloatArray) -> FloatArray:
    """``q v q⁻¹`` for unit ``q (..., 4)`` and ``v (..., 3)`` (no ``np.cross``)."""
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    vx, vy, vz = v[..., 0], v[..., 1], v[..., 2]
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    out = np.empty(_broadcast(q.shape[:-1], v.shape[:-1]) + (3,))
    out[..., 0] = vx + w * tx + (y * tz - z * ty)
    out[..., 1] = vy + w * ty + (z * tx - x * tz)
    out[..., 2] = vz + w * tz + (x * ty - y * tx)
    return out


@overload
def fk(levels: Levels, rotations: ArrayLike, translations: ArrayLike,
       positions: Literal[True] = True) -> tuple[FloatArray, FloatArray]: ...


@overload
def fk(levels: Levels, rotations: ArrayLike, translations: ArrayLike,
       positions: bool) -> tuple[FloatArray, FloatArray | None]: ...


def fk(levels: Levels, rotations: ArrayLike, translations: ArrayLike,
       positions: bool = True) -> tuple[FloatArray, FloatArray | None]:
    """Global ``(rotations (..., J, 4), positions (..., J, 3))`` from local ones, level by level.

    Same result as :func:`footfall.skeleton.forward_kinematics`. Works joint-major inside (the
    gathers of one level are then contiguous blocks) and returns the usual layout (views of
    joint-major memory). With ``positions=False`` only rotations are computed (None returned).
    """
    rot = np.asarray(rotations, dtype=np.float64)
    pos = np.asarray(translations, dtype=np.float64)
    if rot.ndim == 2 and not positions:
        return _fk_rotations_one_frame(levels, rot), None
    if rot.ndim > 2:
        rot = np.ascontiguousarray(np.moveaxis(rot, -2, 0))
        if positions:
            if pos.ndim < rot.ndim:
                pos = np.broadcast_to(pos, rot.shape[1:-1] + pos.shape[-2:])
            pos = np.ascontiguousarray(np.moveaxis(pos, -2, 0))
    grot = np.empty_like(rot)
    grot[levels.roots] = rot[levels.roots]
    gpos = None
    if positions:
        gpos = np.empty(rot.shape[:-1] + (3,))
        gpos[levels.roots] = pos[levels.roots]
    for idx, par in zip(levels.joints, levels.parents, strict=True):
        parent_rot = grot[par]
        grot[idx] = qmul(parent_rot, rot[idx])
        if gpos is not None:
            gpos[idx] = gpos[par] + qrotate(parent_rot, pos[idx])
    if grot.ndim == 2:
        return grot, gpos
    return np.moveaxis(grot, 0, -2), None if gpos is None else np.moveaxis(gpos, 0, -2)


def _fk_rotations_one_frame(levels: Levels, rotations: FloatArray) -> FloatArray:
    """Global rotations ``(J, 4)`` of one frame with Python floats, joint by joint.

    At batch size 1 a numpy call costs more than the arithmetic it does; sixteen float
    multiplications per joint in plain Python are several times faster than twelve levels of
    small-array numpy calls.
    """
    local = rotations.tolist()
    world: list[list[float] | None] = [None] * len(local)
    roots, order = levels.one_frame_order
    for j in roots:
        world[j] = local[j]
    for j, p in order:
        parent = world[p]
        assert parent is not None  # parents come before their children
        aw, ax, ay, az = parent
        bw, bx, by, bz = local[j]
        world[j] = [aw * bw - ax * bx - ay * by - az * bz,
                    aw * bx + ax * bw + ay * bz - az * by,
                    aw * by - ax * bz + ay * bw + az * bx,
                    aw * bz + ax * by - ay * bx + az * bw]
    return np.array(world)


def positions_from_world(levels: Levels, world_rotations: FloatArray,
                         translations: ArrayLike) -> FloatArray:
    """Global positions ``(..., J, 3)`` when the global rotations are already known."""
    pos = np.asarray(translations, dtype=np.float64)
    if world_rotations.ndim == 2 and levels.ancestors is not None:
        # One frame: position = sum of the offsets turned by their parents, one matrix product.
        members, inner_members, inner_parents = levels.one_frame_steps
        steps = pos[members]
        steps[inner_members] = qrotate(world_rotations[inner_parents], pos[members[inner_members]])
        gpos = np.empty(pos.shape[:-1] + (3,))
        gpos[members] = levels.ancestors @ steps
        return gpos
    if world_rotations.ndim == 2:
        grot = world_rotations
    else:
        # Joint-major views, no copies: the solver's arrays are joint-major in memory, so each
        # level's gathers below copy whole blocks (any other layout still works).
        grot = np.moveaxis(world_rotations, -2, 0)
        pos = np.moveaxis(pos, -2, 0)
    gpos = np.empty(grot.shape[:-1] + (3,))
    gpos[levels.roots] = pos[levels.roots]
    for idx, par in zip(levels.joints, levels.parents, strict=True):
        gpos[idx] = gpos[par] + qrotate(grot[par], pos[idx])
    return gpos if gpos.ndim == 2 else np.moveaxis(gpos, 0, -2)


def qmul_conjugate(a: FloatArray, b: FloatArray) -> FloatArray:
    """``conj(a) * b`` of ``(..., 4)`` arrays (the inverse of unit ``a``, then ``b``)."""
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    out = np.empty(_broadcast(a.shape, b.shape))
    out[..., 0] = aw * bw + ax * bx + ay * by + az * bz
    out[..., 1] = aw * bx - ax * bw - ay * bz + az * by
    out[..., 2] = aw * by + ax * bz - ay * bw - az * bx
    out[..., 3] = aw * bz - ax * by + ay * bx - az * bw
    return out


def parent_or_self(parents: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(roots, parent of each joint or the joint itself for roots)`` for
    :func:`local_rotations` (compute once per skeleton)."""
    parents = np.asarray(parents)
    return np.nonzero(parents < 0)[0], np.where(parents < 0, np.arange(len(parents)), parents)


def local_rotations(parents: NDArray[np.int64], world_rotations: FloatArray,
                    indices: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
                    ) -> FloatArray:
    """Local rotations ``(..., J, 4)`` from global ones (roots keep theirs).

    Every joint is divided by its parent in one call (a root by itself, then overwritten), so
    no scatter into a strided result is needed. ``indices``: ``parent_or_self(parents)`` when
    already known.
    """
    roots, parent = parent_or_self(parents) if indices is None else indices
    local = qmul_conjugate(world_rotations[..., parent, :], world_rotations)
    local[..., roots, :] = world_rotations[..., roots, :]
    return local
