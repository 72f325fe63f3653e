"""Compiled stages of the grounding pipeline: one loop over rows and feet per stage (private).

:class:`~footfall.grounding.pipeline.GroundingPipeline` runs N = T·K rows (frame-major: row
``t·K + k`` is character k at frame t) through its named stages; each stage's per-foot maths is
one of these kernels, reading the pose arrays where they lie (joint indices) and writing
preallocated outputs, so a crowd makes no temporaries. Per-character parameters are ``(K,)``
arrays read at ``k = n mod K``. The maths is the scalar forms (``*_s``) it imports.
"""

from __future__ import annotations

import math

import numpy as np

from footfall.arrays import BoolArray, FloatArray, IntArray
from footfall.grounding.foot_align import align_rotation_s, ankle_lift_s, heading_s, slope_angles_s
from footfall.grounding.footsteps import smoothstep_s, swing_height_s
from footfall.grounding.pelvis import follow_s, reach_limit_s
from footfall.grounding.standing import rest_height_s
from footfall.jit import kernel
from footfall.quat import inv_s, max_nan, min_nan, mul_s, rotate_s

# One-element stand-ins of the same dimensions for absent optional inputs, which come with a
# flag (one compiled version for all calls; writable: read-only arrays compile another).
NONE1 = np.zeros(1)
NONE2 = np.zeros((1, 1))
NONE3 = np.zeros((1, 1, 1))


@kernel(error_model="numpy", nogil=True)
def feet_frame(grot: FloatArray, gpos: FloatArray, foot: IntArray, foot_forward: FloatArray,
               has_turn: bool, lock_turn: FloatArray, lock_weight: FloatArray,
               foot_rot: FloatArray, ankle: FloatArray, forward: FloatArray
               ) -> None:  # pragma: no cover - compiled
    """The feet's world rotations ``foot_rot (N, 2, 4)`` (turned by ``lock_turn · lock_weight``
    about +Y when ``has_turn``), animated ankles ``(N, 2, 3)`` and heading ``forward (N, 2, 3)``
    (unit horizontal toe direction) from the legs' global pose ``grot``, ``gpos (N, J, ·)``."""
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


@kernel(error_model="numpy", nogil=True)
def foot_targets(ankle: FloatArray, stance: BoolArray, swing: FloatArray, steps: FloatArray,
                 has_lock: bool, lock_xz: FloatArray, lock_weight: FloatArray, gpos: FloatArray,
                 pelvis: int, target: FloatArray, ray_xz: FloatArray
                 ) -> None:  # pragma: no cover - compiled
    """Ankle targets ``(N, 2, 3)`` (xz moved by the snapped footsteps ``steps (N, 2, 2, 5)``:
    the current one's shift while planted, eased towards the next one's over the swing, then
    pulled to the foot locks) and the ray points ``ray_xz (N, 3, 2)``: under the body (its
    ``pelvis`` joint), then under each target."""
    for n in range(ankle.shape[0]):
        ray_xz[n, 0, 0] = gpos[n, pelvis, 0]
        ray_xz[n, 0, 1] = gpos[n, pelvis, 2]
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


@kernel(error_model="numpy", nogil=True)
def ground_and_soles(
    ankle: FloatArray, stance: BoolArray, swing: FloatArray, steps: FloatArray,
    hit: BoolArray, point: FloatArray, normal: FloatArray, forward: FloatArray,
    ik_on: BoolArray, max_step_ratio: FloatArray, leg_length: FloatArray,
    foot_align: BoolArray, steep_normal_y: FloatArray, max_slope: FloatArray,
    smoothing: BoolArray, align_rate: FloatArray, dt: float, angle_state: FloatArray,
    has_angles: bool, given_angles: FloatArray, ankle_height: FloatArray, has_lift: bool,
    foot_lift: FloatArray, standing: FloatArray, sole_along: FloatArray, target: FloatArray,
    body_ground: FloatArray,
    offset: FloatArray, fallback: BoolArray, angles: FloatArray,
) -> None:  # pragma: no cover - compiled
    """Which feet are grounded, their vertical offset and sole angles; completes the targets.

    The ray answers ``hit (N, 3)``, ``point``, ``normal (N, 3, 3)`` (body, left, right) give the
    ground under the body ``body_ground (N,)`` and under each foot (planted: its ray; swinging:
    the swing curve between the two footsteps' heights in ``steps``). A foot is grounded when
    its character has IK on and that ground is found and within ``max_step_ratio`` leg lengths
    of the body's; else (with IK) it falls back to the animated foot. The sole (pitch, roll)
    ``angles (N, 2, 2)`` follow their goal (slope under the foot, faded over the swing, where
    aligned) frame by frame from ``angle_state (K, 2, 2)`` (updated in place), or are the given
    ones; the target heights become ankle + offset + the tilt's lift (+ ``foot_lift``). A
    planted foot whose sole is aligned stands on ``standing (N, 2, 2 + S)`` (pitch, found, the
    ground under its sole samples at ``sole_along (N, 2, S)`` metres ahead of the ankle:
    :func:`footfall.grounding.standing.standing_ground`) instead of the ray under its ankle and
    that ray's slope: pitched towards that pitch, it rests on the highest of them."""
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
                    state = angle_state[c, f, a]
                    state = goal if math.isinf(rate) else state + (goal - state) * blend
                    angle_state[c, f, a] = state
                    if has_angles:
                        state = given_angles[n, f, a] if aligned else 0.0
                    angles[n, f, a] = state
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


@kernel(error_model="numpy", nogil=True)
def pelvis_follow(
    gpos: FloatArray, positions: FloatArray, root: int, pelvis: int, upper: IntArray,
    lower: IntArray, foot: IntArray, leg_length: FloatArray, target: FloatArray,
    body_ground: FloatArray, lowering: BoolArray, reach_ratio: FloatArray,
    max_reach: FloatArray, smoothing: BoolArray, pelvis_rate: FloatArray,
    pelvis_snap: FloatArray, dt: float, state: FloatArray, has_given: bool, given: FloatArray,
    pelvis_offset: FloatArray, hip: FloatArray, knee: FloatArray, ankle: FloatArray,
    reach_rows: FloatArray,
) -> None:  # pragma: no cover - compiled
    """The offset ``pelvis_offset (N,)`` of the ``pelvis`` joint: never above the animated height
    over the body's ground, lowered (where ``lowering (K,)``) so the legs reach their targets
    (at full stretch always), followed from ``state (K,)`` (updated in place) or ``given``.
    Lifts the ``root`` of ``positions`` (``gpos`` is only read: the final FK lifts the body)
    and writes the lifted ``hip``, ``knee``, ``ankle (N, 2, 3)`` and ``reach_rows (N, 2)``."""
    k = state.shape[0]
    frames = gpos.shape[0] // k
    for t in range(frames):
        for c in range(k):
            n = t * k + c
            pelvis_y = gpos[n, pelvis, 1]
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
                limit = reach_limit_s(goal, hip_at, pelvis_y, reach)
                stretch = reach_limit_s(goal, hip_at, pelvis_y, max_reach[c] * leg * 0.9999)
                lowest = limit if f == 0 else min_nan(lowest, limit)
                hardest = stretch if f == 0 else min_nan(hardest, stretch)
            pelvis_goal = body_ground[n]
            if lowering[c]:
                pelvis_goal = min_nan(body_ground[n], lowest - pelvis_y)
            rate = pelvis_rate[c] if smoothing[c] else math.inf
            smoothed = (given[n] if has_given
                        else follow_s(state[c], pelvis_goal, rate, pelvis_snap[c], dt))
            value = min_nan(smoothed, hardest - pelvis_y) if lowering[c] else smoothed
            state[c] = value
            pelvis_offset[n] = value
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


@kernel(error_model="numpy", nogil=True)
def leg_rotations(grot: FloatArray, rotations: FloatArray, upper: IntArray, lower: IntArray,
                  foot: IntArray, hip_parent: IntArray, upper_delta: FloatArray,
                  lower_delta: FloatArray, tilt: bool, angles: FloatArray, forward: FloatArray,
                  foot_rot: FloatArray, ik_on: BoolArray) -> None:  # pragma: no cover
    """Writes the solved legs into the local ``rotations (N, J, 4)`` of rows with IK on: the
    IK deltas ``(N, 2, 4)`` applied to the legs' world rotations, the foot keeping its world
    rotation ``foot_rot (N, 2, 4)`` — tilted by the sole ``angles (N, 2, 2)`` under
    ``forward (N, 2, 3)`` when ``tilt`` (else those two are not read). ``grot`` is the legs'
    world pose before the IK, ``(N, J, 4)`` or ``(1, J, 4)`` for every row."""
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


@kernel(error_model="numpy", nogil=True)
def sole_points(grot: FloatArray, gpos: FloatArray, foot: IntArray, below_ankle: FloatArray,
                sole: FloatArray, sole_xz: FloatArray) -> None:  # pragma: no cover - compiled
    """World sole points ``sole (N, 2, 3)`` under each ankle of the solved pose and their
    ``(x, z)`` ``sole_xz (N, 2, 2)`` for the rays."""
    for n in range(grot.shape[0]):
        for f in range(2):
            j = foot[f]
            step = rotate_s((grot[n, j, 0], grot[n, j, 1], grot[n, j, 2], grot[n, j, 3]),
                            (below_ankle[f, 0], below_ankle[f, 1], below_ankle[f, 2]))
            for c in range(3):
                sole[n, f, c] = gpos[n, j, c] + step[c]
            sole_xz[n, f, 0] = sole[n, f, 0]
            sole_xz[n, f, 1] = sole[n, f, 2]


@kernel(error_model="numpy", nogil=True)
def sole_report(sole: FloatArray, hit: BoolArray, point: FloatArray, offset: FloatArray,
                target: FloatArray, leg_length: FloatArray, ik_on: BoolArray,
                angles: FloatArray, under: FloatArray, sole_gap: FloatArray,
                ray_origin: FloatArray, ray_hit: FloatArray, pitch: FloatArray,
                roll: FloatArray) -> None:  # pragma: no cover - compiled
    """What the frame reports per foot: the ground ``under (N, 2)`` each sole (its ray, or the
    offset where it missed), the sole's gap to it, the ray drawn from 1.5 leg lengths above
    the target to that ground, and the sole angles applied (0 without IK)."""
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
