"""Which target bone follows which source bone, and the sizes measured in the calibration pose.

Bones are matched through the canonical humanoid names (``footfall.humanoid``), the spine and
neck as chains (``spine.py``); joints no canonical bone covers fall back to a joint of the same
name, else keep their calibration-pose local rotation. With ``match_directions`` the target's
arms and legs are first turned (shortest arc) to point where the source's do, so a T-posed
avatar calibrates against an I-posed capture.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import MappingError, SkeletonError
from footfall.humanoid import map_skeleton
from footfall.retarget.spine import ChainMatch, match_chains
from footfall.retarget.toes import Toes
from footfall.skeleton import Skeleton, forward_kinematics

LIMBS = {
    "left_leg": ("LeftUpperLeg", "LeftLowerLeg", "LeftFoot"),
    "right_leg": ("RightUpperLeg", "RightLowerLeg", "RightFoot"),
    "left_arm": ("LeftUpperArm", "LeftLowerArm", "LeftHand"),
    "right_arm": ("RightUpperArm", "RightLowerArm", "RightHand"),
}
LEG_BONES = LIMBS["left_leg"] + LIMBS["right_leg"]
REQUIRED_BONES = ("Hips", *LEG_BONES)
# Bone → the bone whose direction it points along, matched between T- and I-poses.
DIRECTION_PAIRS = tuple(pair for bones in LIMBS.values() for pair in pairwise(bones))


def canonical_mapping(
    skeleton: Skeleton, override: Mapping[str, str | None] | str | None, role: str
) -> dict[str, str]:
    """``{canonical bone: joint name}`` for ``skeleton`` (``role`` names it in errors).

    Raises :class:`MappingError` when the mapping names joints the skeleton lacks or the
    skeleton has no legs (hips, upper/lower leg and foot on both sides are required).
    """
    mapping = dict(map_skeleton(skeleton, override).mapping)  # joints checked there
    missing = [bone for bone in REQUIRED_BONES if bone not in mapping]
    if missing:
        raise MappingError(
            f"{role} skeleton has no legs to retarget: missing {', '.join(missing)} "
            f"(joints: {', '.join(skeleton.names[:12])}{'…' if skeleton.joint_count > 12 else ''})"
        )
    return mapping


@dataclass(frozen=True)
class Correspondence:
    """Target joints driven by source joints.

    Attributes:
        target_joints, source_joints: ``(M,)`` pairs (target follows source's world rotation).
        limbs: ``{limb: ((t_upper, t_lower, t_tip), (s_upper, s_lower, s_tip))}`` for the limbs
            both skeletons have.
        hips: ``(target hips, source hips)``.
        spine: the spine and neck chain matches.
    """

    target_joints: NDArray[np.int64]
    source_joints: NDArray[np.int64]
    limbs: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]]
    hips: tuple[int, int]
    spine: list[ChainMatch]


def correspond(
    source: Skeleton,
    target: Skeleton,
    source_map: Mapping[str, str],
    target_map: Mapping[str, str],
) -> Correspondence:
    """Pair target joints with source joints (canonical names, chains, then equal names)."""
    pairs = {target.index(name): source.index(source_map[bone])
             for bone, name in target_map.items() if bone in source_map}
    chains = match_chains(source, target, source_map, target_map)
    for chain in chains:
        pairs.update(zip(chain.target, chain.source_for_target, strict=True))
    # Legs that hang beside the hips (from a joint above them, as RobotExpressive's hang from
    # its "Body") turn with the hips too: their joint follows the source's hips.
    hips = target.index(target_map["Hips"])
    for bone in ("LeftUpperLeg", "RightUpperLeg"):
        if bone in target_map and "Hips" in source_map:
            leg = target.index(target_map[bone])
            holder = int(target.parents[leg])
            if holder >= 0 and hips not in target.chain(leg) and holder not in pairs:
                pairs[holder] = source.index(source_map["Hips"])
    taken_sources = set(source_map.values())
    for t, name in enumerate(target.names):
        if t not in pairs and name in source.names and name not in taken_sources:
            pairs[t] = source.index(name)
    limbs: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {}
    for limb, bones in LIMBS.items():
        if all(b in target_map and b in source_map for b in bones):
            t_upper, t_lower, t_tip = (target.index(target_map[b]) for b in bones)
            s_upper, s_lower, s_tip = (source.index(source_map[b]) for b in bones)
            limbs[limb] = ((t_upper, t_lower, t_tip), (s_upper, s_lower, s_tip))
    order = sorted(pairs)
    return Correspondence(
        target_joints=np.array(order, dtype=np.int64),
        source_joints=np.array([pairs[t] for t in order], dtype=np.int64),
        limbs=limbs,
        hips=(target.index(target_map["Hips"]), source.index(source_map["Hips"])),
        spine=chains,
    )


def match_directions(
    source: Skeleton,
    target: Skeleton,
    source_map: Mapping[str, str],
    target_map: Mapping[str, str],
    source_pose: FloatArray,
    target_pose: FloatArray,
) -> FloatArray:
    """Target calibration local rotations ``(J, 4)`` with limbs turned to the source's directions.

    Each upper/lower arm and leg is turned by the shortest arc taking its direction (to the next
    bone) onto the source's direction in the source calibration pose.
    """
    _, source_pos = forward_kinematics(source.parents, source_pose, source.offsets)
    local = np.array(target_pose, dtype=np.float64, copy=True)
    for bone, child in DIRECTION_PAIRS:
        if not (bone in source_map and bone in target_map):
            continue
        t, s = target.index(target_map[bone]), source.index(source_map[bone])
        grot, gpos = forward_kinematics(target.parents, local, target.offsets)
        target_end = _bone_end(target, target_map, child, t, gpos)
        source_end = _bone_end(source, source_map, child, s, source_pos)
        if target_end is None or source_end is None:
            continue
        turn_bone(target, local, grot, t, target_end - gpos[t], source_end - source_pos[s])
    return local


def turn_bone(skeleton: Skeleton, local: FloatArray, world: FloatArray, joint: int,
              pointing: FloatArray, direction: FloatArray) -> None:
    """Turn ``joint`` in place in the pose of local rotations ``local (J, 4)`` (world
    rotations ``world (J, 4)``) by the shortest arc taking its bone's ``pointing (3,)`` onto
    ``direction (3,)``. Only this joint's local rotation changes: everything below it turns
    along."""
    new_world = quat.mul(quat.between(pointing, direction), world[joint])
    parent = int(skeleton.parents[joint])
    local[joint] = new_world if parent < 0 else quat.inv_mul(world[parent], new_world)


def _bone_end(skeleton: Skeleton, mapping: Mapping[str, str], child: str, joint: int,
              positions: FloatArray) -> FloatArray | None:
    """Where a bone points: its mapped child bone, else the mean of its children (a rig
    without a hand bone, like RobotExpressive's palms), else None."""
    if child in mapping:
        return positions[skeleton.index(mapping[child])]
    children = skeleton.children(joint)
    return positions[children].mean(axis=0) if children else None


def check_limb_lengths(skeleton: Skeleton, mapping: Mapping[str, str], role: str,
                       pose: ArrayLike) -> None:
    """Raise :class:`SkeletonError` if a limb bone of the calibration pose has zero length."""
    _, gpos = forward_kinematics(skeleton.parents, pose, skeleton.offsets)
    for bones in LIMBS.values():
        if not all(b in mapping for b in bones):
            continue
        for upper, lower in pairwise(bones):
            length = float(np.linalg.norm(gpos[skeleton.index(mapping[lower])]
                                          - gpos[skeleton.index(mapping[upper])]))
            if not length > 1e-6:
                raise SkeletonError(
                    f"{role} calibration pose: bone {upper} ({mapping[upper]!r}) → {lower} "
                    f"({mapping[lower]!r}) has length {length:.3g} m; limbs need non-zero bones"
                )


@dataclass(frozen=True)
class Measures:
    """Sizes of one skeleton in its calibration pose (metres, world Y up).

    Attributes:
        floor: lowest leg joint (toes or ankle) height.
        hips_height: the hips joint over the mean of the two soles (the solve takes the
            capture's hips over the mean of its feet's stance levels; where the hip correction
            puts the hips joint), raised as far as the legs lack of the ``extension`` they
            were measured at (``Measures.of``); a calibrated target's raised further as far as
            the solve, standing it in the source's calibration pose, leaves a leg short of the
            performer's extension (``standing_height.standing_rise``).
        leg_length: how high the hip joints (upper legs) stand over the floor on straight
            legs (:func:`standing_leg`), whatever the pose does with its knees: what the size
            ratio compares. A stylised rig may hang its legs from a joint above or below its
            hips joint (RobotExpressive's and a VRM robot's hip joints are 20–25 cm above it),
            so the hips joint's height is not the legs'.
        ankle_height: ``(2,)`` left/right ankle above its own foot's lowest point (the foot
            standing on the floor).
        neck_height: neck (or head) over the same ground as ``hips_height``.
        toe_height: ``(2,)`` left/right toe point (toe joint, or a foot End Site reaching
            forward: ``toes.py``) above its own foot's lowest point (0 without toes).
        sole: ``(2,)`` world height of each foot's lowest point in the pose, metres.

    A foot's lowest point is its lowest joint point (ankle or toe point) lowered by
    ``sole_depth``: how far the foot's real sole (a skinned mesh's lowest vertex, see
    ``footfall.skinning``) lies below it.
    """

    floor: float
    hips_height: float
    leg_length: float
    ankle_height: FloatArray
    neck_height: float
    toe_height: FloatArray
    sole: FloatArray

    @classmethod
    def of(cls, skeleton: Skeleton, mapping: Mapping[str, str], pose: ArrayLike,
           sole_depth: ArrayLike | None = None, extension: float = 0.0) -> Measures:
        """Measure ``skeleton`` posed by local rotations ``pose (J, 4)``; ``sole_depth (2,)``:
        metres each foot's sole lies below its lowest joint point (0 by default);
        ``extension``: where the pose's legs stand less extended (:func:`leg_extension`), the
        hips and neck as high as they stand with the legs extended so far (the target stood
        as straight as the source's calibration pose)."""
        grot, gpos = forward_kinematics(skeleton.parents, pose, skeleton.offsets)
        heights = {b: float(gpos[skeleton.index(mapping[b]), 1]) for b in LEG_BONES if b in mapping}
        toes = Toes.of(skeleton, mapping, np.asarray(pose, dtype=np.float64))
        if toes is not None:  # toe joints, or the feet's End Sites on rigs without them
            heights.update(zip(("LeftToes", "RightToes"),
                               toes.positions(grot, gpos)[:, 1].tolist(), strict=True))
        neck_bone = "Neck" if "Neck" in mapping else ("Head" if "Head" in mapping else "Hips")
        # Each foot stands on its own lowest point: a rest pose whose legs differ in length
        # would otherwise float one foot in every stance.
        foot = np.array([heights["LeftFoot"], heights["RightFoot"]])
        tip = np.array([heights.get("LeftToes", foot[0]), heights.get("RightToes", foot[1])])
        depth = np.zeros(2) if sole_depth is None else np.asarray(sole_depth, dtype=np.float64)
        sole = np.minimum(foot, tip) - depth
        floor = min(min(heights.values()), float(sole.min()))
        leg = standing_leg(skeleton, mapping, gpos, foot - sole)
        own = leg_extension(skeleton, mapping, gpos)
        rise = max(min(extension, 1.0) - own, 0.0) * float(leg_chains(skeleton, mapping,
                                                                      gpos).mean())
        ground = float(sole.mean()) - rise
        return cls(
            floor=floor,
            hips_height=float(gpos[skeleton.index(mapping["Hips"]), 1]) - ground,
            leg_length=leg,
            ankle_height=foot - sole,
            neck_height=float(gpos[skeleton.index(mapping[neck_bone]), 1]) - ground,
            toe_height=tip - sole,
            sole=sole,
        )


    def raised(self, rise: float) -> Measures:
        """These measures with the hips and neck ``rise`` metres higher over the ground (the
        standing height as the solve stands the target: ``standing_height.standing_rise``)."""
        return replace(self, hips_height=self.hips_height + rise,
                       neck_height=self.neck_height + rise)


def leg_chains(skeleton: Skeleton, mapping: Mapping[str, str],
               positions: FloatArray) -> FloatArray:
    """``(2,)`` thigh + shin of the left and right leg (hip → knee → ankle joints in world joint
    positions ``positions (J, 3)``), metres. (A foot hung beside the leg, from the root,
    counts as the shin's end: the limbs carry it there.)"""
    out = np.empty(2)
    for side, name in enumerate(("Left", "Right")):
        hip, knee, ankle = (positions[skeleton.index(mapping[f"{name}{bone}"])]
                            for bone in ("UpperLeg", "LowerLeg", "Foot"))
        out[side] = np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee)
    return out


def leg_extension(skeleton: Skeleton, mapping: Mapping[str, str],
                  positions: FloatArray) -> float:
    """How far the legs stand extended in the pose of world joint positions ``positions
    (J, 3)``: the hip joints' mean height over the ankles divided by the mean thigh + shin
    (:func:`leg_chains`); 1 straight and upright.

    The target is measured standing at least as extended as the source's calibration pose
    (``Measures.of(..., extension=)``): a rest pose may stand with bent knees
    (RobotExpressive's bend 31°, CesiumMan's 25°) where the capture's most standing frame
    stands straight, and taken as it was, its standing height set the avatar crouching
    (RobotExpressive's knees 20–30° past the performer's). A target standing as extended as
    the source, or more, is measured as it stands (the same skeleton is the same).
    """
    height = 0.0
    for name in ("Left", "Right"):
        height += 0.5 * float(positions[skeleton.index(mapping[f"{name}UpperLeg"]), 1]
                              - positions[skeleton.index(mapping[f"{name}Foot"]), 1])
    return height / max(float(leg_chains(skeleton, mapping, positions).mean()), 1e-9)


def standing_leg(skeleton: Skeleton, mapping: Mapping[str, str], positions: FloatArray,
                 ankle_height: FloatArray) -> float:
    """How high ``(metres)`` the hip joints stand over the floor on straight legs: per leg,
    thigh + shin (:func:`leg_chains` in the pose of world joint positions ``positions
    (J, 3)``) standing with the ankle below the hip but as far out to the side as the pose
    has it, plus the ankle's height over its own sole ``ankle_height (2,)``; the mean of the
    two legs.

    Both skeletons' leg lengths are these (``Measures.leg_length``), the size ratio their
    ratio: a calibration pose with bent knees (RobotExpressive's rest pose bends them 31°, a
    walk's most standing frame may bend them 30–40°) does not shorten the legs.
    """
    chains = leg_chains(skeleton, mapping, positions)
    heights = []
    for side, name in enumerate(("Left", "Right")):
        hip, ankle = (positions[skeleton.index(mapping[f"{name}{bone}"])]
                      for bone in ("UpperLeg", "Foot"))
        reach = float(chains[side])
        out = min(abs(float(ankle[0] - hip[0])), reach)  # sideways (calibration faces +Z)
        heights.append(float(np.sqrt(reach * reach - out * out)) + float(ankle_height[side]))
    return 0.5 * (heights[0] + heights[1])


#: A rest pose stands on its floor (y = 0) when its lowest foot point is this share of the hips
#: height above it or less (and not below it).
STANDING_CLEARANCE = 0.1
FEET = ("LeftFoot", "RightFoot")


@dataclass(frozen=True)
class SolePoints:
    """Points of each foot's sole, skinned to the foot and its toes as a mesh is (linear blend).

    Attributes:
        foot_points: ``(2, K, 3)`` left / right foot's points in the foot joint's rest frame.
        toe_points: ``(2, K, 3)`` the same points in the toe joint's rest frame.
        toe_weights: ``(2, K)`` each point's skin weight on the toes (the rest on the foot).
        toe_joints: ``(2,)`` each foot's toe joint, −1 without one (weights all 0 then).
        toe_offsets: ``(2, 3)`` each foot's toe joint from the ankle in the foot's rest frame
            (zeros without toe joints), metres.
        from_mesh: the points are a skinned mesh's (else the rig's joints and End Sites).

    A point in a pose is ``(1 − w) · (ankle + R_foot p_foot) + w · (toe + R_toe p_toe)``.
    """

    foot_points: FloatArray
    toe_points: FloatArray
    toe_weights: FloatArray
    toe_joints: NDArray[np.int64]
    toe_offsets: FloatArray
    from_mesh: bool = False

    @classmethod
    def gather(cls, skeleton: Skeleton, mapping: Mapping[str, str], rest: ArrayLike,
               points: list[FloatArray], toe_weights: list[FloatArray],
               from_mesh: bool = False) -> SolePoints:
        """From each foot's world points ``(K_i, 3)`` in the ``rest (J, 4)`` pose and their
        skin weights on the toes ``(K_i,)``."""
        world, positions = forward_kinematics(skeleton.parents, rest, skeleton.offsets)
        on_foot, on_toe, weights = [], [], []
        toe_joints, toe_offsets = np.full(2, -1, dtype=np.int64), np.zeros((2, 3))
        for side, (bone, toe_bone) in enumerate(zip(FEET, ("LeftToes", "RightToes"),
                                                    strict=True)):
            foot = skeleton.index(mapping[bone])
            toe = skeleton.index(mapping[toe_bone]) if toe_bone in mapping else -1
            toe_joints[side] = toe
            if toe >= 0:
                toe_offsets[side] = quat.inv_rotate(world[foot], positions[toe] - positions[foot])
            on_foot.append(quat.inv_rotate(world[foot], points[side] - positions[foot]))
            on_toe.append(quat.inv_rotate(world[toe], points[side] - positions[toe])
                          if toe >= 0 else np.zeros_like(points[side]))
            weights.append(np.asarray(toe_weights[side], dtype=np.float64) if toe >= 0
                           else np.zeros(len(points[side])))
        count = max(len(p) for p in on_foot)

        def padded(rows: list[FloatArray]) -> FloatArray:
            return np.ascontiguousarray(np.stack([
                np.concatenate([r, np.repeat(r[-1:], count - len(r), axis=0)]) for r in rows]))

        return cls(padded(on_foot), padded(on_toe), padded(weights), toe_joints, toe_offsets,
                   from_mesh)

    def lowest(self, skeleton: Skeleton, mapping: Mapping[str, str],
               rest: ArrayLike) -> FloatArray:
        """World height ``(2,)`` of each foot's lowest point in the ``rest (J, 4)`` pose."""
        world, positions = forward_kinematics(skeleton.parents, rest, skeleton.offsets)
        out = np.empty(2)
        for side, bone in enumerate(FEET):
            foot = skeleton.index(mapping[bone])
            toe = max(int(self.toe_joints[side]), 0)
            by_foot = positions[foot] + quat.rotate(world[foot], self.foot_points[side])
            by_toe = (positions[foot] + quat.rotate(world[foot], self.toe_offsets[side])
                      + quat.rotate(world[toe], self.toe_points[side]))
            weight = self.toe_weights[side][:, None]
            out[side] = float(((1.0 - weight) * by_foot + weight * by_toe)[:, 1].min())
        return out


def joint_sole_points(skeleton: Skeleton, mapping: Mapping[str, str],
                      depth: ArrayLike | None = None,
                      rest: ArrayLike | None = None) -> SolePoints:
    """Sole points of a rig without a mesh: each foot joint, the joints below it and, on a rig
    without toe joints, the toe point its End Site gives (``toes.py``: the ball, or the sole
    marker's) and a sole marker itself, in the rest pose. End Sites reaching forward are left
    out: a capture's toe rotations wobble through a stance, and a tip that dips with them
    would lift the planted foot. Each point is taken down to the foot's lowest point in the
    rest pose (``rest (J, 4)``, identity by default) stood upright, and ``depth (2,)`` metres
    further (:func:`sole_depth`): the sole under the joints."""
    from footfall.humanoid.upright import upright_pose

    standing = upright_pose(skeleton, mapping, quat.identity((skeleton.joint_count,))
                            if rest is None else np.asarray(rest, dtype=np.float64))
    world, positions = forward_kinematics(skeleton.parents, standing, skeleton.offsets)
    points, weights = [], []
    toes = Toes.of(skeleton, mapping)
    for side, (bone, toe_bone) in enumerate(zip(FEET, ("LeftToes", "RightToes"), strict=True)):
        foot = skeleton.index(mapping[bone])
        toe = skeleton.index(mapping[toe_bone]) if toe_bone in mapping else -1
        joints = [j for j in range(skeleton.joint_count) if foot in skeleton.chain(j)]
        found = [positions[j] for j in joints]
        # a joint's position rides on its parent: the toe joint on the foot, below it the toe
        ride = [float(toe >= 0 and j != toe and toe in skeleton.chain(j)) for j in joints]
        if toes is not None and toes.joints[side] < 0:  # a rig without toe joints
            found.append(positions[foot] + quat.rotate(world[foot], toes.offsets[side]))
            ride.append(0.0)
            tip = quat.rotate(world[foot], np.asarray(skeleton.end_sites.get(foot, (0, 0, 0)),
                                                      dtype=np.float64))
            if tip[1] < -abs(np.hypot(tip[0], tip[2])):  # the End Site is a sole marker
                found.append(positions[foot] + tip)
                ride.append(0.0)
        # A foot of joints has its sole under them: each point is taken down to the foot's
        # lowest point (a heel under the ankle, a ball under the toe joint).
        # (The joints themselves stay too: a foot turned far enough stands on one of them.)
        found_at = np.array(found)
        under = found_at.copy()
        under[:, 1] = found_at[:, 1].min() - (0.0 if depth is None else float(
            np.asarray(depth, dtype=np.float64)[side]))
        points.append(np.concatenate([under, found_at]))
        weights.append(np.concatenate([ride, ride]))
    return SolePoints.gather(skeleton, mapping, standing, points, weights)


def sole_depth(skeleton: Skeleton, mapping: Mapping[str, str], rest: ArrayLike,
               sole_points: SolePoints) -> FloatArray:
    """How far ``(2,)`` each foot's sole lies below its lowest joint point, metres (≥ 0).

    ``sole_points``: the soles (a mesh's, see ``footfall.skinning.foot_sole_points``, or the
    foot's joints and End Sites, :func:`joint_sole_points`), measured in the ``rest (J, 4)``
    pose. A rig without a mesh whose rest pose stands on y = 0 (lowest foot point between 0 and
    :data:`STANDING_CLEARANCE` of the hips height) has its soles there.
    """
    joints = Measures.of(skeleton, mapping, rest)
    soles = sole_points.lowest(skeleton, mapping, rest)
    if not sole_points.from_mesh:
        hips = float(joints.hips_height + joints.sole.mean())  # (over the soles' mean)
        lowest = float(soles.min())
        if 0.0 <= lowest <= STANDING_CLEARANCE * max(hips - lowest, 1e-9):
            soles = np.zeros(2)
    return np.maximum(joints.sole - soles, 0.0)


#: Largest angle (degrees) a standing leg bone, or the spine, may lean from the vertical.
STANDING_LEAN_DEG = 35.0
#: Highest an arm of a standing T/A/I-pose may point above the horizontal, degrees.
ARM_RAISE_DEG = 30.0


def standing_problem(skeleton: Skeleton, mapping: Mapping[str, str],
                     pose: ArrayLike) -> str | None:
    """Why ``pose (J, 4)`` (local rotations, stood upright by ``footfall.humanoid``) is not a
    standing T-, A- or I-pose — legs not below the hips, a spine not upright, arms neither
    level nor hanging — or None when it is one. Judged from joint positions only."""
    from footfall.humanoid.upright import upright_pose

    problem = posture_problem(skeleton, mapping, pose)
    if problem is not None:
        return problem
    local = upright_pose(skeleton, mapping, np.asarray(pose, dtype=np.float64))
    _, positions = forward_kinematics(skeleton.parents, local, skeleton.offsets)

    def at(bone: str) -> FloatArray:
        return positions[skeleton.index(mapping[bone])]

    for upper, lower, _ in (LIMBS["left_arm"], LIMBS["right_arm"]):
        if upper in mapping and lower in mapping:
            raised = 90.0 - _lean_deg(at(lower) - at(upper), 1.0)
            if raised > ARM_RAISE_DEG:
                return f"{upper} ({mapping[upper]!r}) points {raised:.0f}° above level"
    return None


def posture_problem(skeleton: Skeleton, mapping: Mapping[str, str],
                    pose: ArrayLike) -> str | None:
    """Why ``pose (J, 4)`` (local rotations, stood upright by ``footfall.humanoid``) does not
    stand — a leg bone more than :data:`STANDING_LEAN_DEG` from straight down, or the spine
    (hips → neck) that far from upright — or None when it stands, whatever its arms do.
    Judged from joint positions only."""
    from footfall.humanoid.upright import upright_pose

    local = upright_pose(skeleton, mapping, np.asarray(pose, dtype=np.float64))
    _, positions = forward_kinematics(skeleton.parents, local, skeleton.offsets)

    def at(bone: str) -> FloatArray:
        return positions[skeleton.index(mapping[bone])]

    for upper, lower, tip in (LIMBS["left_leg"], LIMBS["right_leg"]):
        for start, end in ((upper, lower), (lower, tip)):
            angle = _lean_deg(at(end) - at(start), -1.0)
            if angle > STANDING_LEAN_DEG:
                return (f"{start} → {end} ({mapping[start]!r}) points {angle:.0f}° away from "
                        f"straight down")
    top = next((b for b in ("Neck", "Head", "UpperChest", "Chest") if b in mapping), None)
    if top is not None:
        angle = _lean_deg(at(top) - at("Hips"), 1.0)
        if angle > STANDING_LEAN_DEG:
            return f"the spine (Hips → {top}) leans {angle:.0f}° from upright"
    return None


def _lean_deg(vector: FloatArray, axis: float) -> float:
    """Degrees ``vector (3,)`` leans from ``axis`` × +Y (180 for a zero vector)."""
    length = float(np.linalg.norm(vector))
    return 180.0 if length < 1e-9 else float(np.degrees(np.arccos(
        np.clip(axis * vector[1] / length, -1.0, 1.0))))


def most_standing_frame(skeleton: Skeleton, mapping: Mapping[str, str],
                        positions: FloatArray) -> int:
    """The frame of world joint positions ``(F, J, 3)`` that stands best: legs and spine
    nearest the vertical, both feet at their lowest; the first of equals."""
    def at(bone: str) -> FloatArray:
        return positions[:, skeleton.index(mapping[bone])]

    def lean(vector: FloatArray, axis: float) -> FloatArray:
        length = np.maximum(np.linalg.norm(vector, axis=-1), 1e-9)
        return np.arccos(np.clip(axis * vector[..., 1] / length, -1.0, 1.0))

    score = np.zeros(len(positions))
    for upper, lower, tip in (LIMBS["left_leg"], LIMBS["right_leg"]):
        score += lean(at(lower) - at(upper), -1.0) + lean(at(tip) - at(lower), -1.0)
        score += 10.0 * (at(tip)[:, 1] - at(tip)[:, 1].min())  # a radian per 10 cm of lift
    top = next((b for b in ("Neck", "Head", "UpperChest", "Chest") if b in mapping), None)
    if top is not None:
        score += lean(at(top) - at("Hips"), 1.0)
    return int(np.argmin(np.round(score, 9)))


def facing_forward(skeleton: Skeleton, mapping: Mapping[str, str], pose: FloatArray) -> FloatArray:
    """``pose (J, 4)`` with its roots turned about Y so the body faces +Z (its left hip on +X),
    keeping how it stands: a clip frame made a calibration pose."""
    _, positions = forward_kinematics(skeleton.parents, pose, skeleton.offsets)
    lateral = (positions[skeleton.index(mapping["LeftUpperLeg"])]
               - positions[skeleton.index(mapping["RightUpperLeg"])])
    heading = np.arctan2(-lateral[2], lateral[0])  # the forward axis is lateral × up
    turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.array(-heading))
    local = np.array(pose, dtype=np.float64, copy=True)
    roots = np.nonzero(skeleton.parents < 0)[0]
    local[roots] = quat.mul(turn, local[roots])
    return local


HANDS = ("LeftHand", "RightHand")


def joint_hand_reach(skeleton: Skeleton, mapping: Mapping[str, str],
                     rest: ArrayLike | None = None) -> FloatArray:
    """How far ``(2,)`` each hand reaches from its wrist, metres: its farthest joint or End Site
    below the wrist in the ``rest (J, 4)`` pose (0 for a missing hand)."""
    pose = (quat.identity((skeleton.joint_count,)) if rest is None
            else np.asarray(rest, dtype=np.float64))
    world, positions = forward_kinematics(skeleton.parents, pose, skeleton.offsets)
    out = np.zeros(2)
    for side, bone in enumerate(HANDS):
        if bone not in mapping:
            continue
        hand = skeleton.index(mapping[bone])
        below = [j for j in range(skeleton.joint_count) if hand in skeleton.chain(j)]
        points = [positions[j] for j in below]
        points += [positions[j] + quat.rotate(world[j], np.asarray(skeleton.end_sites[j]))
                   for j in below if j in skeleton.end_sites]
        out[side] = float(np.max(np.linalg.norm(np.array(points) - positions[hand], axis=-1)))
    return out
