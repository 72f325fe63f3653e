"""The simulation the demo shows: two bunnies on one terrain, left IK on, right IK off.

No drawing here, so tests, ``footfall render`` and the browser view run the same simulation:
the terrain, the walkers advanced in SPEC's fixed 1/60 s steps and the live readout (sole gap
and running contact error, measured on the solved skeleton, never on the walker's targets).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from footfall.bunny import bunny_skeleton, sole_points
from footfall.errors import SettingsError
from footfall.footing.foot_model import sole_world
from footfall.gait.grounded import GroundedWalker
from footfall.gait.protocol import Walker
from footfall.gait.stepping import StepStyle, StepWalker
from footfall.grounding import GroundingParams
from footfall.grounding.pipeline import GroundedFrame, with_frame_axis
from footfall.metrics import ground_gaps
from footfall.terrain import Terrain, scene

DT = 1.0 / 60.0
TERRAINS = ("course", "stairs", "hills", "ripples", "slope", "rocks")
WALKERS = ("stepping", "gait")
SPEED_RANGE = (0.2, 1.4)
STEP_HEIGHT_RANGE = (0.04, 0.2)
START_X = 0.5  # the left bunny's hips at the start, metres
AHEAD_X = 2.0  # seed 000: the right bunny walks 2 m ahead so both show in one side view
#: How the bunny walks with the stepping walker: seed 000's sizes and its upper-body sway
#: (spine lean 0.07 rad, arms swinging ±0.5 rad in counter-phase).
BUNNY_STEP_STYLE = StepStyle(
    sway=(("Spine", 0.07, 0.0), ("LeftUpperArm", 0.0, 0.5), ("RightUpperArm", 0.0, -0.5)),
)
LATERAL_Z = (0.0, 0.0)
STAIRS_START = 4.0  # the stairs scene's first riser, metres (both bunnies start before it)
END_MARGIN = 1.5  # restart when the leading bunny is this close to the terrain's end


@dataclass
class DemoSettings:
    """Every switch of the demo (the controls edit these), with seed 000's defaults."""

    ik_left: bool = True
    hips: bool = True
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
        for name, unit, (lo, hi) in (("speed", "m/s", SPEED_RANGE),
                                     ("step_height", "m", STEP_HEIGHT_RANGE)):
            if not lo <= getattr(self, name) <= hi:
                raise SettingsError(f"{name} {getattr(self, name)} {unit} is outside [{lo}, {hi}]")
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
        return np.where(self.count > 0, self.total / np.maximum(self.count, 1), np.nan)


def measure_sole_gaps(terrain: Terrain, global_rot: np.ndarray, global_pos: np.ndarray,
                      foot_joints: np.ndarray) -> np.ndarray:
    """Signed mean gap ``(K, F)`` metres (+ floating, − sinking) between each solved sole
    (:func:`footfall.bunny.sole_points`) and the ground: ``global_rot`` (K, J, 4),
    ``global_pos`` (K, J, 3); ``foot_joints`` (F,) ankle joint indices."""
    world = sole_world(global_rot[:, foot_joints], global_pos[:, foot_joints], sole_points())
    return ground_gaps(terrain, world).mean(axis=-1)


class DemoSimulation:
    """Two bunnies walking one terrain side by side, stepped at a fixed 1/60 s.

    Change :attr:`settings`, then :meth:`apply` (IK, hips, speed: acts on the very next
    frame) or :meth:`rebuild` (terrain, walker). Steps are simulated ``block_frames`` at a time.
    """

    def __init__(self, settings: DemoSettings | None = None) -> None:
        self.settings = (settings or DemoSettings()).check()
        self.skeleton = bunny_skeleton()
        self.foot_joints = np.array([self.skeleton.index(n) for n in ("LeftFoot", "RightFoot")])
        self.rebuild()

    def rebuild(self) -> None:
        """Build the terrain and walkers from :attr:`settings` and restart at the beginning."""
        s = self.settings.check()
        params: dict[str, float] = {}  # for footfall.terrain.scene: the stairs' step height
        if s.terrain in ("course", "stairs"):
            params["step_height"] = s.step_height
        if s.terrain == "stairs":
            params["start"] = STAIRS_START
        self.terrain = scene(s.terrain, **params)
        self.walker = self._make_walker()
        self.stats = ContactStats()
        self.time = 0.0
        self._ahead: list[DemoFrame] = []  # simulated, not yet shown
        self._shown = 0  # frames of the current block handed out
        self.frame = self._observe(self.walker.step(0.0))

    def _make_walker(self) -> Walker:
        s = self.settings
        start = [START_X, START_X + AHEAD_X]
        ik = [s.ik_left, False]
        params = GroundingParams(hips=s.hips)
        if s.walker == "gait":
            starts = [(x, 0.0, z) for x, z in zip(start, LATERAL_Z, strict=True)]
            return GroundedWalker(self.terrain, self.skeleton, count=2, grounding=params,
                                  start=starts, ik=ik, speed=s.speed)
        return StepWalker(self.skeleton, self.terrain, count=2, ik=ik, lateral_z=list(LATERAL_Z),
                          start_x=start, speed=s.speed, params=params, style=BUNNY_STEP_STYLE)

    def apply(self) -> None:
        """Push the cheap switches (left IK, hips correction, speed) into the running walker."""
        s = self.settings.check()
        self._drop_ahead()
        self.walker.ik[0] = s.ik_left
        self.walker.speed = s.speed
        self.walker.params = GroundingParams(hips=s.hips)

    def _drop_ahead(self) -> None:
        """Forget the frames simulated ahead; the walker goes back to the last one shown."""
        if self._ahead:
            self.walker.rewind(self._shown - 1)
            self._ahead = []

    def _observe(self, walker_frame: GroundedFrame) -> DemoFrame:
        return self._observe_block(with_frame_axis(walker_frame), self.time)[0]

    def _observe_block(self, block: GroundedFrame, start_time: float) -> list[DemoFrame]:
        """DemoFrames for a walker block ``(T, K, ...)``; frame t is at ``start_time + t·DT``."""
        rot = np.asarray(block.global_rotations)
        pos = np.asarray(block.global_positions)
        frames, k = rot.shape[:2]
        gap = measure_sole_gaps(self.terrain, rot.reshape(frames * k, *rot.shape[2:]),
                                pos.reshape(frames * k, *pos.shape[2:]),
                                self.foot_joints).reshape(frames, k, -1)
        stance = np.asarray(block.stance, bool)
        origin, hit = np.asarray(block.ray_origin), np.asarray(block.ray_hit)
        ik = np.array([self.walker.ik[0], self.walker.ik[1]], bool)
        return [DemoFrame(global_rotations=rot[t], global_positions=pos[t], stance=stance[t],
                          sole_gap=gap[t], ray_origin=origin[t], ray_hit=hit[t], ik=ik,
                          time=start_time + t * DT)
                for t in range(frames)]

    def step(self, dt: float = DT) -> DemoFrame:
        """Advance by ``dt`` seconds (one fixed step) unless paused; return what to show."""
        if self.settings.paused:
            return self.frame
        if dt == DT:
            if self._shown >= len(self._ahead):
                block = self.walker.step_frames(DT, self.walker.block_frames)
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
