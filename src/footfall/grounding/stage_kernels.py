"""Compiled stages of the grounding pipeline: one loop over rows and feet per stage (private).

:class:`~footfall.grounding.pipeline.GroundingPipeline` runs N = T·K rows (frame-major: row
``t·K + k`` is character k at frame t) through its named stages; each stage's per-foot maths is
one of these kernels, reading the pose arrays where they lie (joint indices) and writing
preallocated outputs, so a crowd makes no temporaries. The stages take the named bundles of
:mod:`~footfall.grounding.stage_rows` (each names them again on entry:
:func:`footfall.jit.bundle_kernel`). Per-character parameters are ``(K,)`` arrays read at
``k = n mod K``. The maths is the scalar forms (``*_s``) it imports.
"""

from __future__ import annotations

import math

from footfall.arrays import BoolArray, FloatArray
from footfall.grounding.foot_align import align_rotation_s, ankle_lift_s, heading_s, slope_angles_s
from footfall.grounding.footsteps import swing_height_s
from footfall.grounding.hips import follow_s, reach_limit_s
from footfall.grounding.stage_rows import (
    FollowState,
    FootLocks,
    FootTargets,
    Given,
    LegRig,
    LiftedLegs,
    PoseRows,
    SoleReport,
    StageParams,
)
from footfall.grounding.standing import rest_height_s
from footfall.jit import bundle_kernel, bundle_part, kernel
from footfall.quat import inv_s, max_nan, min_nan, mul_s, rotate_s
from footfall.ramps import smoothstep_s

# What each stage reads of its bundles (footfall.jit.bundle_part): a stage is handed only
# these (every array handed is unboxed on each call, read or not: a one-character frame paid
# ~30 µs for whole bundles), and names them on entry.
_FeetRows = bundle_part(PoseRows, "grot", "gpos", "foot_rot", "ankle", "forward")
_FeetRig = bundle_part(LegRig, "foot", "foot_forward")
_TurnLocks = bundle_part(FootLocks, "has_turn", "turn", "weight")
_TargetRows = bundle_part(PoseRows, "ankle", "stance", "swing", "gpos")
_HipsRig = bundle_part(LegRig, "hips")
_PullLocks = bundle_part(FootLocks, "has_lock", "xz", "weight")
_GroundRows = bundle_part(PoseRows, "ankle", "stance", "swing", "forward")
_GroundRig = bundle_part(LegRig, "leg_length", "ankle_height")
_GroundParams = bundle_part(StageParams, "ik_on", "max_step_ratio", "foot_align",
                            "steep_normal_y", "max_slope", "smoothing", "align_rate", "dt")
_GivenSoles = bundle_part(Given, "has_sole_angles", "sole_angles", "has_foot_lift", "foot_lift")
_AngleState = bundle_part(FollowState, "angles")
_LiftRows = bundle_part(PoseRows, "gpos", "positions")
_LiftTargets = bundle_part(FootTargets, "ankle", "body_ground")
_LiftRig = bundle_part(LegRig, "root", "hips", "upper", "lower", "foot", "leg_length")
_LiftParams = bundle_part(StageParams, "lowering", "reach_ratio", "max_reach", "smoothing",
                          "hips_rate", "hips_snap", "dt")
_GivenHips = bundle_part(Given, "has_hips_offset", "hips_offset")
_HipsState = bundle_part(FollowState, "hips")
_JointRig = bundle_part(LegRig, "upper", "lower", "foot", "hip_parent")
_SoleRig = bundle_part(LegRig, "foot", "below_ankle")
_ReachRig = bundle_part(LegRig, "leg_length")
_IkParams = bundle_part(StageParams, "ik_on")
_ReportTargets = bundle_part(FootTargets, "offset", "ankle", "angles")


@bundle_kernel(reads={"rows": _FeetRows, "rig": _FeetRig, "locks": _TurnLocks},
               error_model="numpy", nogil=True)
def feet_frame(rows: PoseRows, rig: LegRig, locks: FootLocks) -> None:  # pragma: no cover
    """The feet's world rotations ``rows.foot_rot (N, 2, 4)`` (turned by ``locks.turn ·
    locks.weight`` about +Y when ``locks.has_turn``), animated ankles ``rows.ankle (N, 2, 3)``
    and heading ``rows.forward (N, 2, 3)`` (unit horizontal toe direction) from the legs'
    global pose ``rows.grot``, ``rows.gpos (N, J, ·)``."""
    rows, rig, locks = _FeetRows(*rows), _FeetRig(*rig), _TurnLocks(*locks)
    grot, gpos, foot, foot_forward = rows.grot, rows.gpos, rig.foot, rig.foot_forward
    has_turn, lock_turn, lock_weight = locks.has_turn, locks.turn, locks.weight
    foot_rot, ankle, forward = rows.foot_rot, rows.ankle, rows.forward
    for n in range(grot.shape[0]):
        for f in range(2):
            j = foot[f]
            q = (grot[n, j, 0], grot[n, j, 1], grot[n, j, 2], grot[n, j, 3])
            if has_turn:
                half = 0.5 * (lock_turn[n, f] * lock_weight[n, f])
                sine = math.sin(half)
                q = mul_s((math.cos(half), sine * 0.0, sine * 1.0, sine * 0.0), q)
            for c in range(4):
                foot_rot[n, f, c] = q[c]
            for c in range(3):
                ankle[n, f, c] = gpos[n, j, c]
            toe = rotate_s(q, (foot_forward[f, 0], foot_forward[f, 1], foot_forward[f, 2]))
            heading, _ = heading_s(toe)
            for c in range(3):
                forward[n, f, c] = heading[c]


@kernel(error_model="numpy", nogil=True)
def footstep_lookup(plant_xz: FloatArray, next_xz: FloatArray, cache_keys: FloatArray,
                    cache_values: FloatArray, snap: BoolArray, keys: FloatArray,
                    values: FloatArray, known: BoolArray) -> None:  # pragma: no cover
    """The footsteps ``plant_xz``, ``next_xz (N, 2, 2)`` as ``keys (N, 2, 2, 2)`` (foot,
    plant/next, xz) and which of them the last call's cache holds (``(K, 2, 2, 2)`` keys,
    ``(K, 2, 2, V)`` values: shift xz, height, hit, snapped, then what the footstep stands on)
    with the same snap switch ``snap (K,)``: their cached ``values (N, 2, 2, V)``, ``known
    (N, 2, 2)`` (the current plant slot tried first)."""
    k = cache_keys.shape[0]
    for n in range(keys.shape[0]):
        c = n % k
        flag = 1.0 if snap[c] else 0.0
        for f in range(2):
            for a in range(2):
                keys[n, f, 0, a] = plant_xz[n, f, a]
                keys[n, f, 1, a] = next_xz[n, f, a]
            for w in range(2):
                known[n, f, w] = False
                for v in range(values.shape[3]):
                    values[n, f, w, v] = 0.0
                for slot in range(2):
                    if (keys[n, f, w, 0] == cache_keys[c, f, slot, 0]
                            and keys[n, f, w, 1] == cache_keys[c, f, slot, 1]
                            and cache_values[c, f, slot, 4] == flag):
                        for v in range(values.shape[3]):
                            values[n, f, w, v] = cache_values[c, f, slot, v]
                        known[n, f, w] = True
                        break


@bundle_kernel(reads={"rows": _TargetRows, "rig": _HipsRig, "locks": _PullLocks},
               error_model="numpy", nogil=True)
def foot_targets(rows: PoseRows, rig: LegRig, locks: FootLocks, steps: FloatArray,
                 target: FloatArray, ray_xz: FloatArray) -> None:  # pragma: no cover
    """Ankle targets ``target (N, 2, 3)`` (xz moved by the snapped footsteps ``steps
    (N, 2, 2, V)``: the current one's shift while planted, eased towards the next one's over the
    swing, then pulled to the foot locks) and the ray points ``ray_xz (N, 3, 2)``: under the
    body (its hips joint), then under each target."""
    rows, rig, locks = _TargetRows(*rows), _HipsRig(*rig), _PullLocks(*locks)
    ankle, stance, swing, gpos, hips = rows.ankle, rows.stance, rows.swing, rows.gpos, \
        rig.hips
    has_lock, lock_xz, lock_weight = locks.has_lock, locks.xz, locks.weight
    for n in range(ankle.shape[0]):
        ray_xz[n, 0, 0] = gpos[n, hips, 0]
        ray_xz[n, 0, 1] = gpos[n, hips, 2]
        for f in range(2):
            eased = smoothstep_s(swing[n, f])
            for a in range(2):
                axis = 2 * a  # x, z
                here = steps[n, f, 0, a]
                shift = here if stance[n, f] else here + (steps[n, f, 1, a] - here) * eased
                value = ankle[n, f, axis] + shift
                if has_lock:
                    locked = lock_xz[n, f, a] + here
                    value += (locked - value) * lock_weight[n, f]
                target[n, f, axis] = value
                ray_xz[n, 1 + f, a] = value
            target[n, f, 1] = ankle[n, f, 1]


@bundle_kernel(reads={"rows": _GroundRows, "targets": FootTargets, "rig": _GroundRig,
                      "params": _GroundParams, "given": _GivenSoles, "state": _AngleState},
               error_model="numpy", nogil=True)
def ground_and_soles(rows: PoseRows, targets: FootTargets, rig: LegRig, params: StageParams,
                     given: Given, state: FollowState) -> None:  # pragma: no cover - compiled
    """Which feet are grounded, their vertical offset and sole angles; completes the targets.

    The ray answers ``targets.hit (N, 3)``, ``targets.point``, ``targets.normal (N, 3, 3)``
    (body, left, right) give the ground under the body ``targets.body_ground (N,)`` and under
    each foot (planted: its ray; swinging: the swing curve between the two footsteps' heights
    in ``targets.steps``). A foot is grounded when its character has IK on and that ground is
    found and within ``max_step_ratio`` leg lengths of the body's; else (with IK) it falls back
    to the animated foot (``targets.fallback``). The sole (pitch, roll) ``targets.angles
    (N, 2, 2)`` follow their goal (slope under the foot, faded over the swing, where aligned)
    frame by frame from ``state.angles (K, 2, 2)`` (updated in place), or are the given ones;
    the target heights ``targets.ankle`` become ankle + ``targets.offset`` + the tilt's lift
    (+ ``given.foot_lift``). A planted foot whose sole is aligned stands on
    ``targets.standing`` (pitch, found, the ground under its sole samples at
    ``targets.sole_along`` metres ahead of the ankle:
    :func:`footfall.grounding.standing.standing_ground`) instead of the ray under its ankle and
    that ray's slope: pitched towards that pitch, it rests on the highest of them."""
    rows, targets, rig = _GroundRows(*rows), FootTargets(*targets), _GroundRig(*rig)
    params, given, state = _GroundParams(*params), _GivenSoles(*given), _AngleState(*state)
    ankle, stance, swing, forward = rows.ankle, rows.stance, rows.swing, rows.forward
    steps, hit, point, normal = targets.steps, targets.hit, targets.point, targets.normal
    standing, sole_along, target = targets.standing, targets.sole_along, targets.ankle
    body_ground, offset, fallback, angles = targets.body_ground, targets.offset, \
        targets.fallback, targets.angles
    ik_on, max_step_ratio, foot_align = params.ik_on, params.max_step_ratio, params.foot_align
    steep_normal_y, max_slope, smoothing = params.steep_normal_y, params.max_slope, \
        params.smoothing
    align_rate, dt = params.align_rate, params.dt
    leg_length, ankle_height = rig.leg_length, rig.ankle_height
    has_angles, given_angles = given.has_sole_angles, given.sole_angles
    has_lift, foot_lift = given.has_foot_lift, given.foot_lift
    angle_state = state.angles
    k = angle_state.shape[0]
    frames = ankle.shape[0] // k
    for t in range(frames):
        for c in range(k):
            n = t * k + c
            body = point[n, 0, 1] if hit[n, 0] else 0.0
            body_ground[n] = body
            rate = align_rate[c] if smoothing[c] else math.inf
            blend = -math.expm1(-rate * dt)
            for f in range(2):
                start, end = steps[n, f, 0, 2], steps[n, f, 1, 2]
                stands = stance[n, f] and foot_align[c] and standing[n, f, 1] > 0.5
                if stance[n, f]:
                    ground = point[n, 1 + f, 1]
                    found = hit[n, 1 + f]
                else:
                    ground = swing_height_s(start, end, swing[n, f], 0.0, 0.0)
                    found = steps[n, f, 0, 3] > 0.5 and steps[n, f, 1, 3] > 0.5
                reachable = found and (
                    abs(ground - body) <= max_step_ratio[c] * leg_length[f])
                on = ik_on[c] and reachable
                fallback[n, f] = ik_on[c] and not reachable
                if not on:
                    target[n, f, 0] = ankle[n, f, 0]
                    target[n, f, 2] = ankle[n, f, 2]
                offset[n, f] = ground if on else body
                # Sole angles: the goal, then the filter (or the given angles).
                pitch, roll = slope_angles_s(
                    (normal[n, 1 + f, 0], normal[n, 1 + f, 1], normal[n, 1 + f, 2]),
                    (forward[n, f, 0], forward[n, f, 1], forward[n, f, 2]),
                    steep_normal_y[c], max_slope[c])
                if stands:
                    pitch = standing[n, f, 0]
                fade = 1.0 if stance[n, f] else abs(math.cos(math.pi * swing[n, f]))
                aligned = on and foot_align[c] and hit[n, 1 + f]
                scale = fade if aligned else 0.0
                for a, goal in enumerate((pitch * scale, roll * scale)):
                    followed = angle_state[c, f, a]
                    followed = (goal if math.isinf(rate)
                                else followed + (goal - followed) * blend)
                    angle_state[c, f, a] = followed
                    if has_angles:
                        followed = given_angles[n, f, a] if aligned else 0.0
                    angles[n, f, a] = followed
                if stands and on:  # resting at the pitch it has, on the ground along its sole
                    offset[n, f] = rest_height_s(standing[n, f, 2:], sole_along[n, f],
                                                 angles[n, f, 0], ground)
                lift = 0.0  # level soles: ankle_lift_s gives exactly 0
                if angles[n, f, 0] != 0.0 or angles[n, f, 1] != 0.0:
                    lift = ankle_lift_s(angles[n, f, 0], angles[n, f, 1], ankle_height[f])
                height = ankle[n, f, 1] + offset[n, f] + lift
                if has_lift:
                    height += foot_lift[n, f] if on else 0.0
                target[n, f, 1] = height


@bundle_kernel(reads={"rows": _LiftRows, "targets": _LiftTargets, "rig": _LiftRig,
                      "params": _LiftParams, "given": _GivenHips, "state": _HipsState,
                      "legs": LiftedLegs},
               error_model="numpy", nogil=True)
def hips_follow(rows: PoseRows, targets: FootTargets, rig: LegRig, params: StageParams,
                  given: Given, state: FollowState, legs: LiftedLegs
                  ) -> None:  # pragma: no cover - compiled
    """The offset ``legs.hips_offset (N,)`` of the hips joint: never above the animated
    height over the body's ground ``targets.body_ground``, lowered (where ``params.lowering``)
    so the legs reach their targets ``targets.ankle`` (at full stretch always), followed from
    ``state.hips (K,)`` (updated in place) or given (``given.hips_offset``). Lifts the
    root of ``rows.positions`` (``rows.gpos`` is only read: the final FK lifts the body) and
    writes the lifted ``legs.hip``, ``legs.knee``, ``legs.ankle`` and ``legs.max_reach``."""
    rows, targets, rig = _LiftRows(*rows), _LiftTargets(*targets), _LiftRig(*rig)
    params, given, state = _LiftParams(*params), _GivenHips(*given), _HipsState(*state)
    legs = LiftedLegs(*legs)
    gpos, positions = rows.gpos, rows.positions
    root, hips, upper, lower, foot = rig.root, rig.hips, rig.upper, rig.lower, rig.foot
    leg_length, target, body_ground = rig.leg_length, targets.ankle, targets.body_ground
    lowering, reach_ratio, max_reach = params.lowering, params.reach_ratio, params.max_reach
    smoothing, hips_rate, hips_snap = params.smoothing, params.hips_rate, \
        params.hips_snap
    dt, has_given, given_offset = params.dt, given.has_hips_offset, given.hips_offset
    hips_offset, hip, knee, ankle, reach_rows = legs.hips_offset, legs.hip, legs.knee, \
        legs.ankle, legs.max_reach
    hips_state = state.hips
    k = hips_state.shape[0]
    frames = gpos.shape[0] // k
    for t in range(frames):
        for c in range(k):
            n = t * k + c
            hips_y = gpos[n, hips, 1]
            lowest = math.inf
            hardest = math.inf
            for f in range(2):
                h, a = upper[f], foot[f]
                hip_at = (gpos[n, h, 0], gpos[n, h, 1], gpos[n, h, 2])
                dx, dy, dz = gpos[n, a, 0] - hip_at[0], gpos[n, a, 1] - hip_at[1], \
                    gpos[n, a, 2] - hip_at[2]
                span = math.sqrt(dx * dx + dy * dy + dz * dz)
                leg = leg_length[f]
                reach = min_nan(max_nan(reach_ratio[c] * leg, span), max_reach[c] * leg)
                goal = (target[n, f, 0], target[n, f, 1], target[n, f, 2])
                limit = reach_limit_s(goal, hip_at, hips_y, reach)
                stretch = reach_limit_s(goal, hip_at, hips_y, max_reach[c] * leg * 0.9999)
                lowest = limit if f == 0 else min_nan(lowest, limit)
                hardest = stretch if f == 0 else min_nan(hardest, stretch)
            hips_goal = body_ground[n]
            if lowering[c]:
                hips_goal = min_nan(body_ground[n], lowest - hips_y)
            rate = hips_rate[c] if smoothing[c] else math.inf
            smoothed = (given_offset[n] if has_given
                        else follow_s(hips_state[c], hips_goal, rate, hips_snap[c], dt))
            value = min_nan(smoothed, hardest - hips_y) if lowering[c] else smoothed
            hips_state[c] = value
            hips_offset[n] = value
            positions[n, root, 1] += value
            for f in range(2):
                reach_rows[n, f] = max_reach[c]
                for axis in range(3):
                    hip[n, f, axis] = gpos[n, upper[f], axis]
                    knee[n, f, axis] = gpos[n, lower[f], axis]
                    ankle[n, f, axis] = gpos[n, foot[f], axis]
                hip[n, f, 1] += value
                knee[n, f, 1] += value
                ankle[n, f, 1] += value


@bundle_kernel(reads={"rig": _JointRig}, error_model="numpy", nogil=True)
def leg_rotations(rig: LegRig, grot: FloatArray, rotations: FloatArray, upper_delta: FloatArray,
                  lower_delta: FloatArray, foot_rot: FloatArray, tilt: bool, angles: FloatArray,
                  forward: FloatArray, ik_on: BoolArray) -> None:  # pragma: no cover
    """Writes the solved legs into the local ``rotations (N, J, 4)`` of rows with IK on
    (``ik_on (K,)``): the IK deltas ``upper_delta``, ``lower_delta (N, 2, 4)`` applied to the
    legs' world rotations, the foot keeping its world rotation ``foot_rot (N, 2, 4)`` — tilted
    by the sole ``angles (N, 2, 2)`` under ``forward (N, 2, 3)`` when ``tilt`` (else those two
    are not read). ``grot`` is the legs' world pose before the IK, ``(N, J, 4)`` or
    ``(1, J, 4)`` for every row."""
    rig = _JointRig(*rig)
    upper, lower, foot, hip_parent = rig.upper, rig.lower, rig.foot, rig.hip_parent
    k = ik_on.shape[0]
    per_row = grot.shape[0] > 1
    for n in range(rotations.shape[0]):
        if not ik_on[n % k]:
            continue
        g = n if per_row else 0
        for f in range(2):
            u, m, a, p = upper[f], lower[f], foot[f], hip_parent[f]
            upper_rot = mul_s((upper_delta[n, f, 0], upper_delta[n, f, 1],
                               upper_delta[n, f, 2], upper_delta[n, f, 3]),
                              (grot[g, u, 0], grot[g, u, 1], grot[g, u, 2], grot[g, u, 3]))
            lower_rot = mul_s((lower_delta[n, f, 0], lower_delta[n, f, 1],
                               lower_delta[n, f, 2], lower_delta[n, f, 3]),
                              (grot[g, m, 0], grot[g, m, 1], grot[g, m, 2], grot[g, m, 3]))
            foot_goal = (foot_rot[n, f, 0], foot_rot[n, f, 1], foot_rot[n, f, 2],
                         foot_rot[n, f, 3])
            if tilt and (angles[n, f, 0] != 0.0 or angles[n, f, 1] != 0.0):
                # (Level soles: the tilt is the identity, whose product changes no value.)
                turn = align_rotation_s(angles[n, f, 0], angles[n, f, 1],
                                        (forward[n, f, 0], forward[n, f, 1], forward[n, f, 2]))
                foot_goal = mul_s(turn, foot_goal)
            parent = (grot[g, p, 0], grot[g, p, 1], grot[g, p, 2], grot[g, p, 3])
            local_upper = mul_s(inv_s(parent), upper_rot)
            local_lower = mul_s(inv_s(upper_rot), lower_rot)
            local_foot = mul_s(inv_s(lower_rot), foot_goal)
            for c in range(4):
                rotations[n, u, c] = local_upper[c]
                rotations[n, m, c] = local_lower[c]
                rotations[n, a, c] = local_foot[c]


@bundle_kernel(reads={"rig": _SoleRig}, error_model="numpy", nogil=True)
def sole_points(rig: LegRig, grot: FloatArray, gpos: FloatArray, sole: FloatArray,
                sole_xz: FloatArray) -> None:  # pragma: no cover - compiled
    """World sole points ``sole (N, 2, 3)`` under each ankle of the solved pose ``grot``,
    ``gpos (N, J, ·)`` and their ``(x, z)`` ``sole_xz (N, 2, 2)`` for the rays."""
    rig = _SoleRig(*rig)
    foot, below_ankle = rig.foot, rig.below_ankle
    for n in range(grot.shape[0]):
        for f in range(2):
            j = foot[f]
            step = rotate_s((grot[n, j, 0], grot[n, j, 1], grot[n, j, 2], grot[n, j, 3]),
                            (below_ankle[f, 0], below_ankle[f, 1], below_ankle[f, 2]))
            for c in range(3):
                sole[n, f, c] = gpos[n, j, c] + step[c]
            sole_xz[n, f, 0] = sole[n, f, 0]
            sole_xz[n, f, 1] = sole[n, f, 2]


@bundle_kernel(reads={"rig": _ReachRig, "params": _IkParams, "targets": _ReportTargets,
                      "report": SoleReport}, error_model="numpy", nogil=True)
def sole_report(rig: LegRig, params: StageParams, targets: FootTargets, sole: FloatArray,
                sole_hit: BoolArray, sole_point: FloatArray, report: SoleReport
                ) -> None:  # pragma: no cover - compiled
    """What the frame reports per foot (``report``): the ground ``under (N, 2)`` each sole
    point ``sole (N, 2, 3)`` (its ray ``sole_hit (N, 2)``, ``sole_point (N, 2, 3)``, or the
    target's offset where it missed), the sole's gap to it, the ray drawn from 1.5 leg lengths
    above the target to that ground, and the sole angles applied (0 without IK)."""
    rig, params, targets = _ReachRig(*rig), _IkParams(*params), _ReportTargets(*targets)
    report = SoleReport(*report)
    hit, point, offset, target = sole_hit, sole_point, targets.offset, targets.ankle
    leg_length, ik_on, angles = rig.leg_length, params.ik_on, targets.angles
    under, sole_gap, ray_origin, ray_hit = report.under, report.sole_gap, report.ray_origin, \
        report.ray_hit
    pitch, roll = report.pitch, report.roll
    k = ik_on.shape[0]
    for n in range(sole.shape[0]):
        on = ik_on[n % k]
        for f in range(2):
            ground = point[n, f, 1] if hit[n, f] else offset[n, f]
            under[n, f] = ground
            sole_gap[n, f] = sole[n, f, 1] - ground
            for c in (0, 2):
                ray_hit[n, f, c] = ray_origin[n, f, c] = sole[n, f, c]
            ray_hit[n, f, 1] = ground
            ray_origin[n, f, 1] = target[n, f, 1] + 1.5 * leg_length[f]
            pitch[n, f] = angles[n, f, 0] if on else 0.0
            roll[n, f] = angles[n, f, 1] if on else 0.0
