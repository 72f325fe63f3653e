"""The per-frame foot placement pipeline of SPEC §4 for K characters in one call.

Input per frame: an animated pose on a flat floor at y = 0 (local rotations and translations,
root placed in the world) and a :class:`FootPlan` (which feet are planted, swing progress, the
current and next footstep). Output: the grounded pose and what each stage saw.

Stages, each switchable per character (:class:`~footfall.grounding.params.GroundingParams`):
1. downward rays under the body and each foot (the terrain tests only the chunk under a ray);
2. tread snapping of the footsteps (seed 002, step 2) and the swing curve between plant heights;
3. hips lowered so the lower foot reaches, never raised, followed smoothly (seed 000, 004);
4. two-bone leg IK to the ankle targets (:func:`footfall.ik.solve_two_bone`);
5. sole pitch/roll from the ground normal, faded over the swing, smoothed.
With ``ik`` off the body follows the ground under it and the legs keep the animation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import BoolArray, FloatArray
from footfall.errors import SkeletonError
from footfall.footing.foot_model import FootModel, Leg, foot_model, leg_lengths, legs_of
from footfall.grounding import stage_kernels
from footfall.grounding.footstep_cache import FootstepCache
from footfall.grounding.frames import FootPlan, GroundedFrame, frame_at, with_frame_axis
from footfall.grounding.params import (
    DEFAULT_PARAMS,
    GroundingParams,
    ParamArrays,
    stack_params,
)
from footfall.grounding.stage_rows import (
    NONE1,
    NONE2,
    NONE3,
    FollowState,
    FootLocks,
    FootTargets,
    Given,
    LegRig,
    PoseRows,
    SoleReport,
    StageBatch,
    StageParams,
    batch_rows,
    lifted_legs,
)
from footfall.grounding.standing import sole_offsets
from footfall.humanoid.limbs import hips_joint
from footfall.ik import solve_two_bone
from footfall.skeleton import FKPlan, Skeleton

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource

__all__ = ["FootPlan", "GroundedFrame", "GroundingPipeline", "frame_at", "with_frame_axis",
           "write_leg_rotations"]

#: A planted ankle within these (metres) of its footstep, aside and along the foot, stands on
#: the footstep's rays; further (held by a lock elsewhere) on the ray under it.
ON_STEP_ASIDE = 0.005
ON_STEP_AHEAD = 0.06


#: ``ik_on`` of :func:`write_leg_rotations`: the legs of every row are solved.
_EVERY_ROW = np.ones(1, dtype=bool)


def write_leg_rotations(rig: LegRig, grot: FloatArray, rotations: FloatArray,
                        upper_delta: FloatArray, lower_delta: FloatArray,
                        foot_rot: FloatArray) -> None:
    """The pipeline's leg stage for a caller that solved its own legs (the stepping walker):
    writes the IK deltas ``(N, 2, 4)`` applied to the legs' world rotations ``grot`` (``(N, J,
    4)`` or ``(1, J, 4)``) of the ``rig``'s legs into the local ``rotations (N, J, 4)``, each
    foot keeping its world rotation ``foot_rot (N, 2, 4)`` (no sole tilt). Every array as the
    kernels take it (:func:`~footfall.arrays.kernel_array`)."""
    stage_kernels.leg_rotations(rig, grot, rotations, upper_delta, lower_delta, foot_rot, False,
                                NONE3, NONE3, _EVERY_ROW)


class GroundingPipeline:
    """Grounds K animated characters on a terrain, one frame per :meth:`step`.

    State between frames: the smoothed hips offset and sole angles (and their values at each
    frame of the last :meth:`step_frames` batch, for :meth:`rewind`), and a cache of snapped
    footsteps (:attr:`footsteps`: tread snapping rays are cast once per footstep, not per
    frame).

    Args:
        skeleton: the characters' skeleton (all K share it).
        terrain: a :class:`footfall.terrain.Terrain`.
        count: number of characters K.
        params: one :class:`GroundingParams` or one per character.
        legs: override for the (left, right) legs; found by :func:`footfall.humanoid.find_legs`.
        feet: override for the (left, right) soles (default: measured on the rest pose).
    """

    def __init__(
        self,
        skeleton: Skeleton,
        terrain: RaySource,
        count: int = 1,
        params: GroundingParams | Sequence[GroundingParams] = DEFAULT_PARAMS,
        legs: Any = None,
        feet: tuple[FootModel, FootModel] | None = None,
    ) -> None:
        if count < 1:
            raise SkeletonError(f"count must be ≥ 1, got {count}")
        self.skeleton = skeleton
        self.terrain = terrain
        self.count = count
        self.legs: tuple[Leg, Leg] = legs_of(skeleton, legs)
        self.feet: tuple[FootModel, FootModel] = feet or (
            foot_model(skeleton, self.legs[0], legs=self.legs),
            foot_model(skeleton, self.legs[1], legs=self.legs)
        )
        # The root is what a lift moves (everything hangs from it); the hips are read: the
        # body's height and the ground under it (a still node above the hips is no body).
        self.root = int(np.nonzero(skeleton.parents < 0)[0][0])
        self.hips = hips_joint(skeleton, self.legs)
        upper, lower, foot = np.array([(g.upper, g.lower, g.foot) for g in self.legs]).T.copy()
        # Two FK passes into the same memory: the legs before the IK (the feet and their
        # ancestors: all the stages read), then the solved pose, the whole body, over it.
        self._legs_fk = FKPlan(skeleton.parents, foot)
        self._fk = FKPlan(skeleton.parents)
        self.leg_length = np.array([sum(leg_lengths(skeleton, g)) for g in self.legs])  # (2,)
        ankle_height, heel, toe = np.array(
            [(f.ankle_height, f.heel_back, f.toe_forward) for f in self.feet]).T.copy()
        #: The legs and feet as the stages read them.
        self.rig = LegRig(
            root=self.root, hips=self.hips, upper=upper, lower=lower, foot=foot,
            hip_parent=skeleton.parents[upper], leg_length=self.leg_length,
            ankle_height=ankle_height, foot_forward=np.stack([f.forward for f in self.feet]),
            below_ankle=np.stack([f.below_ankle for f in self.feet]))
        self._sole_along = sole_offsets(heel, toe)  # (2, S) rays along each sole
        #: The snapped footsteps, kept between frames.
        self.footsteps = FootstepCache(terrain, count, heel, toe, self._sole_along)
        self.params = params

    @property
    def params(self) -> ParamArrays:
        """The per-character parameters as ``(K,)`` arrays (assign GroundingParams to change)."""
        return self._params

    @params.setter
    def params(self, params: GroundingParams | Sequence[GroundingParams]) -> None:
        # New switches take effect smoothly: the hips and sole angles keep following from
        # where they are; only the footstep cache (snapped with the old values) is dropped.
        self._params = stack_params(params, self.count)
        if not hasattr(self, "_hips_offset"):
            self.reset()
        self.footsteps.reset()

    def reset(self) -> None:
        """Forget the smoothing state and the footstep cache (next frame starts afresh)."""
        self._hips_offset: FloatArray = np.full(self.count, np.nan)
        self._angles: FloatArray = np.zeros((self.count, 2, 2))  # (K, foot, pitch/roll)
        self._history = (self._hips_offset[None].copy(), self._angles[None].copy())
        self.footsteps.reset()

    def reset_footsteps(self) -> None:
        """Forget the cached footsteps (their snap shift and ground are cast again)."""
        self.footsteps.reset()

    def step(
        self,
        rotations: ArrayLike,
        positions: ArrayLike,
        plan: FootPlan,
        dt: float = 1 / 60,
        ik: ArrayLike | None = None,
        *,
        foot_lift: ArrayLike | None = None,
        hips_offset: ArrayLike | None = None,
        sole_angles: ArrayLike | None = None,
    ) -> GroundedFrame:
        """Ground one animated frame of K characters.

        rotations: ``(K, J, 4)`` local rotations; positions: ``(K, J, 3)`` local translations
        (root in world metres, animated for a flat floor at y = 0). dt: seconds since the last
        frame (clamped to 0.05). ik: optional ``(K,)`` bool, ANDed with the ``ik`` switch.
        foot_lift: optional ``(K, 2)`` metres added to grounded ankle targets (offline
        correction passes). hips_offset: optional ``(K,)`` hips offset to use instead of the
        smoothed one (offline smoothing); it is still kept low enough for the legs to reach.
        sole_angles: optional ``(K, 2, 2)`` sole (pitch, roll) radians to apply instead of the
        smoothed ones (offline smoothing); still only where a foot is grounded.
        """
        return self._ground(
            np.asarray(rotations)[None], np.asarray(positions)[None], with_frame_axis(plan), dt, ik,
            None if foot_lift is None else np.asarray(foot_lift)[None],
            None if hips_offset is None else np.asarray(hips_offset)[None],
            None if sole_angles is None else np.asarray(sole_angles)[None], True, frame_axis=False)

    def step_frames(
        self,
        rotations: ArrayLike,
        positions: ArrayLike,
        plan: FootPlan,
        dt: float = 1 / 60,
        ik: ArrayLike | None = None,
        *,
        foot_lift: ArrayLike | None = None,
        hips_offset: ArrayLike | None = None,
        sole_angles: ArrayLike | None = None,
        copy: bool = True,
    ) -> GroundedFrame:
        """Ground T consecutive frames of K characters in one batched call.

        The same as T calls of :meth:`step` (``dt`` apart), every input and output (plan fields
        included) with a leading frame axis T. Afterwards the state is that of the last frame;
        :meth:`rewind` goes back to any frame of the batch.

        ``copy=False``: the pose arrays (when C-ordered float64) become the returned frame's
        local pose, grounded in place, instead of being copied first (a walker's fresh pose).
        """
        return self._ground(rotations, positions, plan, dt, ik, foot_lift, hips_offset,
                            sole_angles, copy)

    def _ground(self, rotations: ArrayLike, positions: ArrayLike, plan: FootPlan, dt: float,
                ik: ArrayLike | None, foot_lift: ArrayLike | None,
                hips_offset: ArrayLike | None, sole_angles: ArrayLike | None, copy: bool,
                frame_axis: bool = True) -> GroundedFrame:
        """:meth:`step_frames`; with ``frame_axis`` False (one frame: :meth:`step`) the frame's
        arrays without their leading axis of one."""
        batch = self._batch(rotations, positions, plan, dt, ik, copy)
        targets = self._targets(batch, plan)
        given = self._given(batch, sole_angles, foot_lift, hips_offset)
        self._sole_angles(batch, targets, given)
        offset = self._hips(batch, targets, given)
        clamped = self._legs(batch, targets)
        return self._result(batch, targets, clamped, offset, frame_axis)

    def _batch(self, rotations: ArrayLike, positions: ArrayLike, plan: FootPlan, dt: float,
               ik: ArrayLike | None, copy: bool = True) -> StageBatch:
        """Stage 0: the N = T·K rows (frame-major), their parameters, plan rows, the legs' FK
        and the feet's world rotations and heading."""
        rotations = np.array(rotations, dtype=np.float64, copy=copy or None, order="C")
        positions = np.array(positions, dtype=np.float64, copy=copy or None, order="C")
        k, joints = self.count, self.skeleton.joint_count
        if (
            rotations.ndim != 4 or rotations.shape[1:] != (k, joints, 4)
            or positions.shape != rotations.shape[:-1] + (3,)
        ):
            raise SkeletonError(
                f"pose shapes {rotations.shape}, {positions.shape}; expected (T, {k}, {joints}, 4)"
                f" and (T, {k}, {joints}, 3)"
            )
        frames = rotations.shape[0]
        count = frames * k  # rows: frame-major, character-minor
        rotations = rotations.reshape(count, joints, 4)
        positions = positions.reshape(count, joints, 3)
        p = self._params
        if ik is not None and np.size(ik) not in (1, k):
            raise SkeletonError(f"ik has {np.size(ik)} values for {k} characters")
        # (one value or K: numpy broadcasts them; its broadcast_to costs ~4 µs a frame)
        ik_on = np.ascontiguousarray(p.ik if ik is None else p.ik & np.asarray(ik, bool).ravel())
        grot, gpos = self._legs_fk(rotations, positions, out=(
            np.empty((count, joints, 4)), np.empty((count, joints, 3))))
        rows = PoseRows(
            rotations=rotations, positions=positions, grot=grot, gpos=gpos,
            foot_rot=np.empty((count, 2, 4)), ankle=np.empty((count, 2, 3)),
            forward=np.empty((count, 2, 3)),
            stance=batch_rows(plan.stance, frames, k, (2,), bool, "plan.stance"),
            swing=batch_rows(plan.swing, frames, k, (2,), np.float64, "plan.swing"))
        params = StageParams(
            ik_on=ik_on, lowering=ik_on & p.hips, max_step_ratio=p.max_step_ratio,
            foot_align=p.foot_align, steep_normal_y=p.steep_normal_y, max_slope=p.max_slope,
            smoothing=p.smoothing, align_rate=p.align_rate, reach_ratio=p.reach_ratio,
            max_reach=p.max_reach, hips_rate=p.hips_rate, hips_snap=p.hips_snap,
            dt=float(min(max(dt, 0.0), 0.05)))
        lock_weight = batch_rows(plan.lock_weight, frames, k, (2,), np.float64, "plan.lock_weight")
        lock_turn = batch_rows(plan.lock_turn, frames, k, (2,), np.float64, "plan.lock_turn")
        has_turn = lock_turn is not None and lock_weight is not None
        has_lock = plan.lock_xz is not None and lock_weight is not None
        locks = FootLocks(
            has_lock=has_lock,
            xz=(batch_rows(plan.lock_xz, frames, k, (2, 2), np.float64, "plan.lock_xz") if has_lock
                else NONE3),
            weight=lock_weight if lock_weight is not None else NONE2,
            has_turn=has_turn, turn=lock_turn if has_turn else NONE2)
        stage_kernels.feet_frame(rows, self.rig, locks)
        return StageBatch(frames=frames, k=k, p=p, params=params, rows=rows, locks=locks)

    def _targets(self, batch: StageBatch, plan: FootPlan) -> FootTargets:
        """Stages 1–2: footsteps (snapped shift and plant heights, cached per footstep), the
        swing curve, foot locks, and one batch of rays ``(N, 1 + 2)`` under the body (where it
        goes when a foot cannot be grounded) and under each foot target."""
        count, rows = batch.count, batch.rows
        plant_xz = batch.rows_of(plan.plant_xz, (2, 2), np.float64, "plan.plant_xz")
        steps = self.footsteps.snapped(
            plant_xz, batch.rows_of(plan.next_plant_xz, (2, 2), np.float64, "plan.next_plant_xz"),
            rows.forward, batch.params.ik_on & batch.p.tread_snap, self._params)
        target, ray_xz = np.empty((count, 2, 3)), np.empty((count, 3, 2))
        stage_kernels.foot_targets(rows, self.rig, batch.locks, steps, target, ray_xz)
        hits = self.terrain.raycast_down(ray_xz)
        # A planted foot on its footstep stands on what the footstep's rays found along its
        # sole, however it rolls over it (the ankle moves a few cm from heel strike to toe-off:
        # the samples stay where they were cast); a foot moved off it sideways (a lock) stands
        # on the ray under its ankle.
        # (x, z) as strided views, not fancy indexing (a copy: ~1.5 µs each a frame)
        moved = target[..., ::2] - plant_xz - steps[:, :, 0, :2]  # (N, 2, 2)
        heading = np.ascontiguousarray(rows.forward[..., ::2])
        ahead = np.einsum("nfk,nfk->nf", moved, heading)
        aside = np.abs(moved[..., 0] * heading[..., 1] - moved[..., 1] * heading[..., 0])
        on_step = (aside <= ON_STEP_ASIDE) & (np.abs(ahead) <= ON_STEP_AHEAD)
        standing = np.ascontiguousarray(steps[:, :, 0, 5:])
        standing[..., 1] *= rows.stance & on_step
        sole_along = np.ascontiguousarray(self._sole_along - ahead[..., None])  # (N, 2, S)
        targets = FootTargets(
            ankle=target, steps=steps, hit=hits.hit, point=hits.point, normal=hits.normal,
            body_ground=np.empty(count), offset=np.empty((count, 2)),
            fallback=np.empty((count, 2), bool), angles=np.empty((count, 2, 2)),
            standing=standing, sole_along=sole_along)
        return targets

    def _given(self, batch: StageBatch, sole_angles: ArrayLike | None, foot_lift: ArrayLike | None,
               hips_offset: ArrayLike | None) -> Given:
        """The values an offline caller gives, as rows (stand-ins where absent)."""
        angles = batch.rows_of(sole_angles, (2, 2), np.float64, "sole_angles")
        lift = batch.rows_of(foot_lift, (2,), np.float64, "foot_lift")
        offset = batch.rows_of(hips_offset, (), np.float64, "hips_offset")
        return Given(has_sole_angles=angles is not None,
                     sole_angles=NONE3 if angles is None else angles,
                     has_foot_lift=lift is not None, foot_lift=NONE2 if lift is None else lift,
                     has_hips_offset=offset is not None,
                     hips_offset=NONE1 if offset is None else offset)

    def _sole_angles(self, batch: StageBatch, targets: FootTargets, given: Given) -> None:
        """Stage 5 (first: the angles lift the ankle) with the end of stage 2: grounded feet,
        offsets, sole angles, target heights (:func:`stage_kernels.ground_and_soles`)."""
        state = FollowState(hips=NONE1, angles=self._angles.copy())
        stage_kernels.ground_and_soles(batch.rows, targets, self.rig, batch.params, given, state)
        self._angles = state.angles

    def _hips(self, batch: StageBatch, targets: FootTargets, given: Given) -> FloatArray:
        """Stage 3: the hips offset ``(N,)`` (:func:`stage_kernels.hips_follow`), applied
        to the batch's root; the legs lifted with it for the IK (``batch.lifted``)."""
        state = FollowState(hips=self._hips_offset.copy(), angles=NONE3)
        batch.lifted = lifted_legs(batch.count)
        stage_kernels.hips_follow(batch.rows, targets, self.rig, batch.params, given, state,
                                    batch.lifted)
        self._hips_offset = state.hips
        out = batch.lifted.hips_offset
        self._history = (out.reshape(batch.frames, batch.k),
                         targets.angles.reshape(batch.frames, batch.k, 2, 2))
        return out

    def _legs(self, batch: StageBatch, targets: FootTargets) -> BoolArray:
        """Stage 4: leg IK to the ankle targets; the foot keeps its animated world rotation,
        tilted (skipped when no character has IK on: the legs keep the animation). Writes the
        batch's local rotations; returns which legs were clamped ``(N, 2)``."""
        ik_on = batch.params.ik_on
        if not ik_on.any():
            return np.zeros((batch.count, 2), dtype=bool)
        lifted, rows = batch.lifted, batch.rows
        assert lifted is not None  # the hips stage ran
        solved = solve_two_bone(lifted.hip, lifted.knee, lifted.ankle, targets.ankle,
                                max_reach=lifted.max_reach)
        stage_kernels.leg_rotations(
            self.rig, rows.grot, rows.rotations, solved.upper_rotation,
            solved.lower_rotation, rows.foot_rot, True, targets.angles, rows.forward, ik_on)
        every_frame = ik_on[:, None]  # (K, 1): each frame's K rows
        return (solved.clamped.reshape(batch.frames, batch.k, 2) & every_frame).reshape(-1, 2)

    def _result(self, batch: StageBatch, targets: FootTargets, clamped: BoolArray,
                hips_offset: FloatArray, frame_axis: bool = True) -> GroundedFrame:
        """The grounded frames ``(T, K, ...)`` (``(K, ...)``, one frame, without
        ``frame_axis``): FK of the solved pose, rays under the soles."""
        count, rows = batch.count, batch.rows
        grot, gpos = self._fk(rows.rotations, rows.positions, out=(rows.grot, rows.gpos))
        sole, sole_xz = np.empty((count, 2, 3)), np.empty((count, 2, 2))
        stage_kernels.sole_points(self.rig, grot, gpos, sole, sole_xz)
        hits = self.terrain.raycast_down(sole_xz)
        under, sole_gap, pitch, roll = (np.empty((count, 2)) for _ in range(4))
        report = SoleReport(under=under, sole_gap=sole_gap, ray_origin=np.empty((count, 2, 3)),
                            ray_hit=np.empty((count, 2, 3)), pitch=pitch, roll=roll)
        stage_kernels.sole_report(self.rig, batch.params, targets, sole, hits.hit, hits.point,
                                  report)

        def out(array: np.ndarray) -> np.ndarray:
            if not frame_axis:  # rows (K, ...) are the frame
                return array
            if batch.frames == 1:  # (the same view as the reshape, for a third of its cost)
                return array[None]
            return array.reshape(batch.frames, batch.k, *array.shape[1:])

        return GroundedFrame(
            rotations=out(rows.rotations),
            positions=out(rows.positions),
            global_rotations=out(grot),
            global_positions=out(gpos),
            stance=out(rows.stance.copy()),
            ground_height=out(report.under),
            sole_gap=out(report.sole_gap),
            sole_pitch=out(report.pitch),
            sole_roll=out(report.roll),
            clamped=out(clamped),
            fallback=out(targets.fallback),
            ray_origin=out(report.ray_origin),
            ray_hit=out(report.ray_hit),
            ankle_target=out(targets.ankle),
            hips_height=out(gpos[:, self.hips, 1]),
            hips_offset=out(hips_offset.copy()),
        )

    def rewind(self, frame: int) -> None:
        """Set the smoothing state back to frame ``frame`` of the last :meth:`step_frames`
        batch (a live view dropping the frames it had simulated ahead); forgets the footstep
        cache."""
        hips, angles = self._history
        if not 0 <= frame < len(hips):
            raise SkeletonError(f"rewind: frame {frame} is not in the last batch of {len(hips)}")
        self._hips_offset = hips[frame].copy()
        self._angles = angles[frame].copy()
        self.footsteps.reset()
