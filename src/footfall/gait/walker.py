"""The procedural walker: K characters walking from one phase clock, batched.

:class:`ProceduralWalker` advances in fixed 1/60 s ticks, turns with the gaze leading and can
patrol a scene, or follows a curved path (:class:`~footfall.gait.path.WalkPath`: the distance
walked each tick moves the body along it, and each landing foot is placed on it, beside where the
body will be). On uneven ground planted feet sit on the ground under them and the body follows
the ground under the hips; with ``flat_floor=True`` the pose stays on y = 0 for
:mod:`footfall.grounding` to place (:class:`~footfall.gait.grounded.GroundedWalker`). Each
tick runs seed 004's numbered behaviours in the order ``_tick``'s comments give.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.bunny import bunny_skeleton
from footfall.errors import SettingsError
from footfall.gait import body, phases, slope, stride, swing
from footfall.gait.clock import STEP_S, WalkClock
from footfall.gait.ground import UP, GroundProbe
from footfall.gait.locks import FootLocks, ankle_from_heel, foot_rotation
from footfall.gait.params import GaitParams
from footfall.gait.path import WalkPath, to_world
from footfall.gait.pose import BodyPose, PoseResult, compose
from footfall.gait.rig import WalkRig, pitch, yaw
from footfall.grounding.footsteps import smoothstep
from footfall.grounding.hips import reach_limit
from footfall.grounding.pipeline import GroundedFrame
from footfall.skeleton import Clip, Skeleton
from footfall.terrain import Terrain

# Share of each leg's length the walker lets it stretch to (the IK clamps at 0.999).
REACH_SHARE = 0.995
# Rate (1/s) at which the body follows the ground under the hips, so a stair edge cannot jerk it.
GROUND_FOLLOW_RATE = 10.0


class _Feet(NamedTuple):
    """Both feet of K walkers: ankle targets ``(K, 2, 3)``, foot rotations ``(K, 2, 4)``, ankle
    roll ``(K, 2)`` radians, ground tilt ``(K, 2, 4)`` and heading ``(K, 2)`` radians."""

    ankle: FloatArray
    foot: FloatArray
    roll: FloatArray
    align: FloatArray
    heading: FloatArray


@dataclass(frozen=True)
class WalkFrame(PoseResult):
    """One generated pose of K characters: the composed pose and the walk's state.

    Attributes:
        stance: ``(K, 2)`` bool, foot planted (left, right).
        planted: ``(K, 2, 3)`` locked world heel point of planted feet, NaN while swinging.
        phase, swing: ``(K, 2)`` step phase [0, 1), swing progress [0, 1] (0 while planted).
        ankle_roll: ``(K, 2)`` ankle roll, radians.
        ankle_target: ``(K, 2, 3)`` world ankle targets the legs were solved for.
        heading: ``(K,)`` body yaw; ``gaze``: ``(K,)`` head yaw, radians.
        step_rate: ``(K,)`` current step rate, Hz; ``lean``: ``(K,)`` forward lean, radians.
        slope: ``(K,)`` ground slope along the heading, radians (uphill positive).
        footstep, next_footstep: ``(K, 2, 3)`` ground point under the ankle at the current
            (swinging: last) and the next footstep (planted: the current one).
        time: scene time, seconds.
    """

    stance: NDArray[np.bool_]
    planted: FloatArray
    phase: FloatArray
    ankle_roll: FloatArray
    ankle_target: FloatArray
    heading: FloatArray
    gaze: FloatArray
    step_rate: FloatArray
    lean: FloatArray
    slope: FloatArray
    swing: FloatArray
    footstep: FloatArray
    next_footstep: FloatArray
    time: float


class ProceduralWalker:
    """K characters walking procedurally (seed 004), advanced in fixed 1/60 s ticks.

    Args:
        skeleton: any humanoid rig (default: the bunny).
        count: number of characters K.
        params: :class:`GaitParams`; ``leg_length`` None means the rig's.
        start: ``(3,)`` or ``(K, 3)`` root ground position (x, ·, z); y is taken from the ground.
        heading: ``()`` or ``(K,)`` initial yaw, radians (π/2 walks along +X, the demo's way).
        cycle: ``()`` or ``(K,)`` initial step count (phase offset per character).
        flat_floor: a terrain only sets the slope; the pose stays on y = 0 (for grounding).
        path: where the walk goes (:class:`WalkPath`; default straight ahead), its frame set by
            ``start`` and ``heading``; :meth:`turn` turns that frame.
    """

    def __init__(self, skeleton: Skeleton | None = None, count: int = 1,
                 params: GaitParams | None = None, *, start: ArrayLike = (0.0, 0.0, 0.0),
                 heading: ArrayLike = math.pi / 2, cycle: ArrayLike = 0.0,
                 flat_floor: bool = False, path: WalkPath | None = None) -> None:
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise SettingsError(f"ProceduralWalker count must be a positive integer, got {count!r}")
        self.params = params if params is not None else GaitParams()
        self.rig = WalkRig.from_skeleton(
            skeleton if skeleton is not None else bunny_skeleton(),
            arm_spread=math.radians(self.params.arm_spread_deg),
        )
        self.count = int(count)
        # (2, 3) canonical heel offset from the ankle's ground point (flat foot).
        self._heel_flat = self.rig.heel.copy()
        self._heel_flat[:, 1] = 0.0
        self.leg_length = (
            self.rig.leg_length if self.params.leg_length is None else self.params.leg_length
        )
        self._start = _batched(start, (self.count, 3), "start")
        self._start_heading = _batched(heading, (self.count,), "heading")
        self._start_cycle = _batched(cycle, (self.count,), "cycle")
        self.clock = WalkClock()
        self._patrol: tuple[float, float] | None = None
        self.flat_floor = bool(flat_floor)
        self.path = path if path is not None else WalkPath()
        self.reset()

    # ----------------------------------------------------------------- public
    @property
    def skeleton(self) -> Skeleton:
        """The rig being walked."""
        return self.rig.skeleton

    @property
    def step_length(self) -> float:
        """Distance one step carries the body, ``2·L·sin(stride)`` (rig units)."""
        return float(stride.step_length(self.leg_length, self.params.stride))

    def reset(self) -> None:
        """Back to the start (both clocks to zero, feet re-planted at the next step)."""
        self.clock.reset()
        self._frame: WalkFrame | None = None
        self._ready = False
        self._turn_at = np.full(self.count, np.inf)
        self._heading_from = self._start_heading.copy()
        self._heading_to = self._start_heading.copy()
        self._distance = np.zeros(self.count)  # walked along the path, metres (rig units)

    def turn(self, heading: ArrayLike, at: float | None = None,
             characters: ArrayLike | None = None) -> None:
        """Schedule a turn to ``heading`` (radians) at scene time ``at`` (default: now + lead)
        for ``characters`` (index array or mask; default all). The gaze starts moving
        ``gaze_lead_s`` before ``at``; the body turns over ``turn_s``."""
        now = self.clock.scene_time
        when = now + self.params.gaze_lead_s if at is None else float(at)
        if not math.isfinite(when):
            raise SettingsError(f"turn time must be finite, got {at!r}")
        chosen = np.zeros(self.count, dtype=bool)
        chosen[np.arange(self.count) if characters is None else np.asarray(characters)] = True
        target = _batched(heading, (self.count,), "heading")
        current = body.body_heading(now, self._turn_at, self._heading_from, self._heading_to,
                                    self.params.turn_s)
        self._heading_from = np.where(chosen, current, self._heading_from)
        self._heading_to = np.where(chosen, target, self._heading_to)
        self._turn_at = np.where(chosen, when, self._turn_at)

    def patrol(self, x_min: float, x_max: float) -> None:
        """Walk to and fro along X, turning (gaze first) on passing ``x_max`` or ``x_min`` (m);
        a straight path only (a curved one stays where it is)."""
        if not self.path.straight:
            raise SettingsError(f"patrol walks a straight path, not a {self.path.kind}")
        if not (math.isfinite(x_min) and math.isfinite(x_max) and x_min < x_max):
            raise SettingsError(f"patrol needs x_min < x_max, got {x_min!r}, {x_max!r}")
        self._patrol = (float(x_min), float(x_max))

    def _turn_at_ends(self) -> None:
        if self._patrol is None:
            return
        x_min, x_max = self._patrol
        x = self._position[:, 0]
        going = np.sin(self._heading_to)
        idle = ~np.isfinite(self._turn_at) | (self._turn_at < self.clock.scene_time)
        back = idle & (((x > x_max) & (going > 0)) | ((x < x_min) & (going < 0)))
        if np.any(back):
            self.turn(self._heading_to + math.pi, characters=back)

    def step(self, frame_s: float = STEP_S, terrain: Terrain | None = None) -> WalkFrame:
        """Advance by one rendered frame (clamped to 0.05 s, run in fixed 1/60 s ticks)."""
        if self.params.reduced_motion:
            return self.rest_frame(terrain)
        ticks = self.clock.consume(frame_s)
        if self._frame is None:
            self._frame = self._tick(terrain, advance=False)
        for _ in range(ticks):
            self._frame = self._tick(terrain, advance=True)
        return self._frame

    def generate(self, seconds: float, terrain: Terrain | None = None) -> list[WalkFrame]:
        """Frames at 60 fps for ``seconds``: the current pose then one per tick."""
        return list(self.iterate(seconds, terrain))

    def iterate(self, seconds: float, terrain: Terrain | None = None) -> Iterator[WalkFrame]:
        """Like :meth:`generate`, one frame at a time (for long walks)."""
        if not (math.isfinite(seconds) and seconds >= 0):
            raise SettingsError(f"seconds must be a non-negative number, got {seconds!r}")
        ticks = int(round(seconds / self.clock.step_s))
        yield self.step(0.0, terrain)
        for _ in range(ticks):
            if self.params.reduced_motion:
                yield self.rest_frame(terrain)
                continue
            self._frame = self._tick(terrain, advance=True)
            yield self._frame

    def to_clips(self, frames: Sequence[WalkFrame | GroundedFrame]) -> list[Clip]:
        """One :class:`Clip` per character from consecutive (walked or grounded) 60 fps frames."""
        rotations = np.stack([f.rotations for f in frames], axis=1)
        positions = np.stack([f.positions for f in frames], axis=1)
        fps = 1.0 / self.clock.step_s
        return [Clip(self.skeleton, rotations[k], positions[k], fps) for k in range(self.count)]

    def rest_frame(self, terrain: Terrain | None = None) -> WalkFrame:
        """Reduced motion: one standing pose at the start, both feet flat, nothing moving."""
        self._ensure_state(terrain)
        count = self.count
        heading = self._start_heading
        ground = self._ground
        zeros = np.zeros((count, 2))
        heel, _ = self._heels(self._start, heading, zeros)
        heel[..., 1], align = GroundProbe(terrain, self.flat_floor).footing(heel, ground[:, None])
        heads = np.broadcast_to(heading[:, None], (count, 2))
        ankle = ankle_from_heel(heel, align, heads, zeros, self.rig.heel, self.rig.ball)
        root = self._start.copy()
        root[:, 1] = (ground + self.rig.ankle_height + self.rig.root_above_hips
                      + body.HIP_MEAN_SHARE * self.leg_length)  # the hips at their mean height
        foot = foot_rotation(align, heads, zeros)
        upright = quat.identity((count,))
        pose = BodyPose(root, heading, upright, upright, upright, np.zeros(count), zeros, zeros,
                        ankle, foot, foot)
        step = self._footstep(heel, heads)
        return self._frame_from(pose, np.ones((count, 2), bool), heel, zeros, heading,
                                np.full(count, self.params.step_rate_hz), np.zeros(count),
                                np.zeros(count), zeros, zeros, step, step)

    # ---------------------------------------------------------------- state
    def _ensure_state(self, terrain: Terrain | None = None) -> None:
        if self._ready:
            return
        count = self.count
        self._position = self._start.copy()
        self._cycle = self._start_cycle.copy()
        probe = GroundProbe(terrain, self.flat_floor)
        self._ground, normal = probe.under_body(self._position, np.zeros(count))
        self._slope = slope.slope_along(normal, self._start_heading)
        self._rate = self._lean_and_rate(self._slope)[1]
        self._locks = FootLocks(count)
        self._landing = np.zeros((count, 2, 3))
        self._landing_align = quat.identity((count, 2))
        self._ready = True
        # Feet as if the walk had been going on at this speed: each foot landed phase/rate ago.
        ph = phases.leg_phases(self._cycle)
        heading = self._start_heading
        heels, heads = self._heel_strikes(self._position, heading, -ph * self.step_length)
        heels[..., 1], align = probe.footing(heels, self._ground[:, None])
        self._landing_heading = heads.copy()
        stance = phases.in_stance(ph, self.params.stance_share)
        self._locks.plant(stance, heels, heads, align)
        push = np.full((count, 2), math.radians(phases.PUSH_OFF_DEG))
        lifted = ankle_from_heel(heels, align, heads, push, self.rig.heel, self.rig.ball)
        self._lift = np.where(~stance[..., None], lifted, 0.0)
        self._lift_heading = np.where(~stance, heads, 0.0)
        self._lift_align = np.where(~stance[..., None], align, quat.identity((count, 2)))
        self._lift_heel = np.where(~stance[..., None], heels, 0.0)
        self._stance = stance

    def _lean_and_rate(self, slope_angle: FloatArray) -> tuple[FloatArray, FloatArray]:
        p = self.params
        lean = slope.forward_lean(slope_angle, p.downhill_lean, p.uphill_lean)
        return lean, slope.adapted_step_rate(p.step_rate_hz, lean, p.rate_per_lean_hz,
                                             p.rate_min_hz, p.rate_max_hz)

    # ----------------------------------------------------------------- tick
    def _tick(self, terrain: Terrain | None, advance: bool) -> WalkFrame:
        """One frame: the walk's behaviours (seed 004's numbers) in the order they run."""
        self._ensure_state(terrain)
        dt = self.clock.step_s if advance else 0.0
        if advance:
            self.clock.tick()
        now = self.clock.scene_time
        steered = body.body_heading(now, self._turn_at, self._heading_from, self._heading_to,
                                    self.params.turn_s)
        travel = self._advance_body(steered, now, dt)
        # The body faces along the path; the gaze leads it by where the path turns in
        # ``gaze_lead_s`` at the current speed, as it leads a steered turn.
        p = self.params
        ahead = self.step_length * self._rate * p.gaze_lead_s
        _, turning = self.path.relative(self._distance, ahead)
        heading = steered + self._path_heading
        gaze = body.gaze_heading(now, self._turn_at, self._heading_from, self._heading_to,
                                 p.gaze_lead_s) + self._path_heading + turning
        probe = GroundProbe(terrain, self.flat_floor)
        lean, ph, stance = self._follow_ground(probe, heading, travel, dt)
        self._lock_feet(stance)
        planted = self._planted_feet(ph)
        swinging, k = self._swing_feet(probe, ph, stance, heading)
        feet = _Feet(*(np.where(stance if on.ndim == 2 else stance[..., None], on, off)
                       for on, off in zip(planted, swinging, strict=True)))
        toes = foot_rotation(feet.align, feet.heading, np.minimum(feet.roll, 0.0))
        pose = self._body_pose(ph, heading, gaze, lean, feet, toes)
        heels = np.where(stance[..., None], self._locks.heel, np.nan)
        now_step = self._footstep(np.where(stance[..., None], self._locks.heel, self._lift_heel),
                                  np.where(stance, self._locks.heading, self._lift_heading))
        next_step = np.where(stance[..., None], now_step,
                             self._footstep(self._landing, self._landing_heading))
        if advance:
            self._turn_at_ends()
        return self._frame_from(pose, stance, heels, feet.roll, gaze, self._rate, lean,
                                self._slope, ph, k, now_step, next_step)

    @property
    def _path_heading(self) -> FloatArray:
        """``(K,)`` how far the path has turned the body so far, radians."""
        return self.path.pose(self._distance)[1]

    def _advance_body(self, steered: FloatArray, now: float, dt: float) -> FloatArray:
        """01, 03 — the body advances along its path at step length × step rate (the rate from
        the last tick's slope) with a slight speed wobble; ``steered (K,)`` is the heading of
        the path's frame (radians). Returns each walker's travel ``(K,)`` metres."""
        p = self.params
        wobble = 1.0 + p.speed_wobble * math.cos(p.wobble_rad_s * now)
        travel = self.step_length * self._rate * wobble * dt
        moved, _ = self.path.relative(self._distance, travel)
        move = to_world(moved, steered + self._path_heading)
        self._position = self._position + np.stack(
            [move[:, 0], np.zeros(self.count), move[:, 1]], axis=-1)
        self._distance = self._distance + travel
        return travel

    def _follow_ground(self, probe: GroundProbe, heading: FloatArray, travel: FloatArray,
                       dt: float) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
        """07 — ground and slope under the hips, then lean, step rate and the legs' phases:
        ``(lean (K,), phases (K, 2), stance (K, 2))``. The ground is followed smoothly along
        the current slope, so a steady hill causes no lag."""
        ground, normal = probe.under_body(self._position, self._ground)
        follow = 1.0 - math.exp(-GROUND_FOLLOW_RATE * dt)
        expected = self._ground + np.tan(self._slope) * travel * (not self.flat_floor)
        self._ground = expected + (ground - expected) * follow
        self._slope = self._slope + (slope.slope_along(normal, heading) - self._slope) * follow
        lean, self._rate = self._lean_and_rate(self._slope)
        self._cycle = self._cycle + self._rate * dt
        ph = phases.leg_phases(self._cycle)
        return lean, ph, phases.in_stance(ph, self.params.stance_share)

    def _lock_feet(self, stance: NDArray[np.bool_]) -> None:
        """09 — landing feet locked where they were heading (along the path there); lifting
        feet unlocked at push-off, their swing starting from there."""
        landed = stance & ~self._stance
        lifted = ~stance & self._stance
        self._locks.plant(landed, self._landing, self._landing_heading, self._landing_align)
        if np.any(lifted):
            push = np.full((self.count, 2), math.radians(phases.PUSH_OFF_DEG))
            off = self._locks.ankle(push, self.rig.heel, self.rig.ball)
            self._lift = np.where(lifted[..., None], off, self._lift)
        self._lift_heading = np.where(lifted, self._locks.heading, self._lift_heading)
        self._lift_align = np.where(lifted[..., None], self._locks.align, self._lift_align)
        self._lift_heel = np.where(lifted[..., None], self._locks.heel, self._lift_heel)
        self._locks.release(lifted)
        self._stance = stance

    def _planted_feet(self, ph: FloatArray) -> _Feet:
        """02 — planted feet from their locks, rolling over the ankle."""
        roll = phases.ankle_roll(ph, self.params.stance_share)
        ankle = self._locks.ankle(roll, self.rig.heel, self.rig.ball)
        foot = foot_rotation(self._locks.align, self._locks.heading, roll)
        return _Feet(ankle, foot, roll, self._locks.align, self._locks.heading)

    def _swing_feet(self, probe: GroundProbe, ph: FloatArray, stance: NDArray[np.bool_],
                    heading: FloatArray) -> tuple[_Feet, FloatArray]:
        """08 — swinging feet toward the predicted landing (on the path, facing along it) over
        the cleared arc; also the swing progress ``k (K, 2)``."""
        p = self.params
        k = swing.swing_progress(ph, p.stance_share)
        ahead = (1.0 - ph) * self.step_length  # body travel until this foot lands (nominal)
        landing, landing_heading = self._heel_strikes(self._position, heading, ahead)
        landing[..., 1], landing_align = probe.footing(landing, self._ground[:, None])
        self._landing = np.where(stance[..., None], self._landing, landing)
        self._landing_heading = np.where(stance, self._landing_heading, landing_heading)
        self._landing_align = np.where(stance[..., None], self._landing_align, landing_align)
        heads = self._landing_heading
        strike = np.full((self.count, 2), math.radians(phases.HEEL_STRIKE_DEG))
        land_ankle = ankle_from_heel(self._landing, self._landing_align, heads, strike,
                                     self.rig.heel, self.rig.ball)
        ease = smoothstep(k)
        lift = swing.swing_lift(k, self._rate[:, None], self.leg_length, True, p.arc_hold,
                                p.arc_rise, p.arc_min_share)
        ankle = self._lift + (land_ankle - self._lift) * ease[..., None]
        ankle = ankle + UP * lift[..., None]
        roll = np.radians(phases.PUSH_OFF_DEG
                          + (phases.HEEL_STRIKE_DEG - phases.PUSH_OFF_DEG) * ease)
        yaw_blend = body.blend_heading(self._lift_heading, heads, ease)
        align = quat.slerp(self._lift_align, self._landing_align, ease)
        foot = foot_rotation(align, yaw_blend, roll)
        return _Feet(ankle, foot, roll, align, yaw_blend), k

    def _body_pose(self, ph: FloatArray, heading: FloatArray, gaze: FloatArray,
                   lean: FloatArray, feet: _Feet, toes: FloatArray) -> BodyPose:
        """04–06 — body bob, head, twist and arms around the feet; the hips lowered just
        enough for a foot out of reach."""
        p = self.params
        left = ph[:, 0]
        hip = body.hip_height(left, self.leg_length)
        root = self._position.copy()
        root[:, 1] = (self._ground + self.rig.ankle_height + self.rig.root_above_hips
                      + hip * np.cos(self._slope))
        head_drop = -p.head_compensation * (hip - body.HIP_MEAN_SHARE * self.leg_length)
        hips_twist, chest_twist = body.twist(left, self._rate, p.twist_deg,
                                               p.shoulder_twist_ratio)
        leaning = pitch(lean)
        hips = quat.mul(leaning, yaw(hips_twist))
        chest = quat.mul(leaning, yaw(chest_twist))
        # Long strides or wide stances can put a foot out of reach: lower the hips just
        # enough (seed 000's rule, footfall.grounding.hips), never raise it.
        hips_world = quat.mul(yaw(heading), quat.mul(hips, quat.inv(self.rig.facing)))
        hip_joints = root[:, None] + quat.rotate(hips_world[:, None], self.rig.hip_offsets)
        limit = reach_limit(feet.ankle, hip_joints, root[:, 1:2],
                            REACH_SHARE * self.rig.leg_lengths)
        root[:, 1] = np.minimum(root[:, 1], limit.min(axis=1))
        head = yaw(gaze - heading)
        shoulder, elbow = body.arm_swing(ph, p.stride, p.leg_ratio, p.arm_swing_share,
                                         p.elbow_bend_deg)
        return BodyPose(root, heading, hips, chest, head, head_drop * np.cos(self._slope),
                        shoulder, elbow, feet.ankle, feet.foot, toes)

    def _frame_from(self, pose: BodyPose, stance, planted, roll, gaze, rate, lean, slope_angle,
                    ph, swing_k, footstep, next_footstep) -> WalkFrame:
        result = compose(self.rig, pose)
        return WalkFrame(  # gaze, lean and slope_angle are float64 arrays already
            **vars(result), stance=stance, planted=planted, phase=ph, ankle_roll=roll,
            ankle_target=pose.ankle, heading=pose.heading, gaze=gaze,
            step_rate=np.asarray(rate, dtype=np.float64), lean=lean, slope=slope_angle,
            swing=swing_k, footstep=footstep, next_footstep=next_footstep,
            time=self.clock.scene_time,
        )

    # ---------------------------------------------------------------- geometry
    def _heels(self, root: FloatArray, heading: FloatArray,
               along: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Heel points ``(K, 2, 3)`` and yaws ``(K, 2)`` radians of flat feet whose ankles stand
        ``along (K, 2)`` further along the path than the root ``(K, 3)`` facing ``heading
        (K,)``: beside the path there, under the hips, facing along it. On a curve the inside
        foot's steps are so shorter than the outside one's."""
        moved, turned = self.path.relative(self._distance[:, None], along)
        move = to_world(moved, heading[:, None])
        foot_heading = heading[:, None] + turned
        offset = np.zeros((self.count, 2, 3))
        offset[..., 0] = self.rig.foot_lateral
        ground = root[:, None] + np.stack([move[..., 0], np.zeros_like(along), move[..., 1]],
                                          axis=-1)
        return ground + quat.rotate(yaw(foot_heading), offset + self._heel_flat), foot_heading

    def _footstep(self, heel: FloatArray, heading: FloatArray) -> FloatArray:
        """Ground point under the flat foot's ankle ``(K, 2, 3)`` from its heel and yaw."""
        return heel - quat.rotate(yaw(heading), self._heel_flat)

    def _heel_strikes(self, root: FloatArray, heading: FloatArray,
                      ahead: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Heel strike points ``(K, 2, 3)`` and foot yaws ``(K, 2)`` for a body that will be
        ``ahead (K, 2)`` further on: half a stance sweep in front of the hip, so the hip passes
        over it at mid-stance."""
        sweep = 0.5 * self.params.stance_share * self.step_length
        return self._heels(root, heading, ahead + sweep)


def _batched(value: ArrayLike, shape: tuple[int, ...], name: str) -> FloatArray:
    try:
        array = np.asarray(value, dtype=np.float64)
        out = np.broadcast_to(array, shape).copy()
    except (ValueError, TypeError):
        raise SettingsError(
            f"ProceduralWalker {name} must broadcast to {shape}, got shape {np.shape(value)}"
        ) from None
    if not np.all(np.isfinite(out)):
        raise SettingsError(f"ProceduralWalker {name} must be finite, got {value!r}")
    return out
