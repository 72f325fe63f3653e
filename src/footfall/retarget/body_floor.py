"""The avatar's body kept above the floor: the trunk by raising the hips, the arms by swinging
them up at the shoulders, a foot by turning it up at the ankle.

An avatar built unlike its performer can go through the floor where the performer does not:
RobotExpressive's arms are longer than its shoulders are high (they reach 65 cm below its floor
when they hang as a person's do) and end in palms with no hand bone for the hand IK to hold up,
and its wide trunk and head sink into the floor when it crouches as deep as a person. A
:class:`BodyPoints` holds points that stand for the surface of the trunk (everything not on a
leg or an arm) and of each arm — a skinned mesh's support points (the vertices lowest for some
turn of the bone carrying them), or the joints of a rig without a mesh — fixed in the frames of
the bones that carry them; and of each foot (the mesh on the foot and toes) and each leg
(thigh and shin).

- :meth:`BodyPoints.trunk_rise`: how far the hips must rise for every trunk point to be at least
  :data:`CLEARANCE` above the floor (the legs then reach down to the feet from there).
- :meth:`BodyPoints.leg_rise`: how far a leg's points are below that after the legs are
  solved (a thick shin in a deep crouch or a kneel); the retargeter raises the hips by it and
  solves the legs again to the same feet.
- :meth:`BodyPoints.lift_limbs`: after the limbs are solved, each upper arm whose points go below
  that, with everything below it, is turned about a level axis through the shoulder — in the
  vertical plane of the arm's lowest point, leaning outward from the body — by the smallest
  angle that lifts the arm out. A foot pointed down (its sole turned more than
  :data:`FOOT_POINTED` from standing) whose points go more than :data:`FOOT_SINK` below the
  floor — a foot the leg could not bring where it was asked — is turned the same way about its
  ankle, up to the floor. A foot nearly flat is the leg IK's business: turning it would not
  lift it, or would tip it over.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray, IntArray
from footfall.jit import helper, kernel
from footfall.quat import _EPS, mul_s, norm_s, rotate_s
from footfall.skeleton import FKPlan, Skeleton

ARMS = ("LeftUpperArm", "RightUpperArm")
LEGS = ("LeftUpperLeg", "RightUpperLeg")
FEET = ("LeftFoot", "RightFoot")
#: ``BodyPoints.part`` of a trunk point (arms are 0 and 1, feet 3 and 4, legs 5 and 6: the
#: thighs and shins).
TRUNK = 2
LEG_PARTS = (5, 6)
#: Leg bones, per side: upper leg, lower leg, foot.
LEG_BONES = (("LeftUpperLeg", "LeftLowerLeg", "LeftFoot"),
             ("RightUpperLeg", "RightLowerLeg", "RightFoot"))
#: Parts turned up out of the floor: the arms at the shoulders, the feet at the ankles.
LIMBS = (0, 1, 3, 4)
#: Metres a foot may go below the floor before it is turned up (a planted sole rests on it).
FOOT_SINK = 0.005
#: Radians a foot's sole must be turned from standing before it is turned up out of the floor.
FOOT_POINTED = np.radians(40.0)
#: Metres above the floor the body's lowest point is kept (under the feet's −1 cm test band,
#: over skinning's blend between the points' bones).
CLEARANCE = 0.005
#: Angles (radians) tried for an arm's lift; the first that clears is refined linearly between
#: its grid neighbours.
ANGLES = np.radians(np.arange(0.0, 181.0, 5.0))
#: Per angle of :data:`ANGLES`, the sine and cosine of its half (as ``quat.from_axis_angle``
#: computes them for the grid, so the compiled search turns by the same quaternions).
_HALF_SIN = np.sin(0.5 * ANGLES[None, :, None]).ravel()
_HALF_COS = np.cos(0.5 * ANGLES[None, :, None]).ravel()
#: Outward lean of an arm's lifting plane, as a share of the arm's reach: an arm hanging
#: straight down is swung away from the body, not through it.
OUTWARD = 0.15


def limb_joints(skeleton: Skeleton, top: int) -> IntArray:
    """``(K,)`` the joint ``top`` and every joint below it, ascending."""
    return np.array([j for j in range(skeleton.joint_count) if top in skeleton.chain(j)],
                    dtype=np.int64)


def trunk_joints(skeleton: Skeleton, mapping: Mapping[str, str]) -> IntArray:
    """``(K,)`` the hips and the joints below them that are on neither an arm nor a leg
    (:data:`ARMS`, :data:`LEGS`, the feet), ascending; empty without mapped hips. (Joints
    beside the hips, such as the IK targets some rigs hang their feet from, are not trunk.)

    Where the thighs hang from a joint above the hips (RobotExpressive's ``Body``, which also
    carries its lower torso's mesh), that joint and those between it and the hips are trunk
    too: unguarded, that mesh went 4.1 cm through the floor in mocapbank_zxy_cm's kneel once
    the hip joints were placed where the performer's go (``solve.hip_joints_shift``)."""
    if "Hips" not in mapping:
        return np.zeros(0, dtype=np.int64)
    hips = skeleton.index(mapping["Hips"])
    limbs = [skeleton.index(mapping[b]) for b in (*ARMS, *LEGS, "LeftFoot", "RightFoot")
             if b in mapping]
    above: list[int] = []
    if all(b in mapping for b in LEGS):
        holders = {int(skeleton.parents[skeleton.index(mapping[b])]) for b in LEGS}
        chain = skeleton.chain(hips)
        if len(holders) == 1 and (holder := holders.pop()) in chain and holder != hips:
            above = chain[chain.index(holder):chain.index(hips)]
    return np.array([j for j in range(skeleton.joint_count)
                     if (hips in skeleton.chain(j) or j in above)
                     and not any(top in skeleton.chain(j) for top in limbs)], dtype=np.int64)


@dataclass(frozen=True)
class BodyPoints:
    """Points of the body's surface, fixed in their bones.

    Attributes:
        pivots: ``(7,)`` per part the joint it is turned at: the upper arms (parts 0, 1), −1
            for the trunk (part 2), the feet (parts 3, 4), −1 for the legs (parts 5, 6).
        joints: ``(P,)`` the joint that carries each point.
        offsets: ``(P, 3)`` each point in its joint's frame, metres (the avatar's own size).
        part: ``(P,)`` 0 / 1 a point of the left / right arm, :data:`TRUNK` of the trunk, 3 / 4
            of the left / right foot, 5 / 6 of the left / right leg.
        turned: per part, ``(K,)`` the joints turned with its pivot (it and all below).
        body: ``(7,)`` per arm the joint it hangs from the body at (its shoulder's parent), for
            the outward direction; −1 for the other parts.
        legs: ``(2, 3)`` upper leg, lower leg and foot joints of the left and right leg (−1
            where unmapped).
        foot_up: ``(2, 3)`` the up direction of each foot standing (in the rest pose), in the
            foot joint's frame.
    """

    pivots: IntArray
    joints: IntArray
    offsets: FloatArray
    part: IntArray
    turned: list[IntArray]
    body: IntArray
    legs: IntArray
    foot_up: FloatArray

    @classmethod
    def gather(cls, skeleton: Skeleton, mapping: Mapping[str, str], rest: FloatArray,
               points: list[FloatArray], carriers: list[IntArray]) -> BodyPoints | None:
        """From points ``(P_k, 3)`` given in the world of the rest pose ``rest (J, 4)`` (the
        local rotations the points were measured in), metres, and the joint ``(P_k,)`` carrying
        each, for the left arm, the right arm, the trunk, the left foot, the right foot, the
        left leg and the right leg (feet and legs may be left out). None without both arms
        mapped."""
        if not all(bone in mapping for bone in ARMS):
            return None
        world, positions = FKPlan(skeleton.parents)(rest, skeleton.offsets)
        offsets, part = [], []
        for k, (own, carried) in enumerate(zip(points, carriers, strict=True)):
            offsets.append(quat.inv_rotate(world[carried], own - positions[carried]))
            part.append(np.full(len(carried), k))
        pivots = [skeleton.index(mapping[bone]) for bone in ARMS] + [-1] + [
            skeleton.index(mapping[bone]) if bone in mapping and len(points) > 3 else -1
            for bone in FEET] + [-1, -1]
        body = []
        for bone, upper in zip(ARMS, pivots, strict=False):
            clavicle = bone.replace("UpperArm", "Shoulder")
            shoulder = (skeleton.index(mapping[clavicle]) if clavicle in mapping
                        else int(skeleton.parents[upper]))
            parent = int(skeleton.parents[shoulder]) if shoulder >= 0 else -1
            body.append(parent if parent >= 0 else upper)
        return cls(np.array(pivots), np.concatenate(carriers).astype(np.int64),
                   np.concatenate(offsets), np.concatenate(part),
                   [limb_joints(skeleton, j) if j >= 0 else np.zeros(0, dtype=np.int64)
                    for j in pivots], np.array(body + [-1] * 5),
                   np.array([[skeleton.index(mapping[b]) if b in mapping else -1 for b in leg]
                             for leg in LEG_BONES]),
                   np.array([quat.inv_rotate(world[skeleton.index(mapping[b])], [0.0, 1.0, 0.0])
                             if b in mapping else [0.0, 1.0, 0.0] for b in FEET]))

    @classmethod
    def of_joints(cls, skeleton: Skeleton, mapping: Mapping[str, str],
                  rest: FloatArray) -> BodyPoints | None:
        """A rig without a mesh: the joints of each arm (the upper arm and all below it) and of
        the trunk are the points (its feet are its sole points' business). None without both
        arms mapped."""
        if not all(bone in mapping for bone in ARMS):
            return None
        positions = FKPlan(skeleton.parents)(rest, skeleton.offsets)[1]
        carriers = [limb_joints(skeleton, skeleton.index(mapping[b])) for b in ARMS]
        carriers.append(trunk_joints(skeleton, mapping))
        return cls.gather(skeleton, mapping, rest, [positions[c] for c in carriers], carriers)

    def plan(self, parents: IntArray) -> FKPlan:
        """The forward kinematics the body needs: the points' joints, the arms' body joints
        and their ancestors."""
        return FKPlan(parents, np.concatenate([self.joints, self.pivots[self.pivots >= 0],
                                               self.body[self.body >= 0],
                                               self.legs[self.legs >= 0]]))

    def points(self, world: FloatArray, positions: FloatArray, scale: float) -> FloatArray:
        """``(..., P, 3)`` the points for joint world rotations ``(..., J, 4)`` and positions
        ``(..., J, 3)`` of the avatar at ``scale``, metres."""
        return (positions[..., self.joints, :]
                + quat.rotate(world[..., self.joints, :], self.offsets * scale))

    @cached_property
    def _groups(self) -> dict[tuple[int, ...], tuple[IntArray, FloatArray, IntArray]]:
        """Per tuple of parts asked for by :meth:`lowest` (filled as asked): the joints carrying
        their points ``(K,)``, how far the farthest point lies from each ``(K,)`` (metres, the
        avatar's own size), and the points' indices ``(P_k,)``."""
        return {}

    @cached_property
    def _limb_spheres(self) -> tuple[IntArray, FloatArray, IntArray]:
        """Per (part, carrier joint) pair of the parts turned up out of the floor
        (:data:`LIMBS`): the joint ``(K,)``, its farthest point's reach ``(K,)`` (metres, the
        avatar's own size) and the part ``(K,)``."""
        joints, reach, parts = [], [], []
        for part in LIMBS:
            carriers, far, _ = self._group((part,))
            joints.append(carriers)
            reach.append(far)
            parts.append(np.full(len(carriers), part))
        return (np.concatenate(joints).astype(np.int64), np.concatenate(reach),
                np.concatenate(parts).astype(np.int64))

    def _group(self, parts: tuple[int, ...]) -> tuple[IntArray, FloatArray, IntArray]:
        group = self._groups.get(parts)
        if group is None:
            mine = np.isin(self.part, parts)
            joints = np.unique(self.joints[mine])
            reach = np.linalg.norm(self.offsets, axis=-1)
            group = (joints, np.array([reach[mine & (self.joints == j)].max()
                                       for j in joints.tolist()]), np.nonzero(mine)[0])
            self._groups[parts] = group
        return group

    def lowest(self, world: FloatArray, positions: FloatArray, parts: tuple[int, ...],
               scale: float = 1.0, enough: float = np.inf) -> FloatArray:
        """``(...)`` the height of the lowest point of ``parts`` (metres; +inf without any), for
        joint world rotations ``(..., J, 4)`` and positions ``(..., J, 3)`` of the avatar at
        ``scale``. Where every frame's points are surely at ``enough`` or higher (each joint's
        height less its farthest point's reach), that bound is returned instead: the points
        are not turned (a live frame far from the floor costs a few joint heights). A clip's
        frames ``(F, J, ·)`` are each treated so: a frame surely at ``enough`` or higher gets
        its bound, the others their lowest point."""
        joints, reach, points = self._group(parts)
        if len(points) == 0:
            return np.full(world.shape[:-2], np.inf)
        bound = (positions[..., joints, 1] - reach * scale).min(axis=-1)
        if (bound if bound.ndim == 0 else bound.min()) >= enough:  # one frame: a scalar
            return bound
        if world.ndim == 3 and positions.ndim == 3:  # a clip's frames: compiled, no gathers
            low = np.empty(world.shape[0])
            carriers, offsets = self._points_of(parts)
            _lowest_frames(world, positions, carriers, offsets, float(scale), bound,
                           float(enough), low)
            return low
        carriers = self.joints[points]
        return (positions[..., carriers, 1]
                + quat.rotate(world[..., carriers, :],
                              self.offsets[points] * scale)[..., 1]).min(axis=-1)

    @cached_property
    def _point_rows(self) -> dict[tuple[int, ...], tuple[IntArray, FloatArray]]:
        """Per tuple of parts asked for by :meth:`lowest` on a clip (filled as asked): the
        joints ``(P_k,)`` carrying their points and the points' offsets ``(P_k, 3)``."""
        return {}

    def _points_of(self, parts: tuple[int, ...]) -> tuple[IntArray, FloatArray]:
        """The joints ``(P_k,)`` carrying the points of ``parts`` and their offsets
        ``(P_k, 3)`` (C-ordered, for the kernels), in the points' order."""
        found = self._point_rows.get(parts)
        if found is None:
            points = self._group(parts)[2]
            found = (np.ascontiguousarray(self.joints[points]),
                     np.ascontiguousarray(self.offsets[points]))
            self._point_rows[parts] = found
        return found

    def trunk_rise(self, world: FloatArray, positions: FloatArray, floor: float,
                   scale: float = 1.0) -> FloatArray:
        """``(...)`` metres the hips must rise for the trunk's points to be :data:`CLEARANCE`
        above ``floor`` (0 where they are), for joint world rotations ``(..., J, 4)`` and
        positions ``(..., J, 3)``."""
        least = floor + CLEARANCE
        return np.maximum(least - self.lowest(world, positions, (TRUNK,), scale, least), 0.0)

    def leg_rise(self, world: FloatArray, positions: FloatArray, floor: float,
                 scale: float = 1.0) -> FloatArray:
        """``(...)`` metres the legs' points (thigh or shin, feet apart) are under
        ``floor + CLEARANCE`` (0 where none is), for joint world rotations ``(..., J, 4)`` and
        positions ``(..., J, 3)``."""
        least = floor + CLEARANCE
        return np.maximum(least - self.lowest(world, positions, LEG_PARTS, scale, least), 0.0)

    def lift_limbs(self, world: FloatArray, positions: FloatArray, floor: float,
                   scale: float = 1.0) -> FloatArray:
        """Turn up every arm whose points go below ``floor + CLEARANCE`` and every foot whose
        points go below ``floor − FOOT_SINK`` (see the module docstring): ``world (..., J, 4)``
        rotations are turned in place for the pivot joint and the joints below it (their local
        rotations below the pivot stay as they are); ``positions (..., J, 3)`` are the joints'
        world positions for that pose (read only). Returns ``(..., 7)`` the angle each part was
        turned by, radians (0 for the trunk and legs)."""
        if world.ndim == 2:
            return self._lift_one(world, positions, floor, scale)
        angles = np.zeros(world.shape[:-2] + (len(self.pivots),))
        # which parts may be under: each carrier joint's height less its farthest point's reach
        joints, reach, part_of = self._limb_spheres
        sinks = np.where(part_of < TRUNK, floor + CLEARANCE, floor - FOOT_SINK)
        near = (positions[..., joints, 1] - reach * scale < sinks).reshape(-1, len(joints))
        for part in np.unique(part_of[near.any(axis=0)]).tolist():
            pivot = int(self.pivots[part])
            mine = self.part == part
            arm = part < TRUNK
            least = floor + CLEARANCE if arm else floor
            sink = least if arm else floor - FOOT_SINK
            if arm and world.ndim == 3 and positions.ndim == 3:
                # a clip's frames: each frame's points, need and turn in one compiled pass
                # (``_lift_frames``: :meth:`_lift_one`'s operations), the turns applied below
                carriers, offsets = self._limb_points[part]
                need = np.empty(world.shape[0], dtype=np.bool_)
                angle_all, unit_all = np.zeros(world.shape[0]), np.zeros((world.shape[0], 3))
                _lift_frames(world, positions, carriers, offsets, float(scale), pivot,
                             int(self.body[part]), sink, least, ANGLES, _HALF_SIN, _HALF_COS,
                             need, angle_all, unit_all)
                if not np.any(need):
                    continue
                angle, unit = angle_all[need], unit_all[need]
                # ``quat.from_axis_angle`` as :func:`_least_turn` turns (NumPy's sine, cosine)
                half = 0.5 * angle[..., None]
                turn = np.empty((len(angle), 4))
                turn[:, :1] = np.cos(half)
                turn[:, 1:] = np.sin(half) * unit
                self._turn(world, part, need, turn)
                angles[..., part][need] = angle
                continue
            pointed = None
            if not arm:  # only a foot pointed down
                up = quat.rotate(world[..., pivot, :], self.foot_up[part - 3])
                pointed = up[..., 1] < np.cos(FOOT_POINTED)
                if not np.any(pointed):
                    continue
            own = (positions[..., self.joints[mine], :]
                   + quat.rotate(world[..., self.joints[mine], :],
                                 self.offsets[mine] * scale))  # (..., Pa, 3)
            need = own[..., 1].min(axis=-1) < sink
            if pointed is not None:
                need &= pointed
            if not np.any(need):
                continue
            origin = positions[..., pivot, :][need]  # (N, 3)
            limb = own[need] - origin[:, None, :]  # (N, Pa, 3)
            lowest = limb[np.arange(len(limb)), limb[..., 1].argmin(axis=-1)]
            if arm:  # leaning away from the body
                lean = origin - positions[..., self.body[part], :][need]
            else:  # leaning along the foot
                lean = limb.mean(axis=1)
            lean[:, 1] = 0.0
            lean /= np.maximum(np.linalg.norm(lean, axis=-1, keepdims=True), 1e-9)
            angle, turn, cleared = _least_turn(limb, lowest, lean, origin[:, 1], least)
            if not arm:  # a foot that no turn lifts out (a flat one) is left as it is
                angle = np.where(cleared, angle, 0.0)
                turn = np.where(cleared[:, None], turn, quat.identity((len(angle),)))
            self._turn(world, part, need, turn)
            angles[..., part][need] = angle
        return angles

    def _turn(self, world: FloatArray, part: int, need: NDArray[np.bool_],
              turn: FloatArray) -> None:
        """Turn ``world (..., J, 4)`` in place where ``need (...)``: the joints turned with
        ``part``'s pivot by ``turn (N, 4)`` (one per frame needing it, in order)."""
        chosen = self.turned[part]
        view = world[..., chosen, :]
        view[need] = quat.mul(turn[:, None, :], view[need])
        world[..., chosen, :] = view

    @cached_property
    def _limb_points(self) -> dict[int, tuple[IntArray, FloatArray]]:
        """Per part of :data:`LIMBS`: its points' joints ``(Pa,)`` and offsets ``(Pa, 3)``."""
        return {part: (self.joints[self.part == part], self.offsets[self.part == part])
                for part in LIMBS}

    def _lift_one(self, world: FloatArray, positions: FloatArray, floor: float,
                  scale: float) -> FloatArray:
        """:meth:`lift_limbs` of one frame, ``world (J, 4)``, ``positions (J, 3)``: the same
        operations on the same values, without the batch's masks and gathers (a live step)."""
        angles = np.zeros(len(self.pivots))
        joints, reach, part_of = self._limb_spheres
        sinks = np.where(part_of < TRUNK, floor + CLEARANCE, floor - FOOT_SINK)
        near = positions[joints, 1] - reach * scale < sinks
        if not near.any():
            return angles
        for part in sorted(set(part_of[near].tolist())):
            pivot = int(self.pivots[part])
            arm = part < TRUNK
            least = floor + CLEARANCE if arm else floor
            sink = least if arm else floor - FOOT_SINK
            if not arm:  # only a foot pointed down
                up = quat.rotate(world[pivot], self.foot_up[part - 3])
                if not up[1] < np.cos(FOOT_POINTED):
                    continue
            carriers, offsets = self._limb_points[part]
            limb = np.empty((len(carriers), 3))  # (Pa, 3) from the pivot
            low, lowest_row = _limb_from_pivot(positions, world, carriers, offsets, scale,
                                               pivot, limb)
            if not low < sink:
                continue
            if arm:  # leaning away from the body
                lean = positions[pivot] - positions[self.body[part]]
            else:  # leaning along the foot
                lean = limb.mean(axis=0)
            unit = np.empty((1, 3))
            angle, cleared = _lift_turn(limb, lowest_row, lean, float(positions[pivot, 1]),
                                        least, ANGLES, _HALF_SIN, _HALF_COS, unit)
            if not arm and not cleared:  # a foot that no turn lifts out is left as it is
                continue
            # ``quat.from_axis_angle`` as :func:`_least_turn` turns (NumPy's sine and cosine)
            half = 0.5 * np.array([angle])[..., None]
            _turn_joints(world, self.turned[part], float(np.cos(half)[0, 0]),
                         float(np.sin(half)[0, 0]), unit)
            angles[part] = angle
        return angles


def _least_turn(points: FloatArray, lowest: FloatArray, lean: FloatArray, height: FloatArray,
                least: float) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """The smallest turn ``(N,)`` radians, its rotation ``(N, 4)`` and whether it clears
    ``(N,)``, about a level axis
    through a pivot ``height (N,)`` metres high that puts every point ``(N, Pa, 3)`` (from the
    pivot) at ``least`` metres or higher: in the vertical plane of the lowest point ``(N, 3)``
    leaning by :data:`OUTWARD` of its reach toward ``lean (N, 3)`` (level, unit); the highest
    the points can get where none clears."""
    toward = lowest * [1.0, 0.0, 1.0] + OUTWARD * np.linalg.norm(
        lowest, axis=-1, keepdims=True) * lean
    toward /= np.maximum(np.linalg.norm(toward, axis=-1, keepdims=True), 1e-9)
    # the level axis that swings straight down toward ``toward``
    axis = np.zeros((len(toward), 3))
    axis[:, 0] = -toward[:, 2]
    axis[:, 2] = toward[:, 0]
    # ``quat.from_axis_angle``'s unit axis, turned by each angle of the grid in the kernel
    norm = np.linalg.norm(axis, axis=-1, keepdims=True)
    unit = axis / np.where(norm > quat._EPS, norm, 1.0)
    angle = np.empty(len(toward))
    cleared = np.empty(len(toward), dtype=np.bool_)
    _turn_search(np.ascontiguousarray(points), unit, np.ascontiguousarray(height, dtype=float),
                 float(least), ANGLES, _HALF_SIN, _HALF_COS, angle, cleared)
    # ``quat.from_axis_angle(axis, angle)`` with the unit axis above
    half = 0.5 * angle[..., None]
    turn = np.empty((len(angle), 4))
    turn[:, :1] = np.cos(half)
    turn[:, 1:] = np.sin(half) * unit
    return angle, turn, cleared


def warm_up() -> None:
    """Compile or load this module's kernels on a tiny limb (``footfall.kernels``: a live
    stream's first arm near the floor would otherwise wait for them)."""
    world, positions = quat.identity((2,)), np.zeros((2, 3))
    limb = np.empty((1, 3))
    _, row = _limb_from_pivot(positions, world, np.ones(1, dtype=np.int64), np.ones((1, 3)),
                              1.0, 0, limb)
    _least_turn(limb[None], limb, np.ones((1, 3)), np.zeros(1), 0.0)
    unit = np.zeros((1, 3))
    _lift_turn(limb, row, np.ones(3), 0.0, 0.0, ANGLES, _HALF_SIN, _HALF_COS, unit)
    _turn_joints(world, np.ones(1, dtype=np.int64), 1.0, 0.0, unit)


@kernel(error_model="numpy")
def _lowest_frames(world: FloatArray, positions: FloatArray, carriers: IntArray,
                   offsets: FloatArray, scale: float, bound: FloatArray, enough: float,
                   low: FloatArray) -> None:  # pragma: no cover - compiled
    """Per frame of joint world rotations ``world (F, J, 4)`` and positions ``(F, J, 3)``:
    the height of the lowest of the points ``offsets (P, 3)`` (at ``scale``) carried by the
    joints ``carriers (P,)``, metres (``BodyPoints.points``' sums, a ``quat.rotate`` each),
    or the frame's ``bound (F,)`` where that is ``enough`` or more; written to ``low (F,)``."""
    for f in range(world.shape[0]):
        if bound[f] >= enough:
            low[f] = bound[f]
            continue
        lowest = np.inf
        for p in range(carriers.shape[0]):
            j = carriers[p]
            y = positions[f, j, 1] + rotate_s(
                (world[f, j, 0], world[f, j, 1], world[f, j, 2], world[f, j, 3]),
                (offsets[p, 0] * scale, offsets[p, 1] * scale, offsets[p, 2] * scale))[1]
            if y < lowest:
                lowest = y
        low[f] = lowest


@kernel(error_model="numpy")
def _lift_frames(world: FloatArray, positions: FloatArray, carriers: IntArray,
                 offsets: FloatArray, scale: float, pivot: int, body: int, sink: float,
                 least: float, angles: FloatArray, half_sin: FloatArray, half_cos: FloatArray,
                 need: NDArray[np.bool_], angle: FloatArray,
                 unit: FloatArray) -> None:  # pragma: no cover - compiled
    """An arm's lift over a clip's frames, joint world rotations ``world (F, J, 4)`` and
    positions ``(F, J, 3)``: per frame, as :meth:`BodyPoints._lift_one` finds it, whether
    its points (joints ``carriers (P,)``, ``offsets (P, 3)`` at ``scale``) go below ``sink``
    (``need (F,)``) and there the turn about the pivot joint ``pivot`` (leaning away from the
    joint ``body``) that puts them at ``least``: ``angle (F,)`` radians and the unit axis
    ``unit (F, 3)`` (left as they are where not needed)."""
    limb = np.empty((carriers.shape[0], 3))
    lean = np.empty(3)
    row_unit = np.empty((1, 3))
    for f in range(world.shape[0]):
        low, row = _limb_from_pivot(positions[f], world[f], carriers, offsets, scale, pivot,
                                    limb)
        need[f] = low < sink
        if not need[f]:
            continue
        for c in range(3):
            lean[c] = positions[f, pivot, c] - positions[f, body, c]
        angle[f], _ = _lift_turn(limb, row, lean, positions[f, pivot, 1], least, angles,
                                 half_sin, half_cos, row_unit)
        for c in range(3):
            unit[f, c] = row_unit[0, c]


@kernel(error_model="numpy")
def _turn_joints(world: FloatArray, joints: IntArray, cos_half: float, sin_half: float,
                 unit: FloatArray) -> None:  # pragma: no cover - compiled
    """Turn the world rotations ``world (J, 4)`` of ``joints (K,)`` in place by the rotation
    of the half-angle cosine and sine about the unit axis ``unit (1, 3)`` (applied after
    theirs, as ``quat.mul(turn, world)``)."""
    turn = (cos_half, sin_half * unit[0, 0], sin_half * unit[0, 1], sin_half * unit[0, 2])
    for k in range(joints.shape[0]):
        j = joints[k]
        q = mul_s(turn, (world[j, 0], world[j, 1], world[j, 2], world[j, 3]))
        for c in range(4):
            world[j, c] = q[c]


@kernel(error_model="numpy")
def _limb_from_pivot(positions: FloatArray, world: FloatArray, carriers: IntArray,
                     offsets: FloatArray, scale: float, pivot: int,
                     limb: FloatArray) -> tuple[float, int]:  # pragma: no cover - compiled
    """One frame's points of a limb, from the joints' world ``positions (J, 3)`` and
    rotations ``world (J, 4)``, the joints ``carriers (Pa,)`` carrying them and their
    ``offsets (Pa, 3)`` at ``scale`` (``BodyPoints.points``), written to ``limb (Pa, 3)`` as
    seen from the joint ``pivot``. Returns the lowest point's world height (metres) and the
    row of ``limb`` lowest (the first of equals)."""
    low = np.inf
    row = 0
    for p in range(carriers.shape[0]):
        j = carriers[p]
        step = rotate_s((world[j, 0], world[j, 1], world[j, 2], world[j, 3]),
                        (offsets[p, 0] * scale, offsets[p, 1] * scale, offsets[p, 2] * scale))
        for c in range(3):
            own = positions[j, c] + step[c]
            if c == 1 and own < low:
                low = own
            limb[p, c] = own - positions[pivot, c]
        if limb[p, 1] < limb[row, 1]:
            row = p
    return low, row


@kernel(error_model="numpy")
def _lift_turn(limb: FloatArray, lowest_row: int, lean: FloatArray, height: float,
               least: float, angles: FloatArray, half_sin: FloatArray, half_cos: FloatArray,
               unit: FloatArray) -> tuple[float, bool]:  # pragma: no cover - compiled
    """:func:`_least_turn` of one limb's points ``limb (Pa, 3)`` from a pivot ``height``
    metres high (its lowest row ``lowest_row``, its lean ``lean (3,)`` not yet made level and
    unit), the same operations in the same order (a norm is ``quat.norm_s``'s x, y, z sum,
    as NumPy's); writes the turn's unit axis to ``unit (1, 3)``; returns the angle (radians)
    and whether it clears."""
    lx, lz = lean[0], lean[2]
    length = max(norm_s((lx, 0.0, lz)), 1e-9)
    lx, ly, lz = lx / length, 0.0 / length, lz / length
    low = (limb[lowest_row, 0], limb[lowest_row, 1], limb[lowest_row, 2])
    out = OUTWARD * norm_s(low)
    tx, tz = low[0] * 1.0 + out * lx, low[2] * 1.0 + out * lz
    ty = low[1] * 0.0 + out * ly
    length = max(norm_s((tx, ty, tz)), 1e-9)
    tx, tz = tx / length, tz / length
    axis = (-tz, 0.0, tx)
    length = norm_s(axis)
    if not length > _EPS:
        length = 1.0
    for c in range(3):
        unit[0, c] = axis[c] / length
    angle = np.empty(1)
    cleared = np.empty(1, dtype=np.bool_)
    _turn_search(limb.reshape((1, limb.shape[0], 3)), unit, np.full(1, height), least,
                 angles, half_sin, half_cos, angle, cleared)
    return angle[0], cleared[0]


@helper
def _turned_low(points: FloatArray, n: int, q: tuple[float, float, float, float]
                ) -> tuple[float, int]:  # pragma: no cover - compiled
    """The lowest height (from the pivot) of row ``n``'s points ``(N, Pa, 3)`` turned by
    ``q``, and its point (the first of equals)."""
    low = np.inf
    arg = 0
    for p in range(points.shape[1]):
        y = rotate_s(q, (points[n, p, 0], points[n, p, 1], points[n, p, 2]))[1]
        if y < low:
            low = y
            arg = p
    return low, arg


@kernel(error_model="numpy")
def _turn_search(points: FloatArray, unit: FloatArray, height: FloatArray, least: float,
                 angles: FloatArray, half_sin: FloatArray, half_cos: FloatArray,
                 angle: FloatArray, cleared: NDArray[np.bool_]) -> None:  # pragma: no cover
    """Per row ``n`` of points ``(N, Pa, 3)`` turned about the unit axis ``(N, 3)`` by each
    of ``angles (T,)`` (their half-angles' sines and cosines ``(T,)``): the lowest point's
    height plus ``height (N,)`` per angle; the first angle at which it is at ``least`` or
    higher, refined linearly from the angle before (``cleared``), else the angle putting it
    highest. Writes ``angle (N,)`` radians and ``cleared (N,)``.

    An angle is passed over as soon as one point is under ``least`` (the point lowest at the
    angle before is tried first): rounding a sum keeps its order, so that point's height
    under ``least`` means the lowest one's is; the heights the answer reads are each the
    lowest point's, computed in full."""
    count = angles.shape[0]
    heights = np.empty(count)
    for n in range(points.shape[0]):
        ux, uy, uz = unit[n, 0], unit[n, 1], unit[n, 2]
        first = -1
        probe = 0
        for t in range(count):
            s = half_sin[t]
            q = (half_cos[t], s * ux, s * uy, s * uz)
            if t > 0 and rotate_s(q, (points[n, probe, 0], points[n, probe, 1],
                                      points[n, probe, 2]))[1] + height[n] < least:
                continue
            low, probe = _turned_low(points, n, q)
            heights[t] = low + height[n]
            if heights[t] >= least:
                first = t
                break
        if first < 0:  # none clears: the highest (the first of equals), every angle in full
            best = 0
            for t in range(count):
                s = half_sin[t]
                heights[t] = _turned_low(points, n, (half_cos[t], s * ux, s * uy,
                                                     s * uz))[0] + height[n]
                if heights[t] > heights[best]:
                    best = t
            cleared[n] = False
            angle[n] = angles[best]
            continue
        cleared[n] = True
        before = max(first - 1, 0)
        if before < first:  # the angle before, passed over above: in full
            s = half_sin[before]
            heights[before] = _turned_low(points, n, (half_cos[before], s * ux, s * uy,
                                                      s * uz))[0] + height[n]
        h0, h1 = heights[before], heights[first]
        share = 1.0
        if first > 0 and h1 > h0:
            share = min(max((least - h0) / max(h1 - h0, 1e-12), 0.0), 1.0)
        angle[n] = angles[before] + share * (angles[first] - angles[before])
