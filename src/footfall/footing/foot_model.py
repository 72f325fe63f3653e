"""A foot's model: its leg's joints and its sole, for grounding, retargeting, live and metrics.

Legs come from :func:`footfall.humanoid.find_legs` (any humanoid BVH) or are given explicitly.
The sole is measured from the rest pose: the toe tip (toe end site, or the toe joint) marks the
sole level and the foot's forward direction; the heel lies ``HEEL_RATIO`` of the toe reach behind
the ankle (seed 000's bunny: heel 0.04 behind, toe tip 0.13 ahead). An avatar's sole is
measured on its skinned mesh instead (:func:`foot_model_from_points`, which
:func:`footfall.skinning.sole_foot_models` calls), and a rig whose rest pose does not stand on its
animation (:func:`foot_model_from_motion`). :func:`sole_world` puts a model's sole in the world.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import BoolArray, FloatArray, IntArray
from footfall.errors import SkeletonError
from footfall.footing.standing import foot_point_offsets
from footfall.skeleton import Skeleton, forward_kinematics

HEEL_RATIO = 0.04 / 0.13
SIDES = ("left", "right")


@dataclass(frozen=True)
class Leg:
    """Joint indices of one leg: hip (upper), knee (lower), ankle (foot), toes or None."""

    upper: int
    lower: int
    foot: int
    toes: int | None = None


@dataclass(frozen=True)
class FootModel:
    """Sole of one foot in the foot joint's own frame (ankle at the origin), metres.

    sole: ``(S, 3)`` samples from heel to toe tip at the sole level.
    ankle_height: ankle above the sole. heel_back / toe_forward: sole extent along ``forward``.
    forward: ``(3,)`` unit direction of the toes along the sole.
    below_ankle: ``(3,)`` the sole point straight under the ankle (None: ``(0, −h, 0)``, the
    rest pose with world-aligned joints).
    """

    sole: FloatArray
    ankle_height: float
    heel_back: float
    toe_forward: float
    forward: FloatArray
    below_ankle: FloatArray = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.below_ankle is None:
            object.__setattr__(self, "below_ankle", np.array([0.0, -self.ankle_height, 0.0]))


def sole_world(
    foot_rotations: ArrayLike, ankle_positions: ArrayLike, sole: ArrayLike
) -> FloatArray:
    """World positions ``(..., S, 3)`` of sole samples ``(S, 3)`` (ankle frame) for feet with
    world rotations ``(..., 4)`` and ankle positions ``(..., 3)``."""
    foot_rotations = np.asarray(foot_rotations, dtype=np.float64)[..., None, :]
    ankle_positions = np.asarray(ankle_positions, dtype=np.float64)[..., None, :]
    return ankle_positions + quat.rotate(foot_rotations, np.asarray(sole, dtype=np.float64))


def legs_of(skeleton: Skeleton, legs: Any = None) -> tuple[Leg, Leg]:
    """(left, right) :class:`Leg` of ``skeleton``; ``legs`` overrides the automatic search.

    ``legs`` may be a mapping ``{"left": chain, "right": chain}`` or a pair of chains, each with
    ``upper, lower, foot`` (and optional ``toes``) joint indices, as
    :func:`footfall.humanoid.find_legs` returns.
    """
    if legs is None:
        from footfall.humanoid import find_legs  # deferred: humanoid imports skeleton tools

        legs = find_legs(skeleton)
    if isinstance(legs, dict):
        try:
            legs = (legs["left"], legs["right"])
        except KeyError as missing:
            raise SkeletonError(f"legs mapping lacks the {missing} leg") from None
    pair = []
    for side, chain in zip(SIDES, legs, strict=True):
        leg = Leg(int(chain.upper), int(chain.lower), int(chain.foot),
                  None if getattr(chain, "toes", None) is None else int(chain.toes))
        for name in ("upper", "lower", "foot"):
            index = getattr(leg, name)
            if not 0 <= index < skeleton.joint_count:
                raise SkeletonError(f"{side} leg {name} joint {index} is not in the skeleton")
        if skeleton.parents[leg.lower] != leg.upper or skeleton.parents[leg.foot] != leg.lower:
            raise SkeletonError(
                f"{side} leg joints {skeleton.names[leg.upper]!r} → {skeleton.names[leg.lower]!r}"
                f" → {skeleton.names[leg.foot]!r} are not a parent chain"
            )
        pair.append(leg)
    return pair[0], pair[1]


def leg_lengths(skeleton: Skeleton, leg: Leg) -> tuple[float, float]:
    """(thigh, shin) bone lengths of ``leg``, metres."""
    lengths = skeleton.bone_lengths()
    return float(lengths[leg.lower]), float(lengths[leg.foot])


def _hips_and_feet(skeleton: Skeleton, legs: tuple[Leg, Leg]) -> dict[str, str]:
    """The canonical bones :mod:`footfall.humanoid.upright` reads, named from ``legs``."""
    left, right = legs
    return {"Hips": skeleton.names[skeleton.parents[left.upper]],
            "LeftUpperLeg": skeleton.names[left.upper],
            "RightUpperLeg": skeleton.names[right.upper],
            "LeftFoot": skeleton.names[left.foot], "RightFoot": skeleton.names[right.foot]}


def rest_turn(skeleton: Skeleton, legs: tuple[Leg, Leg]) -> FloatArray:
    """World rotation ``(4,)`` that stands the rest pose up (the identity when it stands):
    :func:`footfall.humanoid.upright_turn` with the hips and feet of ``legs``."""
    from footfall.humanoid import upright_turn  # deferred: humanoid imports skeleton tools

    return upright_turn(skeleton, _hips_and_feet(skeleton, legs))


def standing_rest(skeleton: Skeleton, legs: tuple[Leg, Leg]) -> tuple[FloatArray, FloatArray]:
    """World rotations ``(J, 4)`` and positions ``(J, 3)`` of the rest pose standing up: turned
    at the roots by :func:`rest_turn` where it lies down (a Z-up file's offsets stand up only
    through its root rotation), as it is otherwise."""
    from footfall.humanoid import upright_pose

    pose = upright_pose(skeleton, _hips_and_feet(skeleton, legs),
                        quat.identity((skeleton.joint_count,)))
    return forward_kinematics(skeleton.parents, pose, skeleton.offsets)


def foot_model(skeleton: Skeleton, leg: Leg, spacing: float = 0.01,
               legs: tuple[Leg, Leg] | None = None) -> FootModel:
    """The sole of ``leg`` measured on the rest pose (see the module docstring); given both
    ``legs``, on the rest pose stood up (:func:`standing_rest`), the sole then expressed in the
    foot joint's frame, and a stub foot (no toe ahead of the ankle) is a point sole under the
    ankle facing the body's way."""
    if legs is None:
        rest, turns = skeleton.rest_positions(), None
    else:
        turns, rest = standing_rest(skeleton, legs)
        if np.all(turns[:, 0] == 1.0):
            turns = None  # standing already: world-aligned joints

    def carried(joint: int, offset: FloatArray) -> FloatArray:
        return offset if turns is None else quat.rotate(turns[joint], offset)

    ankle = rest[leg.foot]
    tips = [rest[joint] + carried(joint, offset) for joint, offset in toe_tips(skeleton, leg, True)]
    reach = np.array(tips) - ankle
    horizontal = np.hypot(reach[:, 0], reach[:, 2])
    tip = reach[int(np.argmax(horizontal))]
    toe_forward = float(horizontal.max())
    if toe_forward >= 1e-6:
        forward = np.array([tip[0], 0.0, tip[2]]) / toe_forward
    elif legs is not None:
        # A stub foot (its End Site straight below the ankle): a point sole under the ankle,
        # facing where the body faces (left hip on the left).
        toe_forward = 0.0
        lateral = rest[legs[0].upper] - rest[legs[1].upper]
        facing = np.array([-lateral[2], 0.0, lateral[0]])  # lateral × up, horizontal
        if not np.linalg.norm(facing) > 1e-9:
            raise SkeletonError(f"foot {skeleton.names[leg.foot]!r} has no forward extent at "
                                "rest and the hips do not tell which way the body faces")
        forward = facing / np.linalg.norm(facing)
    else:
        raise SkeletonError(f"foot {skeleton.names[leg.foot]!r} has no forward extent at rest")
    ankle_height = float(-reach[:, 1].min())
    if ankle_height <= 0:
        raise SkeletonError(f"foot {skeleton.names[leg.foot]!r}: the toes are not below the ankle")
    if turns is None:
        return _sole_model(forward, toe_forward, ankle_height, spacing)
    into_foot = quat.inv(turns[leg.foot])  # world → the foot joint's frame at rest
    return _sole_model(forward, toe_forward, ankle_height, spacing,
                       lambda world: quat.rotate(into_foot, world))


def foot_model_from_points(points: FloatArray, foot_rotation: FloatArray,
                           spacing: float = 0.01) -> FootModel:
    """The sole of a foot measured on points of its sole (a skinned mesh's: what its bones
    cannot tell, a shoe's sole below the joints).

    points: ``(P, 3)`` the sole points as world vectors from the ankle, metres, the foot
    standing flat (Y up); foot_rotation: ``(4,)`` the foot joint's world rotation then. The
    ankle stands above the lowest point; the foot's forward is the points' long horizontal
    axis, towards the side that reaches farther from the ankle (the toes); heel_back and
    toe_forward are the points' extent behind and ahead of the ankle along it.
    """
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    ankle_height = float(-points[:, 1].min()) if len(points) else 0.0
    if ankle_height <= 0:
        raise SkeletonError("foot sole points: the sole is not below the ankle")
    flat = points[:, [0, 2]]
    spread = flat - flat.mean(axis=0)
    axis = np.linalg.eigh(spread.T @ spread)[1][:, -1]  # the long horizontal axis
    along = flat @ axis
    if along.max() < -along.min():
        axis, along = -axis, -along
    forward = np.array([axis[0], 0.0, axis[1]])
    into_foot = quat.inv(np.asarray(foot_rotation, dtype=np.float64))
    return _sole_model(forward, float(max(along.max(), 0.0)), ankle_height, spacing,
                       lambda world: quat.rotate(into_foot, world),
                       heel_back=float(max(-along.min(), 0.0)))


def _sole_model(forward: FloatArray, toe_forward: float, ankle_height: float, spacing: float,
                into_foot: Callable[[FloatArray], FloatArray] | None = None,
                heel_back: float | None = None) -> FootModel:
    """The :class:`FootModel` of a sole ``ankle_height`` below the ankle along the unit
    horizontal ``forward``, from ``heel_back`` (default ``HEEL_RATIO · toe_forward``) behind
    the ankle to ``toe_forward`` ahead, sampled every ``spacing`` metres; ``into_foot`` turns
    world vectors into the foot joint's frame (None: the joints are world-aligned)."""
    heel_back = HEEL_RATIO * toe_forward if heel_back is None else heel_back
    count = int(np.floor((heel_back + toe_forward) / spacing + 1e-9)) + 1
    along = np.linspace(-heel_back, toe_forward, count)
    below = np.array([0.0, -ankle_height, 0.0])
    sole = along[:, None] * forward + below
    if into_foot is None:
        return FootModel(sole, ankle_height, heel_back, toe_forward, forward)
    return FootModel(into_foot(sole), ankle_height, heel_back, toe_forward, into_foot(forward),
                     into_foot(below))


def toe_tips(skeleton: Skeleton, leg: Leg, required: bool = False
             ) -> list[tuple[int, FloatArray]]:
    """(joint, offset in that joint's frame) of the points that mark the toe tip: the foot's
    own points below its ankle (:func:`footfall.footing.standing.foot_point_offsets`: the
    joints below the foot joint and the End Sites); ``required``: a :class:`SkeletonError`
    when the foot has none."""
    tips = foot_point_offsets(skeleton, leg.foot)
    if required and not tips:
        raise SkeletonError(
            f"foot {skeleton.names[leg.foot]!r} has no toe joint or end site to measure the sole")
    return tips


def foot_model_from_motion(
    skeleton: Skeleton,
    leg: Leg,
    global_rotations: FloatArray,
    global_positions: FloatArray,
    floor: float,
    spacing: float = 0.01,
    usable: BoolArray | None = None,
) -> FootModel:
    """The sole of ``leg`` measured on an animation, for rigs whose rest pose is not standing.

    global_rotations, global_positions: ``(F, J, 4)``, ``(F, J, 3)``; floor: the animation's
    floor height; usable: ``(F,)`` the frames that may be measured (default all;
    :func:`calibration_frames` gives the ones to leave out). The frame where the ankle and toe tip
    are lowest together is taken as the foot standing flat: its sole runs from heel to toe tip
    at floor level along the foot's horizontal direction, and is stored in the foot joint's
    frame.
    """
    tips = toe_tips(skeleton, leg, required=True)
    ankle = global_positions[:, leg.foot]
    tip_points = np.stack(
        [global_positions[:, j] + quat.rotate(global_rotations[:, j], off) for j, off in tips],
        axis=1,
    )  # (F, T, 3)
    reach = np.hypot(tip_points[..., 0] - ankle[:, None, 0], tip_points[..., 2] - ankle[:, None, 2])
    tip = tip_points[np.arange(len(ankle)), reach.argmax(axis=1)]  # (F, 3) farthest tip
    lowness = ankle[:, 1] + tip[:, 1]
    if usable is not None and usable.any():
        lowness = np.where(usable, lowness, np.inf)
    flat = int(np.argmin(lowness))
    direction = tip[flat] - ankle[flat]
    toe_forward = float(np.hypot(direction[0], direction[2]))
    ankle_height = float(ankle[flat, 1] - floor)
    if toe_forward < 1e-6 or ankle_height <= 0:
        raise SkeletonError(
            f"foot {skeleton.names[leg.foot]!r}: cannot find a flat standing frame to measure "
            "the sole (toes straight below the ankle, or the ankle below the floor)"
        )
    forward = np.array([direction[0], 0.0, direction[2]]) / toe_forward
    rotation = global_rotations[flat, leg.foot]
    return _sole_model(forward, toe_forward, ankle_height, spacing,
                       lambda world: quat.inv_rotate(rotation, world))


#: A joint turning further than this (radians) between two frames is no motion but a cut.
CUT_ANGLE = np.radians(60.0)


def calibration_frames(rotations: FloatArray, parents: IntArray) -> BoolArray:
    """Frames ``(F,)`` of local ``rotations (F, J, 4)`` that are no part of the motion: a first
    or last frame from which some joint below the roots jumps by more than :data:`CUT_ANGLE`
    to its neighbour (an exporter's calibration pose, such as cmu_01_01's first frame)."""
    frames = rotations.shape[0]
    out = np.zeros(frames, dtype=bool)
    if frames < 3:
        return out
    inner = rotations[:, parents >= 0]
    for frame, neighbour in ((0, 1), (frames - 1, frames - 2)):
        dot = np.abs(np.sum(inner[frame] * inner[neighbour], axis=-1))
        out[frame] = bool(np.any(dot < np.cos(CUT_ANGLE / 2)))
    return out
