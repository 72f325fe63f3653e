"""Seed 000's stepping walker: a test character that walks along +X over any terrain.

Each :meth:`StepWalker.step` advances the walk clock by one fixed step, builds the flat-ground
walk (footsteps from the walk phase, planted feet on y = 0, the swing curve with its lift, the
pelvis low enough that both legs reach, legs solved by two-bone IK) and hands that pose with its
footstep plan to the :class:`~footfall.grounding.GroundingPipeline`. Characters with ``ik`` off
play the same flat walk with the body following the ground under it (seed 000's right bunny,
seed 002's group A).

It works for any two-legged skeleton: the bunny of :mod:`footfall.bunny` or a humanoid loaded
from BVH (legs found by :func:`footfall.humanoid.find_legs`). The walk's sizes are a
:class:`StepStyle` in leg lengths (seed 000's by default); a character adds its own upper-body
sway by joint name (the bunny's: :data:`footfall.bunny.walk.STEP_STYLE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.grounding.footsteps import plan_steps, swing_height
from footfall.grounding.params import DEFAULT_PARAMS, GroundingParams
from footfall.grounding.pipeline import FootPlan, GroundedFrame, GroundingPipeline, frame_at
from footfall.ik import solve_two_bone
from footfall.quat import mul
from footfall.skeleton import FKPlan, Skeleton, chain_local_rotations

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource


MAX_DT = 0.05
#: Seed 000's leg length (metres), the unit its walk measures were given in.
_SEED_LEG = 0.37


@dataclass(frozen=True)
class StepStyle:
    """The stepping walk in leg lengths, so it fits any skeleton (defaults: seed 000's walk).

    pelvis_height: hip joints above the ankles while walking (seed 000: 0.53 m pelvis − 0.08 m
    hip drop − 0.10 m ankle = 0.35 m); step_length: 0.62 m; bob: pelvis bob amplitude, 0.02 m;
    pelvis_softness: softness of the min() that keeps the pelvis reachable, 0.01 m;
    swing_lift: the swing curve's (start, peak) lift, 0.02 and 0.09 m; all ÷ 0.37 m.
    sway: ``(joint name, lean, swing amplitude)`` radians about x, posed where the skeleton
    has the joint (lean + amplitude · sin(2π · walk phase)).
    """

    pelvis_height: float = 0.35 / _SEED_LEG
    step_length: float = 0.62 / _SEED_LEG
    bob: float = 0.02 / _SEED_LEG
    pelvis_softness: float = 0.01 / _SEED_LEG
    swing_lift: tuple[float, float] = (0.02 / _SEED_LEG, 0.09 / _SEED_LEG)
    sway: tuple[tuple[str, float, float], ...] = (("Spine", 0.07, 0.0),)


#: Walking direction +X: the character's +Z forward turned about +Y by 90°.
HEADING = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.pi / 2)


@dataclass(frozen=True)
class WalkerFrame(GroundedFrame):
    """A :class:`GroundedFrame` plus the walk clock: time (s), distance ``(K,)`` walked, swing
    progress ``(K, 2)`` and the animated (unsnapped) footstep ``plant_xz (K, 2, 2)``."""

    time: float | FloatArray = 0.0
    distance: FloatArray | None = None
    swing: FloatArray | None = None
    plant_xz: FloatArray | None = None


class StepWalker:
    """K characters walking seed 000's step along +X, grounded by one batched pipeline.

    Args:
        skeleton: the character (all K share it); legs from ``find_legs`` unless ``legs`` given.
        terrain: a :class:`footfall.terrain.Terrain`.
        count: number of characters K.
        params: one :class:`GroundingParams` or one per character (settable later).
        ik: per-character IK switch (settable: ``walker.ik[k] = False``).
        lateral_z: ``(K,)`` world z of each character's walking line, metres.
        start_x: ``(K,)`` world x of each character at time 0, metres.
        speed: ground speed, m/s (scalar or ``(K,)``; settable).
        style: the walk's sizes and sway (:class:`StepStyle`).
    """

    #: Frames per :meth:`step_frames` call a live view should simulate ahead (0.5 s at 60 Hz:
    #: one call for 30 frames costs about twice one call for one frame).
    block_frames = 30

    def __init__(
        self,
        skeleton: Skeleton,
        terrain: RaySource,
        count: int = 1,
        *,
        params: GroundingParams | Sequence[GroundingParams] = DEFAULT_PARAMS,
        ik: bool | Sequence[bool] = True,
        lateral_z: ArrayLike | None = None,
        start_x: ArrayLike | None = None,
        speed: float | ArrayLike = 0.75,
        legs: Any = None,
        style: StepStyle = StepStyle(),
    ) -> None:
        self.style = style
        self.pipeline = GroundingPipeline(skeleton, terrain, count, params, legs)
        self.skeleton = skeleton
        self.count = count
        self.ik = np.array(np.broadcast_to(np.asarray(ik, dtype=bool), (count,)))
        self.lateral_z = self._per_character(lateral_z, 0.0, "lateral_z")
        self.start_x = self._per_character(start_x, 0.0, "start_x")
        self.speed = speed
        self.distance = np.zeros(count)
        self.time = 0.0
        self._history = (self.distance[None].copy(), np.zeros(1))  # per frame of the last batch
        pipe = self.pipeline
        self.leg_length = float(pipe.leg_length.mean())
        rest = skeleton.rest_positions()
        root = pipe.root
        self._upper = np.array([g.upper for g in pipe.legs])
        self._lower = np.array([g.lower for g in pipe.legs])
        self._foot = np.array([g.foot for g in pipe.legs])
        self.ankle_heights = np.array([f.ankle_height for f in pipe.feet])  # (2,) per foot
        hip_drop = float(rest[root, 1] - rest[self._upper, 1].mean())
        self.walk_pelvis_height = (
            hip_drop + float(self.ankle_heights.mean()) + style.pelvis_height * self.leg_length
        )
        self.step_length = style.step_length * self.leg_length
        self.bob = style.bob * self.leg_length
        # Where each foot walks sideways: straight under its hip, heading applied.
        hip_side = quat.rotate(HEADING, rest[self._upper] - rest[root])
        self._foot_z = hip_side[:, 2]  # (2,)
        self._hip_from_pelvis = hip_side  # (2, 3) at rest, heading applied
        self._rest_rotations = quat.identity((skeleton.joint_count,))
        self._extras = _sway(skeleton, style.sway)
        self._forward = quat.rotate(HEADING, np.array([0.0, 0.0, 1.0]))  # world +X
        self._leg_fk = FKPlan(
            skeleton.parents, [*self._upper, *self._lower, *self._foot, root]
        )

    @staticmethod
    def _per_character(values: ArrayLike | None, default: float, name: str) -> FloatArray:
        return np.asarray(values if values is not None else default, dtype=np.float64)

    @property
    def params(self) -> Any:
        """Per-character grounding parameters (assign one or K GroundingParams)."""
        return self.pipeline.params

    @params.setter
    def params(self, params: GroundingParams | Sequence[GroundingParams]) -> None:
        self.pipeline.params = params

    @property
    def speed(self) -> FloatArray:
        """Ground speed ``(K,)``, m/s."""
        return self._speed

    @speed.setter
    def speed(self, speed: float | ArrayLike) -> None:
        speed = np.array(np.broadcast_to(np.asarray(speed, dtype=np.float64), (self.count,)))
        if not np.all(np.isfinite(speed)) or np.any(speed < 0):
            raise SkeletonError(f"walker speed must be finite and ≥ 0; got {speed}")
        self._speed = speed

    def body_x(self) -> FloatArray:
        """World x of each character's pelvis ``(K,)``."""
        return np.broadcast_to(self.start_x, (self.count,)) + self.distance

    def flat_pose(
        self, distance: ArrayLike | None = None
    ) -> tuple[FloatArray, FloatArray, FootPlan]:
        """The walk on flat ground after ``distance`` metres walked (default: the walker's own
        ``(K,)``; or ``(T, K)`` for T frames at once): local rotations ``(..., J, 4)``,
        translations ``(..., J, 3)`` and the footstep plan (world xz), with distance's leading
        shape."""
        distance = self.distance if distance is None else np.asarray(distance, np.float64)
        lead = distance.shape
        distance = distance.reshape(-1)
        count = distance.size  # rows: frame-major, character-minor
        frames = count // self.count
        step = self.step_length
        plan = plan_steps(distance, step)
        start = np.tile(np.broadcast_to(self.start_x, (self.count,)), frames)[:, None]
        lateral = np.tile(np.broadcast_to(self.lateral_z, (self.count,)), frames)[:, None]
        foot_x = start + plan.foot_track()
        lift_start, lift_peak = self.style.swing_lift
        swing_y = swing_height(0.0, 0.0, plan.swing, lift_start * self.leg_length,
                               lift_peak * self.leg_length)
        foot_y = np.where(plan.stance, 0.0, swing_y)
        foot_z = lateral + self._foot_z
        ankle_y = foot_y + self.ankle_heights
        ankle = np.stack([foot_x, ankle_y, np.broadcast_to(foot_z, ankle_y.shape)], axis=-1)

        # Pelvis: seed 000's bob, kept low enough that both legs reach (a soft min, so smooth).
        phase = distance / step
        bob = self.walk_pelvis_height + self.bob * np.cos(4.0 * np.pi * phase)
        pelvis_x = start[:, 0] + distance
        hip = np.stack(
            [pelvis_x[:, None] + self._hip_from_pelvis[:, 0], np.zeros((count, 2)),
             lateral + self._hip_from_pelvis[:, 2]], axis=-1
        )
        horizontal = np.hypot(hip[..., 0] - ankle[..., 0], hip[..., 2] - ankle[..., 2])
        reach = 0.98 * self.pipeline.leg_length[None, :]
        limits = ankle[..., 1] + np.sqrt(np.maximum(reach**2 - horizontal**2, 0.0))
        limits = limits - self._hip_from_pelvis[None, :, 1]
        heights = np.concatenate([bob[:, None], limits], axis=1)
        soft = self.style.pelvis_softness * self.leg_length
        low = heights.min(axis=1)
        pelvis_y = low - soft * np.log(np.exp(-(heights - low[:, None]) / soft).sum(axis=1))

        rotations = np.broadcast_to(self._rest_rotations, (count, self.skeleton.joint_count, 4))
        rotations = rotations.copy()
        positions = np.broadcast_to(self.skeleton.offsets, rotations.shape[:-1] + (3,)).copy()
        root = self.pipeline.root
        rotations[:, root] = HEADING
        positions[:, root] = np.stack([pelvis_x, pelvis_y, lateral[:, 0]], axis=-1)
        extra_joints, extra_rotations = self._extras(phase)
        if len(extra_joints):
            rotations[:, extra_joints] = extra_rotations

        grot, gpos = self._leg_fk(rotations, positions)  # only the legs and the root
        knee = gpos[:, self._lower]
        forward = self._forward
        solved = solve_two_bone(
            gpos[:, self._upper], knee, gpos[:, self._foot], ankle,
            pole=knee + forward * self.leg_length,
        )
        upper_rot = mul(solved.upper_rotation, grot[:, self._upper])
        lower_rot = mul(solved.lower_rotation, grot[:, self._lower])
        parents = self.skeleton.parents
        flat = np.broadcast_to(HEADING, upper_rot.shape)  # soles flat, toes forward
        local = chain_local_rotations(grot[:, parents[self._upper]],
                                      np.stack([upper_rot, lower_rot, flat], axis=2))
        rotations[:, self._upper] = local[:, :, 0]
        rotations[:, self._lower] = local[:, :, 1]
        rotations[:, self._foot] = local[:, :, 2]
        plant = np.stack([start + plan.plant, foot_z], axis=-1)
        next_plant = np.stack([start + plan.next_plant, foot_z], axis=-1)

        def shaped(array: NDArray[Any]) -> NDArray[Any]:
            return array.reshape(*lead, *array.shape[1:])

        return shaped(rotations), shaped(positions), FootPlan(
            shaped(plan.stance), shaped(plan.swing), shaped(plant), shaped(next_plant)
        )

    def step(self, dt: float = 1 / 60) -> WalkerFrame:
        """Advance every character by ``min(dt, 0.05)`` seconds and return the grounded frame."""
        return frame_at(self.step_frames(dt, 1), 0)

    def step_frames(self, dt: float = 1 / 60, frames: int = 1) -> WalkerFrame:
        """Advance ``frames`` steps of ``min(dt, 0.05)`` seconds in one batched call.

        The same as ``frames`` calls of :meth:`step`; the returned frame's arrays have a leading
        frame axis ``(T, K, ...)`` (``time`` is ``(T,)``). :meth:`rewind` goes back to any of
        them (a live view dropping frames it simulated ahead).
        """
        dt = float(min(max(dt, 0.0), MAX_DT))
        if frames < 1:
            raise SkeletonError(f"frames must be ≥ 1, got {frames}")
        # Repeated addition, as frame-by-frame stepping does (the same floating-point sums).
        steps = np.broadcast_to(self._speed * dt, (frames, self.count))
        distance = np.add.accumulate(np.concatenate([self.distance[None], steps]), axis=0)[1:]
        times = np.add.accumulate(np.r_[self.time, np.full(frames, dt)])[1:]
        self._history = (distance, times)
        self.distance = distance[-1].copy()
        self.time = float(times[-1])
        rotations, positions, plan = self.flat_pose(distance)
        block = self.pipeline.step_frames(rotations, positions, plan, dt, ik=self.ik)
        fields = {name: getattr(block, name) for name in GroundedFrame.__dataclass_fields__}
        return WalkerFrame(**fields, time=times, distance=distance.copy(),
                           swing=np.asarray(plan.swing).copy(), plant_xz=plan.plant_xz)

    def rewind(self, frame: int) -> None:
        """Go back to frame ``frame`` (0-based) of the last :meth:`step_frames` batch."""
        distance, times = self._history
        if not 0 <= frame < len(times):
            raise SkeletonError(f"rewind: frame {frame} is not in the last batch of {len(times)}")
        self.distance = distance[frame].copy()
        self.time = float(times[frame])
        self.pipeline.rewind(frame)


def _sway(skeleton: Skeleton, sway: Sequence[tuple[str, float, float]]) -> Any:
    """The upper-body motion of ``sway`` (name, lean, amplitude) on the joints that exist."""
    names = set(skeleton.names)
    x_axis = np.array([1.0, 0.0, 0.0])
    extras = [(skeleton.index(name), lean, amp) for name, lean, amp in sway if name in names]

    joints = np.array([j for j, _, _ in extras], dtype=np.intp)
    leans = np.array([lean for _, lean, _ in extras])
    amps = np.array([amp for _, _, amp in extras])

    def pose(phase: FloatArray) -> tuple[NDArray[np.intp], FloatArray]:
        """Joint indices ``(E,)`` and their local rotations ``(K, E, 4)`` at ``phase (K,)``."""
        swing = np.sin(2.0 * np.pi * phase)
        angles = leans + amps * swing[:, None]  # (K, E)
        return joints, quat.from_axis_angle(x_axis, angles)

    return pose
