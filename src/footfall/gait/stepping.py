"""Seed 000's stepping walker: a test character that walks along +X over any terrain.

Each :meth:`StepWalker.step` builds the flat-ground walk (footsteps from the walk phase, planted
feet on y = 0, the swing curve, the hips low enough that both legs reach, two-bone IK legs)
and hands it with its footstep plan to the :class:`~footfall.grounding.GroundingPipeline`.
Characters with ``ik`` off play the flat walk with the body following the ground (seed 000's
right bunny). Any two-legged skeleton walks; the walk's sizes are a :class:`StepStyle` in leg
lengths, with an upper-body sway by joint name (the demo's bunny:
:data:`footfall.viewer.simulation.BUNNY_STEP_STYLE`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray, kernel_array
from footfall.errors import SkeletonError
from footfall.footing.foot_model import rest_turn
from footfall.gait.protocol import Walker
from footfall.grounding.footsteps import FOOT_PHASE, foot_track_s, step_plan_s, swing_height_s
from footfall.grounding.params import DEFAULT_PARAMS, GroundingParams
from footfall.grounding.pipeline import (
    FootPlan,
    GroundedFrame,
    GroundingPipeline,
    write_leg_rotations,
)
from footfall.ik import solve_two_bone
from footfall.jit import bundle_kernel
from footfall.quat import max_nan, min_nan
from footfall.skeleton import FKPlan, Skeleton

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource


MAX_DT = 0.05
#: Seed 000's leg length (metres), the unit its walk measures were given in.
_SEED_LEG = 0.37


@dataclass(frozen=True)
class StepStyle:
    """The stepping walk in leg lengths, so it fits any skeleton (defaults: seed 000's walk).

    hips_height: hip joints above the ankles while walking (seed 000: 0.53 m hips − 0.08 m
    hip drop − 0.10 m ankle); bob: hips bob amplitude; hips_softness: softness of the min()
    keeping the hips reachable; swing_lift: the swing curve's (start, peak) lift.
    sway: ``(joint name, lean, swing amplitude)`` radians about x, posed where the skeleton
    has the joint (lean + amplitude · sin(2π · walk phase)).
    """

    hips_height: float = 0.35 / _SEED_LEG
    step_length: float = 0.62 / _SEED_LEG
    bob: float = 0.02 / _SEED_LEG
    hips_softness: float = 0.01 / _SEED_LEG
    swing_lift: tuple[float, float] = (0.02 / _SEED_LEG, 0.09 / _SEED_LEG)
    sway: tuple[tuple[str, float, float], ...] = (("Spine", 0.07, 0.0),)


#: Walking direction +X: the character's +Z forward turned about +Y by 90°.
HEADING = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.pi / 2)


class WalkSizes(NamedTuple):
    """The flat walk's sizes as :func:`_flat_walk` reads them, metres unless said: the
    ``step_length``, each foot's ``foot_phase (2,)`` (walk-phase offset), the swing curve's
    ``clearance`` (start) and ``lift`` (peak), ``ankle_heights (2,)``, each foot's sideways
    ``foot_z (2,)`` and hip ``hip_from_hips (2, 3)`` (heading applied), the hips height
    ``hips_height`` with its ``bob`` amplitude, each leg's ``reach (2,)`` and the soft min's
    ``softness``."""

    step_length: float
    foot_phase: FloatArray
    clearance: float
    lift: float
    ankle_heights: FloatArray
    foot_z: FloatArray
    hip_from_hips: FloatArray
    hips_height: float
    bob: float
    reach: FloatArray
    softness: float


class WalkBody(NamedTuple):
    """The skeleton as the flat walk poses it: the ``root`` joint turned to ``heading (4,)``,
    the rest ``offsets (J, 3)``, the sway joints ``sway_joints (E,)`` with their ``leans`` and
    ``amps (E,)`` radians; each joint's fixed world ``steps (J, 3)`` from its parent, each leg's
    ``chains (2, L)`` below the root (−1 padded) with its ``upper`` and ``lower`` joints
    ``(2,)``, and the knee poles' ``pole_offset (3,)``."""

    root: int
    heading: FloatArray
    offsets: FloatArray
    sway_joints: NDArray[np.int64]
    leans: FloatArray
    amps: FloatArray
    steps: FloatArray
    chains: NDArray[np.int64]
    upper: NDArray[np.int64]
    lower: NDArray[np.int64]
    pole_offset: FloatArray


class WalkRows(NamedTuple):
    """N rows of the flat walk (character ``n mod K``): ``distance (N,)`` walked, each
    character's ``start_x`` and ``lateral_z (K,)``."""

    distance: FloatArray
    start_x: FloatArray
    lateral_z: FloatArray


class FlatWalkPose(NamedTuple):
    """What :func:`_flat_walk` writes per row: the pose ``rotations``, ``positions``
    ``(N, J, ·)``, the footstep plan (``ankle (N, 2, 3)`` targets, ``stance``, ``swing``
    ``(N, 2)``, ``plant_xz``, ``next_xz (N, 2, 2)``) and the legs for the IK (``hip``,
    ``knee``, ``foot``, ``pole (N, 2, 3)``)."""

    rotations: FloatArray
    positions: FloatArray
    ankle: FloatArray
    stance: NDArray[np.bool_]
    swing: FloatArray
    plant_xz: FloatArray
    next_xz: FloatArray
    hip: FloatArray
    knee: FloatArray
    foot: FloatArray
    pole: FloatArray


@dataclass(frozen=True)
class WalkerFrame(GroundedFrame):
    """A :class:`GroundedFrame` plus the walk clock: time (s), distance ``(K,)`` walked, swing
    progress ``(K, 2)`` and the animated (unsnapped) footstep ``plant_xz (K, 2, 2)``."""

    time: float | FloatArray = 0.0
    distance: FloatArray | None = None
    swing: FloatArray | None = None
    plant_xz: FloatArray | None = None


class StepWalker(Walker):
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

    #: Frames per :meth:`step_frames` call a live view should simulate ahead (0.5 s at 60 Hz).
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
        super().__init__(GroundingPipeline(skeleton, terrain, count, params, legs), ik)
        if rest_turn(skeleton, self.pipeline.legs)[0] != 1.0:
            raise SkeletonError("the rest pose lies down (its legs do not hang below the hips): "
                                "the stepping walker builds its pose from the rest offsets; "
                                "stand the skeleton up first (footfall.humanoid.stood_up)")
        self.skeleton = skeleton
        self.count = count
        self.lateral_z = np.asarray(0.0 if lateral_z is None else lateral_z, dtype=np.float64)
        self.start_x = np.asarray(0.0 if start_x is None else start_x, dtype=np.float64)
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
        self.walk_hips_height = (
            hip_drop + float(self.ankle_heights.mean()) + style.hips_height * self.leg_length
        )
        self.step_length = style.step_length * self.leg_length
        self.bob = style.bob * self.leg_length
        # Where each foot walks sideways: straight under its hip, heading applied.
        hip_side = quat.rotate(HEADING, rest[self._upper] - rest[root])
        self._foot_z = hip_side[:, 2]  # (2,)
        self._hip_from_hips = hip_side  # (2, 3) at rest, heading applied
        self._extras = _sway(skeleton, style.sway)
        # The flat walk poses only the root (heading) and the sway joints, none of them on a
        # leg: the legs' world rotations before the IK are the rest pose's, and their joints
        # sit at the root plus fixed steps. One FK of that pose, here, stands for every frame.
        chains = [skeleton.chain(int(j))[1:] for j in self._foot]  # below the root
        swayed = set(self._extras[0].tolist()) | {root}
        on_legs = sorted(swayed & {j for chain in chains for j in chain})
        if on_legs:
            raise SkeletonError(
                f"StepStyle sway poses {[skeleton.names[j] for j in on_legs]}, on a leg; the "
                "stepping walker poses the legs itself")
        if root in self._extras[0]:
            raise SkeletonError(f"StepStyle sway poses the root {skeleton.names[root]!r}")
        rest = quat.identity((skeleton.joint_count,))
        rest[root] = HEADING
        self._rest_world = FKPlan(skeleton.parents).rotations(rest)[None]  # (1, J, 4)
        self._steps = quat.rotate(self._rest_world[0, np.maximum(skeleton.parents, 0)],
                                  skeleton.offsets)  # (J, 3) each joint from its parent
        self._chains = np.full((2, max(len(c) for c in chains)), -1, dtype=np.int64)
        for leg, chain in enumerate(chains):
            self._chains[leg, : len(chain)] = chain
        self._pole_offset = quat.rotate(HEADING, np.array([0.0, 0.0, 1.0])) * self.leg_length  # +X
        self._reach = 0.98 * pipe.leg_length  # (2,) the soft min's reach per leg
        self._offsets = np.ascontiguousarray(skeleton.offsets, dtype=np.float64)
        self._flat_feet = np.empty((0, 2, 4))  # the feet's flat world rotation per row (read only)

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

    def flat_pose(
        self, distance: ArrayLike | None = None
    ) -> tuple[FloatArray, FloatArray, FootPlan]:
        """The walk on flat ground after ``distance`` metres (default: the walker's own ``(K,)``;
        ``(T, K)`` for T frames): local rotations ``(..., J, 4)``, translations ``(..., J, 3)``
        and the footstep plan (world xz), all with distance's leading shape."""
        distance = self.distance if distance is None else np.asarray(distance, np.float64)
        lead = distance.shape
        rows = kernel_array(distance, (-1,))
        count = rows.size  # rows: frame-major, character-minor
        joints = self.skeleton.joint_count
        rotations, positions = np.empty((count, joints, 4)), np.empty((count, joints, 3))
        lift_start, lift_peak = self.style.swing_lift
        extra_joints, leans, amps = self._extras
        sizes = WalkSizes(
            step_length=self.step_length, foot_phase=FOOT_PHASE,
            clearance=lift_start * self.leg_length, lift=lift_peak * self.leg_length,
            ankle_heights=self.ankle_heights, foot_z=self._foot_z,
            hip_from_hips=self._hip_from_hips, hips_height=self.walk_hips_height,
            bob=self.bob, reach=self._reach, softness=self.style.hips_softness * self.leg_length)
        body = WalkBody(
            root=self.pipeline.root, heading=HEADING, offsets=self._offsets,
            sway_joints=extra_joints, leans=leans, amps=amps, steps=self._steps,
            chains=self._chains, upper=self._upper, lower=self._lower,
            pole_offset=self._pole_offset)
        walk_rows = WalkRows(
            distance=rows,
            start_x=kernel_array(np.broadcast_to(self.start_x, (self.count,)), (self.count,)),
            lateral_z=kernel_array(np.broadcast_to(self.lateral_z, (self.count,)),
                                   (self.count,)))
        pose = FlatWalkPose(
            rotations=rotations, positions=positions, ankle=np.empty((count, 2, 3)),
            stance=np.empty((count, 2), dtype=bool), swing=np.empty((count, 2)),
            plant_xz=np.empty((count, 2, 2)), next_xz=np.empty((count, 2, 2)),
            hip=np.empty((count, 2, 3)), knee=np.empty((count, 2, 3)),
            foot=np.empty((count, 2, 3)), pole=np.empty((count, 2, 3)))
        _flat_walk(walk_rows, sizes, body, pose)
        hip, knee, foot, pole, ankle = pose.hip, pose.knee, pose.foot, pose.pole, pose.ankle
        stance, swing, plant, next_plant = pose.stance, pose.swing, pose.plant_xz, pose.next_xz
        solved = solve_two_bone(hip, knee, foot, ankle, pole=pole)
        if self._flat_feet.shape[0] != count:  # soles flat, toes forward: (N, 2, 4), kept
            self._flat_feet = kernel_array(np.broadcast_to(HEADING, (count, 2, 4)), (count, 2, 4))
        write_leg_rotations(self.pipeline.rig, self._rest_world, rotations,
                            solved.upper_rotation, solved.lower_rotation, self._flat_feet)

        def shaped(array: NDArray[Any]) -> NDArray[Any]:
            return array.reshape(*lead, *array.shape[1:])

        return shaped(rotations), shaped(positions), FootPlan(
            shaped(stance), shaped(swing), shaped(plant), shaped(next_plant)
        )

    def step_frames(self, dt: float = 1 / 60, frames: int = 1) -> WalkerFrame:
        """Advance ``frames`` steps of ``min(dt, 0.05)`` seconds in one batched call: the same as
        ``frames`` calls of :meth:`step`, arrays ``(T, K, ...)`` (``time`` ``(T,)``).
        :meth:`rewind` goes back to any of them."""
        dt = float(min(max(dt, 0.0), MAX_DT))
        if frames < 1:
            raise SkeletonError(f"frames must be ≥ 1, got {frames}")
        # Repeated addition, as frame-by-frame stepping does (the same floating-point sums).
        steps = np.broadcast_to(self._speed * dt, (frames, self.count))
        distance = np.add.accumulate(np.vstack([self.distance[None], steps]))[1:]
        times = np.add.accumulate(np.r_[self.time, np.full(frames, dt)])[1:]
        self._history = (distance, times)
        self.distance = distance[-1].copy()
        self.time = float(times[-1])
        rotations, positions, plan = self.flat_pose(distance)
        block = self.pipeline.step_frames(rotations, positions, plan, dt, ik=self.ik, copy=False)
        return WalkerFrame(**vars(block), time=times, distance=distance.copy(),
                           swing=np.asarray(plan.swing).copy(), plant_xz=plan.plant_xz)

    def rewind(self, frame: int) -> None:
        """Go back to frame ``frame`` (0-based) of the last :meth:`step_frames` batch."""
        distance, times = self._history
        if not 0 <= frame < len(times):
            raise SkeletonError(f"rewind: frame {frame} is not in the last batch of {len(times)}")
        self.distance = distance[frame].copy()
        self.time = float(times[frame])
        self.pipeline.rewind(frame)


def _sway(skeleton: Skeleton, sway: Sequence[tuple[str, float, float]]
          ) -> tuple[NDArray[np.int64], FloatArray, FloatArray]:
    """Indices ``(E,)``, leans and amplitudes ``(E,)`` radians of the ``sway`` joints that exist."""
    names = set(skeleton.names)
    extras = [(skeleton.index(name), lean, amp) for name, lean, amp in sway if name in names]
    return (np.array([j for j, _, _ in extras], dtype=np.int64),
            np.array([lean for _, lean, _ in extras], dtype=np.float64),
            np.array([amp for _, _, amp in extras], dtype=np.float64))


@bundle_kernel(error_model="numpy", nogil=True)
def _flat_walk(rows: WalkRows, sizes: WalkSizes, body: WalkBody, pose: FlatWalkPose
               ) -> None:  # pragma: no cover - compiled
    """Seed 000's flat walk for N ``rows`` (character ``n mod K``) after ``rows.distance (N,)``
    metres: footstep plan, ankle targets ``pose.ankle (N, 2, 3)``, hips and the posed rest
    pose in ``pose.rotations``, ``pose.positions`` ``(N, J, ·)`` (legs at rest; the IK
    follows). ``pose.hip``, ``pose.knee``, ``pose.foot`` ``(N, 2, 3)``: the root plus the fixed
    world ``body.steps (J, 3)`` down each leg's ``body.chains (2, L)`` (−1 padded), as the FK
    adds them; the poles are ``knee + body.pole_offset``."""
    rows, sizes, body, pose = WalkRows(*rows), WalkSizes(*sizes), WalkBody(*body), \
        FlatWalkPose(*pose)
    distance, start_x, lateral_z = rows.distance, rows.start_x, rows.lateral_z
    step_length, foot_phase, clearance, lift = sizes.step_length, sizes.foot_phase, \
        sizes.clearance, sizes.lift
    ankle_heights, foot_z, hip_from_hips = sizes.ankle_heights, sizes.foot_z, \
        sizes.hip_from_hips
    hips_height, bob, reach, softness = sizes.hips_height, sizes.bob, sizes.reach, \
        sizes.softness
    root, offsets, heading, extra_joints = body.root, body.offsets, body.heading, \
        body.sway_joints
    leans, amps, steps, chains = body.leans, body.amps, body.steps, body.chains
    upper, lower, pole_offset = body.upper, body.lower, body.pole_offset
    rotations, positions, ankle, stance, swing = pose.rotations, pose.positions, pose.ankle, \
        pose.stance, pose.swing
    plant_xz, next_xz, hip, knee, foot, pole = pose.plant_xz, pose.next_xz, pose.hip, \
        pose.knee, pose.foot, pose.pole
    k = start_x.shape[0]
    for n in range(distance.shape[0]):
        c = n % k
        walked = distance[n]
        for f in range(2):
            on, q, at, to = step_plan_s(walked, step_length, foot_phase[f])
            stance[n, f], swing[n, f] = on, q
            foot_y = 0.0 if on else swing_height_s(0.0, 0.0, q, clearance, lift)
            z = lateral_z[c] + foot_z[f]
            ankle[n, f, 0] = start_x[c] + foot_track_s(on, q, at, to)
            ankle[n, f, 1] = foot_y + ankle_heights[f]
            ankle[n, f, 2] = z
            plant_xz[n, f, 0], plant_xz[n, f, 1] = start_x[c] + at, z
            next_xz[n, f, 0], next_xz[n, f, 1] = start_x[c] + to, z
        phase = walked / step_length
        body_x = start_x[c] + walked
        # The hips: seed 000's bob, kept low enough that both legs reach (a soft min).
        heights = (hips_height + bob * math.cos(4.0 * math.pi * phase), 0.0, 0.0)
        for f in range(2):
            horizontal = math.hypot((body_x + hip_from_hips[f, 0]) - ankle[n, f, 0],
                                    (lateral_z[c] + hip_from_hips[f, 2]) - ankle[n, f, 2])
            rise = math.sqrt(max_nan(reach[f] * reach[f] - horizontal * horizontal, 0.0))
            limit = (ankle[n, f, 1] + rise) - hip_from_hips[f, 1]
            heights = (heights[0], limit, heights[2]) if f == 0 else \
                (heights[0], heights[1], limit)
        low = min_nan(min_nan(heights[0], heights[1]), heights[2])
        total = (math.exp(-(heights[0] - low) / softness)
                 + math.exp(-(heights[1] - low) / softness)) \
            + math.exp(-(heights[2] - low) / softness)
        hips_y = low - softness * math.log(total)
        for j in range(offsets.shape[0]):  # element loops: a slice here compiles seconds longer
            rotations[n, j, 0] = 1.0
            for a in range(1, 4):
                rotations[n, j, a] = 0.0
            for a in range(3):
                positions[n, j, a] = offsets[j, a]
        for a in range(4):
            rotations[n, root, a] = heading[a]
        positions[n, root, 0], positions[n, root, 1], positions[n, root, 2] = \
            body_x, hips_y, lateral_z[c]
        for f in range(2):
            x, y, z = body_x, hips_y, lateral_z[c]
            for i in range(chains.shape[1]):
                j = chains[f, i]
                if j < 0:
                    break
                x, y, z = x + steps[j, 0], y + steps[j, 1], z + steps[j, 2]
                if j == upper[f]:
                    hip[n, f, 0], hip[n, f, 1], hip[n, f, 2] = x, y, z
                elif j == lower[f]:
                    knee[n, f, 0], knee[n, f, 1], knee[n, f, 2] = x, y, z
                    for a in range(3):
                        pole[n, f, a] = knee[n, f, a] + pole_offset[a]
            foot[n, f, 0], foot[n, f, 1], foot[n, f, 2] = x, y, z
        sway = math.sin(2.0 * math.pi * phase)
        for e in range(extra_joints.shape[0]):
            half = 0.5 * (leans[e] + amps[e] * sway)
            sine = math.sin(half)
            j = extra_joints[e]
            rotations[n, j, 0] = math.cos(half)
            rotations[n, j, 1] = sine * 1.0
            rotations[n, j, 2] = sine * 0.0
            rotations[n, j, 3] = sine * 0.0
