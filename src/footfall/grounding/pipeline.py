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

from footfall import quat
from footfall.arrays import BoolArray, FloatArray
from footfall.errors import SkeletonError
from footfall.grounding.feet import FootModel, Leg, foot_model, leg_lengths, legs_of
from footfall.grounding.foot_align import align_rotation, ankle_lift, heading_frame, slope_angles
from footfall.grounding.footsteps import smoothstep, swing_offset, tread_snap_shift
from footfall.grounding.params import (
    DEFAULT_PARAMS,
    GroundingParams,
    ParamArrays,
    stack_params,
)
from footfall.grounding.pelvis import follow, reach_limit
from footfall.ik import solve_two_bone
from footfall.quat import mul, rotate
from footfall.skeleton import FKPlan, Skeleton, chain_local_rotations

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource

_XZ = [0, 2]


@dataclass(frozen=True)
class FootPlan:
    """What the animation intends each foot to do this frame; ``(K, 2)`` = (character, foot).

    stance: planted. swing: swing progress q ∈ [0, 1] (ignored while planted).
    plant_xz: ``(K, 2, 2)`` world (x, z) of the ankle at the current (or last) footstep.
    next_plant_xz: ``(K, 2, 2)`` world (x, z) of the ankle at the next footstep.
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
    """The N = T·K rows one :meth:`GroundingPipeline.step_frames` call grounds (frame-major,
    character-minor), as the stages read and update them: the local pose ``(N, J, 4|3)``, the
    parameters and IK switch per row, the clamped time step, the legs' global pose ``grot``,
    ``gpos`` (legs and root; the pelvis stage lifts ``gpos``), the feet's world rotations, the
    animated ankles ``(N, 2, 3)`` (before the pelvis moves) and the footstep plan's rows."""

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
    stance: Any = None
    swing: Any = None
    lock_weight: Any = None
    angles: Any = None  # (T, K, 2, 2) sole angles, for rewind

    @property
    def count(self) -> int:
        """N = T·K."""
        return self.frames * self.k

    def rows(self, value: ArrayLike | None, tail: tuple[int, ...], dtype: type) -> Any:
        """``value`` broadcast to ``(T, K, *tail)`` and flattened to rows (None stays None)."""
        if value is None:
            return None
        array: np.ndarray = np.asarray(value, dtype=dtype)
        return np.broadcast_to(array, (self.frames, self.k, *tail)).reshape(self.count, *tail)


@dataclass
class _Targets:
    """What the footstep and ray stage decided per row and foot: ankle targets ``(N, 2, 3)``
    (heights completed by the later stages), the feet's heading ``forward``, the ground under
    the body ``(N,)``, each foot's vertical ``offset``, ``grounded`` and ``fallback`` feet, and
    the ray hits under the targets (``foot_hit``, ``foot_normal``)."""

    ankle: FloatArray
    forward: FloatArray
    body_ground: FloatArray
    offset: FloatArray
    grounded: BoolArray
    fallback: BoolArray
    foot_hit: BoolArray
    foot_normal: FloatArray


class GroundingPipeline:
    """Grounds K animated characters on a terrain, one frame per :meth:`step`.

    The only state is what must persist between frames: the smoothed pelvis offset, the
    smoothed sole angles and a cache of snapped footsteps (so tread snapping rays are cast once
    per footstep, not per frame); plus, for :meth:`rewind`, the two filters' values at each
    frame of the last :meth:`step_frames` batch.

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
            foot_model(skeleton, self.legs[0]), foot_model(skeleton, self.legs[1])
        )
        self.root = int(np.nonzero(skeleton.parents < 0)[0][0])
        self._upper = np.array([g.upper for g in self.legs])
        self._lower = np.array([g.lower for g in self.legs])
        self._foot = np.array([g.foot for g in self.legs])
        self._hip_parent = skeleton.parents[self._upper]
        self._chains = np.stack([self._upper, self._lower, self._foot], axis=1)  # (2, 3)
        self._fk = FKPlan(skeleton.parents)
        # The first pass reads only the legs, their parents and the root.
        self._leg_fk = FKPlan(
            skeleton.parents,
            [self.root, *self._upper, *self._lower, *self._foot, *self._hip_parent],
        )
        lengths = np.array([leg_lengths(skeleton, g) for g in self.legs])  # (2, 2)
        self.leg_length = lengths.sum(axis=1)  # (2,)
        self._ankle_height = np.array([f.ankle_height for f in self.feet])
        self._foot_forward = np.stack([f.forward for f in self.feet])  # (2, 3)
        self._heel = np.array([f.heel_back for f in self.feet])
        self._toe = np.array([f.toe_forward for f in self.feet])
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
        self._cache_values = np.zeros((self.count, 2, 2, 5))  # shift xz, height, hit, snapped

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
    ) -> GroundedFrame:
        """Ground T consecutive frames of K characters in one batched call.

        The same as T calls of :meth:`step` (``dt`` apart), with every input and output given a
        leading frame axis: rotations ``(T, K, J, 4)``, positions ``(T, K, J, 3)``, plan fields
        ``(T, K, 2[, 2])``, foot_lift ``(T, K, 2)``, pelvis_offset ``(T, K)``, sole_angles
        ``(T, K, 2, 2)``; the returned frame's arrays are ``(T, K, ...)``. Only the two
        smoothing filters (pelvis, sole angles) run frame by frame; rays, IK and FK run once for
        all T·K rows. Afterwards the state is that of the last frame; :meth:`rewind` goes back
        to any frame of the batch.

        The stages, in order: :meth:`_batch` (rows, parameters, the legs' FK), :meth:`_targets`
        (footsteps, rays, which feet are grounded), :meth:`_sole_angles`, :meth:`_pelvis`,
        :meth:`_legs` (IK) and :meth:`_result` (FK, sole rays).
        """
        batch = self._batch(rotations, positions, plan, dt, ik)
        targets = self._targets(batch, plan)
        pitch, roll = self._sole_angles(batch, targets, sole_angles)
        lift = ankle_lift(pitch, roll, self._ankle_height[None, :])
        targets.ankle[..., 1] = batch.ankle[..., 1] + targets.offset + lift
        if foot_lift is not None:
            targets.ankle[..., 1] += np.where(targets.grounded,
                                              batch.rows(foot_lift, (2,), np.float64), 0.0)
        lift_body = self._pelvis(batch, targets, pelvis_offset)
        clamped = self._legs(batch, targets, pitch, roll)
        return self._result(batch, targets, pitch, roll, clamped, lift_body)

    def _batch(self, rotations: ArrayLike, positions: ArrayLike, plan: FootPlan, dt: float,
               ik: ArrayLike | None) -> _Batch:
        """Stage 0: the N = T·K rows (frame-major), their parameters, plan rows and leg FK."""
        rotations = np.array(rotations, dtype=np.float64)
        positions = np.array(positions, dtype=np.float64)
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
        p = self._params.tile(frames)
        ik_on = p.ik if ik is None else p.ik & np.tile(
            np.broadcast_to(np.asarray(ik, bool), (k,)), frames
        )
        grot, gpos = self._leg_fk(rotations, positions)  # legs and root only
        batch = _Batch(frames=frames, k=k, rotations=rotations, positions=positions, p=p,
                       ik_on=ik_on, dt=float(min(max(dt, 0.0), 0.05)), grot=grot, gpos=gpos,
                       foot_rot=grot[:, self._foot], ankle=gpos[:, self._foot])
        batch.stance = batch.rows(plan.stance, (2,), bool)
        batch.swing = batch.rows(plan.swing, (2,), np.float64)
        lock_weight = batch.rows(plan.lock_weight, (2,), np.float64)
        lock_turn = batch.rows(plan.lock_turn, (2,), np.float64)
        if lock_turn is not None and lock_weight is not None:
            turn = lock_turn * lock_weight
            batch.foot_rot = quat.mul(quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), turn),
                                      batch.foot_rot)
        batch.lock_weight = lock_weight
        return batch

    def _targets(self, batch: _Batch, plan: FootPlan) -> _Targets:
        """Stages 1–2: footsteps (snapped shift and plant heights, cached per footstep), the
        swing curve, foot locks, and one batch of rays under the body and each foot target;
        which feet are grounded and their vertical offset."""
        p, stance, swing, ankle = batch.p, batch.stance, batch.swing, batch.ankle
        leg = self.leg_length[None, :]
        forward, _ = heading_frame(rotate(batch.foot_rot, self._foot_forward))
        shift, plant_height, plant_hit = self._footsteps(
            batch.rows(plan.plant_xz, (2, 2), np.float64),
            batch.rows(plan.next_plant_xz, (2, 2), np.float64),
            forward, batch.ik_on & p.tread_snap, p,
        )
        eased = smoothstep(swing)[..., None]
        moving = shift[:, :, 0] + (shift[:, :, 1] - shift[:, :, 0]) * eased
        foot_shift = np.where(stance[..., None], shift[:, :, 0], moving)
        target = ankle.copy()
        target[..., _XZ] += foot_shift
        if plan.lock_xz is not None and batch.lock_weight is not None:
            weight = batch.lock_weight[..., None]
            locked = batch.rows(plan.lock_xz, (2, 2), np.float64) + shift[:, :, 0]
            target[..., _XZ] += (locked - target[..., _XZ]) * weight
        # The ground under the body (where the body goes when a foot cannot be grounded) and
        # under each foot's target: one batch of rays (N, 1 + 2).
        hits = self.terrain.raycast_down(
            np.concatenate([batch.gpos[:, self.root, _XZ][:, None], target[..., _XZ]], axis=1)
        )
        body_ground = np.where(hits.hit[:, 0], hits.height[:, 0], 0.0)
        foot_hit, foot_height, foot_normal = hits.hit[:, 1:], hits.height[:, 1:], hits.normal[:, 1:]
        swing_ground = swing_offset(plant_height[..., 0], plant_height[..., 1], swing)
        ground = np.where(stance, foot_height, swing_ground)
        found = np.where(stance, foot_hit, plant_hit[..., 0] & plant_hit[..., 1])
        with np.errstate(invalid="ignore"):
            reachable = found & (
                np.abs(ground - body_ground[:, None]) <= p.max_step_ratio[:, None] * leg
            )
        ik = batch.ik_on[:, None]
        grounded = ik & reachable
        target[..., _XZ] = np.where(grounded[..., None], target[..., _XZ], ankle[..., _XZ])
        return _Targets(ankle=target, forward=forward, body_ground=body_ground,
                        offset=np.where(grounded, ground, body_ground[:, None]),
                        grounded=grounded, fallback=ik & ~reachable, foot_hit=foot_hit,
                        foot_normal=foot_normal)

    def _sole_angles(self, batch: _Batch, targets: _Targets, sole_angles: ArrayLike | None
                     ) -> tuple[FloatArray, FloatArray]:
        """Stage 5 (first: the angles lift the ankle): sole pitch and roll ``(N, 2)`` from the
        ground normal, faded over the swing, followed frame by frame (or given)."""
        p, stance, swing = batch.p, batch.stance, batch.swing
        frames, k = batch.frames, batch.k
        pitch, roll = slope_angles(targets.foot_normal, targets.forward,
                                   p.steep_normal_y[:, None], p.max_slope[:, None])
        fade = np.where(stance, 1.0, np.abs(np.cos(np.pi * swing)))
        aligned = targets.grounded & p.foot_align[:, None] & targets.foot_hit
        goal = np.stack([pitch, roll], axis=-1) * np.where(aligned, fade, 0.0)[..., None]
        rate: FloatArray = np.where(p.smoothing, p.align_rate, np.inf)[:, None, None]
        angles: FloatArray = np.empty((frames, k, 2, 2))
        goal = goal.reshape(frames, k, 2, 2)
        blend = -np.expm1(-rate[:k] * batch.dt)
        instant = np.isinf(rate[:k])
        state = self._angles
        for t in range(frames):  # the sole angles follow their goal frame by frame
            state = np.where(instant, goal[t], state + (goal[t] - state) * blend)
            angles[t] = state
        self._angles = state
        if sole_angles is not None:  # given (offline smoothing), where a foot is aligned
            given_angles = batch.rows(sole_angles, (2, 2), np.float64).reshape(frames, k, 2, 2)
            angles = np.where(aligned.reshape(frames, k, 2, 1), given_angles, 0.0)
        batch.angles = angles.reshape(frames, k, 2, 2)
        angles = angles.reshape(batch.count, 2, 2)
        return angles[..., 0], angles[..., 1]

    def _pelvis(self, batch: _Batch, targets: _Targets, pelvis_offset: ArrayLike | None
                ) -> FloatArray:
        """Stage 3: the pelvis offset ``(N,)``, never above the animated height over the body's
        ground, lowered so the legs reach, followed frame by frame (or given) — applied to the
        batch's root and global positions."""
        p, ik_on, frames, k = batch.p, batch.ik_on, batch.frames, batch.k
        target, leg = targets.ankle, self.leg_length[None, :]
        gpos = batch.gpos
        hip, ankle = gpos[:, self._upper], gpos[:, self._foot]
        pelvis_y = gpos[:, self.root, 1]
        reach = np.minimum(
            np.maximum(p.reach_ratio[:, None] * leg, np.linalg.norm(ankle - hip, axis=-1)),
            p.max_reach[:, None] * leg,
        )
        limit = reach_limit(target, hip, pelvis_y[:, None], reach)
        body_ground = targets.body_ground
        lowered = np.minimum(body_ground, limit.min(axis=1) - pelvis_y)
        pelvis_goal = np.where(ik_on & p.pelvis, lowered, body_ground).reshape(frames, k)
        # Smoothing may lag, but never so far that a leg cannot reach at full stretch.
        stretch = reach_limit(target, hip, pelvis_y[:, None], p.max_reach[:, None] * leg * 0.9999)
        hard = (stretch.min(axis=1) - pelvis_y).reshape(frames, k)
        lowering = (ik_on & p.pelvis)[:k]
        rate = np.where(p.smoothing, p.pelvis_rate, np.inf)[:k]
        snap = p.pelvis_snap[:k]
        given = batch.rows(pelvis_offset, (), np.float64)
        given = None if given is None else given.reshape(frames, k)
        lift_body = np.empty((frames, k))
        state = self._pelvis_offset
        for t in range(frames):  # the pelvis follows its goal frame by frame
            if given is None:
                smoothed = follow(state, pelvis_goal[t], rate, snap, batch.dt)
            else:
                smoothed = given[t]
            state = np.where(lowering, np.minimum(smoothed, hard[t]), smoothed)
            lift_body[t] = state
        self._pelvis_offset = state
        self._history = (lift_body, batch.angles)
        rows: FloatArray = lift_body.reshape(batch.count)
        batch.positions[:, self.root, 1] += rows
        gpos[..., 1] += rows[:, None]
        return rows

    def _legs(self, batch: _Batch, targets: _Targets, pitch: FloatArray, roll: FloatArray
              ) -> BoolArray:
        """Stage 4: leg IK to the ankle targets; the foot keeps its animated world rotation,
        tilted (skipped when no character has IK on: the legs keep the animation). Writes the
        batch's local rotations; returns which legs were clamped ``(N, 2)``."""
        clamped = np.zeros((batch.count, 2), dtype=bool)
        if not batch.ik_on.any():
            return clamped
        grot, gpos, ik = batch.grot, batch.gpos, batch.ik_on[:, None]
        hip, knee, ankle = gpos[:, self._upper], gpos[:, self._lower], gpos[:, self._foot]
        solved = solve_two_bone(hip, knee, ankle, targets.ankle,
                                max_reach=batch.p.max_reach[:, None])
        upper_rot = mul(solved.upper_rotation, grot[:, self._upper])
        lower_rot = mul(solved.lower_rotation, grot[:, self._lower])
        foot_goal = mul(align_rotation(pitch, roll, targets.forward), batch.foot_rot)
        new_local = chain_local_rotations(
            grot[:, self._hip_parent], np.stack([upper_rot, lower_rot, foot_goal], axis=2)
        )  # (N, 2, 3, 4)
        chains, rotations = self._chains, batch.rotations
        rotations[:, chains] = np.where(ik[..., None, None], new_local, rotations[:, chains])
        return ik & solved.clamped

    def _result(self, batch: _Batch, targets: _Targets, pitch: FloatArray, roll: FloatArray,
                clamped: BoolArray, lift_body: FloatArray) -> GroundedFrame:
        """The grounded frames ``(T, K, ...)``: FK of the solved pose, rays under the soles."""
        leg, ik = self.leg_length[None, :], batch.ik_on[:, None]
        target = targets.ankle
        grot, gpos = self._fk(batch.rotations, batch.positions)
        sole = gpos[:, self._foot] + rotate(grot[:, self._foot], self._below_ankle)
        sole_hits = self.terrain.raycast_down(sole[..., _XZ])
        under = np.where(sole_hits.hit, sole_hits.height, targets.offset)
        ray_hit = np.concatenate([sole[..., :1], under[..., None], sole[..., 2:]], axis=-1)
        ray_origin = ray_hit.copy()
        ray_origin[..., 1] = target[..., 1] + 1.5 * leg

        def out(array: np.ndarray) -> np.ndarray:
            return array.reshape(batch.frames, batch.k, *array.shape[1:])

        return GroundedFrame(
            rotations=out(batch.rotations),
            positions=out(batch.positions),
            global_rotations=out(grot),
            global_positions=out(gpos),
            stance=out(batch.stance.copy()),
            ground_height=out(under),
            sole_gap=out(sole[..., 1] - under),
            sole_pitch=out(np.where(ik, pitch, 0.0)),
            sole_roll=out(np.where(ik, roll, 0.0)),
            clamped=out(clamped),
            fallback=out(targets.fallback),
            ray_origin=out(ray_origin),
            ray_hit=out(ray_hit),
            ankle_target=out(target),
            pelvis_height=out(gpos[:, self.root, 1]),
            pelvis_offset=out(lift_body.copy()),
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

    def _footsteps(
        self,
        plant_xz: FloatArray,
        next_xz: FloatArray,
        forward: FloatArray,
        snap: BoolArray,
        p: ParamArrays,
    ) -> tuple[FloatArray, FloatArray, BoolArray]:
        """Snap shift ``(N, 2, 2, 2)``, ground height and hit ``(N, 2, 2)`` of plant and next.

        N = T·K rows (frame-major). The axis after the foot is (current plant, next plant).
        Results are cached by footstep position, so each footstep costs its rays once: within a
        batch identical footsteps are cast once (the earliest frame's direction stands for all),
        and the last frame's footsteps are kept for the next call.
        """
        count = plant_xz.shape[0]
        k = self.count
        keys = np.stack([plant_xz, next_xz], axis=2)  # (N, foot, which, xz)
        values = np.zeros((count, 2, 2, 5))
        known = np.zeros((count, 2, 2), dtype=bool)
        snap_flag = np.broadcast_to(snap[:, None, None], (count, 2, 2)).astype(np.float64)
        frames = count // k
        cache_keys = np.tile(self._cache_keys, (frames, 1, 1, 1))
        cache_values = np.tile(self._cache_values, (frames, 1, 1, 1))
        for slot in range(2):  # reuse last frame's plant or next plant
            same = np.all(keys == cache_keys[:, :, slot : slot + 1], axis=-1)
            same &= cache_values[:, :, slot : slot + 1, 4] == snap_flag
            take = same & ~known
            values = np.where(take[..., None], cache_values[:, :, slot : slot + 1], values)
            known |= same
        todo = ~known
        if np.any(todo):
            index = np.nonzero(todo)
            # Identical footsteps (same spot, foot and switch) are cast once: the first one's
            # direction and parameters stand for all (a clip's frames share their footsteps).
            rows_all = np.column_stack([keys[index], index[1], snap[index[0]]])
            _, first, inverse = np.unique(rows_all, axis=0, return_index=True, return_inverse=True)
            full_index, index = index, tuple(i[first] for i in index)
            plant = keys[index]  # (N, 2)
            direction = np.broadcast_to(forward[..., None, _XZ], (count, 2, 2, 2))[index]
            leg_foot = index[1]
            shift = np.zeros_like(plant)
            snapping = snap[index[0]]
            if np.any(snapping):
                rows = index[0][snapping]
                shift[snapping] = tread_snap_shift(
                    self.terrain, plant[snapping], direction[snapping],
                    self._heel[leg_foot[snapping]], self._toe[leg_foot[snapping]],
                    p.tread_margin[rows], float(p.tread_search.max()),
                    p.tread_tolerance[rows], float(p.tread_spacing.min()),
                )
            hits = self.terrain.raycast_down(plant + shift)
            computed = np.concatenate(
                [shift, np.where(hits.hit, hits.height, 0.0)[:, None], hits.hit[:, None],
                 snapping[:, None]], axis=1
            )
            values[full_index] = computed[inverse.reshape(-1)]
        self._cache_keys = keys[-k:]
        self._cache_values = values[-k:]
        return values[..., :2], values[..., 2], values[..., 3] > 0.5


def with_frame_axis(frame: Any) -> Any:
    """``frame`` (a FootPlan, GroundedFrame or subclass) as a batch of one frame: a leading
    axis of length 1 in front of every array field (None stays None); :func:`frame_at` undoes
    it."""
    values = {}
    for name in frame.__dataclass_fields__:
        value = getattr(frame, name)
        values[name] = value if value is None else np.asarray(value)[None]
    return type(frame)(**values)


def frame_at(frames: Any, index: int) -> Any:
    """Frame ``index`` of a batch from :meth:`GroundingPipeline.step_frames`: every array field
    of the (GroundedFrame or subclass) dataclass indexed on its leading frame axis."""
    values = {}
    for name in frames.__dataclass_fields__:
        value = getattr(frames, name)
        values[name] = value[index] if isinstance(value, np.ndarray) else value
    return type(frames)(**values)
