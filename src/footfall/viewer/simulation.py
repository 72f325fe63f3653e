"""The simulation the demo shows: two bunnies on one terrain, left IK on, right IK off.

No drawing here, so tests, ``footfall render`` and the browser view all run the very same
simulation. Foot placement itself belongs to :mod:`footfall.walker`; this module only chooses
the terrain, starts the walkers, advances them with the fixed time step of SPEC (1/60 s) and keeps
the live readout (each bunny's current sole gap and its running contact error, both measured on
the solved skeleton, never on the walker's targets).
"""

from __future__ import annotations

import copy
import importlib
from dataclasses import dataclass, field, replace

import numpy as np

from footfall.bunny import bunny_skeleton, sole_points
from footfall.errors import SettingsError
from footfall.grounding import GroundingParams
from footfall.grounding.pipeline import frame_at, with_frame_axis
from footfall.metrics import ground_gaps, sole_world
from footfall.skeleton import Skeleton
from footfall.terrain import Terrain, scene
from footfall.walker import StepWalker

DT = 1.0 / 60.0
TERRAINS = ("course", "stairs", "hills", "ripples", "slope", "rocks")
WALKERS = ("stepping", "gait")
SPEED_RANGE = (0.2, 1.4)
STEP_HEIGHT_RANGE = (0.04, 0.2)
START_X = 0.5  # the left bunny's pelvis at the start, metres
AHEAD_X = 2.0  # seed 000: the right bunny walks 2 m ahead so both show in one side view
LATERAL_Z = (0.0, 0.0)
CONTACT_GAP = 0.01  # seed 000 done criterion: a stance sole within 1 cm of the ground
STAIRS_START = 4.0  # the stairs scene's first riser, metres (both bunnies start before it)
END_MARGIN = 1.5  # restart when the leading bunny is this close to the terrain's end
#: Frames simulated ahead in one batched call (0.5 s at 60 Hz): one call for 30 frames costs
#: about twice one call for one frame. A control change drops the frames not yet shown.
BLOCK_FRAMES = 30


@dataclass
class DemoSettings:
    """Every switch of the demo (the controls edit these), with seed 000's defaults."""

    ik_left: bool = True
    pelvis: bool = True
    speed: float = 0.75
    terrain: str = "course"
    step_height: float = 0.10
    walker: str = "stepping"
    follow: bool = True
    paused: bool = False

    def check(self) -> DemoSettings:
        """Raise :class:`SettingsError` naming the first out-of-range field; return self."""
        if self.terrain not in TERRAINS:
            raise SettingsError(f"terrain {self.terrain!r} is not one of {TERRAINS}")
        if self.walker not in WALKERS:
            raise SettingsError(f"walker {self.walker!r} is not one of {WALKERS}")
        lo, hi = SPEED_RANGE
        if not lo <= self.speed <= hi:
            raise SettingsError(f"speed {self.speed} m/s is outside [{lo}, {hi}]")
        lo, hi = STEP_HEIGHT_RANGE
        if not lo <= self.step_height <= hi:
            raise SettingsError(f"step_height {self.step_height} m is outside [{lo}, {hi}]")
        return self


@dataclass
class DemoFrame:
    """What one simulation step shows. K = 2 bunnies (0 = left, IK on; 1 = right, IK off).

    ``global_rotations`` (K, J, 4), ``global_positions`` (K, J, 3) metres; per foot (K, 2):
    ``stance`` (bool), ``sole_gap`` metres measured on the solved sole (+ floating, − sinking),
    ``ray_origin`` and ``ray_hit`` (K, 2, 3) metres; ``ik`` (K,) bool; ``time`` seconds.
    """

    global_rotations: np.ndarray
    global_positions: np.ndarray
    stance: np.ndarray
    sole_gap: np.ndarray
    ray_origin: np.ndarray
    ray_hit: np.ndarray
    ik: np.ndarray
    time: float


@dataclass
class ContactStats:
    """Running contact error per bunny: mean |sole gap| over stance feet so far, metres."""

    total: np.ndarray = field(default_factory=lambda: np.zeros(2))
    count: np.ndarray = field(default_factory=lambda: np.zeros(2))

    def add(self, stance: np.ndarray, gap: np.ndarray) -> None:
        """Accumulate one frame: ``stance`` and ``gap`` (K, 2)."""
        self.total += np.where(stance, np.abs(gap), 0.0).sum(axis=1)
        self.count += stance.sum(axis=1)

    @property
    def mean(self) -> np.ndarray:
        """Mean |gap| (K,) metres; NaN for a bunny with no stance sample yet."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count > 0, self.total / np.maximum(self.count, 1), np.nan)


def measure_sole_gaps(
    terrain: Terrain, global_rot: np.ndarray, global_pos: np.ndarray, foot_joints: np.ndarray
) -> np.ndarray:
    """Signed mean gap between each solved sole and the ground under it, ``(K, F)`` metres.

    ``global_rot`` (K, J, 4), ``global_pos`` (K, J, 3); ``foot_joints`` (F,) ankle joint indices.
    The sole is sampled every centimetre heel to toe (:func:`footfall.bunny.sole_points`);
    positive means the sole floats above the ground, negative that it sinks into it.
    """
    world = sole_world(global_rot[:, foot_joints], global_pos[:, foot_joints], sole_points())
    return ground_gaps(terrain, world).mean(axis=-1)


def build_terrain(name: str, step_height: float) -> Terrain:
    """The terrain ``name`` from :func:`footfall.terrain.scene`; stairs use ``step_height``."""
    if name not in TERRAINS:
        raise SettingsError(f"terrain {name!r} is not one of {TERRAINS}")
    params: dict[str, float] = {}
    if name in ("course", "stairs"):
        params["step_height"] = step_height
    if name == "stairs":
        params["start"] = STAIRS_START
    return scene(name, **params)


def available_walkers() -> tuple[str, ...]:
    """The walker choices installed: seed 000 stepping always, the procedural walk cycle when
    :mod:`footfall.gait` offers its grounded walker."""
    try:
        grounded = importlib.import_module("footfall.gait.grounded")
    except ImportError:
        return ("stepping",)
    return ("stepping", "gait") if hasattr(grounded, "GroundedWalker") else ("stepping",)


class GaitStepper:
    """Seed 004's procedural walk cycle (:mod:`footfall.gait`) behind the StepWalker interface
    the demo drives: ``step(dt)`` → grounded frame, settable ``ik`` (K,), ``speed``, ``params``.

    Speed maps to the step rate: ground speed = step length × step rate (seed 004), so the
    walk keeps its stride and steps faster or slower.
    """

    #: Frames per :meth:`step_frames` call in the demo: the walk cycle itself runs frame by frame
    #: (1.7 ms each), so a long block would stall one tick; four keep every tick short.
    block_frames = 4

    def __init__(
        self,
        skeleton: Skeleton,
        terrain: Terrain,
        ik: list[bool],
        start_x: list[float],
        speed: float,
        params: GroundingParams,
    ) -> None:
        from footfall.gait.grounded import GroundedWalker, foot_plan

        self._foot_plan = foot_plan
        starts = [(x, 0.0, z) for x, z in zip(start_x, LATERAL_Z, strict=True)]
        self.terrain = terrain
        self.grounded = GroundedWalker(
            terrain, skeleton, count=len(start_x), grounding=params, start=starts
        )
        self.ik = np.array(ik, bool)
        self.speed = speed
        self._snapshot: tuple | None = None  # the walk cycle before the last batch

    @property
    def speed(self) -> float:
        """Ground speed on level ground, m/s."""
        return self._speed

    @speed.setter
    def speed(self, speed: float) -> None:
        from footfall.gait.stride import step_length

        walker = self.grounded.walker
        length = float(step_length(walker.leg_length, walker.params.stride))
        walker.params = replace(walker.params, step_rate_hz=float(speed) / length)
        self._speed = float(speed)

    @property
    def params(self) -> object:
        """The grounding parameters (assign one GroundingParams for every bunny)."""
        return self.grounded.pipeline.params

    @params.setter
    def params(self, params: GroundingParams) -> None:
        self.grounded.pipeline.params = params

    def step(self, dt: float):
        """Advance one frame: the walk cycle on flat ground, then grounded (IK per bunny)."""
        return frame_at(self.step_frames(dt, 1), 0)

    def step_frames(self, dt: float, frames: int):
        """``frames`` steps of ``dt`` (a whole number of 1/60 s ticks each): the walk cycle frame
        by frame (it keeps footstep locks), the grounding of all of them in one batched call.
        The same frames as :meth:`step`; arrays ``(T, K, ...)``. :meth:`rewind` goes back to any
        of them."""
        if frames < 1:
            raise SettingsError(f"frames must be ≥ 1, got {frames}")
        walker = self.grounded.walker
        self._snapshot = (copy.deepcopy(walker, self._shared()), float(dt), frames)
        animated, elapsed = [], []
        for _ in range(frames):
            before = walker.clock.ticks
            animated.append(walker.step(dt, self.terrain))
            elapsed.append((walker.clock.ticks - before) * walker.clock.step_s)
        if len(set(elapsed)) != 1:
            self.grounded.walker, self._snapshot = self._snapshot[0], None  # nothing changed
            raise SettingsError(
                f"step_frames needs frames of whole walk-clock ticks; dt={dt} s gave {elapsed}"
            )
        plans = [self._foot_plan(a) for a in animated]
        fields = ("stance", "swing", "plant_xz", "next_plant_xz")
        plan = type(plans[0])(**{f: np.stack([getattr(p, f) for p in plans]) for f in fields})
        rotations = np.stack([a.rotations for a in animated])
        positions = np.stack([a.positions for a in animated])
        return self.grounded.pipeline.step_frames(
            rotations, positions, plan, elapsed[0], ik=self.ik
        )

    def rewind(self, frame: int) -> None:
        """Go back to frame ``frame`` (0-based) of the last :meth:`step_frames` batch: the walk
        cycle replays from its copy taken before the batch; the grounding state is restored."""
        if self._snapshot is None or not 0 <= frame < self._snapshot[2]:
            raise SettingsError(f"rewind: frame {frame} is not in the last batch")
        snapshot, dt, _ = self._snapshot
        walker = copy.deepcopy(snapshot, self._shared())
        for _ in range(frame + 1):
            walker.step(dt, self.terrain)
        self.grounded.walker = walker
        self.grounded.pipeline.rewind(frame)

    def _shared(self) -> dict[int, object]:
        """What a copy of the walk cycle shares with the original (read-only, large)."""
        walker = self.grounded.walker
        shared = (self.terrain, walker.skeleton, walker.rig, walker.params)
        return {id(item): item for item in shared}


class DemoSimulation:
    """Two bunnies walking one terrain side by side, stepped at a fixed 1/60 s.

    Change :attr:`settings` and call :meth:`apply` for the cheap switches (IK, pelvis, speed) or
    :meth:`rebuild` for the ones that need a new terrain or walker.

    Fixed steps are simulated :data:`BLOCK_FRAMES` at a time (one batched pipeline call,
    :meth:`footfall.walker.StepWalker.step_frames`) and handed out one per :meth:`step`; the
    frames are the same as stepping one by one. :meth:`apply` rewinds the walker to the frame
    last shown and drops the rest, so a switch takes effect on the very next frame.
    """

    def __init__(self, settings: DemoSettings | None = None) -> None:
        self.settings = (settings or DemoSettings()).check()
        self.skeleton = bunny_skeleton()
        self.foot_joints = np.array(
            [self.skeleton.index("LeftFoot"), self.skeleton.index("RightFoot")]
        )
        self.rebuild()

    def rebuild(self) -> None:
        """Build the terrain and walkers from :attr:`settings` and restart at the beginning."""
        s = self.settings.check()
        self.terrain = build_terrain(s.terrain, s.step_height)
        self.walker = self._make_walker()
        self.stats = ContactStats()
        self.time = 0.0
        self._ahead: list[DemoFrame] = []  # simulated, not yet shown
        self._shown = 0  # frames of the current block handed out
        self.frame = self._observe(self.walker.step(0.0))

    def _make_walker(self):
        s = self.settings
        start = [START_X, START_X + AHEAD_X]
        ik = [s.ik_left, False]
        params = GroundingParams(pelvis=s.pelvis)
        if s.walker == "gait":
            return GaitStepper(self.skeleton, self.terrain, ik, start, s.speed, params)
        return StepWalker(
            self.skeleton,
            self.terrain,
            count=2,
            ik=ik,
            lateral_z=list(LATERAL_Z),
            start_x=start,
            speed=s.speed,
            params=params,
        )

    def apply(self) -> None:
        """Push the cheap switches (left IK, pelvis correction, speed) into the running walker."""
        s = self.settings.check()
        self._drop_ahead()
        self.walker.ik[0] = s.ik_left
        self.walker.ik[1] = False
        self.walker.speed = s.speed
        self.walker.params = GroundingParams(pelvis=s.pelvis)

    def _drop_ahead(self) -> None:
        """Forget the frames simulated ahead; the walker goes back to the last one shown."""
        if self._ahead:
            self.walker.rewind(self._shown - 1)
            self._ahead = []

    def _observe(self, walker_frame) -> DemoFrame:
        return self._observe_block(with_frame_axis(walker_frame), self.time)[0]

    def _observe_block(self, block, start_time: float) -> list[DemoFrame]:
        """DemoFrames for a walker block ``(T, K, ...)``; frame t is at ``start_time + t·DT``."""
        rot = np.asarray(block.global_rotations)
        pos = np.asarray(block.global_positions)
        frames, k = rot.shape[:2]
        gap = measure_sole_gaps(
            self.terrain, rot.reshape(frames * k, *rot.shape[2:]),
            pos.reshape(frames * k, *pos.shape[2:]), self.foot_joints,
        ).reshape(frames, k, -1)
        stance = np.asarray(block.stance, bool)
        origin, hit = np.asarray(block.ray_origin), np.asarray(block.ray_hit)
        ik = np.array([self.walker.ik[0], self.walker.ik[1]], bool)
        return [
            DemoFrame(
                global_rotations=rot[t],
                global_positions=pos[t],
                stance=stance[t],
                sole_gap=gap[t],
                ray_origin=origin[t],
                ray_hit=hit[t],
                ik=ik,
                time=start_time + t * DT,
            )
            for t in range(frames)
        ]

    def step(self, dt: float = DT) -> DemoFrame:
        """Advance by ``dt`` seconds (one fixed step) unless paused; return what to show."""
        if self.settings.paused:
            return self.frame
        if dt == DT and hasattr(self.walker, "step_frames"):
            if self._shown >= len(self._ahead):
                size = getattr(self.walker, "block_frames", BLOCK_FRAMES)
                block = self.walker.step_frames(DT, size)
                self._ahead = self._observe_block(block, self.time + DT)
                self._shown = 0
            frame = self._ahead[self._shown]
            self._shown += 1
            self.time = frame.time
        else:
            self._drop_ahead()
            self.time += dt
            frame = self._observe(self.walker.step(dt))
        self.stats.add(frame.stance, frame.sole_gap)
        self.frame = frame
        lead_x = frame.global_positions[:, 0, 0].max()
        if lead_x > self.x_end - END_MARGIN:
            self.rebuild()
        return self.frame

    @property
    def x_end(self) -> float:
        """The far end of the terrain along x, metres."""
        return float(self.terrain.bounds[1][0])
