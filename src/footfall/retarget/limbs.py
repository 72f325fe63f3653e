"""Four-limb IK of the retargeter: where feet and hands go, and how the limbs get there.

Per frame (batched): feet go to the source ankle, scaled horizontally by the size ratio, plus
the stance-width shift and the foot offsets, with the knee copied from the source; hands go to
the source hands relative to the hips, scaled. Around that:

- heights: a foot point's lift above its standing height is the source's scaled by the size
  ratio (``contact_lift``), above the capture's own floor;
- long feet (a sole reaching ahead of its ankle more than 2.4× the source's toe, scaled, as
  RobotExpressive's box feet): pitched toes-down only so far that the toes drop below the
  ankle as the source's do, scaled (``limb_kernel.long_foot``), so they do not reach the floor
  and hold the ankle up while the source's heel rises; a kneeling leg is left alone;
- toes (``toes.py``): on the floor the foot is pitched so its toes sit as high as the source's
  (about its own level lateral axis, the toes kept on the source toe's side of the ankle; a
  foot near the floor is pitched about its sole's contact patch, not its ankle, so the patch
  does not slide; frames in order change the pitch by at most :data:`PITCH_SPEED`, so
  planted ↔ free is a blend over frames, never a snap in one); while the heel is up the toes
  are the pivot, held where the toe contact began (a foot of another length would slide by
  the difference) and blended back in the air; the foot's lowest point (ankle or toe) is
  always as high as the source's, so a foot of other proportions neither wobbles in stance
  nor scrapes the floor in the swing;
- standing (frames in order): a foot turns about its contact patch, not its ankle — with toe
  points the patch moves as the source's own (its joints and End Sites) moves, scaled, the
  swing the target's other foot adds taken back; without, it stays put
  (``limb_kernel._hold_patch``);
- reach: where a planted foot cannot be reached the hips are lowered just enough, never raised;
- do no harm: a limb whose tip is already on its target is not touched (identity stays exact);
- detached feet (IK rigs whose feet do not hang below the shin) are placed where the shin
  carries them.

All limbs go through one batched two-bone solve (``footfall.ik``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray, kernel_rows
from footfall.errors import MappingError
from footfall.footing import FootTracker, track_feet
from footfall.ik import solve_two_bone
from footfall.ik.knee import knee_rows
from footfall.ik.two_bone import solve_two_bone_rows
from footfall.retarget.calibration import Correspondence, Measures, SolePoints
from footfall.retarget.limb_kernel import (
    PATCH_STATE,
    LimbFrames,
    LimbRig,
    LimbSizes,
    LimbWork,
    Soles,
    feet_stage,
    limb_work,
    reach_stage,
    turn_stage,
)
from footfall.retarget.limb_stream import LimbStream
from footfall.retarget.spine import chain_between
from footfall.retarget.toes import Toes
from footfall.retarget.weights import LimbWeights
from footfall.skeleton import FKPlan, Skeleton

#: Radians per second a foot's pitch (toes to the source's height) is taken on and given back,
#: at most :data:`PITCH_STEP` a frame: under the source foot's own largest turn + 5° (issue 35).
PITCH_SPEED = math.radians(120.0)
PITCH_STEP = math.radians(4.0)


@dataclass(frozen=True)
class Sizes:
    """What the limbs need to know of the current settings and calibration.

    Attributes:
        size_ratio: horizontal scale from source to target.
        avatar_scale: uniform target scale.
        source, target: calibration-pose measures (target at scale 1).
        floor_height: world height added to the feet, metres.
        foot_front, foot_out: foot target offsets along the foot and outward, metres.
        capture_floor: ``(2,)`` or ``(F, 2)`` (the frames being solved) how high each of the
            capture's planted feet stands above its standing height (its stance level), metres.
        calibration_world: ``(J, 4)`` target world rotations in the calibration pose.
        fk_guard: a leg on FK whose foot would sink into the floor is handed to IK (off when
            the user asked for FK limbs).
    """

    size_ratio: float
    avatar_scale: float
    source: Measures
    target: Measures
    floor_height: float
    foot_front: float
    foot_out: float
    capture_floor: FloatArray
    calibration_world: FloatArray
    fk_guard: bool = True


class Limbs:
    """The limbs both skeletons have, their chains, and the state of the stance-width hold."""

    def __init__(self, source: Skeleton, target: Skeleton, source_map: dict[str, str],
                 target_map: dict[str, str], correspondence: Correspondence) -> None:
        self.target = target
        self.hips = correspondence.hips
        self._limb_names = list(correspondence.limbs)  # the two legs first (``LIMBS`` order)
        chains = [correspondence.limbs[n] for n in self._limb_names]
        self._t_chain = np.array([c[0] for c in chains], dtype=np.int64).reshape(-1, 3)
        self._s_chain = np.array([c[1] for c in chains], dtype=np.int64).reshape(-1, 3)
        self._side = np.array([0 if n.startswith("left") else 1 for n in self._limb_names])
        # Index arrays and constants of the per-frame solve, computed once.
        self._t_leg_tips = self._t_chain[:2, 2].copy()
        self._leg_sides = self._side[:2].copy()
        self._s_leg_tips = self._s_chain[:2, 2].copy()
        #: Source joints ``(L,)`` of each limb's tip (ankles, wrists), legs first.
        self.source_tips = self._s_chain[:, 2].copy()
        #: Target and source joints ``(2,)`` of the left and right thigh (the hip joints).
        self.hip_joints = self._t_chain[:2, 0].copy()
        self.source_hip_joints = self._s_chain[:2, 0].copy()
        #: 0 for left, 1 for right, per arm.
        self.arm_sides: list[int] = self._side[2:].tolist()
        self._outward = (np.where(self._leg_sides == 0, 1.0, -1.0)[:, None]
                         * np.array([1.0, 0.0, 0.0]))
        (upper_joints, lower_joints), (upper_rows, lower_rows) = self._limb_paths()
        self._turned_joints = np.array(upper_joints + lower_joints, dtype=np.int64)
        self._turned_rows = np.array(upper_rows + lower_rows, dtype=np.int64)
        # Limbs sharing a joint (odd mappings) turn it twice: uppers first, then lowers.
        once = len(np.unique(self._turned_joints)) == len(self._turned_joints)
        self._group_ends = np.array([len(self._turned_joints)] if once else
                                    [len(upper_joints), len(self._turned_joints)], dtype=np.int64)
        self._detached_rows = np.nonzero(self._detached)[0].astype(np.int64)
        self._parents = np.asarray(target.parents, dtype=np.int64)
        hips_and_legs = [self.hips[0]] + [
            target.index(target_map[b]) for b in ("LeftUpperLeg", "RightUpperLeg")]
        self.mover = _common_ancestor(target, hips_and_legs)
        # The joint both thighs hang from (−1: none shared) and the hip joints' span in it.
        thighs = self._t_chain[:2, 0]
        holders = target.parents[thighs]
        self.leg_holder = (int(holders[0]) if len(thighs) == 2 and holders[0] == holders[1]
                           and holders[0] >= 0 and holders[0] in correspondence.target_joints
                           else -1)
        self._hip_span = np.asarray(target.offsets[thighs[0]] - target.offsets[thighs[-1]],
                                    dtype=np.float64)
        self._hip_span_tuple = (float(self._hip_span[0]), float(self._hip_span[1]),
                                float(self._hip_span[2]))
        #: The span's length (metres, unscaled) and the source's hip joints (left, right) as
        #: Python numbers: :meth:`level_hips` of a live frame reads them every frame.
        self._hip_length = float(np.linalg.norm(self._hip_span))
        self._source_thighs = ((int(self._s_chain[0, 0]), int(self._s_chain[1, 0]))
                               if self.leg_holder >= 0 else (-1, -1))
        self._under_mover = np.array([self.mover in target.chain(j)
                                      for j in range(target.joint_count)])
        # Toe points (toe joints, or End Sites of rigs without them) when both rigs have them.
        target_toes, source_toes = Toes.of(target, target_map), Toes.of(source, source_map)
        self._toes = ((target_toes, source_toes)
                      if target_toes is not None and source_toes is not None else None)
        self._source_toes = source_toes
        self._toe_table = (*_kernel_toes(target_toes), *_kernel_toes(source_toes))
        # The tips of the source's toes (its toe joints' End Sites): a foot at push-off pivots
        # on them while its toe joints already move.
        self._source_tips = np.full(2, -1, dtype=np.int64)
        self._source_tip_offsets = np.zeros((2, 3))
        if source_toes is not None:
            for side, joint in enumerate(source_toes.joints.tolist()):
                if joint >= 0 and joint in source.end_sites:
                    self._source_tips[side] = joint
                    self._source_tip_offsets[side] = source.end_sites[joint]
        self._source_tip_rise = np.zeros(2)
        # Joints whose positions the solve reads (limbs, toes, hips, parents), with ancestors.
        needed = {*self._t_chain.ravel().tolist(), *target.parents[self._t_chain[:, 2]].tolist(),
                  self.hips[0], int(target.parents[self.mover])}
        if self._toes is not None:
            needed |= set(self._toes[0].real.tolist())
        closure = {a for j in needed if j >= 0 for a in target.chain(j)}
        self.position_fk = FKPlan(target.parents, sorted(closure))
        source_needed = {*self._s_chain.ravel().tolist(), self.hips[1], *(
            source.index(source_map[b]) for b in ("Neck", "Head") if b in source_map)}
        if source_toes is not None:
            source_needed |= set(source_toes.real.tolist())
        self.source_position_fk = FKPlan(
            source.parents, sorted({a for j in source_needed for a in source.chain(j)}))
        #: ``(A,)`` how far each target arm's hand reaches from its wrist, metres (set by the
        #: retargeter: ``target_hands``, or the hand's joints); 0 by default.
        self.hand_reach = np.zeros(max(self.count - 2, 0))
        #: Sole points of each target foot: set by the retargeter (``target_feet``); the
        #: ankles alone by default.
        self.soles = SolePoints(np.zeros((2, 1, 3)), np.zeros((2, 1, 3)), np.zeros((2, 1)),
                                np.full(2, -1, dtype=np.int64), np.zeros((2, 3)))
        #: The points each target and source foot's contact patch is judged by (as
        #: :attr:`soles`): set by the retargeter; the ankles alone by default.
        self.patch_points = (self.soles, self.soles)
        self._scratch: dict[int, tuple[LimbWork, tuple[object, ...], FloatArray]] = {}
        # What the kernels read, made again only when what it is made of changed.
        # (what it was made of, the bundle as a plain tuple)
        self._rig: tuple[tuple[object, ...], tuple[object, ...]] | None = None
        self._limb_sizes: tuple[tuple[object, ...], ...] | None = None
        self._soles: tuple[tuple[SolePoints, ...], tuple[tuple[object, ...], ...]] | None = None
        # The source's standing heights ``(2, 2)`` (ankle, toe) of the measures they came from.
        self._standing: tuple[Measures, FloatArray] | None = None

    @property
    def count(self) -> int:
        """Number of limbs (legs first, then arms)."""
        return len(self._limb_names)

    @property
    def source_leg_lengths(self) -> FloatArray:
        """``(2,)`` the source's left and right leg lengths (thigh + shin), metres."""
        return self._source_leg_lengths

    def set_hand_reach(self, reach_by_side: FloatArray) -> None:
        """Each arm's hand reach from ``(2,)`` left / right values, metres at scale 1."""
        self.hand_reach = np.ascontiguousarray(
            [float(reach_by_side[side]) for side in self.arm_sides], dtype=np.float64)

    def calibrate(self, source_positions: FloatArray, source_world: FloatArray,
                  standing_world: FloatArray, standing_positions: FloatArray,
                  source_toes: Toes | None = None) -> None:
        """Cache what depends on the calibration poses (``(J, ·)`` arrays of each skeleton;
        ``source_toes``: the source's toe points judged in its calibration pose)."""
        if source_toes is not None and self._source_toes is not None:
            self._source_toes = source_toes
            self._toes = (self._toes[0], source_toes) if self._toes is not None else None
            self._toe_table = (*self._toe_table[:2], *_kernel_toes(source_toes))
        lower, tip = self._t_chain[:, 1], self._t_chain[:, 2]
        self._tip_offsets = quat.inv_rotate(
            standing_world[lower], standing_positions[tip] - standing_positions[lower])
        legs, source_legs = self._t_chain[:2], self._s_chain[:2]
        hips_t, hips_s = self.hips
        self._source_hips_world = source_world[hips_s]
        self._source_leg_lengths = np.linalg.norm(
            np.diff(source_positions[source_legs], axis=1), axis=-1).sum(axis=1)
        self._hip_offsets = (standing_positions[legs[:, 0]] - standing_positions[hips_t],
                             source_positions[source_legs[:, 0]] - source_positions[hips_s])
        self._source_hips_inverse = tuple(quat.inv(self._source_hips_world).tolist())
        self._foot_lateral = self._lateral_axes(standing_world, standing_positions)
        # (set with ``_foot_lateral``, whose identity keys the kernels' rig cache)
        self._foot_forward = self._forward_axes(standing_world)
        self._source_toe_reach = self._toe_reach(source_world, source_positions)
        self._hip_offset_lists = tuple(o.tolist() for o in self._hip_offsets)
        self._source_tip_rise = self._tip_rise(source_world, source_positions)

    def _tip_rise(self, world: FloatArray, positions: FloatArray) -> FloatArray:
        """``(2,)`` how high each source toe tip stands over its toe joint in the source's
        calibration pose ``world``, ``positions (Js, ·)``, metres (0 without a tip)."""
        rise = np.zeros(2)
        for side, joint in enumerate(self._source_tips.tolist()):
            if joint >= 0:
                rise[side] = quat.rotate(world[joint], self._source_tip_offsets[side])[1]
        return rise

    def _lateral_axes(self, world: FloatArray, positions: FloatArray) -> FloatArray:
        """``(2, 3)`` each target foot's level axis across its ankle → toe (the axis its
        pitch turns about) in the calibration pose ``world``, ``positions (J, ·)`` (scale 1),
        in the foot's frame; −X (a foot facing +Z) without toe points."""
        feet = self._t_chain[:2, 2]
        axes = np.tile([-1.0, 0.0, 0.0], (2, 1))
        if self._toes is not None:
            toward = self._toes[0].positions(world, positions) - positions[feet]
            level = np.stack([-toward[:, 2], np.zeros(2), toward[:, 0]], axis=-1)
            length = np.linalg.norm(level, axis=-1, keepdims=True)
            axes = np.where(length > 1e-9, level / np.maximum(length, 1e-9), axes)
        return np.ascontiguousarray(quat.inv_rotate(world[feet], axes))

    def _forward_axes(self, world: FloatArray) -> FloatArray:
        """``(2, 3)`` each target foot's level forward (up × its lateral axis) in the
        calibration pose ``world (J, 4)``, in the foot's frame: the direction its sole
        points when the foot stands flat."""
        feet = self._t_chain[:2, 2]
        lateral = quat.rotate(world[feet], self._foot_lateral)
        forward = np.stack([lateral[:, 2], np.zeros(2), -lateral[:, 0]], axis=-1)
        forward /= np.maximum(np.linalg.norm(forward, axis=-1, keepdims=True), 1e-9)
        return np.ascontiguousarray(quat.inv_rotate(world[feet], forward))

    def _toe_reach(self, world: FloatArray, positions: FloatArray) -> FloatArray:
        """``(2,)`` how far (level, metres) each source toe point lies from its ankle in the
        source's calibration pose ``world``, ``positions (Js, ·)``; 0 without toe points."""
        if self._source_toes is None:
            return np.zeros(2)
        toes = self._source_toes.positions(world, positions)
        return np.ascontiguousarray(np.hypot(*(toes - positions[self._s_leg_tips])[:, [0, 2]].T))

    def solve(self, world: FloatArray, local: FloatArray, srot: FloatArray, spos: FloatArray,
              hips_pos: FloatArray, weights: LimbWeights, foot_shift: FloatArray, sizes: Sizes,
              stream: LimbStream | None = None) -> None:
        """Four-limb IK on joint-major target arrays, in place: world rotations
        ``world (J, ..., 4)`` and local translations ``local (J, ..., 3)`` (where the hips drop
        or a detached foot moves), both C-ordered.

        ``srot``, ``spos``: source world rotations and positions ``(..., Js, ·)``; ``hips_pos``:
        target hips world position ``(..., 3)``; ``foot_shift``: stance-width shift
        ``(..., 2, 3)``; ``stream``: what the frames before
        these left (:class:`LimbStream`; None: frames alone).
        The arithmetic is ``limb_kernel``'s three stages.
        """
        joints, batch = world.shape[0], world.shape[1:-1]
        frames, count = math.prod(batch), self.count
        world_f = world.reshape(joints, frames, 4)
        local_f = local.reshape(joints, frames, 3)
        gpos = self._positions(world_f, local_f)
        srot_f = np.ascontiguousarray(srot.reshape(frames, -1, 4))
        spos_f = np.ascontiguousarray(spos.reshape(frames, -1, 3))
        shift = np.ascontiguousarray(foot_shift.reshape(frames, 2, 3))
        # The bundles go to the kernels as plain tuples (``bundle_kernel.plain``): the ones a
        # live stream passes unchanged frame after frame are kept as such.
        limb_sizes = self._kernel_sizes(sizes)
        m, work, level = self._scratch_for(frames)
        floor = sizes.capture_floor
        if frames == 1 and floor.shape == (2,):  # a live frame: no broadcasting machinery
            level[0, 0], level[0, 1] = floor[0], floor[1]
        else:
            level = np.ascontiguousarray(np.broadcast_to(floor, (*batch, 2)),
                                         dtype=np.float64).reshape(frames, 2)
        rig = self._kernel_rig()
        limb_frames = tuple(LimbFrames(
            world=world_f, local=local_f, gpos=gpos, srot=srot_f, spos=spos_f, foot_shift=shift,
            hips=np.array(hips_pos.reshape(frames, 3)),
            leg_weights=kernel_rows(weights.legs, batch, (2,)),
            arm_weights=kernel_rows(weights.arms, batch, (count - 2,)), level=level,
            pitch_state=stream.pitch if stream is not None else np.full((6, 4), 2.0),
            pitch_step=self._pitch_step(stream, frames),
            patch_state=stream.patch if stream is not None else _NO_PATCH,
            frame_time=self._frame_time(stream, frames)))
        soles, patch, source_patch = self._kernel_soles()
        feet_stage.plain(limb_frames, rig, limb_sizes, patch, work)
        held = m.offset
        if self._toes is not None:
            held = self._held_toe_offset(m.offset.reshape(*batch, 2, 3),
                                         m.down.reshape(*batch, 2), stream)
            held = np.ascontiguousarray(held.reshape(frames, 2, 3))
        reach_stage.plain(limb_frames, rig, limb_sizes, soles, patch, source_patch, work, held)
        # Bend goals: legs copy the source knee (arms bend toward the copied elbow).
        m.rows[4].reshape(frames, count, 3)[:, :2] = knee_rows(
            m.knee_input, m.knee_lengths).reshape(frames, 2, 3)
        upper, lower, tip = solve_two_bone_rows(m.rows, m.weight)
        turn_stage(world_f, local_f, gpos, self._t_chain, self._parents, self._turned_joints,
                   self._turned_rows, self._group_ends, self._detached_rows, upper, lower, tip)

    def reach_again(self, world: FloatArray, local: FloatArray, feet: FloatArray) -> None:
        """Solve the legs' two-bone IK again, in place on joint-major ``world (J, ..., 4)`` and
        ``local (J, ..., 3)`` (C-ordered, as :meth:`solve` takes them), for ankle targets
        ``feet (..., 2, 3)`` in their current bend planes: after the hips were moved, the feet
        put back where they were. The arms are left as they are."""
        joints, batch = world.shape[0], world.shape[1:-1]
        frames, count = math.prod(batch), self.count
        world_f = world.reshape(joints, frames, 4)
        local_f = local.reshape(joints, frames, 3)
        gpos = self._positions(world_f, local_f)
        chain = gpos[:, self._t_chain]  # (F, L, 3, 3): root, mid, tip of every limb
        legs = solve_two_bone(chain[:, :2, 0], chain[:, :2, 1], chain[:, :2, 2],
                              feet.reshape(frames, 2, 3))
        upper = quat.identity((frames, count))
        lower = quat.identity((frames, count))
        tip = chain[:, :, 2].copy()
        upper[:, :2], lower[:, :2], tip[:, :2] = (legs.upper_rotation, legs.lower_rotation,
                                                  legs.tip)
        n = frames * count
        turn_stage(world_f, local_f, gpos, self._t_chain, self._parents, self._turned_joints,
                   self._turned_rows, self._group_ends, self._detached_rows,
                   upper.reshape(n, 4), lower.reshape(n, 4), tip.reshape(n, 3))

    def _positions(self, world: FloatArray, local: FloatArray) -> FloatArray:
        """World positions ``(F, J, 3)`` of the joints the limbs read, from joint-major
        ``world (J, F, 4)`` and ``local (J, F, 3)``."""
        joints, frames = world.shape[:2]
        if frames == 1:  # one frame: the joint-major memory is the (J, ·) frame itself
            return self.position_fk.positions(world.reshape(joints, 4),
                                              local.reshape(joints, 3))[None]
        return self.position_fk.positions(world.transpose(1, 0, 2), local.transpose(1, 0, 2))

    @staticmethod
    def _frame_time(stream: LimbStream | None, frames: int) -> float:
        """Seconds per frame of ``frames`` of ``stream`` when they come in order, one
        character's (0: frames alone; a live batch of several characters, too)."""
        in_order = stream is not None and (not stream.live or frames == 1)
        return stream.dt if stream is not None and in_order else 0.0

    @classmethod
    def _pitch_step(cls, stream: LimbStream | None, frames: int) -> float:
        """Radians a foot's pitch may change a frame for ``frames`` of ``stream`` (0: frames
        alone, no limit; a live batch of several characters, too)."""
        dt = cls._frame_time(stream, frames)
        return min(PITCH_SPEED * dt, PITCH_STEP) if dt > 0.0 else 0.0

    def _scratch_for(self, frames: int) -> tuple[LimbWork, tuple[object, ...], FloatArray]:
        """The kernels' working memory for ``frames`` (and as the plain tuple the kernels take)
        and a ``(frames, 2)`` buffer for the stance levels (kept for the last few batch
        sizes)."""
        scratch = self._scratch.get(frames)
        if scratch is None:
            if len(self._scratch) >= 4:
                self._scratch.clear()
            work = limb_work(frames, self.count)
            scratch = self._scratch[frames] = (work, tuple(work), np.empty((frames, 2)))
        return scratch

    def _kernel_sizes(self, sizes: Sizes) -> tuple[object, ...]:
        """``sizes`` as the kernels read them (:class:`LimbSizes` as a plain tuple), made again
        when a value changed (a live stream passes the same measures every frame: the standing
        heights are stacked once)."""
        values = (sizes.size_ratio, sizes.avatar_scale, sizes.floor_height, sizes.foot_front,
                  sizes.foot_out, sizes.fk_guard)
        parts = (sizes.source, sizes.target, sizes.calibration_world)
        cached = self._limb_sizes
        if (cached is not None and cached[0] == values and cached[1][0] is parts[0]
                and cached[1][1] is parts[1] and cached[1][2] is parts[2]):
            return cached[2]
        # Each source foot's stance level goes into its standing heights: a foot point's lift
        # is measured from where that foot stands when planted (the kernels' capture floor is
        # 0; the levels are ``LimbFrames.level``).
        limb_sizes = LimbSizes(
            size_ratio=float(sizes.size_ratio), avatar_scale=float(sizes.avatar_scale),
            capture_floor=0.0, floor_height=float(sizes.floor_height),
            foot_front=float(sizes.foot_front), foot_out=float(sizes.foot_out),
            fk_guard=float(sizes.fk_guard),
            standing_heights=np.array([sizes.source.ankle_height, sizes.target.ankle_height,
                                       sizes.source.toe_height, sizes.target.toe_height],
                                      dtype=np.float64),
            calibration_tips=np.ascontiguousarray(sizes.calibration_world[self._t_leg_tips]))
        self._limb_sizes = (values, parts, tuple(limb_sizes))
        return self._limb_sizes[2]

    def _kernel_soles(self) -> tuple[tuple[object, ...], ...]:
        """The target feet's sole points (``self.soles``) and the target's and source's patch
        points (``self.patch_points``) as the kernels read them (:class:`Soles` as plain
        tuples)."""
        parts = (self.soles, *self.patch_points)
        if self._soles is None or any(a is not b for a, b in zip(self._soles[0], parts,
                                                                 strict=True)):
            self._soles = (parts, tuple(tuple(Soles(
                foot_points=p.foot_points, toe_points=p.toe_points, toe_weights=p.toe_weights,
                toe_joints=p.toe_joints, toe_offsets=p.toe_offsets)) for p in parts))
        return self._soles[1]

    def _kernel_rig(self) -> tuple[object, ...]:
        """Both rigs' limbs as the kernels read them (:class:`LimbRig` as a plain tuple), made
        again when the calibration, the hand reach or the sole points changed them."""
        parts = (self._tip_offsets, self._source_leg_lengths, self.hand_reach, self._toe_table,
                 self._foot_lateral, self.soles, self._source_tip_rise)
        cached = self._rig
        if (cached is not None and cached[0][0] is parts[0] and cached[0][1] is parts[1]
                and cached[0][2] is parts[2] and cached[0][3] is parts[3]
                and cached[0][4] is parts[4] and cached[0][5] is parts[5]
                and cached[0][6] is parts[6]):
            return cached[1]
        target_toes, target_toe_offsets, source_toes, source_toe_offsets = self._toe_table
        self._rig = (parts, tuple(LimbRig(
            target_chain=self._t_chain, source_chain=self._s_chain,
            leg_sides=self._leg_sides, detached=self._detached,
            tip_offsets=self._tip_offsets, outward=self._outward, parents=self._parents,
            mover=self.mover, under_mover=self._under_mover, source_hips=self.hips[1],
            source_leg_lengths=self._source_leg_lengths, hand_reach=self.hand_reach,
            has_toes=self._toes is not None, target_toes=target_toes,
            target_toe_offsets=target_toe_offsets, source_toes=source_toes,
            source_toe_offsets=source_toe_offsets, foot_lateral=self._foot_lateral,
            foot_points=self.soles.foot_points, foot_forward=self._foot_forward,
            sole_reach=np.ascontiguousarray(
                np.einsum("skc,sc->sk", self.soles.foot_points, self._foot_forward).max(axis=1)),
            source_toe_reach=self._source_toe_reach,
            source_has_toes=self._source_toes is not None, source_tips=self._source_tips,
            source_tip_offsets=self._source_tip_offsets,
            source_tip_rise=self._source_tip_rise)))
        return self._rig[1]

    def body_yaw(self, srot: FloatArray) -> FloatArray:
        """Yaw ``(...)`` of the source hips relative to their calibration heading, radians."""
        hips_s = self.hips[1]
        turn = quat.mul_inv(srot[..., hips_s, :], self._source_hips_world)
        forward = quat.rotate(turn, np.array([0.0, 0.0, 1.0]))
        return np.arctan2(forward[..., 0], forward[..., 2])

    def _contact_points(self, srot: FloatArray, spos: FloatArray, sizes: Sizes
                        ) -> tuple[FloatArray, FloatArray]:
        """The source points a foot stands on ``(..., 2, P, 3)`` — its ankle, and its toe
        when the source has toes, whatever the target has — and their standing heights
        ``(2, P)``. Tracked by its ankle alone, a source foot rising onto its toes reads as
        standing on a higher floor: pybvh_test1_zup_inches's right heel up 8 cm (frames
        54–72) raised its stance level 8 cm on RobotExpressive (no toe joints), the hips
        stood over the mean of the two levels and the right foot, flat on the higher one,
        needed them lower still: the left knee bent 13.9° off the performer's (median over
        frames, ``tools/feet_table.py``), 7.3° tracked on the toes."""
        source = sizes.source
        cached = self._standing
        if cached is None or cached[0] is not source:  # the same measures every live frame
            cached = self._standing = (source, np.stack([source.ankle_height,
                                                         source.toe_height], -1))
        rest = cached[1]
        ankles = spos[..., self._s_leg_tips, :][..., None, :]
        if self._source_toes is None:
            return ankles, rest[:, :1]
        toes = self._source_toes.positions(srot, spos)[..., None, :]
        return np.concatenate([ankles, toes], axis=-2), rest

    def track_series(self, srot: FloatArray, spos: FloatArray, fps: float, sizes: Sizes,
                     fixed: FloatArray, plant: bool = True
                     ) -> tuple[NDArray[np.bool_], FloatArray, FloatArray]:
        """The source feet's contacts, stance levels and lowest points ``(F, 2)`` over a clip
        (source world rotations and positions ``(F, Js, ·)`` at ``fps``), by the one contact
        rule (``footfall.footing``) from a fresh state: what a live stream of the clip gives
        frame by frame. ``fixed (2,)``: a known floor above the standing heights, metres."""
        points, rest = self._contact_points(srot, spos, sizes)
        return track_feet(points[..., 1] - rest, points, fps, fixed, plant)

    def track_live(self, feet: FootTracker, srot: FloatArray, spos: FloatArray, dt: float,
                   sizes: Sizes, fixed: FloatArray, plant: bool = True
                   ) -> tuple[NDArray[np.bool_], FloatArray]:
        """This live frame's contacts and stance levels ``(..., 2)`` (source arrays
        ``(..., Js, ·)``), tracked on by the stream's ``feet``."""
        points, rest = self._contact_points(srot, spos, sizes)
        if points.ndim == 3:  # one character's frame
            return feet.track_frame(points[..., 1] - rest, points, dt, fixed, plant)
        planted, levels, _ = feet.track((points[..., 1] - rest)[None], points[None], dt,
                                             fixed, plant)
        return planted[0], levels[0]

    def held_shift_series(self, stream: LimbStream, srot: FloatArray, sizes: Sizes,
                          planted: NDArray[np.bool_]) -> FloatArray:
        """Stance-width shift per frame ``(F, 2, 3)`` of a clip's frames in order (source world
        rotations ``(F, Js, 4)``), frozen while each foot is planted (``planted (F, 2)``) by
        the ``stream``'s hold: the rule :meth:`held_shift_live` applies frame by frame."""
        return stream.shift_hold.series(self.foot_shift(self.body_yaw(srot), sizes), planted)

    def held_shift_live(self, stream: LimbStream, srot: FloatArray, sizes: Sizes,
                        planted: NDArray[np.bool_]) -> FloatArray:
        """Live stance-width shift ``(..., 2, 3)`` for this frame's contacts ``planted
        (..., 2)``, held by the live ``stream``'s hold."""
        hold = stream.shift_hold
        if srot.ndim == 2:
            return hold(self._shift_one(srot, sizes), planted)
        return hold(self.foot_shift(self.body_yaw(srot), sizes), planted)

    def _shift_one(self, srot: FloatArray, sizes: Sizes) -> FloatArray:
        """:meth:`foot_shift` of one frame's body yaw (``(J, 4)`` source world rotations), in
        Python floats: a dozen NumPy calls on two-element arrays cost more than the
        arithmetic."""
        # Body yaw: the source hips' turn from calibration applied to +Z (as ``body_yaw``).
        hips = tuple(srot[self.hips[1]].tolist())
        fx, _, fz = quat.rotate_s(quat.mul_s(hips, self._source_hips_inverse), (0.0, 0.0, 1.0))
        half = 0.5 * math.atan2(fx, fz)
        sin_half = math.sin(half)
        turn = (math.cos(half), sin_half * 0.0, sin_half * 1.0, sin_half * 0.0)
        scale, ratio = sizes.avatar_scale, sizes.size_ratio
        return np.array([quat.rotate_s(turn, (t[0] * scale - ratio * s[0], 0.0, 0.0))
                         for t, s in zip(*self._hip_offset_lists, strict=True)])

    def level_hips(self, world: FloatArray, spos: FloatArray, size_ratio: float,
                   avatar_scale: float, weight: FloatArray) -> None:
        """Roll the joint the thighs hang from (``world (..., J, 4)``, in place) so the hip
        joints' height difference is the source's (``spos (..., Js, 3)``) scaled by
        ``size_ratio``: hips wider than the performer's, scaled (RobotExpressive's hip
        joints are 1.27 m apart, 4.7 times the performer's scaled), would otherwise lift
        one hip joint and drop the other by that much more with each roll of the performer's
        hips, straightening one knee and bending the other. The thighs keep their turn.
        ``weight (...)``: the hips weight (0 seated or kneeling: the hips roll as the
        source's, its legs folded under it; 1 standing: the full roll)."""
        holder = self.leg_holder
        width = self._hip_length * avatar_scale
        if holder < 0 or width < 1e-9:
            return
        left, right = self._source_thighs
        if world.ndim == 2:  # one live frame: Python floats (a dozen NumPy calls cost more)
            self._level_one(world, size_ratio * (spos.item(left, 1) - spos.item(right, 1))
                            / width, float(weight))
            return
        rotation = world[..., holder, :]
        span = quat.rotate(rotation, self._hip_span)
        up = np.array([0.0, 1.0, 0.0])
        wanted = np.clip(size_ratio * (spos[..., left, 1] - spos[..., right, 1]) / width,
                         -1.0, 1.0)
        now = np.clip(span[..., 1] / max(self._hip_length, 1e-12), -1.0, 1.0)
        axis = np.cross(span, up)  # level, across the span (none: a span standing upright)
        angle = np.where(np.linalg.norm(axis, axis=-1) > 1e-9,
                         (np.arcsin(wanted) - np.arcsin(now)) * weight, 0.0)
        turn = quat.from_axis_angle(axis, angle)
        world[..., holder, :] = quat.mul(turn, rotation)

    def _level_one(self, world: FloatArray, wanted: float, weight: float) -> None:
        """:meth:`level_hips` of one frame (``world (J, 4)``), the wanted sine of the hip
        joints' span over the level given (about 3 µs: every NumPy call on a (4,) or (3,)
        array costs 0.3–2 µs, see docs/benchmarks.md)."""
        holder = self.leg_holder
        rotation = tuple(world[holder].tolist())
        span = quat.rotate_s(rotation, self._hip_span_tuple)
        level = math.hypot(span[0], span[2])
        if level <= 1e-9:
            return
        now = max(-1.0, min(1.0, span[1] / math.sqrt(level * level + span[1] * span[1])))
        half = 0.5 * weight * (math.asin(max(-1.0, min(1.0, wanted))) - math.asin(now))
        sine = math.sin(half) / level  # about span × up = (−span_z, 0, span_x)
        turn = (math.cos(half), -span[2] * sine, 0.0, span[0] * sine)
        world[holder] = quat.mul_s(turn, rotation)

    def foot_shift(self, yaw: FloatArray, sizes: Sizes) -> FloatArray:
        """Stance-width shift ``(..., 2, 3)`` of the feet for a body ``yaw (...)``, radians:
        ``target_hip_offset − size_ratio · source_hip_offset`` turned with the body (see
        ``stance.py``, which freezes it while a foot is planted)."""
        target_offset, source_offset = self._hip_offsets
        delta = target_offset * sizes.avatar_scale - sizes.size_ratio * source_offset
        # Only the width: thighs ahead of or behind the hips joint, turned, would swing the feet.
        delta[:, 1:] = 0.0
        turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.asarray(yaw)[..., None])
        return quat.rotate(turn, delta)

    def _held_toe_offset(self, offset: FloatArray, down: NDArray[np.bool_],
                         stream: LimbStream | None) -> FloatArray:
        """The flat-foot toe offset ``(..., 2, 3)`` held through each toe contact (``down
        (..., 2)``) and blended back in the air over
        :data:`~footfall.retarget.stance.RELEASE_SECONDS`: the ``stream``'s hold, frame by
        frame live and over a clip's frames (leading axis) offline — one rule. Frames alone
        (no stream) keep ``offset``."""
        if stream is None:
            return offset
        hold = stream.toe_hold
        held = hold(offset, down) if stream.live else hold.series(offset, down)
        return held * np.array([1.0, 0.0, 1.0])  # horizontal (the swing blend may lift y)

    def _limb_paths(self) -> tuple[tuple[list[int], list[int]], tuple[list[int], list[int]]]:
        """Joints turned by the limbs' upper and by their lower deltas (twist bones included),
        and the row of the delta turning each (``0..L`` upper, ``L..2L`` lower); sets
        ``_detached``: tips not below their lower bone (IK rigs' feet hanging from the root)."""
        joints: tuple[list[int], list[int]] = ([], [])
        rows: tuple[list[int], list[int]] = ([], [])
        detached = []
        for k, (upper, lower, tip) in enumerate(self._t_chain.tolist()):
            between = chain_between(self.target, upper, lower)
            if between is None:
                raise MappingError(
                    f"target {self._limb_names[k]}: {self.target.names[lower]!r} is not below "
                    f"{self.target.names[upper]!r}; a limb must be a joint chain"
                )
            below = chain_between(self.target, lower, tip)
            detached.append(below is None)
            for part, span in enumerate(([upper, *between], [lower, *(below or [])])):
                joints[part].extend(span)
                rows[part].extend([k + part * self.count] * len(span))
        self._detached = np.array(detached, dtype=bool)
        return joints, rows


#: The patch hold's state of frames solved alone (never read: their frame time is 0).
_NO_PATCH = np.zeros((2, PATCH_STATE))


def _common_ancestor(skeleton: Skeleton, joints: list[int]) -> int:
    """The deepest joint that is an ancestor of (or equal to) every joint in ``joints``
    (``joints[0]`` when they share none)."""
    chains = [skeleton.chain(j) for j in joints]
    shared = [row[0] for row in zip(*chains, strict=False) if len(set(row)) == 1]
    return shared[-1] if shared else joints[0]


def _kernel_toes(toes: Toes | None) -> tuple[NDArray[np.int64], FloatArray]:
    """A rig's toe points for the kernels: ``(2, 2)`` (foot joint, toe joint or −1) per side
    and ``(2, 3)`` End Site offsets (zeros without toes)."""
    if toes is None:
        return np.zeros((2, 2), dtype=np.int64), np.zeros((2, 3))
    return (np.ascontiguousarray(np.stack([toes.feet, toes.joints], axis=-1), dtype=np.int64),
            np.ascontiguousarray(toes.offsets, dtype=float))
