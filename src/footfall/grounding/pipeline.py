"""The per-frame foot placement pipeline of SPEC §4 for K characters in one call.

Input per frame: an animated pose on a flat floor at y = 0 (local rotations and translations,
root placed in the world) and a :class:`FootPlan` (which feet are planted, swing progress, the
current and next footstep). Output: the grounded pose and what each stage saw.

Stages, each switchable per character (:class:`~footfall.grounding.params.GroundingParams`):
1. downward rays under the body and each foot (the terrain tests only the chunk under a ray);
2. tread snapping of the footsteps (seed 002, step 2) and the swing curve between plant heights;
3. pelvis lowered so the lower foot reaches, never raised, followed smoothly (seed 000, 004);
4. two-bone leg IK to the ankle targets (:func:`footfall.ik.solve_two_bone`);
5. sole pitch/roll from the ground normal, faded over the swing, smoothed.
With ``ik`` off the body follows the ground under it and the legs keep the animation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import BoolArray, FloatArray, IntArray, kernel_array
from footfall.errors import SkeletonError
from footfall.grounding import stage_kernels
from footfall.grounding.feet import FootModel, Leg, foot_model, leg_lengths, legs_of
from footfall.grounding.footsteps import tread_snap_shift
from footfall.grounding.params import (
    DEFAULT_PARAMS,
    GroundingParams,
    ParamArrays,
    stack_params,
)
from footfall.grounding.stage_kernels import NONE1, NONE2, NONE3
from footfall.grounding.standing import sole_offsets, standing_ground
from footfall.humanoid.limbs import pelvis_joint
from footfall.ik import solve_two_bone
from footfall.skeleton import FKPlan, Skeleton
from footfall.terrain.hits import RayHits

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource

#: Values per cached footstep before what it stands on: shift xz, height, hit, snapped (5),
#: then its pitch and whether it stands on the line along its sole (the heights follow).
STEP_VALUES = 7
#: A planted ankle within these (metres) of its footstep, aside and along the foot, stands on
#: the footstep's rays; further (held by a lock elsewhere) on the ray under it.
ON_STEP_ASIDE = 0.005
ON_STEP_AHEAD = 0.06


@dataclass(frozen=True)
class FootPlan:
    """What the animation intends each foot to do this frame; ``(K, 2)`` = (character, foot).

    stance: planted. swing: swing progress q ∈ [0, 1] (ignored while planted).
    plant_xz, next_plant_xz: ``(K, 2, 2)`` world (x, z) of the ankle at the current (or last)
    and the next footstep.
    lock_xz, lock_weight: optional foot locks (post-processing): ``(K, 2, 2)`` world (x, z) the
    ankle is held at and ``(K, 2)`` how much (0 = animated, 1 = locked).
    lock_turn: optional ``(K, 2)`` radians about +Y that turn the foot to its locked heading
    (applied with ``lock_weight``).
    """

    stance: BoolArray
    swing: FloatArray
    plant_xz: FloatArray
    next_plant_xz: FloatArray
    lock_xz: FloatArray | None = None
    lock_weight: FloatArray | None = None
    lock_turn: FloatArray | None = None


@dataclass(frozen=True)
class GroundedFrame:
    """One grounded frame for K characters (left foot first on the foot axis).

    rotations, positions: ``(K, J, 4)``, ``(K, J, 3)`` local pose. global_rotations,
    global_positions: the same after FK. Per foot ``(K, 2)``: stance, ground_height (ground under
    the sole below the ankle), sole_gap (that sole point − ground: + floating, − sinking),
    sole_pitch, sole_roll (radians, as applied), clamped (leg stretched to its limit),
    fallback (ground missing or out of reach: the animated foot was kept). ray_origin,
    ray_hit, ankle_target: ``(K, 2, 3)``. pelvis_height, pelvis_offset: ``(K,)`` metres.
    """

    rotations: FloatArray
    positions: FloatArray
    global_rotations: FloatArray
    global_positions: FloatArray
    stance: BoolArray
    ground_height: FloatArray
    sole_gap: FloatArray
    sole_pitch: FloatArray
    sole_roll: FloatArray
    clamped: BoolArray
    fallback: BoolArray
    ray_origin: FloatArray
    ray_hit: FloatArray
    ankle_target: FloatArray
    pelvis_height: FloatArray
    pelvis_offset: FloatArray


@dataclass
class _Batch:
    """The N = T·K rows (frame-major; row n is character ``n mod K``) one
    :meth:`GroundingPipeline.step_frames` call grounds, as the stages read and update them.
    ``grot``, ``gpos``: the legs' global pose before the pelvis moves (other joints' rows unset
    until the final FK); ``foot_rot (N, 2, 4)``, ``ankle``, ``forward (N, 2, 3)``: the feet."""

    frames: int
    k: int
    rotations: FloatArray
    positions: FloatArray
    p: ParamArrays
    ik_on: BoolArray
    dt: float
    grot: FloatArray
    gpos: FloatArray
    foot_rot: FloatArray
    ankle: FloatArray
    forward: FloatArray
    stance: BoolArray
    swing: FloatArray
    lock_weight: Any = None  # (N, 2) foot lock weights, or None
    legs: Any = None  # lifted hip, knee, ankle (N, 2, 3) and max reach (N, 2), for the IK

    @property
    def count(self) -> int:
        """N = T·K."""
        return self.frames * self.k

    def rows(self, value: ArrayLike | None, tail: tuple[int, ...], dtype: type,
             name: str = "input") -> Any:
        """``value`` broadcast to ``(T, K, *tail)`` as C-ordered, writable rows ``(N, *tail)``
        (None stays None); a :class:`SkeletonError` naming ``name`` if it does not fit (the
        kernels index these rows unchecked)."""
        if value is None:
            return None
        array: np.ndarray = np.asarray(value, dtype=dtype)
        try:
            full = np.broadcast_to(array, (self.frames, self.k, *tail))
        except ValueError:
            raise SkeletonError(
                f"{name} has shape {array.shape}; expected (T, K{''.join(f', {n}' for n in tail)})"
                f" = {(self.frames, self.k, *tail)} or a shape that broadcasts to it") from None
        return kernel_array(full, (self.count, *tail))


@dataclass
class _Targets:
    """What the footstep and ray stage found per row and foot: ankle targets ``(N, 2, 3)``
    (heights completed by the sole stage), the snapped footsteps ``steps (N, 2, 2, V)``
    (current/next: shift xz, ground height, hit, snapped) and the rays ``(N, 3)`` under the
    body and each target; then, from the sole stage, the ground under the body ``(N,)``, each
    foot's vertical ``offset``, the ``fallback`` feet and the sole ``angles`` ``(N, 2, 2)``
    (pitch, roll) as applied; ``standing (N, 2, 2 + S)``: the ground each planted foot stands
    on, from its footstep's rays along its sole (pitch, found, the heights under its samples;
    :func:`~footfall.grounding.standing.standing_ground`), those samples ``sole_along
    (N, 2, S)`` metres ahead of its ankle."""

    ankle: FloatArray
    steps: FloatArray
    hits: RayHits
    body_ground: FloatArray
    offset: FloatArray
    fallback: BoolArray
    angles: FloatArray
    standing: FloatArray
    sole_along: FloatArray


#: ``ik_on`` of :func:`write_leg_rotations`: the legs of every row are solved.
_EVERY_ROW = np.ones(1, dtype=bool)


def write_leg_rotations(grot: FloatArray, rotations: FloatArray, upper: IntArray,
                        lower: IntArray, foot: IntArray, hip_parent: IntArray,
                        upper_delta: FloatArray, lower_delta: FloatArray,
                        foot_rot: FloatArray) -> None:
    """The pipeline's leg stage for a caller that solved its own legs (the stepping walker):
    writes the IK deltas ``(N, 2, 4)`` applied to the legs' world rotations ``grot`` (``(N, J,
    4)`` or ``(1, J, 4)``) into the local ``rotations (N, J, 4)``, each foot keeping its world
    rotation ``foot_rot (N, 2, 4)`` (no sole tilt). Every array as the kernels take it
    (:func:`~footfall.arrays.kernel_array`)."""
    stage_kernels.leg_rotations(grot, rotations, upper, lower, foot, hip_parent, upper_delta,
                                lower_delta, False, NONE3, NONE3, foot_rot, _EVERY_ROW)


class GroundingPipeline:
    """Grounds K animated characters on a terrain, one frame per :meth:`step`.

    State between frames: the smoothed pelvis offset and sole angles (and their values at each
    frame of the last :meth:`step_frames` batch, for :meth:`rewind`), and a cache of snapped
    footsteps (tread snapping rays are cast once per footstep, not per frame).

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
        # The root is what a lift moves (everything hangs from it); the pelvis is read: the
        # body's height and the ground under it (a still node above the hips is no body).
        self.root = int(np.nonzero(skeleton.parents < 0)[0][0])
        self.pelvis = pelvis_joint(skeleton, self.legs)
        self._upper, self._lower, self._foot = np.array(
            [(g.upper, g.lower, g.foot) for g in self.legs]).T.copy()
        self._hip_parent = skeleton.parents[self._upper]
        # Two FK passes into the same memory: the legs before the IK (the feet and their
        # ancestors: all the stages read), then the solved pose, the whole body, over it.
        self._legs_fk = FKPlan(skeleton.parents, self._foot)
        self._fk = FKPlan(skeleton.parents)
        self.leg_length = np.array([sum(leg_lengths(skeleton, g)) for g in self.legs])  # (2,)
        self._ankle_height, self._heel, self._toe = np.array(
            [(f.ankle_height, f.heel_back, f.toe_forward) for f in self.feet]).T.copy()
        self._foot_forward = np.stack([f.forward for f in self.feet])  # (2, 3)
        self._sole_along = sole_offsets(self._heel, self._toe)  # (2, S) rays along each sole
        self._below_ankle = np.stack([f.below_ankle for f in self.feet])
        self.params = params

    @property
    def params(self) -> ParamArrays:
        """The per-character parameters as ``(K,)`` arrays (assign GroundingParams to change)."""
        return self._params

    @params.setter
    def params(self, params: GroundingParams | Sequence[GroundingParams]) -> None:
        # New switches take effect smoothly: the pelvis and sole angles keep following from
        # where they are; only the footstep cache (snapped with the old values) is dropped.
        self._params = stack_params(params, self.count)
        if not hasattr(self, "_pelvis_offset"):
            self.reset()
        self.reset_footsteps()

    def reset(self) -> None:
        """Forget the smoothing state and the footstep cache (next frame starts afresh)."""
        self._pelvis_offset: FloatArray = np.full(self.count, np.nan)
        self._angles: FloatArray = np.zeros((self.count, 2, 2))  # (K, foot, pitch/roll)
        self._history = (self._pelvis_offset[None].copy(), self._angles[None].copy())
        self.reset_footsteps()

    def reset_footsteps(self) -> None:
        """Forget the cached footsteps (their snap shift and ground are cast again)."""
        self._cache_keys = np.full((self.count, 2, 2, 2), np.nan)  # (K, foot, plant/next, xz)
        # shift xz, height, hit, snapped, then what it stands on (pitch, found, heights (S,))
        self._cache_values = np.zeros((self.count, 2, 2, STEP_VALUES + self._sole_along.shape[1]))

    def step(
        self,
        rotations: ArrayLike,
        positions: ArrayLike,
        plan: FootPlan,
        dt: float = 1 / 60,
        ik: ArrayLike | None = None,
        *,
        foot_lift: ArrayLike | None = None,
        pelvis_offset: ArrayLike | None = None,
        sole_angles: ArrayLike | None = None,
    ) -> GroundedFrame:
        """Ground one animated frame of K characters.

        rotations: ``(K, J, 4)`` local rotations; positions: ``(K, J, 3)`` local translations
        (root in world metres, animated for a flat floor at y = 0). dt: seconds since the last
        frame (clamped to 0.05). ik: optional ``(K,)`` bool, ANDed with the ``ik`` switch.
        foot_lift: optional ``(K, 2)`` metres added to grounded ankle targets (offline
        correction passes). pelvis_offset: optional ``(K,)`` pelvis offset to use instead of the
        smoothed one (offline smoothing); it is still kept low enough for the legs to reach.
        sole_angles: optional ``(K, 2, 2)`` sole (pitch, roll) radians to apply instead of the
        smoothed ones (offline smoothing); still only where a foot is grounded.
        """
        one = self.step_frames(
            np.asarray(rotations)[None], np.asarray(positions)[None], with_frame_axis(plan), dt, ik,
            foot_lift=None if foot_lift is None else np.asarray(foot_lift)[None],
            pelvis_offset=None if pelvis_offset is None else np.asarray(pelvis_offset)[None],
            sole_angles=None if sole_angles is None else np.asarray(sole_angles)[None],
        )
        return frame_at(one, 0)

    def step_frames(
        self,
        rotations: ArrayLike,
        positions: ArrayLike,
        plan: FootPlan,
        dt: float = 1 / 60,
        ik: ArrayLike | None = None,
        *,
        foot_lift: ArrayLike | None = None,
        pelvis_offset: ArrayLike | None = None,
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
        batch = self._batch(rotations, positions, plan, dt, ik, copy)
        targets = self._targets(batch, plan)
        self._sole_angles(batch, targets, sole_angles, foot_lift)
        offset = self._pelvis(batch, targets, pelvis_offset)
        clamped = self._legs(batch, targets)
        return self._result(batch, targets, clamped, offset)

    def _batch(self, rotations: ArrayLike, positions: ArrayLike, plan: FootPlan, dt: float,
               ik: ArrayLike | None, copy: bool = True) -> _Batch:
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
        ik_on = p.ik if ik is None else p.ik & np.broadcast_to(np.asarray(ik, bool).ravel(), (k,))
        grot, gpos = self._legs_fk(rotations, positions, out=(
            np.empty((count, joints, 4)), np.empty((count, joints, 3))))
        foot_rot, ankle, forward = np.empty((count, 2, 4)), np.empty((count, 2, 3)), \
            np.empty((count, 2, 3))
        batch = _Batch(frames=frames, k=k, rotations=rotations, positions=positions, p=p,
                       ik_on=np.ascontiguousarray(ik_on), dt=float(min(max(dt, 0.0), 0.05)),
                       grot=grot, gpos=gpos, foot_rot=foot_rot, ankle=ankle, forward=forward,
                       stance=np.empty(0, bool), swing=np.empty(0))
        batch.stance = batch.rows(plan.stance, (2,), bool, "plan.stance")
        batch.swing = batch.rows(plan.swing, (2,), np.float64, "plan.swing")
        lock_weight = batch.rows(plan.lock_weight, (2,), np.float64, "plan.lock_weight")
        lock_turn = batch.rows(plan.lock_turn, (2,), np.float64, "plan.lock_turn")
        has_turn = lock_turn is not None and lock_weight is not None
        batch.lock_weight = lock_weight
        stage_kernels.feet_frame(grot, gpos, self._foot, self._foot_forward, has_turn,
                                 lock_turn if has_turn else NONE2,
                                 lock_weight if has_turn else NONE2, foot_rot, ankle, forward)
        return batch

    def _targets(self, batch: _Batch, plan: FootPlan) -> _Targets:
        """Stages 1–2: footsteps (snapped shift and plant heights, cached per footstep), the
        swing curve, foot locks, and one batch of rays ``(N, 1 + 2)`` under the body (where it
        goes when a foot cannot be grounded) and under each foot target."""
        count = batch.count
        plant_xz = batch.rows(plan.plant_xz, (2, 2), np.float64, "plan.plant_xz")
        steps = self._footsteps(
            plant_xz,
            batch.rows(plan.next_plant_xz, (2, 2), np.float64, "plan.next_plant_xz"),
            batch.forward, batch.ik_on & batch.p.tread_snap)
        has_lock = plan.lock_xz is not None and batch.lock_weight is not None
        target, ray_xz = np.empty((count, 2, 3)), np.empty((count, 3, 2))
        stage_kernels.foot_targets(
            batch.ankle, batch.stance, batch.swing, steps, has_lock,
            batch.rows(plan.lock_xz, (2, 2), np.float64, "plan.lock_xz") if has_lock else NONE3,
            batch.lock_weight if has_lock else NONE2, batch.gpos, self.pelvis, target, ray_xz)
        hits = self.terrain.raycast_down(ray_xz)
        # A planted foot on its footstep stands on what the footstep's rays found along its
        # sole, however it rolls over it (the ankle moves a few cm from heel strike to toe-off:
        # the samples stay where they were cast); a foot moved off it sideways (a lock) stands
        # on the ray under its ankle.
        moved = target[..., [0, 2]] - plant_xz - steps[:, :, 0, :2]  # (N, 2, 2)
        heading = batch.forward[..., [0, 2]]
        ahead = np.einsum("nfk,nfk->nf", moved, heading)
        aside = np.abs(moved[..., 0] * heading[..., 1] - moved[..., 1] * heading[..., 0])
        on_step = (aside <= ON_STEP_ASIDE) & (np.abs(ahead) <= ON_STEP_AHEAD)
        standing = np.ascontiguousarray(steps[:, :, 0, 5:])
        standing[..., 1] *= batch.stance & on_step
        sole_along = np.ascontiguousarray(self._sole_along - ahead[..., None])  # (N, 2, S)
        return _Targets(ankle=target, steps=steps, hits=hits, body_ground=np.empty(count),
                        offset=np.empty((count, 2)), fallback=np.empty((count, 2), bool),
                        angles=np.empty((count, 2, 2)), standing=standing,
                        sole_along=sole_along)

    def _sole_angles(self, batch: _Batch, targets: _Targets, sole_angles: ArrayLike | None,
                     foot_lift: ArrayLike | None) -> None:
        """Stage 5 (first: the angles lift the ankle) with the end of stage 2: grounded feet,
        offsets, sole angles, target heights (:func:`stage_kernels.ground_and_soles`)."""
        p, hits = batch.p, targets.hits
        given = batch.rows(sole_angles, (2, 2), np.float64, "sole_angles")
        lift = batch.rows(foot_lift, (2,), np.float64, "foot_lift")
        state = self._angles.copy()
        stage_kernels.ground_and_soles(
            batch.ankle, batch.stance, batch.swing, targets.steps, hits.hit,
            hits.point, hits.normal, batch.forward,
            batch.ik_on, p.max_step_ratio, self.leg_length, p.foot_align, p.steep_normal_y,
            p.max_slope, p.smoothing, p.align_rate, batch.dt, state, given is not None,
            NONE3 if given is None else given, self._ankle_height, lift is not None,
            NONE2 if lift is None else lift, targets.standing, targets.sole_along, targets.ankle,
            targets.body_ground,
            targets.offset, targets.fallback, targets.angles)
        self._angles = state

    def _pelvis(self, batch: _Batch, targets: _Targets, pelvis_offset: ArrayLike | None
                ) -> FloatArray:
        """Stage 3: the pelvis offset ``(N,)`` (:func:`stage_kernels.pelvis_follow`), applied
        to the batch's root."""
        p, count = batch.p, batch.count
        given = batch.rows(pelvis_offset, (), np.float64, "pelvis_offset")
        state = self._pelvis_offset.copy()
        out = np.empty(count)
        batch.legs = (np.empty((count, 2, 3)), np.empty((count, 2, 3)),
                      np.empty((count, 2, 3)), np.empty((count, 2)))
        stage_kernels.pelvis_follow(
            batch.gpos, batch.positions, self.root, self.pelvis, self._upper, self._lower,
            self._foot,
            self.leg_length, targets.ankle, targets.body_ground, batch.ik_on & p.pelvis,
            p.reach_ratio, p.max_reach, p.smoothing, p.pelvis_rate, p.pelvis_snap, batch.dt,
            state, given is not None, NONE1 if given is None else given, out, *batch.legs)
        self._pelvis_offset = state
        self._history = (out.reshape(batch.frames, batch.k),
                         targets.angles.reshape(batch.frames, batch.k, 2, 2))
        return out

    def _legs(self, batch: _Batch, targets: _Targets) -> BoolArray:
        """Stage 4: leg IK to the ankle targets; the foot keeps its animated world rotation,
        tilted (skipped when no character has IK on: the legs keep the animation). Writes the
        batch's local rotations; returns which legs were clamped ``(N, 2)``."""
        if not batch.ik_on.any():
            return np.zeros((batch.count, 2), dtype=bool)
        hip, knee, ankle, max_reach = batch.legs
        solved = solve_two_bone(hip, knee, ankle, targets.ankle, max_reach=max_reach)
        stage_kernels.leg_rotations(
            batch.grot, batch.rotations, self._upper, self._lower, self._foot,
            self._hip_parent, solved.upper_rotation, solved.lower_rotation, True, targets.angles,
            batch.forward, batch.foot_rot, batch.ik_on)
        every_frame = np.broadcast_to(batch.ik_on, (batch.frames, batch.k)).reshape(-1, 1)
        return solved.clamped & every_frame

    def _result(self, batch: _Batch, targets: _Targets, clamped: BoolArray,
                pelvis_offset: FloatArray) -> GroundedFrame:
        """The grounded frames ``(T, K, ...)``: FK of the solved pose, rays under the soles."""
        count = batch.count
        grot, gpos = self._fk(batch.rotations, batch.positions, out=(batch.grot, batch.gpos))
        sole, sole_xz = np.empty((count, 2, 3)), np.empty((count, 2, 2))
        stage_kernels.sole_points(grot, gpos, self._foot, self._below_ankle, sole, sole_xz)
        hits = self.terrain.raycast_down(sole_xz)
        under, sole_gap, pitch, roll = (np.empty((count, 2)) for _ in range(4))
        ray_origin, ray_hit = np.empty((count, 2, 3)), np.empty((count, 2, 3))
        stage_kernels.sole_report(
            sole, hits.hit, hits.point, targets.offset,
            targets.ankle, self.leg_length, batch.ik_on, targets.angles, under, sole_gap,
            ray_origin, ray_hit, pitch, roll)

        def out(array: np.ndarray) -> np.ndarray:
            return array.reshape(batch.frames, batch.k, *array.shape[1:])

        return GroundedFrame(
            rotations=out(batch.rotations),
            positions=out(batch.positions),
            global_rotations=out(grot),
            global_positions=out(gpos),
            stance=out(batch.stance.copy()),
            ground_height=out(under),
            sole_gap=out(sole_gap),
            sole_pitch=out(pitch),
            sole_roll=out(roll),
            clamped=out(clamped),
            fallback=out(targets.fallback),
            ray_origin=out(ray_origin),
            ray_hit=out(ray_hit),
            ankle_target=out(targets.ankle),
            pelvis_height=out(gpos[:, self.pelvis, 1]),
            pelvis_offset=out(pelvis_offset.copy()),
        )

    def rewind(self, frame: int) -> None:
        """Set the smoothing state back to frame ``frame`` of the last :meth:`step_frames`
        batch (a live view dropping the frames it had simulated ahead); forgets the footstep
        cache."""
        pelvis, angles = self._history
        if not 0 <= frame < len(pelvis):
            raise SkeletonError(f"rewind: frame {frame} is not in the last batch of {len(pelvis)}")
        self._pelvis_offset = pelvis[frame].copy()
        self._angles = angles[frame].copy()
        self.reset_footsteps()

    def _footsteps(self, plant_xz: FloatArray, next_xz: FloatArray, forward: FloatArray,
                   snap: BoolArray) -> FloatArray:
        """Snapped footsteps ``(N, 2, 2, V)``: per foot, (current plant, next plant) × (snap
        shift xz, ground height, hit, snapped, then the ground it stands on: pitch, found and the
        heights under its sole samples, :func:`~footfall.grounding.standing.standing_ground`);
        N = T·K rows (frame-major), ``snap (K,)``.

        Each footstep costs its rays once: within a batch identical footsteps are cast once (the
        earliest frame's direction and parameters stand for all), and the last frame's
        footsteps are cached for the next call.
        """
        count, k, p = plant_xz.shape[0], self.count, self._params
        keys = np.empty((count, 2, 2, 2))  # (N, foot, which, xz)
        values = np.empty((count, 2, 2, self._cache_values.shape[-1]))
        known = np.empty((count, 2, 2), dtype=bool)
        stage_kernels.footstep_lookup(plant_xz, next_xz, self._cache_keys, self._cache_values,
                                      snap, keys, values, known)
        if not known.all():
            index = np.nonzero(~known)
            # Identical footsteps (same spot, foot and switch) are cast once.
            rows_all = np.column_stack([keys[index], index[1], snap[index[0] % k]])
            _, first, inverse = np.unique(rows_all, axis=0, return_index=True, return_inverse=True)
            full_index, index = index, tuple(i[first] for i in index)
            plant = keys[index]  # (N, 2)
            direction = forward[index[0], index[1]][:, [0, 2]]
            shift = np.zeros_like(plant)
            snapping = snap[index[0] % k]
            if np.any(snapping):
                rows = index[0][snapping] % k
                shift[snapping] = tread_snap_shift(
                    self.terrain, plant[snapping], direction[snapping],
                    self._heel[index[1][snapping]], self._toe[index[1][snapping]],
                    p.tread_margin[rows], float(p.tread_search.max()),
                    p.tread_tolerance[rows], float(p.tread_spacing.min()),
                )
            hits = self.terrain.raycast_down(plant + shift)
            height = np.where(hits.hit, hits.height, 0.0)
            # where its sole is aligned, a planted foot stands on the line along its sole: the
            # rays are cast once per footstep, the stance frames rest on them and the swings
            # start and end there
            stands = np.zeros((len(plant), STEP_VALUES - 5 + self._sole_along.shape[1]))
            rows = index[0] % k
            aligned = p.foot_align[rows] & p.ik[rows]
            if np.any(aligned):
                ground, pitch, on_line, heights = standing_ground(
                    self.terrain, (plant + shift)[aligned], direction[aligned],
                    self._sole_along[index[1][aligned]], p.steep_normal_y[rows[aligned]],
                    p.max_slope[rows[aligned]])
                height[aligned] = np.where(on_line, ground, height[aligned])
                stands[aligned] = np.column_stack([pitch, on_line, heights])
            computed = np.column_stack([shift, height, hits.hit, snapping, stands])
            values[full_index] = computed[inverse.reshape(-1)]
        if count:  # (a batch of no frames keeps the cache as it was)
            # This call's own arrays: one frame's are kept whole, a batch's last frame copied
            # (so the batch's memory is not held).
            self._cache_keys = keys if count == k else keys[-k:].copy()
            self._cache_values = values if count == k else values[-k:].copy()
        return values


def with_frame_axis(frame: Any) -> Any:
    """``frame`` (a FootPlan, GroundedFrame or subclass) as a batch of one frame: a leading
    axis of length 1 in front of every array field (None stays None); :func:`frame_at` undoes
    it."""
    return type(frame)(**{name: None if value is None else np.asarray(value)[None]
                          for name, value in vars(frame).items()})


def frame_at(frames: Any, index: int) -> Any:
    """Frame ``index`` of a batch from :meth:`GroundingPipeline.step_frames`: every array field
    of the (GroundedFrame or subclass) dataclass indexed on its leading frame axis."""
    return type(frames)(**{name: value[index] if isinstance(value, np.ndarray) else value
                           for name, value in vars(frames).items()})
