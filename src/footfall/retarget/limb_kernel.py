"""The compiled per-frame arithmetic of the retargeter's four-limb IK (``limbs.py``).

Three stages over the frames of a batch (one live frame is a batch of one): :func:`feet_stage`
(limb joints, foot targets, foot pitch and toe offsets), :func:`reach_stage` (toe pivot and
lowest-point rule, hips lowered out of reach, the two-bone solver's rows) and
:func:`turn_stage` (the solver's deltas applied). Between the first two the toe pivot's held
offset is decided in Python (it depends on earlier frames, ``stance.py``); between the last two
the knee copy and the solve run (``footfall.ik``). What each step means is documented in
``limbs.py``; here it is written per frame without NumPy's per-call cost.

Array layouts: ``world (J, F, 4)`` and ``local (J, F, 3)`` are joint-major (the retargeter's
memory), ``gpos (F, J, 3)``, ``srot (F, Js, 4)``, ``spos (F, Js, 3)`` frame-major; ``L`` limbs,
legs first; metres.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from footfall.arrays import BoolArray, FloatArray, IntArray
from footfall.footing import CONTACT_RULE
from footfall.footing.kneeling import kneeling_s
from footfall.jit import bundle_kernel, helper, kernel
from footfall.quat import (
    Quat4,
    Vec3,
    add_s,
    inv_s,
    mul_s,
    norm_s,
    rotate_s,
    scale_s,
    slerp_from_identity_s,
    sub_s,
)
from footfall.ramps import ramp_s

#: Metres of source lift over its stance level within which a foot counts as standing (fully,
#: not at all from twice that): the contact rule's touching height
#: (:attr:`footfall.footing.ContactRule.hold_lift`: a contact is held while the foot's lowest
#: point is this low).
CONTACT_BAND = CONTACT_RULE.hold_lift
MAX_TOE_RAISE = 0.03  # metres the foot may be raised in the air to keep its toes up
TOE_DOWN = 0.02  # metres: a source toe lower than this (above the capture floor) is down
FK_SINK = 0.02  # metres an FK foot may sink into the floor before its leg is fully on IK
REACH = 0.995  # share of a leg's length the hips may ask of it before they are lowered
DO_NO_HARM = 1e-7  # metres: a tip this close to its target is not touched by IK
PATCH = 0.01  # metres above a sole's lowest point its contact patch reaches
HEADING_MIN = 0.2  # a foot whose lateral axis is this steep (level part, unit) heads nowhere
AHEAD_MIN = 0.05  # share of the foot: a source toe this near below its ankle is on neither side
#: A target sole reaching this many times farther ahead of its ankle than the source's toe
#: (scaled by the size ratio) is a long foot: its toe-down pitch is reduced (:func:`long_foot`),
#: fully from :data:`LONG_FOOT`, not at all below :data:`LONG_FOOT_START`.
LONG_FOOT_START = 2.0
LONG_FOOT = 2.4
LONG_FOOT_TURN = 1.2  # radians: the most a long foot's toes are turned up
#: Radians a long foot's turn may change a frame (frames in order) beyond the source foot's
#: own turn that frame: a frame's jump in what decides it (a stance level) never snaps the
#: foot, and the turn never lags the source's pitch. A kneeling leg's long foot is turned as
#: a standing one's: left at the source's pitch (its toes on the floor), RobotExpressive's
#: kneeling foot stood 0.83 m up, over its hip joints once those knelt at the performer's
#: height scaled, and the leg folded shut (knee 29° off the source's on mocapbank_zxy_cm).
LONG_FOOT_STEP = math.radians(4.0)
#: A planted foot without toe joints is turned about its contact patch (:func:`_hold_patch`):
#: metres per second its ankle's offset from where the source's ankle puts it is given back
#: off the floor beyond the source ankle's own (scaled) travel, and the most that offset may
#: reach, in leg lengths (the source's, scaled: 0.8 let RobotExpressive's knees bend 16° off
#: the source's on mixamo_stepping, where its foot swivels 60° on the ball). The part a kneeling
#: leg's foot took on is apart from that bound (see :func:`_hold_patch`).
PATCH_RETURN_SPEED = 0.5
PATCH_HOLD_MAX = 0.5
#: Metres per second of a source foot point's speed from which, near the floor, it counts less
#: as standing (not at all from twice that): the contact rule's planting speed
#: (:data:`footfall.footing.CONTACT_RULE`). 0.5 held RobotExpressive's feet through quick low
#: steps: cmu_131_01's drift 3 → 15 cm.
PATCH_SPEED = CONTACT_RULE.speed
#: Metres per second of a standing foot's ankle target's own step beyond the source ankle's
#: (scaled) from which the step is a jump, not a stance's motion (fully from twice that):
#: faster than a swinging foot (:attr:`footfall.footing.ContactRule.hold_speed` is the least
#: of 2–4 m/s). The toe pivot letting go within a frame or two jumps the target 8–10 cm
#: (11.6 m/s) while the performer's ankle moves at 0.4 m/s. From 1 m/s, the right foot's
#: landing on cmu_131_01 (frame 501) counted too: its stance drifted 0.6 → 1.4 cm over the
#: source's. Given back over 0.3 s from 0.6 m/s instead, RobotExpressive's locked patch
#: drifted 17.9 cm in a stance of pybvh_test1_zup_inches (0.9 held).
JUMP_SPEED = 2.0 * CONTACT_RULE.hold_speed
#: Metres per second at which the hold gives back what it took of such a jump while the
#: source's toe tip is off the floor (not at all within :data:`CONTACT_BAND`, in full from
#: twice that): slow as a stance's slip (issue 35: no faster than the source's + 3 cm/s).
#: Given back with the toes down too, cmu_131_01 played backward (the pivot taking hold as
#: the foot rolls onto its toes) drifted 1.0–1.2 cm more in a stance (CesiumMan 5.0 → 6.2).
JUMP_RETURN_SPEED = 0.05

#: Columns of each foot's row of ``LimbFrames.patch_state``: its last world rotation (0–3), the
#: source's ankle (4–6) and toe point (7–9), the ankle target before the hold (x, z: 10–11),
#: the hold's offset from it (x, z: 12–13), 1 once set (14), the source's toe tip (15–17),
#: how far the patch travelled unheld while its leg knelt this stance (x, z: 18–19), the last
#: world rotations of its toe joint (20–23), the source's foot (24–27) and the source's toe
#: joint (28–31), the part of the hold's offset its leg built kneeling (x, z: 32–33), the part
#: it took on from its ankle target's own steps (x, z: 34–35).
PATCH_STATE = 36

# ``LimbSizes.standing_heights`` rows: standing heights (2,) of the source ankles and toes,
# the target's.
SOURCE_ANKLE, TARGET_ANKLE, SOURCE_TOE, TARGET_TOE = range(4)


class LimbRig(NamedTuple):
    """Both rigs' limbs as the limb kernels read them (fixed between calibrations).

    ``target_chain``, ``source_chain``: ``(L, 3)`` root, mid and tip joint of each limb, legs
    first; ``leg_sides (2,)``: 0 left, 1 right; ``detached (L,)``: tips carried by their lower
    bone at ``tip_offsets (L, 3)`` (calibration pose, scale 1); ``outward (2, 3)``: each foot's
    outward direction; ``parents (J,)`` of the target; ``mover``: the joint the hips hang from,
    ``under_mover (J,)`` the joints it carries; ``source_hips``: the source's hips joint;
    ``source_leg_lengths (2,)``; ``hand_reach (A,)``: each arm's hand reach from its wrist at
    scale 1. Toe points (``has_toes``: both rigs have them): ``target_toes``, ``source_toes``
    ``(2, 2)`` (foot, toe joint or −1) per side, with End Site offsets ``(2, 3)``;
    ``foot_lateral (2, 3)``: each target foot's level axis across its ankle → toe in the
    calibration pose, in the foot's frame (the axis its pitch turns about); ``foot_points
    (2, K, 3)``: the target feet's sole points in the foot's frame (``Soles.foot_points``).
    Long feet: ``foot_forward (2, 3)`` each target foot's level forward in the calibration
    pose, in the foot's frame; ``sole_reach (2,)`` how far its sole reaches ahead of the
    ankle along it (scale 1); ``source_toe_reach (2,)`` the source toe point's level distance
    from its ankle (0: no toe points); ``source_has_toes``: the source has toe points (its
    ``source_toes``), whatever the target has; ``source_tips (2,)``: the source's toe joints
    whose End Site (``source_tip_offsets (2, 3)``, in the toe joint's frame) is the tip of
    its toes (−1: none), standing ``source_tip_rise (2,)`` over the toe joint. Metres.
    """

    target_chain: IntArray
    source_chain: IntArray
    leg_sides: IntArray
    detached: BoolArray
    tip_offsets: FloatArray
    outward: FloatArray
    parents: IntArray
    mover: int
    under_mover: BoolArray
    source_hips: int
    source_leg_lengths: FloatArray
    hand_reach: FloatArray
    has_toes: bool
    target_toes: IntArray
    target_toe_offsets: FloatArray
    source_toes: IntArray
    source_toe_offsets: FloatArray
    foot_lateral: FloatArray
    foot_points: FloatArray
    foot_forward: FloatArray
    sole_reach: FloatArray
    source_toe_reach: FloatArray
    source_has_toes: bool
    source_tips: IntArray
    source_tip_offsets: FloatArray
    source_tip_rise: FloatArray


class LimbSizes(NamedTuple):
    """The current sizes and settings (``limbs.Sizes``) as the limb kernels read them.

    ``size_ratio``: horizontal scale source → target; ``avatar_scale``; ``capture_floor``: the
    capture's floor (0: each foot's stance level is in ``LimbFrames.level``);
    ``floor_height``; ``foot_front``, ``foot_out``: foot target offsets; ``fk_guard``: 1 hands a
    leg on FK whose foot would sink to IK, else 0; ``standing_heights (4, 2)``: rows
    :data:`SOURCE_ANKLE`, :data:`TARGET_ANKLE`, :data:`SOURCE_TOE`, :data:`TARGET_TOE`;
    ``calibration_tips (2, 4)``: the target feet's world rotations in the calibration pose.
    Metres.
    """

    size_ratio: float
    avatar_scale: float
    capture_floor: float
    floor_height: float
    foot_front: float
    foot_out: float
    fk_guard: float
    standing_heights: FloatArray
    calibration_tips: FloatArray


class Soles(NamedTuple):
    """The target feet's sole points as :func:`reach_stage` reads them (the arrays of
    ``calibration.SolePoints``): ``foot_points``, ``toe_points (2, K, 3)`` in the foot's and the
    toe joint's rest frame, ``toe_weights (2, K)``, ``toe_joints (2,)`` (−1: none),
    ``toe_offsets (2, 3)``."""

    foot_points: FloatArray
    toe_points: FloatArray
    toe_weights: FloatArray
    toe_joints: IntArray
    toe_offsets: FloatArray


class LimbFrames(NamedTuple):
    """The F frames being solved: the target's ``world (J, F, 4)`` rotations and ``local
    (J, F, 3)`` translations (joint-major; updated in place), its joint positions ``gpos
    (F, J, 3)``, the source's ``srot (F, Js, 4)``, ``spos (F, Js, 3)``; per frame the
    stance-width ``foot_shift (F, 2, 3)``, the target ``hips (F, 3)``, the IK weights
    ``leg_weights (F, 2)``, ``arm_weights (F, A)`` and each source foot's stance ``level
    (F, 2)`` above its standing height. Metres. Frames in order (a clip's, a live stream's)
    carry each foot's last pitches ``pitch_state (6, 4)`` (rows 0–1 the toes', turned by at
    most ``pitch_step`` radians a frame, ≤ 0: frames alone, no limit; rows 2–3 a long foot's
    and 4–5 the source feet's world rotations, see :data:`LONG_FOOT_STEP`; w > 1: none yet;
    updated in place) and each foot's patch hold ``patch_state (2, PATCH_STATE)`` (see
    :func:`_hold_patch`; updated in place); ``frame_time``: seconds per frame of frames in
    order (≤ 0: frames alone, no patch hold)."""

    world: FloatArray
    local: FloatArray
    gpos: FloatArray
    srot: FloatArray
    spos: FloatArray
    foot_shift: FloatArray
    hips: FloatArray
    leg_weights: FloatArray
    arm_weights: FloatArray
    level: FloatArray
    pitch_state: FloatArray
    pitch_step: float
    patch_state: FloatArray
    frame_time: float


class LimbWork(NamedTuple):
    """The stages' working memory for F frames of L limbs (``limbs.Limbs`` keeps it between
    calls): what :func:`feet_stage` writes and :func:`reach_stage` reads, and the two-bone
    solver's input :func:`reach_stage` writes (see each stage for the fields)."""

    chain: FloatArray
    feet: FloatArray
    toe: FloatArray
    toe_target: FloatArray
    foot_vector: FloatArray
    pitch: FloatArray
    offset: FloatArray
    down: BoolArray
    pivot: FloatArray
    toe_height: FloatArray
    sunk: FloatArray
    rows: FloatArray
    weight: FloatArray
    knee_input: FloatArray
    knee_lengths: FloatArray


def limb_work(frames: int, count: int) -> LimbWork:
    """:class:`LimbWork` for ``frames`` frames of ``count`` limbs (every array is written
    before it is read)."""
    feet, toe, toe_target, foot_vector, offset = (np.empty((frames, 2, 3)) for _ in range(5))
    return LimbWork(
        chain=np.empty((frames, 3, count, 3)), feet=feet, toe=toe, toe_target=toe_target,
        foot_vector=foot_vector, pitch=np.empty((frames, 2, 4)), offset=offset,
        down=np.zeros((frames, 2), dtype=bool), pivot=np.empty((frames, 2)),
        toe_height=np.empty((frames, 2)), sunk=np.empty((frames, 2)),
        rows=np.empty((5, frames * count, 3)), weight=np.empty(frames * count),
        knee_input=np.empty((5, frames * 2, 3)), knee_lengths=np.empty((2, frames * 2)))


@helper
def contact_lift(lift: float, size_ratio: float) -> float:
    """A source foot lift above its standing height, on the target, metres: scaled by the
    size ratio (the legs' length ratio) like the strides and the hips, so a foot on legs twice
    as long lifts twice as high and the leg bends as the source's (issue 35: RobotExpressive's
    ankles, lifted by the source's own clearance, crouched its knees). A source foot below its
    stance level is on the floor: the target's foot never goes below its own."""
    return max(lift, 0.0) * size_ratio


@helper
def standing(target_rest: float, sizes: LimbSizes) -> float:
    """World height of a target foot point standing on the target's floor (its standing
    height at avatar scale 1 above the foot's sole, plus the floor height), metres. The
    capture's own floor is not carried over: a planted source foot stands the target's foot
    on the target's floor, whatever height the capture's joints had."""
    return target_rest * sizes.avatar_scale + sizes.floor_height


@helper
def lifted(source_height: float, source_rest: float, target_rest: float,
           sizes: LimbSizes) -> float:
    """Target world height of a foot point at ``source_height``: its lift above the source's
    standing height (above the capture's floor) through :func:`contact_lift`, on top of the
    target's standing height. Metres."""
    lift = source_height - source_rest - sizes.capture_floor
    return standing(target_rest, sizes) + contact_lift(lift, sizes.size_ratio)


@helper
def _source_lift(spos: FloatArray, toe: FloatArray, heights: FloatArray, level: FloatArray,
                 s_chain: IntArray, frame: int, leg: int, floor: float, has_toes: bool) -> float:
    """How high a source foot's lowest point (ankle, or toe point with ``has_toes``: the
    source has toe points, whatever the target has) is above its stance level in ``frame``,
    metres (see :func:`reach_stage`)."""
    lift = spos[frame, s_chain[leg, 2], 1] - heights[SOURCE_ANKLE, leg] - level[frame, leg] - floor
    if has_toes:
        lift = min(lift, toe[frame, leg, 1] - heights[SOURCE_TOE, leg] - level[frame, leg] - floor)
    return lift


@helper
def _near_floor(lift: float) -> float:
    """1 for a source foot within :data:`CONTACT_BAND` of its stance level, 0 from twice that,
    linear between: how much the foot is treated as standing."""
    return 1.0 - ramp_s(lift, CONTACT_BAND, 2.0 * CONTACT_BAND)


@helper
def _lowest_sole(world: FloatArray, frame: int, foot: int, leg: int, foot_points: FloatArray,
                 toe_points: FloatArray, toe_weights: FloatArray, toe_joints: IntArray,
                 toe_offsets: FloatArray, scale: float) -> float:
    """Height of a foot's lowest sole point above its ankle, metres, with the joints turned as
    ``world (J, F, 4)`` holds them in ``frame``: each point blended between the foot and the
    toes by its skin weight, as the mesh is (``retarget.calibration.SolePoints``)."""
    rotation = _quat(world[foot, frame])
    toe = toe_joints[leg]
    toe_rotation = _quat(world[toe, frame]) if toe >= 0 else rotation
    lowest = 0.0
    for k in range(foot_points.shape[1]):
        height = _sole_point(rotation, toe_rotation, leg, k, foot_points, toe_points,
                             toe_weights, toe_offsets, scale)[1]
        if k == 0 or height < lowest:
            lowest = height
    return lowest


@helper
def _sole_point(foot: Quat4, toe: Quat4, leg: int, k: int, foot_points: FloatArray,
                toe_points: FloatArray, toe_weights: FloatArray, toe_offsets: FloatArray,
                scale: float) -> Vec3:
    """Sole point ``k`` of foot ``leg`` from its ankle, world axes, metres: the foot and its
    toe joint turned ``foot``, ``toe`` (world), the point blended between the two by its skin
    weight on the toes, as the mesh is (``retarget.calibration.SolePoints``; the arrays as
    :class:`Soles` holds them, at ``scale``)."""
    by_foot = rotate_s(foot, scale_s(_vec(foot_points[leg, k]), scale))
    weight = toe_weights[leg, k]
    if weight <= 0.0:
        return by_foot
    by_toe = add_s(rotate_s(foot, scale_s(_vec(toe_offsets[leg]), scale)),
                   rotate_s(toe, scale_s(_vec(toe_points[leg, k]), scale)))
    return add_s(scale_s(by_foot, 1.0 - weight), scale_s(by_toe, weight))


@helper
def pitch_to_height(vector: Vec3, height: float, weight: float, heading: Vec3,
                    ahead: float) -> Quat4:
    """Rotation about a horizontal axis that brings ``vector``'s vertical component to
    ``height`` (as near as its length allows), scaled by ``weight`` and limited to ±0.6 rad.

    The axis lies across ``heading`` (the foot's own forward, level, from its lateral axis):
    it stays put while the foot's ankle → toe passes through the vertical at lift-off. Of the
    two turns reaching ``height`` the one leaving the toe on the side of the ankle the source's
    toe is on (``ahead``: the source's ankle → toe along ``heading``, metres) is taken: a foot
    pointed straight down is pitched toward the same side frame after frame instead of
    flipping between the mirror solutions (issue 35: a 70° snap in one frame). Where the
    source's toe is straight below its ankle (``|ahead|`` under :data:`AHEAD_MIN` of the
    foot), or the foot lies on its side (``heading`` under :data:`HEADING_MIN`), the smaller
    turn is taken. About the unit axis ``a`` a turn by φ gives ``v'.y = v.y cos φ + w sin φ``
    and ``v'.along = w cos φ − v.y sin φ`` with ``w = (a × v).y``, the part of ``v`` along the
    heading: ``centre − spread`` leaves the toe ahead, ``centre + spread`` behind.
    """
    across = math.hypot(heading[0], heading[2])
    if across < HEADING_MIN:
        heading = vector
        across = math.hypot(vector[0], vector[2])
        ahead = 0.0
    if across > 1e-12:
        axis = (-heading[2] / across, 0.0, heading[0] / across)
    else:
        axis = (1.0, 0.0, 0.0)
    along = axis[2] * vector[0] - axis[0] * vector[2]
    radius = max(math.hypot(vector[1], along), 1e-12)
    centre = math.atan2(along, vector[1])
    spread = math.acos(min(max(height / radius, -1.0), 1.0))
    low = (centre - spread + math.pi) % (2.0 * math.pi) - math.pi
    high = (centre + spread + math.pi) % (2.0 * math.pi) - math.pi
    if abs(ahead) < AHEAD_MIN * norm_s(vector):
        angle = low if abs(low) <= abs(high) else high
    else:
        angle = low if ahead > 0.0 else high
    half = 0.5 * (min(max(angle, -0.6), 0.6) * weight)
    sine = math.sin(half)
    return (math.cos(half), sine * axis[0], sine * axis[1], sine * axis[2])


@helper
def _pitch_eased(turn: Quat4, state: FloatArray, leg: int, step: float) -> Quat4:
    """A foot's pitch ``turn`` moved from its last frame's (``state[leg]``, w > 1: none) by at
    most ``step`` radians, and kept as the last: the pitch the foot gets while its toes are
    down is taken on and given back over frames, never in one (issue 35: the toes lifting
    2 → 6 cm in one frame at 30 fps gave the pitch back at once, a 30–40° snap). The foot
    rests on its sole as :func:`reach_stage` then stands it, however pitched."""
    if state[leg, 0] <= 1.0:
        last = _quat(state[leg])
        change = mul_s(turn, inv_s(last))
        angle = 2.0 * math.acos(min(abs(change[0]), 1.0))
        if angle > step:
            turn = mul_s(slerp_from_identity_s(change, step / angle), last)
    _put(state[leg], turn)
    return turn


@helper
def long_share(sole_reach: float, source_reach: float, size_ratio: float,
               ramp: tuple[float, float]) -> float:
    """How long a foot whose sole reaches ``sole_reach`` metres ahead of its ankle (at the
    current scale) is, 0…1: its reach over the source toe's ``source_reach`` scaled by
    ``size_ratio``, ramped over ``ramp`` (``(LONG_FOOT_START, LONG_FOOT)``: a long foot; 0
    without the source's toe reach)."""
    scaled = size_ratio * source_reach
    if scaled <= 1e-9:
        return 0.0
    return ramp_s(sole_reach / scaled, ramp[0], ramp[1])


@helper
def excess_share(sole_reach: float, source_reach: float, size_ratio: float) -> float:
    """The share (0…1) of a sole reaching ``sole_reach`` metres ahead of its ankle (at the
    current scale) that lies beyond the source toe's ``source_reach`` scaled by ``size_ratio``:
    ``1 − size_ratio · source_reach / sole_reach`` (0 for a foot no longer than the source's,
    or without the source's toe reach). A foot turned by an angle swings its sole's far end by
    ``sole_reach`` times it where the source's toes swing ``size_ratio · source_reach`` times it:
    this share of the swing is the target's own."""
    scaled = size_ratio * source_reach
    if scaled <= 1e-9 or sole_reach <= scaled:
        return 0.0
    return 1.0 - scaled / sole_reach


@helper
def long_foot(foot: Quat4, forward: Vec3, lateral: Vec3, sole_reach: float,
              source_reach: float, size_ratio: float) -> Quat4:
    """The turn (about a level axis across the foot) that lifts a long foot's toes so they
    drop below its ankle no more than the source's toes would, scaled: a foot turned
    ``foot`` (world) whose flat forward and lateral axes are ``forward``, ``lateral`` in its
    frame and whose sole reaches ``sole_reach`` metres ahead of the ankle (at the current
    scale), its source toe ``source_reach`` metres ahead of the source's ankle.

    A foot pitched toes-down by θ drops its toes by reach · sin θ below the ankle. A sole
    longer than :data:`LONG_FOOT` times the source's toe reach scaled by ``size_ratio``
    (RobotExpressive's box feet: 3.5×) would put its toes on the floor while the source's heel
    is well up, and the sole rule would hold the ankle up by the difference — a shuffling
    crouch, knees bent 130° where the source's bend 70° (issue 35). Such a foot is turned
    toes-down only by θ' with ``reach · sin θ' = size_ratio · source_reach · sin θ``: its
    toes drop as the source's, scaled (blended in from :data:`LONG_FOOT_START`). A foot
    pitched toes-up, a foot of ordinary length, or without the source's toe reach: identity.
    The turn is at most :data:`LONG_FOOT_TURN` radians; it changes with the source foot's
    pitch, never faster.
    """
    share = long_share(sole_reach, source_reach, size_ratio, (LONG_FOOT_START, LONG_FOOT))
    if share <= 0.0:
        return (1.0, 0.0, 0.0, 0.0)
    side = rotate_s(foot, lateral)
    across = math.hypot(side[0], side[2])
    if across < HEADING_MIN:  # the foot on its side: no pitch to speak of
        return (1.0, 0.0, 0.0, 0.0)
    heading = (side[2] / across, 0.0, -side[0] / across)
    sole = rotate_s(foot, forward)
    down = math.atan2(-sole[1], sole[0] * heading[0] + sole[2] * heading[2])
    if down <= 0.0:
        return (1.0, 0.0, 0.0, 0.0)
    keep = 1.0 - share * excess_share(sole_reach, source_reach, size_ratio)
    kept = math.asin(min(math.sin(min(down, 0.5 * math.pi)) * keep, 1.0))
    # faded out as the foot turns on its side (no level axis across it): never a jump
    half = 0.5 * min(max(down - kept, 0.0), LONG_FOOT_TURN) * ramp_s(
        across, HEADING_MIN, 2.0 * HEADING_MIN)
    sine = math.sin(half)  # about (−heading.z, 0, heading.x): the toes turn up
    return (math.cos(half), -sine * heading[2], 0.0, sine * heading[0])


@helper
def _vec(a: FloatArray) -> Vec3:
    return (a[0], a[1], a[2])


@helper
def _quat(a: FloatArray) -> Quat4:
    return (a[0], a[1], a[2], a[3])


@helper
def _put(out: FloatArray, v: tuple[float, ...]) -> None:
    for k in range(len(v)):
        out[k] = v[k]


@helper
def _toe_point(world: FloatArray, positions: FloatArray, frame: int, frame_major: bool,
               foot: int, joint: int, offset: FloatArray, scale: float) -> Vec3:
    """A toe point: its toe joint, or the End Site ``offset`` carried by the foot."""
    if joint >= 0:
        return _vec(positions[frame, joint])
    rotation = _quat(world[frame, foot]) if frame_major else _quat(world[foot, frame])
    return add_s(_vec(positions[frame, foot]), rotate_s(rotation, scale_s(_vec(offset), scale)))


@helper
def _patch_shift(before: Quat4, before_toe: Quat4, after: Quat4, after_toe: Quat4, leg: int,
                 foot_points: FloatArray, toe_points: FloatArray, toe_weights: FloatArray,
                 toe_offsets: FloatArray, scale: float, both_ends: bool) -> Vec3:
    """How far (level, metres) a foot's contact patch — its sole points within :data:`PATCH`
    of the lowest, weighted down to 0 at that height — moves about its ankle when the foot and
    its toe joint turned ``before``, ``before_toe`` are turned ``after``, ``after_toe``
    (world): the ankle moved back by it turns the foot about the patch instead. The points are
    blended between foot and toes as the mesh is (:func:`_sole_point`; the arrays as
    :class:`Soles` holds them, at ``scale``): a patch under the ball rides on the toes (on the
    foot alone, CesiumMan's would turn about the curled toe tips, 14–15 cm ahead of its ankle,
    where the ball is at 9 cm).

    The patch is the points that low as the foot is turned ``after``; with ``both_ends`` (a
    step from one frame to the next) as it is turned either way, each point weighted by the
    larger of its two weights: the points the foot stood on during the step, at any frame
    rate. Taken at the step's end alone, a foot rolling onto another part of its sole as it
    swivels was turned about that part only, and the part it had stood on swept the floor by
    the whole step's turn, four times a frame's at 30 fps what it is at 120: RobotExpressive's
    box foot, swivelling on the performer's toe tip in cmu_131_01 (up to 45° a frame at
    30 fps), drifted 12.6 cm in that stance where the performer's patch moved 1.2 (scaled);
    3.6 with both ends (at 120 fps 3.9 → 3.2)."""
    count = foot_points.shape[1]
    lowest, lowest_before = 0.0, 0.0
    for k in range(count):
        height = _sole_point(after, after_toe, leg, k, foot_points, toe_points, toe_weights,
                             toe_offsets, scale)[1]
        if k == 0 or height < lowest:
            lowest = height
        if both_ends:
            height = _sole_point(before, before_toe, leg, k, foot_points, toe_points,
                                 toe_weights, toe_offsets, scale)[1]
            if k == 0 or height < lowest_before:
                lowest_before = height
    total, x, z = 0.0, 0.0, 0.0
    for k in range(count):
        now = _sole_point(after, after_toe, leg, k, foot_points, toe_points, toe_weights,
                          toe_offsets, scale)
        weight = 1.0 - (now[1] - lowest) / PATCH
        was = now
        if both_ends or weight > 0.0:
            was = _sole_point(before, before_toe, leg, k, foot_points, toe_points, toe_weights,
                              toe_offsets, scale)
        if both_ends:
            weight = max(weight, 1.0 - (was[1] - lowest_before) / PATCH)
        if weight > 0.0:
            moved = sub_s(now, was)
            total += weight
            x += weight * moved[0]
            z += weight * moved[2]
    if total <= 0.0:
        return (0.0, 0.0, 0.0)
    return (x / total, 0.0, z / total)


@helper
def _hold_patch(state: FloatArray, leg: int, turns: tuple[Quat4, Quat4, Quat4, Quat4],
                target: Vec3, ankle: Vec3, toe: Vec3, tip: Vec3, ankle_lift: float,
                toe_lift: float, tip_lift: float, has_toe: bool, follow: bool, upright: float,
                patch: Soles, source_patch: Soles, scale: float, size_ratio: float,
                leg_length: float, frame_time: float, kneeling: float
                ) -> tuple[float, float]:
    """Where (x, z, metres) a foot puts its ankle so that, standing, its contact patch stays
    where it is while the foot turns (``follow``: moves only as the source's does, scaled).

    A foot whose patch lies far from its ankle (RobotExpressive's: 57–84 cm) turned about
    the ankle as the performer pivots on the ball swung its patch 56 cm across the floor
    (issue 35). Frames in order: while the source foot stands — its ankle or toe point
    (``ankle_lift``, ``toe_lift`` above its stance level) near the floor and slower than
    :data:`PATCH_SPEED`, each as much as it is both — the ankle moves only by the patch's
    swing as the foot turns from its last rotation to ``foot`` (:func:`_patch_shift`: the
    points it stands on at either end of the step), taken back: the foot turns about its
    patch, which stays put (a planted foot is locked; the source's own contact moves a few
    centimetres at most). The ankle's offset from ``target`` (the source's ankle, scaled,
    with the stance-width shift) is given back while the foot does not stand, as fast as the
    source's ankle moves (scaled) plus :data:`PATCH_RETURN_SPEED`, and never exceeds
    :data:`PATCH_HOLD_MAX` leg lengths (``leg_length``, metres).

    The source's own contact patch must be still as well (its points within :data:`PATCH` of
    its lowest, ``source_patch``, moved by the source foot's turn and its ankle's step, slower
    than :data:`PATCH_SPEED`, not at all from twice that): a foot that swivels on a sliding
    toe tip does not stand on it, however slow its ball. Played backward, mixamo_stepping's
    performer brings the left foot down toe first and swivels it 75° on the tip while the tip
    still slides at 0.5–1.3 m/s, the ball slow and low; held, RobotExpressive's box foot swept
    its ankle 0.5 leg lengths about a patch 60–80 cm ahead of it and kept it through the next
    stance (the hips lowered to reach it, the other knee 17.7° off the source's, median).

    A kneeling leg's foot is not held (``upright`` 0, see
    :data:`~footfall.footing.kneeling.KNEELING`), but for the share of its swing its length
    adds (:func:`excess_share`); a locked foot (``follow`` false) that :func:`long_foot` pitches
    its own way is held in full (``reach_stage``): its patch travels as the foot turns on its
    toes (RobotExpressive's 50 cm in mocapbank_zxy_cm's kneel while its foot kept the
    source's pitch). That travel, while the foot stands, is counted; held again as the leg
    rises, the foot lets its turn carry the patch back toward where it stood, up to that
    travel, and holds only the rest. Held at once, the rise pinned the patch where the kneel
    had left it (drift 4.6 → 19.9 cm); the offset kept through the kneel instead put the
    kneeling foot out of the leg's reach (knee 8 → 25° off the source's).

    A locked foot's offset held while its leg kneels (``kneeling``, 0…1) is counted apart:
    the bound above holds only the rest (the offset taken on standing), and that part is given
    back as the leg rises (by ``1 − kneeling``) as far as the source's own patch moves (its
    step, scaled) the way that gives it back: held while the performer's toes stand still,
    it goes as they move, the patch never faster than theirs (given back at their speed
    whichever way they moved, mocapbank_zxy_cm played backward drifted 4.7 cm in a stance
    where the source's patch moves 0.5).
    Bound as a whole, cmu_131_01 played backward (0.43 leg lengths taken on standing before
    its kneel) slid RobotExpressive's kneeling patch 15.3 cm where the performer's moved 0.7;
    kept whole after the kneel, the left knee went 4° further off the source's for 250 frames
    and, as captured, the hips fell to 0.24 of the source's height at the next push-off.

    A jump of the ankle target itself (its step beyond the source ankle's, scaled, faster
    than :data:`JUMP_SPEED`) is held as any step, and the part of the offset it made is given
    back at :data:`JUMP_RETURN_SPEED` while the source's toe tip is off the floor
    (``tip_lift``; standing on the heel or not standing). The toe pivot
    lets go within a frame or two as the performer rolls off the toes onto the heel
    (cmu_131_01, frame ~798: the ankle target jumps 8–10 cm); held in full, the offset stayed
    through the 190 frames the performer then stands on that straight leg, the ankle 9–12 cm
    off its target, and on the clip bent along an arc the hips were lowered less and the
    other, bent knee stood 16.2° straighter than the performer's (median; 11.9° now).

    ``follow`` (both rigs have toe points): only the target's excess over the source's
    motion is held. The patch moves as the source's own patch — its points (``source_patch``:
    its joints and End Sites) within :data:`PATCH` of its lowest — moves, scaled by
    ``size_ratio``; what the target's other foot adds as the foot turns (its patch swung
    about its ankle, elsewhere than the source's) is taken back. CesiumMan's heel stance
    and its pivot on the ball of the foot on cmu_131_01 slid its patch 10.2 cm/s (median)
    where the source's moved 6.0 (scaled); held so, 6.6. Locked in place instead, a clip
    retargeted onto its own skeleton held feet the performer lets slide (5 cm sideways); a
    foot that follows its source has no excess there.

    ``state (2, PATCH_STATE)``: the feet's last frames (updated in place); ``turns``: the
    world rotations of the target's foot and toe joint and of the source's (a foot without a
    toe joint: its foot's); ``ankle``, ``toe``: the source's points (``has_toe``: it has a
    toe point), world metres; ``upright`` (0…1): how far the foot is held (1 − how much the
    source's leg kneels, or more for a long foot), ``kneeling`` (0…1): how much it kneels;
    ``frame_time``: seconds since the last frame; ``patch``, ``source_patch``: the
    points the target's patch (at ``scale``) and the source's are judged by, see
    :func:`_patch_shift`; ``size_ratio`` scales the source's travel."""
    row = state[leg]
    foot, toe_turn, source_foot, source_toe = turns
    dx, dz = 0.0, 0.0
    travel_x, travel_z = 0.0, 0.0
    debt_x, debt_z = 0.0, 0.0
    jump_x, jump_z = 0.0, 0.0
    if row[14] > 0.5:
        # Standing: a source point (ankle, toe) near the floor and slow; a foot pivoting on
        # its ball stands on its toe however fast its ankle circles, a foot landing or
        # skimming the floor does not stand.
        rate = 1.0 / max(frame_time, 1e-9)
        ankle_x, ankle_z = ankle[0] - row[4], ankle[2] - row[6]
        by_ankle = _near_floor(ankle_lift) * (1.0 - ramp_s(
            math.hypot(ankle_x, ankle_z) * rate, PATCH_SPEED, 2.0 * PATCH_SPEED))
        toe_x, toe_z, by_toe = 0.0, 0.0, 0.0
        if has_toe:
            toe_x, toe_z = toe[0] - row[7], toe[2] - row[9]
            by_toe = _near_floor(toe_lift) * (1.0 - ramp_s(
                math.hypot(toe_x, toe_z) * rate, PATCH_SPEED, 2.0 * PATCH_SPEED))
            tip_x, tip_z = tip[0] - row[15], tip[2] - row[17]
            by_toe = max(by_toe, _near_floor(tip_lift) * (1.0 - ramp_s(
                math.hypot(tip_x, tip_z) * rate, PATCH_SPEED, 2.0 * PATCH_SPEED)))
        stands = max(by_ankle, by_toe)
        theirs = (0.0, 0.0, 0.0)
        if has_toe:
            # ... and only as far as the source's contact patch itself is still: a foot
            # swivelling on a toe tip that slides (the ball slow and low) does not stand
            # (the source's patch at the step's end: taken over both ends as the target's,
            # the feet following it drifted no less, CesiumMan's 3.03 → 3.07 cm on
            # cmu_131_01 at 30 fps)
            theirs = _patch_shift(
                _quat(row[24:28]), _quat(row[28:32]), source_foot, source_toe, leg,
                source_patch.foot_points, source_patch.toe_points,
                source_patch.toe_weights, source_patch.toe_offsets, 1.0, False)
            still = 1.0 - ramp_s(
                math.hypot(ankle_x + theirs[0], ankle_z + theirs[2]) * rate, PATCH_SPEED,
                2.0 * PATCH_SPEED)
            stands = min(stands, still)
        near = stands * upright
        ox, oz = row[12], row[13]
        # the patch's step this frame were the ankle not moved: the target's step and the
        # foot's swing about its ankle
        step_x, step_z = 0.0, 0.0
        if stands > 0.0:
            swing = _patch_shift(_quat(row[0:4]), _quat(row[20:24]), foot, toe_turn, leg,
                                 patch.foot_points, patch.toe_points, patch.toe_weights,
                                 patch.toe_offsets, scale, True)
            step_x = target[0] - row[10] + swing[0]
            step_z = target[2] - row[11] + swing[2]
            if follow:  # less the source patch's own step, scaled
                step_x -= size_ratio * (ankle_x + theirs[0])
                step_z -= size_ratio * (ankle_z + theirs[2])
        # held: the step taken back, but for its part back toward where the patch stood
        # before its leg knelt (at most the kneel's travel)
        back_x, back_z = 0.0, 0.0
        knelt = math.hypot(row[18], row[19])
        if knelt > 0.0:
            back = min(max(-(step_x * row[18] + step_z * row[19]) / knelt, 0.0), knelt)
            back_x, back_z = -row[18] * back / knelt, -row[19] * back / knelt
        held_x, held_z = ox - step_x + back_x, oz - step_z + back_z
        free_x, free_z = ox, oz
        offset = math.hypot(ox, oz)
        if near < 1.0 and offset > 0.0:
            pace = (size_ratio * math.hypot(ankle_x, ankle_z)
                    + PATCH_RETURN_SPEED * frame_time)
            keep = max(1.0 - pace / offset, 0.0)
            free_x, free_z = ox * keep, oz * keep
        dx = near * held_x + (1.0 - near) * free_x
        dz = near * held_z + (1.0 - near) * free_z
        # a locked patch: the part of it held kneeling, never more than the offset itself
        debt_x, debt_z = row[32], row[33]
        if not follow:
            debt_x += kneeling * near * (back_x - step_x)
            debt_z += kneeling * near * (back_z - step_z)
        debt = math.hypot(debt_x, debt_z)
        offset = math.hypot(dx, dz)
        if debt > offset:
            debt_x, debt_z, debt = debt_x * offset / debt, debt_z * offset / debt, offset
        # the rest (built standing) within PATCH_HOLD_MAX leg lengths
        most = PATCH_HOLD_MAX * leg_length
        rest = math.hypot(dx - debt_x, dz - debt_z)
        if rest > most:
            dx = debt_x + (dx - debt_x) * most / rest
            dz = debt_z + (dz - debt_z) * most / rest
        # the kneel's part given back as its leg rises, as far as the source's own patch
        # moves (scaled) the way that gives it back: held while the performer's foot stands
        # still, it goes with it as it moves (the patch no faster than theirs)
        if debt > 0.0:
            toward = -size_ratio * ((ankle_x + theirs[0]) * debt_x
                                    + (ankle_z + theirs[2]) * debt_z) / debt
            given = (1.0 - kneeling) * min(max(toward, 0.0), debt)
            keep = 1.0 - given / debt
            dx, dz = dx - debt_x * (1.0 - keep), dz - debt_z * (1.0 - keep)
            debt_x, debt_z = debt_x * keep, debt_z * keep
        # the part taken on from the ankle target's jumps (its own step beyond the source
        # ankle's, scaled, faster than JUMP_SPEED) is given back at JUMP_RETURN_SPEED while
        # the source's toe tip is up: the toe pivot letting go as the performer rolls onto
        # the heel does not snap the foot, nor keep it off where the source's puts it for
        # the rest of the stance
        excess_x = target[0] - row[10] - size_ratio * ankle_x
        excess_z = target[2] - row[11] - size_ratio * ankle_z
        sudden = near * ramp_s(math.hypot(excess_x, excess_z) * rate, JUMP_SPEED,
                               2.0 * JUMP_SPEED)
        jump_x = row[34] - sudden * excess_x
        jump_z = row[35] - sudden * excess_z
        jump = math.hypot(jump_x, jump_z)
        offset = math.hypot(dx, dz)
        if jump > offset:
            jump_x, jump_z, jump = jump_x * offset / jump, jump_z * offset / jump, offset
        if jump > 0.0:
            given = min(JUMP_RETURN_SPEED * frame_time / jump, 1.0) * (
                1.0 - _near_floor(tip_lift))
            dx, dz = dx - given * jump_x, dz - given * jump_z
            jump_x, jump_z = jump_x * (1.0 - given), jump_z * (1.0 - given)
        # the kneel's travel: the unheld steps of a standing, kneeling foot, less what the
        # rise carried back; gone once the foot does not stand
        travel_x = stands * (row[18] + (stands - near) * (step_x + free_x - ox)
                             + near * back_x)
        travel_z = stands * (row[19] + (stands - near) * (step_z + free_z - oz)
                             + near * back_z)
    _put(row[0:4], foot)
    _put(row[20:24], toe_turn)
    _put(row[24:28], source_foot)
    _put(row[28:32], source_toe)
    _put(row[4:7], ankle)
    _put(row[7:10], toe)
    _put(row[15:18], tip)
    row[10], row[11], row[12], row[13], row[14] = target[0], target[2], dx, dz, 1.0
    row[18], row[19] = travel_x, travel_z
    row[32], row[33] = debt_x, debt_z
    row[34], row[35] = jump_x, jump_z
    return target[0] + dx, target[2] + dz


@bundle_kernel(error_model="numpy")
def feet_stage(frames: LimbFrames, rig: LimbRig, sizes: LimbSizes, soles: Soles,
               work: LimbWork) -> None:  # pragma: no cover - compiled
    """Stage 1 for every frame ``f`` of ``frames``; writes into ``work``:

    ``chain (F, 3, L, 3)`` each limb's root, mid and tip (a detached tip where its lower bone
    carries it), ``feet (F, 2, 3)`` the ankle targets; with ``rig.source_has_toes``: ``toe
    (F, 2, 3)`` the source toe points (whatever the target has: a source foot's lift is its
    lowest point's, ankle or toe); with ``rig.has_toes``: ``toe_target (F, 2, 3)`` the
    mapped source toe, ``foot_vector (F, 2, 3)`` the target's ankle→toe after ``pitch (F, 2,
    4)``, ``offset (F, 2, 3)`` the flat-foot toe offset (horizontal), ``down (F, 2)`` whether
    the toe pivots on the floor, ``pivot (F, 2)`` how much the toes are the pivot,
    ``toe_height (F, 2)`` the source toe above its standing height and the capture's floor.
    A lift is measured from each source foot's stance level ``frames.level``.
    """
    frames, rig, sizes, work = LimbFrames(*frames), LimbRig(*rig), LimbSizes(*sizes), \
        LimbWork(*work)
    soles = Soles(*soles)
    world, gpos, srot, spos = frames.world, frames.gpos, frames.srot, frames.spos
    foot_shift, level = frames.foot_shift, frames.level
    pitch_state, pitch_step = frames.pitch_state, frames.pitch_step
    t_chain, s_chain, leg_sides = rig.target_chain, rig.source_chain, rig.leg_sides
    detached, tip_offsets, outward = rig.detached, rig.tip_offsets, rig.outward
    has_toes, t_toes, t_toe_offsets = rig.has_toes, rig.target_toes, rig.target_toe_offsets
    s_toes, s_toe_offsets = rig.source_toes, rig.source_toe_offsets
    heights, calibration_tips = sizes.standing_heights, sizes.calibration_tips
    chain, feet, toe, toe_target = work.chain, work.feet, work.toe, work.toe_target
    foot_vector, pitch, offset, down = work.foot_vector, work.pitch, work.offset, work.down
    pivot, toe_height = work.pivot, work.toe_height
    frame_count, limbs = gpos.shape[0], t_chain.shape[0]
    s = sizes.size_ratio
    floor = sizes.capture_floor
    front, out = sizes.foot_front, sizes.foot_out
    for f in range(frame_count):
        for k in range(limbs):
            for part in range(3):
                for c in range(3):
                    chain[f, part, k, c] = gpos[f, t_chain[k, part], c]
            if detached[k]:
                carried = add_s(_vec(chain[f, 1, k]),
                                rotate_s(_quat(world[t_chain[k, 1], f]),
                                         scale_s(_vec(tip_offsets[k]), sizes.avatar_scale)))
                _put(chain[f, 2, k], carried)
        for leg in range(2):
            source_foot = _vec(spos[f, s_chain[leg, 2]])
            side = leg_sides[leg]
            target = (source_foot[0] * s + foot_shift[f, leg, 0],
                      lifted(source_foot[1], heights[SOURCE_ANKLE, side] + level[f, side],
                             heights[TARGET_ANKLE, side], sizes),
                      source_foot[2] * s + foot_shift[f, leg, 2])
            if front != 0.0 or out != 0.0:
                tip = t_chain[leg, 2]
                turn = mul_s(_quat(world[tip, f]), inv_s(_quat(calibration_tips[leg])))
                shift = (out * outward[leg, 0], out * outward[leg, 1],
                         front + out * outward[leg, 2])
                target = add_s(target, rotate_s(turn, shift))
            source_toe = source_foot
            if rig.source_has_toes:
                source_toe = _toe_point(srot, spos, f, True, s_toes[leg, 0], s_toes[leg, 1],
                                        s_toe_offsets[leg], 1.0)
                _put(toe[f, leg], source_toe)
            if has_toes:
                heel_up = source_foot[1] - heights[SOURCE_ANKLE, leg] - level[f, leg] - floor
                height = source_toe[1] - heights[SOURCE_TOE, leg] - level[f, leg] - floor
                toe_up = ramp_s(height, TOE_DOWN, 0.06)
                share = ramp_s(heel_up, 0.005, 0.012) * (1.0 - toe_up)
                mapped = (source_toe[0] * s + foot_shift[f, leg, 0],
                          lifted(source_toe[1], heights[SOURCE_TOE, leg] + level[f, leg],
                                 heights[TARGET_TOE, leg], sizes),
                          source_toe[2] * s + foot_shift[f, leg, 2])
                ankle = _vec(gpos[f, t_chain[leg, 2]])
                vector = sub_s(_toe_point(world, gpos, f, False, t_toes[leg, 0], t_toes[leg, 1],
                                          t_toe_offsets[leg], sizes.avatar_scale), ankle)
                # the foot's own forward, level: across its lateral axis as the foot turns it
                lateral = rotate_s(_quat(world[t_chain[leg, 2], f]), _vec(rig.foot_lateral[leg]))
                heading = (lateral[2], 0.0, -lateral[0])
                toward = sub_s(source_toe, source_foot)
                turn = pitch_to_height(vector, mapped[1] - target[1], 1.0 - toe_up, heading,
                                       toward[0] * heading[0] + toward[2] * heading[2])
                if pitch_step > 0.0:
                    turn = _pitch_eased(turn, pitch_state, leg, pitch_step)
                # A foot on the floor is pitched about its contact patch, not its ankle: the
                # patch stays where the source's foot put it (a pitch turned about the ankle
                # slid CesiumMan's planted soles 10 cm/s where the source's moved 5).
                near = _near_floor(min(heel_up, height))
                if near > 0.0 and turn[0] < 1.0 - 1e-12:
                    foot = _quat(world[t_chain[leg, 2], f])
                    toe_joint = soles.toe_joints[leg]
                    toes = _quat(world[toe_joint, f]) if toe_joint >= 0 else foot
                    # (the toes keep their world rotation as the foot pitches)
                    shift = _patch_shift(foot, toes, mul_s(turn, foot), toes, leg,
                                         soles.foot_points, soles.toe_points,
                                         soles.toe_weights, soles.toe_offsets,
                                         sizes.avatar_scale, False)
                    target = sub_s(target, scale_s(shift, near))
                vector = rotate_s(turn, vector)
                _put(offset[f, leg], (target[0] + vector[0] - mapped[0], 0.0,
                                      target[2] + vector[2] - mapped[2]))
                down[f, leg] = share > 0.0 and height < TOE_DOWN
                pivot[f, leg] = share
                toe_height[f, leg] = height
                _put(toe_target[f, leg], mapped)
                _put(foot_vector[f, leg], vector)
                _put(pitch[f, leg], turn)
            _put(feet[f, leg], target)


@bundle_kernel(error_model="numpy")
def reach_stage(frames: LimbFrames, rig: LimbRig, sizes: LimbSizes, soles: Soles, patch: Soles,
                source_patch: Soles,
                work: LimbWork, held: FloatArray) -> None:  # pragma: no cover - compiled
    """Stage 2 for every frame: the toe pivot and lowest-point rule on the feet, the hips
    lowered; updates ``frames.world`` (the pitched feet), ``frames.local`` (the joint the hips
    hang from), ``frames.gpos`` and ``frames.hips`` in place where the hips drop. The feet
    rest on the target's ``soles``; with toe points a standing foot's contact patch is judged
    by ``patch`` (the target's points) and ``source_patch`` (the source's, at its own scale;
    see :func:`_hold_patch`), without by ``soles``.

    ``held (F, 2, 3)`` is added to the toe targets (the pivot's held offset); ``work`` holds
    the stage-1 arrays as :func:`feet_stage` wrote them. Writes the two-bone solver's input
    into ``work``: ``rows (5, F·L, 3)`` (root, mid, tip, target, pole of every limb of every
    frame; the legs' poles are their knees until the source's knee is copied) and ``weight
    (F·L,)``, and the knee copy's input for the legs: ``knee_input (5, F·2, 3)`` (source hip,
    knee, ankle; target hip, foot target) and ``knee_lengths (2, F·2)`` (target thigh and
    shin); ``sunk (F, 2)``: how far each foot's lowest sole point went below the floor.
    """
    frames, rig, sizes = LimbFrames(*frames), LimbRig(*rig), LimbSizes(*sizes)
    soles, work = Soles(*soles), LimbWork(*work)
    patch, source_patch = Soles(*patch), Soles(*source_patch)
    world, local, gpos, spos = frames.world, frames.local, frames.gpos, frames.spos
    srot = frames.srot
    hips_pos, leg_weights, arm_weights = frames.hips, frames.leg_weights, frames.arm_weights
    level = frames.level
    t_chain, s_chain, hips_source = rig.target_chain, rig.source_chain, rig.source_hips
    source_leg_lengths, parents, mover = rig.source_leg_lengths, rig.parents, rig.mover
    under_mover, has_toes, hand_reach = rig.under_mover, rig.has_toes, rig.hand_reach
    heights = sizes.standing_heights
    foot_points, toe_points, toe_weights = soles.foot_points, soles.toe_points, \
        soles.toe_weights
    toe_joints, toe_offsets = soles.toe_joints, soles.toe_offsets
    chain, feet, toe, toe_target = work.chain, work.feet, work.toe, work.toe_target
    foot_vector, pitch, pivot, toe_height = work.foot_vector, work.pitch, work.pivot, \
        work.toe_height
    rows, weight, knee_input, knee_lengths = work.rows, work.weight, work.knee_input, \
        work.knee_lengths
    sunk = work.sunk
    frame_count, limbs = gpos.shape[0], t_chain.shape[0]
    s = sizes.size_ratio
    floor = sizes.capture_floor
    for f in range(frame_count):
        if has_toes:
            for leg in range(2):
                mapped = add_s(_vec(toe_target[f, leg]), _vec(held[f, leg]))
                vector = _vec(foot_vector[f, leg])
                target = _vec(feet[f, leg])
                target = add_s(target, scale_s(sub_s(sub_s(mapped, vector), target),
                                               pivot[f, leg]))
                ankle_target = target[1] - standing(heights[TARGET_ANKLE, leg], sizes)
                toe_end = target[1] + vector[1] - standing(heights[TARGET_TOE, leg], sizes)
                lowest_source = min(spos[f, s_chain[leg, 2], 1] - heights[SOURCE_ANKLE, leg],
                                    toe[f, leg, 1] - heights[SOURCE_TOE, leg]) - floor \
                    - level[f, leg]
                y = target[1] + (contact_lift(lowest_source, s) - min(ankle_target, toe_end))
                dip = mapped[1] - (y + vector[1])
                y += min(max(dip, 0.0), MAX_TOE_RAISE) * ramp_s(toe_height[f, leg], 0.01, 0.03)
                _put(feet[f, leg], (target[0], y, target[2]))
                tip = t_chain[leg, 2]
                _put(world[tip, f], mul_s(_quat(pitch[f, leg]), _quat(world[tip, f])))
        # A long foot's toes dropped no more than the source's, scaled (kneeling too). The
        # turn follows the source foot's pitch; frames in order change it by at most the source
        # foot's own turn + LONG_FOOT_STEP a frame (the toes' PITCH_SPEED lagged: the toes
        # dropped and the sole rule lifted the ankle at every push-off). Pitch state rows 2–3:
        # the last turn, rows 4–5: the source foot's last world rotation.
        for leg in range(2):
            tip = t_chain[leg, 2]
            foot = _quat(world[tip, f])
            turn = long_foot(foot, _vec(rig.foot_forward[leg]), _vec(rig.foot_lateral[leg]),
                             rig.sole_reach[leg] * sizes.avatar_scale,
                             rig.source_toe_reach[leg], s)
            if frames.pitch_step > 0.0:
                state = frames.pitch_state
                source = _quat(srot[f, s_chain[leg, 2]])
                moved = 0.0
                if state[4 + leg, 0] <= 1.0:
                    moved = 2.0 * math.acos(min(abs(mul_s(source, inv_s(
                        _quat(state[4 + leg])))[0]), 1.0))
                _put(state[4 + leg], source)
                turn = _pitch_eased(turn, state, 2 + leg, moved + LONG_FOOT_STEP)
            if turn[0] < 1.0 - 1e-15:
                _put(world[tip, f], mul_s(turn, foot))
        # A standing foot turns about its contact patch, not its ankle (with toe points to
        # follow, its patch moves as the source's; without, on the soles it stands on).
        if frames.frame_time > 0.0:
            for leg in range(2):
                ankle_at = _vec(spos[f, s_chain[leg, 2]])
                ankle_lift = ankle_at[1] - heights[SOURCE_ANKLE, leg] - level[f, leg] - floor
                toe_at, toe_lift = ankle_at, ankle_lift
                if rig.source_has_toes:
                    toe_at = _toe_point(srot, spos, f, True, rig.source_toes[leg, 0],
                                        rig.source_toes[leg, 1], rig.source_toe_offsets[leg],
                                        1.0)
                    toe_lift = toe_at[1] - heights[SOURCE_TOE, leg] - level[f, leg] - floor
                # a kneeling leg is left alone (its foot turns with the shin on the floor):
                # its knee's height over the sole under the foot's lowest point (a stance
                # level learnt standing may lie centimetres off in a kneel)
                knee = (spos[f, s_chain[leg, 1], 1] - min(ankle_lift, toe_lift) - level[f, leg]
                        - floor)
                tip_at, tip_lift = toe_at, toe_lift
                if rig.source_tips[leg] >= 0:
                    tip_at = _toe_point(srot, spos, f, True, rig.source_tips[leg], -1,
                                        rig.source_tip_offsets[leg], 1.0)
                    tip_lift = toe_lift + tip_at[1] - toe_at[1] - rig.source_tip_rise[leg]
                foot = _quat(world[t_chain[leg, 2], f])
                points = patch if has_toes else soles
                toe_joint = points.toe_joints[leg]
                source_foot = _quat(srot[f, s_chain[leg, 2]])
                source_toe = source_patch.toe_joints[leg]
                turns = (foot, _quat(world[toe_joint, f]) if toe_joint >= 0 else foot,
                         source_foot,
                         _quat(srot[f, source_toe]) if source_toe >= 0 else source_foot)
                # how upright the leg stands: a kneeling leg's foot is held for at least the
                # share of its patch's swing that its length beyond the source's adds; a locked
                # one (no toe points to follow) for the share long_foot pitches it its own way:
                # flatter than the source's, it does not pivot on its toes as the performer's
                # foot does, and the unheld rest slides its patch by the ankle's whole step
                # (held 72 %, RobotExpressive's slid 7.8 cm in cmu_131_01's kneel where the
                # performer's toes moved 0.6, scaled)
                reach = rig.sole_reach[leg] * sizes.avatar_scale
                kneel_hold = excess_share(reach, rig.source_toe_reach[leg], s)
                if not has_toes:
                    kneel_hold = max(kneel_hold, long_share(reach, rig.source_toe_reach[leg], s,
                                                            (LONG_FOOT_START, LONG_FOOT)))
                kneeling = kneeling_s(knee, source_leg_lengths[leg])
                upright = max(1.0 - kneeling, kneel_hold)
                x, z = _hold_patch(frames.patch_state, leg, turns, _vec(feet[f, leg]),
                                   ankle_at, toe_at, tip_at, ankle_lift, toe_lift, tip_lift,
                                   rig.source_has_toes, has_toes, upright,
                                   points, source_patch,
                                   sizes.avatar_scale, s, s * source_leg_lengths[leg],
                                   frames.frame_time, kneeling)
                feet[f, leg, 0], feet[f, leg, 2] = x, z
        # The sole, not the joints, on the floor: near the floor the foot's lowest sole point
        # (as the foot is turned now) is put at the source's lift, so a planted foot rests on
        # its sole however its joints sit; no sole point ever below the floor, and a leg on FK
        # whose foot would go through the floor is handed to IK.
        for leg in range(2):
            lowest = _lowest_sole(world, f, t_chain[leg, 2], leg, foot_points, toe_points,
                                  toe_weights, toe_joints, toe_offsets, sizes.avatar_scale)
            lift = _source_lift(spos, toe, heights, level, s_chain, f, leg, floor,
                                rig.source_has_toes)
            near = _near_floor(lift)
            wanted = sizes.floor_height + contact_lift(lift, s)
            feet[f, leg, 1] += near * (wanted - (feet[f, leg, 1] + lowest))
            below = sizes.floor_height - (feet[f, leg, 1] + lowest)
            sunk[f, leg] = sizes.floor_height - (chain[f, 2, leg, 1] + lowest)
            if below > 0.0:
                feet[f, leg, 1] += below
                # raised off the floor: solved in full (a part-FK blend of the two leg
                # rotations can swing the foot lower than either end)
                sunk[f, leg] = max(sunk[f, leg], FK_SINK)
        # Lower (never raise) the hips where a foot on IK could not be reached.
        drop = 0.0
        for leg in range(2):
            root, mid, tip = _vec(chain[f, 0, leg]), _vec(chain[f, 1, leg]), _vec(chain[f, 2, leg])
            length = norm_s(sub_s(mid, root)) + norm_s(sub_s(tip, mid))
            extension = (norm_s(sub_s(_vec(spos[f, s_chain[leg, 2]]),
                                      _vec(spos[f, s_chain[leg, 0]])))
                         / source_leg_lengths[leg])
            reach = min(max(extension, REACH), 1.0) * length
            across = (root[0] - feet[f, leg, 0]) ** 2 + (root[2] - feet[f, leg, 2]) ** 2
            highest = feet[f, leg, 1] + math.sqrt(max(reach * reach - across, 0.0))
            # a foot on (or near) the floor is reached in full, whatever its IK weight
            share = max(leg_weights[f, leg], sizes.fk_guard * _near_floor(
                _source_lift(spos, toe, heights, level, s_chain, f, leg, floor,
                             rig.source_has_toes)))
            drop = max(drop, max(root[1] - highest, 0.0) * share)
        if drop > 1e-9:
            for part in range(3):
                for k in range(limbs):
                    chain[f, part, k, 1] -= drop
            for j in range(under_mover.shape[0]):
                if under_mover[j]:
                    gpos[f, j, 1] -= drop
            hips_pos[f, 1] -= drop
            parent = parents[mover]
            down = (0.0, -drop, 0.0)
            if parent >= 0:
                down = rotate_s(inv_s(_quat(world[parent, f])), down)
            _put(local[mover, f], add_s(_vec(local[mover, f]), down))
        # The solver's rows: root, mid, tip, target, pole; legs reach the feet with the knee
        # copied from the source, hands follow the source's relative to the hips, scaled.
        hips = _vec(hips_pos[f])
        source_hips = _vec(spos[f, hips_source])
        for k in range(limbs):
            row = f * limbs + k
            root, mid, tip = _vec(chain[f, 0, k]), _vec(chain[f, 1, k]), _vec(chain[f, 2, k])
            pole = mid  # legs: replaced by the knee copied from the source (see ``Limbs.solve``)
            if k < 2:
                target = _vec(feet[f, k])
                leg = f * 2 + k
                for c in range(3):
                    knee_input[0, leg, c] = spos[f, s_chain[k, 0], c]
                    knee_input[1, leg, c] = spos[f, s_chain[k, 1], c]
                    knee_input[2, leg, c] = spos[f, s_chain[k, 2], c]
                    knee_input[3, leg, c] = root[c]
                    knee_input[4, leg, c] = target[c]
                knee_lengths[0, leg] = norm_s(sub_s(mid, root))
                knee_lengths[1, leg] = norm_s(sub_s(tip, mid))
                near = _near_floor(_source_lift(spos, toe, heights, level, s_chain, f, k, floor,
                                                rig.source_has_toes))
                share = max(leg_weights[f, k], sizes.fk_guard
                            * max(ramp_s(sunk[f, k], 0.0, FK_SINK), near))
            else:
                target = add_s(hips, scale_s(sub_s(_vec(spos[f, s_chain[k, 2]]), source_hips), s))
                share = arm_weights[f, k - 2]
                # The hand (everything within its reach of the wrist) above the floor: the
                # target raised, and an arm on FK whose hand would go through it handed to IK.
                lowest = sizes.floor_height + hand_reach[k - 2] * sizes.avatar_scale
                if target[1] < lowest:
                    target = (target[0], lowest, target[2])
                share = max(share, sizes.fk_guard * ramp_s(lowest - tip[1], 0.0, FK_SINK))
            for c, point in enumerate((root, mid, tip, target, pole)):
                _put(rows[c, row], point)
            weight[row] = 0.0 if norm_s(sub_s(tip, target)) < DO_NO_HARM else share


@kernel(error_model="numpy")
def turn_stage(
    world: FloatArray, local: FloatArray, gpos: FloatArray, t_chain: IntArray,
    parents: IntArray, turned_joints: IntArray, turned_rows: IntArray, group_ends: IntArray,
    detached_rows: IntArray, upper: FloatArray, lower: FloatArray, solved_tip: FloatArray,
) -> None:
    """Stage 3: the two-bone solver's deltas ``upper``/``lower (F·L, 4)`` applied to the limb
    joints of ``world (J, F, 4)``, and detached tips placed at ``solved_tip (F·L, 3)`` in
    ``local``. ``turned_joints``/``turned_rows``: the joints each delta turns (rows ``0..L``
    upper deltas, ``L..2L`` lower), in groups ending at ``group_ends`` (a joint turned twice is
    turned by its upper delta first)."""
    frames, limbs = gpos.shape[0], t_chain.shape[0]
    turned = np.empty((turned_joints.shape[0], 4))
    for f in range(frames):
        start = 0
        for end in group_ends:
            for i in range(start, end):  # every product from the group's old rotations
                r = turned_rows[i]
                delta = (_quat(upper[f * limbs + r]) if r < limbs
                         else _quat(lower[f * limbs + r - limbs]))
                _put(turned[i], mul_s(delta, _quat(world[turned_joints[i], f])))
            for i in range(start, end):
                _put(world[turned_joints[i], f], _quat(turned[i]))
            start = end
        for k in detached_rows:
            joint = t_chain[k, 2]
            parent = parents[joint]
            place = _vec(solved_tip[f * limbs + k])
            if parent >= 0:
                place = rotate_s(inv_s(_quat(world[parent, f])),
                                 sub_s(place, _vec(gpos[f, parent])))
            _put(local[joint, f], place)
