"""One retargeting solve of a batch of frames (a clip's chunk, or one live frame).

Per frame, batched over frames, with one code path for :mod:`.offline` and :mod:`.live_state`:

1. Rotations: every matched target bone gets ``source_world * offset`` (offsets calibrated in a
   T- or I-pose); spine and neck chains follow grouped source bones; other joints keep their
   calibration-pose local rotation.
2. Hips: the source hips position, horizontally scaled by the size ratio (the hip joints'
   standing heights, ``CalibratedRig.size_ratio``), raised by the hips-height difference times
   the hips (sitting) weight plus the floor height; the hips' rise and fall around their
   standing height is scaled by the size ratio too. The target's standing heights are measured
   with its legs at least as extended as the source's calibration pose has them
   (``Measures.of(..., extension=)``): a rest pose with bent knees (RobotExpressive's 31°) is
   not the height the body stands at; then raised as far as this solve, standing the target in
   the source's calibration pose, leaves a leg short of the performer's extension
   (``standing_height``: once per calibration). The joint the thighs hang from rolls so the hip
   joints rise and fall as the performer's, scaled (``Limbs.level_hips``), not by the hips'
   width. The hip joints (their midpoint), not the hips joint, go where the performer's go,
   scaled about the hips joint (horizontally, and vertically as they rise and fall over it from
   the calibration pose: :func:`hip_joints_shift`, times the hips weight: seated, the hips stay
   where the performer's sit; kneeling, they are carried by the legs, see ``weights``): the legs
   reach from where the performer's do.
3. Four-limb two-bone IK (``limbs.py``), weighted by the automatic layers (``weights.py``).
4. Head rotation offset, finger curls and spread (when enabled).

Every function takes what it reads: the calibrated rig, the settings ``values`` and the
source feet's stance ``levels``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray
from footfall.retarget.fingers import FINGERS, HANDS
from footfall.retarget.head import apply_head_offset
from footfall.retarget.limb_stream import LimbStream
from footfall.retarget.limbs import Sizes
from footfall.retarget.rig import CalibratedRig
from footfall.retarget.settings import HEAD_OFFSET_KEYS
from footfall.retarget.weights import LimbWeights, points_array, source_goal_kernel

#: Times the hips are raised (and the legs solved again) for a thigh or shin under the floor,
#: and the metres of it left under the floor that end the passes early.
LEG_PASSES = 4
LEG_TOLERANCE = 0.002


def goal_weights(cal: CalibratedRig, values: Mapping[str, Any], spos: FloatArray,
                 props: ArrayLike | None, chairs: ArrayLike | None) -> LimbWeights:
    """Goal weights ``(..., arms 2)``, ``(..., legs 2)``, ``(...)`` from source positions
    ``spos (..., Js, 3)`` (``props``, ``chairs``: ``(P, 3)`` positions for the automatic
    layers)."""
    limbs = cal.limbs
    batch = spos.shape[:-2]
    arm_count = limbs.count - 2  # legs come first
    mode = values["ik_mode"]
    switch = (float(values["left_arm_ik"]), float(values["right_arm_ik"]))
    value = 1.0 if mode == "ik" else 0.0
    if mode != "auto" and not batch:
        # One live frame with fixed weights: three small arrays, no arithmetic on them.
        return LimbWeights(np.array([value * switch[side] for side in limbs.arm_sides]),
                           np.array([value, value]), np.array(1.0))
    if mode != "auto":
        arms = np.full((*batch, arm_count), value)
        legs = np.full((*batch, 2), value)
        hips = np.ones(batch)
    else:
        frames = math.prod(batch)
        tips = limbs.source_tips
        arm_tips = tips[2:] if arm_count == 2 else tips[:0]
        scale = float(values["avatar_scale"])
        source, target = cal.source_measures, cal.target_measures
        raise_by = target.hips_height * scale - source.hips_height + values["floor_height"]
        arms, legs, hips = np.empty((*batch, 2)), np.empty((*batch, 2)), np.empty(batch)
        source_goal_kernel(
            np.ascontiguousarray(spos.reshape(frames, -1, 3)), tips, cal.source_knees,
            arm_tips,
            cal.rig.correspondence.hips[1], cal.size_ratio(scale), raise_by,
            source.ankle_height, max(source.hips_height, 1e-9),
            np.maximum(limbs.source_leg_lengths, 1e-9), points_array(props), points_array(chairs),
            cal.rig.weight_thresholds(values).as_array,
            arms.reshape(frames, 2), legs.reshape(frames, 2), hips.reshape(frames))
        arms = arms[..., :arm_count]
    if arm_count:
        arms = arms * np.array([switch[side] for side in limbs.arm_sides])
    return LimbWeights(np.asarray(arms, dtype=float), np.asarray(legs, dtype=float),
                       np.asarray(hips, dtype=float))


def hips_target(cal: CalibratedRig, values: Mapping[str, Any], hips_source: FloatArray,
                hips_weight: FloatArray, levels: FloatArray) -> FloatArray:
    """Target hips world position ``(..., 3)`` from the source hips ``(..., 3)``, the hips
    weight ``(...)`` (0: seated) and the source feet's stance ``levels (..., 2)``."""
    scale = float(values["avatar_scale"])
    s = cal.size_ratio(scale)
    raise_by = cal.target_measures.hips_height * scale - cal.source_measures.hips_height
    # The capture's floor (how high its planted feet stand) is taken off with the feet's.
    floor = levels
    # Standing, the hips' rise and fall around their standing height scales with the legs.
    above = hips_source[..., 1] - 0.5 * (floor[..., 0] + floor[..., 1])
    bob = above - cal.source_measures.hips_height
    y = (above + (raise_by + (s - 1.0) * bob) * hips_weight
         + values["floor_height"]
         + values["chair_seat_height_offset"] * (1.0 - hips_weight))
    out = np.empty(np.shape(y) + (3,))  # (one live frame: no stacking machinery)
    out[..., 0] = s * hips_source[..., 0]
    out[..., 1] = y
    out[..., 2] = s * hips_source[..., 2]
    return out


def hip_joints_shift(cal: CalibratedRig, positions: FloatArray, source_positions: FloatArray,
                     size_ratio: float, avatar_scale: float) -> FloatArray:
    """``(..., 3)`` the shift of the hips that takes the midpoint of the target's hip joints
    (thighs) to the source's, scaled by ``size_ratio`` about the hips joints
    (:func:`hips_target` scales the hips joint's path): horizontally, and vertically as far
    as they rise or fall from their calibration height over the hips joint
    (``CalibratedRig.hip_joints_rise``; the target's at ``avatar_scale``).
    ``positions (..., Jt, 3)``: the target's joints as posed (the hips joint anywhere);
    ``source_positions (..., Js, 3)``: the source's, metres. The legs then reach from where
    the performer's reach, to feet placed where the performer's are (scaled), whatever the
    avatar's hips. (The solve shifts by this times the hips weight: seated, the hips stay
    where the performer's sit.)

    An avatar's hip joints stand elsewhere around its hips joint than the performer's, and a
    tilted hips swing them fore and aft by their height from it: CesiumMan's hang 6.5 cm
    below its hips joint and 2.4 cm ahead of it, RobotExpressive's thighs from a joint 19 cm
    above it and 6.6 cm behind. With the hips joint placed, the line from the hip joints to
    the feet was 0.092 leg lengths off the performer's (median over frames) on cmu_131_01 ×
    RobotExpressive (knees 22° off) and 0.062 on mocapbank_zxy_cm × CesiumMan (27°); now
    0.021 (14°) and 0.031 (19°). A hips bent far forward (a kneel) moves them up and down
    too: with only the hips joint's height scaled, mixamo_stepping's hip joints knelt 0.57
    leg lengths over its floor where the performer's were at 0.43 (its kneeling knee 15°
    less bent), vrm1_debug_robot's at 0.29 (its knee 15 cm through the floor); hips over
    leg (median over mocapbank_zxy_cm, ``tools/feet_table.py``) 1.02 and 0.76 where the
    performer's is 0.87, now 0.94 and 0.85. Placed over the floor instead (their height
    scaled from it), standing hip joints left the target's standing height: CesiumMan's
    knees bent 18° off the performer's on cmu_131_01, 12 so.
    """
    rig, limbs = cal.rig, cal.limbs
    hips_t, hips_s = rig.correspondence.hips
    target, source = limbs.hip_joints, limbs.source_hip_joints
    own = 0.5 * (positions[..., target[0], :] + positions[..., target[1], :]) - positions[
        ..., hips_t, :]
    theirs = 0.5 * (source_positions[..., source[0], :] + source_positions[..., source[1], :]
                    ) - source_positions[..., hips_s, :]
    shift = size_ratio * theirs - own
    rise_s, rise_t = cal.hip_joints_rise
    shift[..., 1] -= size_ratio * rise_s - avatar_scale * rise_t
    return shift


def solve_frames(cal: CalibratedRig, values: Mapping[str, Any], src_rot: FloatArray,
                 src_lpos: FloatArray, weights: LimbWeights, foot_shift: FloatArray,
                 levels: FloatArray, source_global: tuple[FloatArray, FloatArray] | None = None,
                 stream: LimbStream | None = None, sizes: Sizes | None = None
                 ) -> tuple[FloatArray, FloatArray]:
    """Target local ``(rotations, translations)`` for source local ones ``(..., Js, ·)``
    with the source feet's stance ``levels`` ``(2,)`` / ``(..., 2)`` (``source_global``:
    their FK when already known; ``stream``: what frames before these left, see
    ``Limbs.solve``; ``sizes``: ``cal.sizes(values, levels)`` when already made)."""
    rig, limbs = cal.rig, cal.limbs
    c = rig.correspondence
    scale = float(values["avatar_scale"])
    floor_height = values["floor_height"]
    srot, spos = (rig.source_fk(src_rot, src_lpos) if source_global is None
                  else source_global)
    batch = srot.shape[:-2]
    joints = rig.target.joint_count
    # Joint-major memory behind the usual (..., J, 4) view: joint gathers are contiguous.
    # ``world_jm`` is that memory as (J, ..., 4); one frame needs no view at all.
    world_jm = np.empty((joints, *batch, 4))
    source_jm = srot if not batch else np.moveaxis(srot, -2, 0)
    offsets = (cal.offsets if not batch  # (M, 4) → (M, 1, …, 1, 4)
               else cal.offsets.reshape((len(cal.offsets),) + (1,) * len(batch) + (4,)))
    world_jm[c.target_joints] = quat.mul(source_jm[c.source_joints], offsets)
    world = world_jm if not batch else np.moveaxis(world_jm, 0, -2)
    if not limbs.count:
        sizes = None
    elif sizes is None:
        sizes = cal.sizes(values, levels)
    if sizes is not None:  # the hip joints rise and fall as the performer's, scaled
        limbs.level_hips(world, spos, sizes.size_ratio, scale, weights.hips)
    # Unmapped joints keep their calibration rotation below their (mapped) parents.
    rig.unmapped_fk.rotations(cal.calibration_pose, out=world)

    # Hips.
    hips_t, hips_s = c.hips
    hips_pos = hips_target(cal, values, spos[..., hips_s, :], weights.hips, levels)
    lpos_jm = np.empty((joints, *batch, 3))
    lpos = lpos_jm if not batch else np.moveaxis(lpos_jm, 0, -2)
    lpos[...] = rig.target.offsets * scale
    mover = limbs.mover
    parent = int(rig.target.parents[mover])
    gpos = None
    if sizes is not None:
        gpos = limbs.position_fk.positions(world, lpos)
        # Standing, the legs carry the body from the hip joints; seated (hips weight 0) the
        # hips rest where the performer's do and stay there.
        shift = hip_joints_shift(cal, gpos, spos, sizes.size_ratio, scale)
        hips_pos = hips_pos + shift * np.asarray(weights.hips)[..., None]
    if mover == hips_t and parent < 0:
        lpos[..., hips_t, :] = hips_pos
    else:
        # Move the joint the hips and both legs hang from, so the legs come along.
        if gpos is None:
            gpos = limbs.position_fk.positions(world, lpos)
        delta = hips_pos - gpos[..., hips_t, :]
        if parent >= 0:
            delta = quat.inv_rotate(world[..., parent, :], delta)
        lpos[..., mover, :] += delta

    # The trunk above the floor: the hips rise where it would go through (the legs then
    # reach down from there).
    if rig.body_points is not None and rig.body_fk is not None:
        rise = rig.body_points.trunk_rise(world, rig.body_fk.positions(world, lpos),
                                          floor_height, scale)
        if _any_above(rise, 0.0):
            up = np.zeros(rise.shape + (3,))
            up[..., 1] = rise
            hips_pos = hips_pos + up
            if parent >= 0:
                up = quat.inv_rotate(world[..., parent, :], up)
            lpos[..., mover, :] += up

    # Four-limb IK.
    if sizes is not None:
        limbs.solve(world_jm, lpos_jm, srot, spos, hips_pos, weights, foot_shift,
                    sizes, stream)
    if rig.body_points is not None and rig.body_fk is not None:
        positions = _legs_above_floor(cal, floor_height, world_jm, lpos_jm, world, lpos, scale)
        rig.body_points.lift_limbs(world, positions, floor_height, scale)

    local = rig.target_fk.local_rotations(world)
    return finish(cal, values, local, src_rot), lpos


def _legs_above_floor(cal: CalibratedRig, floor: float, world_jm: FloatArray,
                      lpos_jm: FloatArray, world: FloatArray, lpos: FloatArray,
                      scale: float) -> FloatArray:
    """Where a solved leg's thigh or shin is under the ``floor`` (a thick shin in a deep crouch
    or a kneel), raise the hips by what it lacks and solve the legs again to the same feet,
    up to :data:`LEG_PASSES` times (the knee rises less than the hips). ``world_jm`` /
    ``lpos_jm``: the joint-major memory behind the ``(..., J, ·)`` views ``world``, ``lpos``.
    Returns the body's joint positions ``(..., J, 3)`` after (those the body points need).
    """
    rig = cal.rig
    body, body_fk = rig.body_points, rig.body_fk
    assert body is not None and body_fk is not None
    positions = body_fk.positions(world, lpos)
    rise = body.leg_rise(world, positions, floor, scale)
    if not _any_above(rise, 0.0) or body.legs.min() < 0:
        return positions
    feet = positions[..., body.legs[:, 2], :].copy()  # (..., 2, 3) where the feet are
    mover = cal.limbs.mover
    parent = int(rig.target.parents[mover])
    for _ in range(LEG_PASSES):
        up = np.zeros(rise.shape + (3,))
        up[..., 1] = rise
        if parent >= 0:
            up = quat.inv_rotate(world[..., parent, :], up)
        lpos[..., mover, :] += up
        cal.limbs.reach_again(world_jm, lpos_jm, feet)
        positions = body_fk.positions(world, lpos)
        rise = body.leg_rise(world, positions, floor, scale)
        if not _any_above(rise, LEG_TOLERANCE):
            break
    return positions


def _any_above(values: FloatArray, limit: float) -> bool:
    """Whether any of ``values (...)`` is above ``limit`` (one frame's value is compared as
    it is: ``np.any`` of a scalar costs a reduction's machinery)."""
    if np.ndim(values) == 0:
        return bool(values > limit)
    return bool(np.any(values > limit))


def finish(cal: CalibratedRig, values: Mapping[str, Any], local: FloatArray,
           source_local: FloatArray) -> FloatArray:
    """Head offset and finger pose on the target's local rotations ``(..., Jt, 4)``
    (``source_local``: the source's local rotations, for ``finger_copy``)."""
    fingers, source_fingers = cal.fingers, cal.source_fingers
    copy = values["finger_copy"]
    if copy != "rotation" and fingers.present:
        if copy == "curl" and source_fingers.present:
            curl, spread = source_fingers.measure(source_local)
        else:  # "none", or a source without fingers: the calibration pose
            curl = spread = np.zeros(source_local.shape[:-2] + (2, 5))
        local = fingers.apply(local, curl, spread)
    offset = [values[k] for k in HEAD_OFFSET_KEYS]
    target_map = cal.rig.target_map
    if any(offset) and "Head" in target_map:
        local = apply_head_offset(local, cal.rig.target.index(target_map["Head"]), offset)
    if values["fingers_enabled"] and fingers.present:
        curl = np.array([[values[f"{h}_{f}_curl"] for f in FINGERS] for h in HANDS])
        spread = np.array([[values[f"{h}_{f}_spread"] for f in FINGERS] for h in HANDS])
        local = fingers.apply(local, curl, spread,
                              (values["left_hand_enabled"], values["right_hand_enabled"]))
    return local
