"""Joint positions → a clip of rotations, solved analytically frame by frame (batched over frames).

Each joint's world rotation is read off the positions, parents first, each bone aimed from where
its parent bone ended (so errors do not add up along a chain):

- pelvis and upper chest (:class:`~footfall.joints.layouts.TorsoFrame`): the rotation that best
  fits their three children's rest offsets onto the measured ones (least squares, SVD);
- legs and arms: two-bone IK (:func:`footfall.ik.solve_two_bone`) puts the ankle or wrist on its
  measured position with the knee or elbow in the measured bending plane; the plane's normal
  sets the limb's twist, eased toward the parent's twist as the limb straightens (a straight
  limb has no plane) so the twist never flips;
- spine joints between the two torso frames: aimed at the next spine joint, their twist spread
  between the pelvis's and the chest's left-right axes;
- other joints with one child (collars, neck, ankles, SMPL's wrists): aimed at the child with
  the least turn from the parent (no twist of their own); joints without children follow their
  parent.

Bone lengths are fixed (:mod:`footfall.joints.fit`), the root translation is the measured
pelvis. Positions are reproduced exactly where the data are a rigid skeleton; measurement noise
and stretching bones show in :attr:`JointsFit.error_m`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import JointsError
from footfall.ik import solve_two_bone
from footfall.joints.fit import basis, fit_skeleton, torso_matrices, unit
from footfall.joints.layouts import Layout, Limb
from footfall.skeleton import Clip, FKPlan, Skeleton

#: A limb bent less than this (radians) is straight: it keeps its parent's twist; bent more than
#: FULL_BEND it twists fully into its bending plane (in between, a smooth blend).
STRAIGHT_BEND = np.radians(4.0)
FULL_BEND = np.radians(20.0)
#: The character's left at rest: the axis a spine joint's twist is measured about.
_REST_LEFT = np.array([1.0, 0.0, 0.0])
#: Golden-section steps of :func:`_best_reach` (each shrinks the interval to 0.618: 40 steps
#: take a metre to below a micrometre).
REACH_ITERATIONS = 40


@dataclass(frozen=True)
class JointsFit:
    """A solved motion: the clip and how far its joints land from the positions it came from.

    Attributes:
        clip: rotations ``(T, J, 4)``, root translation, the layout's joints.
        error_m: ``(T, J)`` distance of each solved joint from its input position, metres.
    """

    clip: Clip
    error_m: FloatArray

    @property
    def mean_error_mm(self) -> float:
        """Mean joint position error over every joint and frame, millimetres."""
        return 1000.0 * float(self.error_m.mean()) if self.error_m.size else 0.0

    @property
    def max_error_mm(self) -> float:
        """Largest joint position error, millimetres."""
        return 1000.0 * float(self.error_m.max(initial=0.0))


def _best_rotation(rest: FloatArray, measured: FloatArray) -> FloatArray:
    """Rotations ``(T, 4)`` taking rest vectors ``(K, 3)`` closest (least squares) onto measured
    vectors ``(T, K, 3)`` (the orthogonal Procrustes problem, solved by SVD)."""
    cross = np.einsum("ki,tkj->tij", rest, measured)
    u, _, vt = np.linalg.svd(cross)
    turn = np.swapaxes(vt, -1, -2) @ np.swapaxes(u, -1, -2)
    mirrored = np.linalg.det(turn) < 0  # the best fit is a reflection: flip the weakest axis
    if np.any(mirrored):
        vt[mirrored, 2] *= -1
        turn = np.swapaxes(vt, -1, -2) @ np.swapaxes(u, -1, -2)
    return quat.from_matrix(turn)


def _limb_points(upper: float, lower: float, reach: FloatArray) -> FloatArray:
    """Where a limb's mid joint and tip lie ``(..., 3)`` — along the root→tip line, off it,
    tip along it — for a root→tip distance ``reach (...)`` (law of cosines)."""
    along = (upper * upper - lower * lower + reach * reach) / (2.0 * reach)
    off = np.sqrt(np.maximum(upper * upper - along * along, 0.0))
    return np.stack([along, off, reach], axis=-1)


def _best_reach(upper: float, lower: float, to_tip: FloatArray, to_mid: FloatArray
                ) -> FloatArray:
    """Root→tip distance ``(T,)`` at which a limb of the fixed bone lengths puts its mid joint
    and tip closest (sum of squares) to the measured ones (``to_tip``, ``to_mid`` ``(T, 3)``
    from the root). Reaching the measured tip exactly would swing a nearly straight limb's
    mid joint far off its measured place when the lengths differ by a millimetre of noise;
    keeping the measured bend would move the tip instead: this is the least-squares middle,
    found by golden-section search over the reachable distances (the cost is smooth)."""
    distance = np.linalg.norm(to_tip, axis=-1)
    direction = unit(to_tip)
    along = np.sum(to_mid * direction, axis=-1)
    off = np.linalg.norm(to_mid - along[:, None] * direction, axis=-1)
    measured = np.stack([along, off, distance], axis=-1)
    low = np.full(distance.shape, abs(upper - lower) + 1e-6 * (upper + lower))
    high = np.full(distance.shape, upper + lower)

    def cost(reach: FloatArray) -> FloatArray:
        return np.sum((_limb_points(upper, lower, reach) - measured) ** 2, axis=-1)

    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    for _ in range(REACH_ITERATIONS):
        first, second = high - ratio * (high - low), low + ratio * (high - low)
        lower_is_better = cost(first) < cost(second)
        high = np.where(lower_is_better, second, high)
        low = np.where(lower_is_better, low, first)
    return (low + high) / 2


def limb_twist(upper: FloatArray, lower: FloatArray, side: FloatArray) -> FloatArray:
    """Twist ``(T,)`` radians about the upper bone ``(T, 3)`` that turns ``side (T, 3)`` (the
    rest bending normal carried from the parent, perpendicular to ``upper``) onto the bending
    plane's normal ``upper × lower``.

    A straight limb has no plane: the twist fades to zero (the parent's) between
    :data:`STRAIGHT_BEND` and :data:`FULL_BEND`. A plane is a plane either way round (a limb
    bent backwards, or noise on a straight one, turns its normal over): each frame takes the
    one of the two twists (φ, φ + π) nearer the twist of the frame before, so the twist never
    flips. A sequential filter over frames.
    """
    normal = np.cross(upper, lower)
    sine = np.linalg.norm(normal, axis=-1) / np.maximum(
        np.linalg.norm(upper, axis=-1) * np.linalg.norm(lower, axis=-1), 1e-12)
    axis = unit(upper)
    angle = np.arctan2(np.sum(np.cross(side, normal) * axis, axis=-1),
                       np.sum(side * normal, axis=-1))
    ramp = np.clip((sine - np.sin(STRAIGHT_BEND)) / (np.sin(FULL_BEND) - np.sin(STRAIGHT_BEND)),
                   0.0, 1.0)
    weight = ramp * ramp * (3.0 - 2.0 * ramp)  # smoothstep: no kink in the twist
    twist = np.empty(angle.shape)
    previous = 0.0
    for frame, (phi, share) in enumerate(zip(angle.tolist(), weight.tolist(), strict=True)):
        # The nearer of φ and φ + π to the last twist, unwrapped around it.
        near = previous + (phi - previous + np.pi / 2) % np.pi - np.pi / 2
        previous = twist[frame] = share * near
    return twist


def _aim(rest_axis: ArrayLike, rest_side: ArrayLike, axis: FloatArray, side: FloatArray
         ) -> FloatArray:
    """Rotations ``(T, 4)`` turning ``rest_axis (3,)`` onto ``axis (T, 3)`` and ``rest_side
    (3,)`` (perpendicular to it) onto the part of ``side (T, 3)`` perpendicular to ``axis``."""
    target = basis(axis, side)
    rest = basis(rest_axis, rest_side)
    return quat.from_matrix(target @ np.swapaxes(rest, -1, -2))


def _carried(parent: FloatArray, rest_axis: FloatArray, axis: FloatArray) -> FloatArray:
    """World rotations ``(T, 4)`` of a bone aimed along ``axis (T, 3)`` with the least turn
    from the parent's world rotation ``(T, 4)`` (the bone at rest along ``rest_axis``)."""
    return quat.mul(quat.between(quat.rotate(parent, rest_axis), axis), parent)


class _Solver:
    """The per-frame solve of one motion (the module docstring), joint by joint in order."""

    def __init__(self, positions: FloatArray, layout: Layout, skeleton: Skeleton) -> None:
        self.positions = positions
        self.layout = layout
        self.skeleton = skeleton
        frames, joints = positions.shape[:2]
        self.world = quat.identity((frames, joints))
        self.placed = np.zeros((frames, joints, 3))  # where each solved joint ends up
        self.children = [skeleton.children(j) for j in range(joints)]
        self.limb_of = {layout.index(limb.root): limb for limb in layout.limbs}
        self.limb_of.update({layout.index(limb.mid): limb for limb in layout.limbs})
        self.torso = {layout.index(f.joint): f for f in layout.frames}
        self.spine = self._spine_sides()
        # IK results per limb root: solved mid and tip positions (T, 3).
        self.bent: dict[int, tuple[FloatArray, FloatArray]] = {}

    def _spine_sides(self) -> dict[int, FloatArray]:
        """``{joint: (T, 3)}`` the left-right axis each joint between the two torso frames
        twists to, spread evenly from the lower frame's x axis to the upper one's."""
        if len(self.layout.frames) < 2:
            return {}
        lower, upper = (self.layout.index(f.joint) for f in self.layout.frames[:2])
        path = []
        joint = int(self.layout.parents[upper])
        while joint >= 0 and joint != lower:
            path.append(joint)
            joint = int(self.layout.parents[joint])
        if joint != lower:
            return {}
        low_x, high_x = (torso_matrices(self.positions, self.layout, f)[..., 0]
                         for f in self.layout.frames[:2])
        count = len(path)
        return {j: unit((k + 1) * low_x + (count - k) * high_x)  # path runs upper → lower
                for k, j in enumerate(path)}

    def solve(self) -> FloatArray:
        """World rotations ``(T, J, 4)``; fills :attr:`placed` (the root where its rigid group
        — it and its children — fits best)."""
        root = 0
        group = [root, *self.children[root]]
        rest = self.skeleton.offsets[group] * (np.arange(len(group)) > 0)[:, None]
        measured = self.positions[:, group]
        rest_centre, measured_centre = rest.mean(axis=0), measured.mean(axis=1)
        turn = _best_rotation(rest - rest_centre, measured - measured_centre[:, None])
        self.placed[:, root] = measured_centre - quat.rotate(turn, rest_centre)
        self.world[:, root] = turn
        for joint in range(1, self.layout.joint_count):
            parent = int(self.layout.parents[joint])
            self.placed[:, joint] = self.placed[:, parent] + quat.rotate(
                self.world[:, parent], self.skeleton.offsets[joint])
            self.world[:, joint] = self._rotation(joint, parent)
        return self.world

    def _rotation(self, joint: int, parent: int) -> FloatArray:
        children = self.children[joint]
        parent_world = self.world[:, parent]
        if joint in self.torso or len(children) > 1:
            rest = self.skeleton.offsets[children]
            measured = self.positions[:, children] - self.placed[:, joint, None]
            return _best_rotation(rest, measured)
        if not children:
            return parent_world
        child = children[0]
        rest_axis = unit(self.skeleton.offsets[child])
        if joint in self.limb_of:
            return self._limb_rotation(joint, self.limb_of[joint], parent_world, rest_axis)
        axis = self.positions[:, child] - self.placed[:, joint]
        if joint in self.spine:
            return _aim(rest_axis, _REST_LEFT, axis, self.spine[joint])
        return _carried(parent_world, rest_axis, axis)

    def _limb_rotation(self, joint: int, limb: Limb, parent_world: FloatArray,
                       rest_axis: FloatArray) -> FloatArray:
        """World rotation of a limb's root or mid joint (two-bone IK on the root's visit).

        The root twists toward the bending plane (:func:`limb_twist`); the mid joint then turns
        with the least turn from the root, a pure hinge about the plane's normal."""
        root, mid, tip = (self.layout.index(n) for n in (limb.root, limb.mid, limb.tip))
        if joint == mid:
            return _carried(parent_world, rest_axis, self.bent[root][1] - self.placed[:, mid])
        self._bend(root, mid, tip)
        solved_mid, solved_tip = self.bent[root]
        upper, lower = solved_mid - self.placed[:, root], solved_tip - solved_mid
        rest_normal = np.asarray(limb.rest_normal)
        carried = _carried(parent_world, rest_axis, upper)
        twist = limb_twist(upper, lower, quat.rotate(carried, rest_normal))
        return quat.mul(quat.from_axis_angle(upper, twist), carried)

    def _bend(self, root: int, mid: int, tip: int) -> None:
        """Solve a limb with the skeleton's bone lengths: its tip toward the measured one at
        :func:`_best_reach`, its mid joint in the measured bending plane; stores the solved
        mid and tip positions."""
        upper = float(np.linalg.norm(self.skeleton.offsets[mid]))
        lower = float(np.linalg.norm(self.skeleton.offsets[tip]))
        start = self.placed[:, root]
        knee = start + upper * unit(self.positions[:, mid] - start)
        ankle = knee + lower * unit(self.positions[:, tip] - knee)
        to_tip = self.positions[:, tip] - start
        reach = _best_reach(upper, lower, to_tip, self.positions[:, mid] - start)
        solved = solve_two_bone(start, knee, ankle, start + reach[:, None] * unit(to_tip),
                                pole=self.positions[:, mid], max_reach=1.0)
        self.bent[root] = (solved.mid, solved.tip)


def solve_positions(
    positions: ArrayLike, layout: Layout, fps: float,
    lengths: Mapping[str, float] | None = None, skeleton: Skeleton | None = None,
    where: str = "joints",
) -> JointsFit:
    """Solve Y-up joint positions ``(T, J, 3)`` (metres, ``layout``'s rows) into a clip.

    ``lengths`` ``{joint: metres}`` fixes the bone ending at that joint (else the median
    measured); ``skeleton`` gives the whole skeleton instead (the layout's joints in order).
    """
    positions = np.asarray(positions, dtype=np.float64)
    if skeleton is None:
        skeleton = fit_skeleton(positions, layout, lengths, where)
    elif skeleton.names != list(layout.joints):
        raise JointsError(f"{where}: the skeleton's joints are not layout {layout.name!r}'s")
    solver = _Solver(positions, layout, skeleton)
    world = solver.solve()
    plan = FKPlan(skeleton.parents)
    rotations = quat.normalize(plan.local_rotations(world))
    translations = np.broadcast_to(skeleton.offsets, positions.shape).copy()
    translations[:, 0] = solver.placed[:, 0]
    clip = Clip(skeleton, quat.unroll_sign(rotations, axis=0), translations, fps)
    _, solved = plan(clip.rotations, clip.positions)
    return JointsFit(clip, np.linalg.norm(solved - positions, axis=-1))
