"""The procedural walk grounded on uneven terrain: walker → foot placement pipeline.

The walker animates on the flat floor (reading only the slope from the terrain);
:class:`footfall.grounding.GroundingPipeline` then grounds it (SPEC §4). The walker's footsteps
and swing progress become the pipeline's :class:`~footfall.grounding.FootPlan`, so planned
steps and tread snapping work on the generated walk as on any animation.
"""

from __future__ import annotations

import copy
import math
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from footfall.errors import SettingsError
from footfall.gait.params import GaitParams
from footfall.gait.path import WalkPath
from footfall.gait.protocol import Walker
from footfall.gait.walker import ProceduralWalker, WalkFrame
from footfall.grounding import (
    DEFAULT_PARAMS,
    FootPlan,
    GroundedFrame,
    GroundingParams,
    GroundingPipeline,
)
from footfall.skeleton import Clip, Skeleton
from footfall.terrain import Terrain


def foot_plan(frame: WalkFrame) -> FootPlan:
    """The grounding pipeline's view of a generated frame: stance, swing, footsteps (x, z)."""
    return FootPlan(
        stance=frame.stance,
        swing=frame.swing,
        plant_xz=frame.footstep[..., [0, 2]],
        next_plant_xz=frame.next_footstep[..., [0, 2]],
    )


class GroundedWalker(Walker):
    """K procedural walkers grounded on ``terrain`` (batched; fixed 1/60 s ticks): a
    :class:`~footfall.gait.protocol.Walker`.

    Args:
        terrain: the ground.
        skeleton, count, params, start, heading, cycle, path: as :class:`ProceduralWalker`.
        grounding: one :class:`GroundingParams` or one per character.
        ik: per-character leg IK switch (settable: ``walker.ik[k] = False``).
        speed: ground speed on level ground, m/s (None: the gait parameters' step rate); it sets
            the step rate (speed = step length × step rate), so the stride stays.
    """

    #: Frames per :meth:`step_frames` call in a live view: the walk cycle runs frame by frame,
    #: so a long block would stall one tick.
    block_frames = 4

    def __init__(
        self,
        terrain: Terrain,
        skeleton: Skeleton | None = None,
        count: int = 1,
        params: GaitParams | None = None,
        grounding: GroundingParams | list[GroundingParams] = DEFAULT_PARAMS,
        *,
        start: ArrayLike = (0.0, 0.0, 0.0),
        heading: ArrayLike = math.pi / 2,
        cycle: ArrayLike = 0.0,
        ik: bool | ArrayLike = True,
        speed: float | None = None,
        path: WalkPath | None = None,
    ) -> None:
        self.terrain = terrain
        self.walker = ProceduralWalker(skeleton, count, params, start=start, heading=heading,
                                       cycle=cycle, flat_floor=True, path=path)
        super().__init__(GroundingPipeline(self.walker.skeleton, terrain, count, grounding), ik)
        if speed is not None:
            self.speed = speed
        self._snapshot: tuple[ProceduralWalker, float, int] | None = None  # before last batch

    @property
    def speed(self) -> float:
        """Ground speed on level ground, m/s: step length × step rate."""
        return self.walker.step_length * self.walker.params.step_rate_hz

    @speed.setter
    def speed(self, speed: float | ArrayLike) -> None:
        given = np.asarray(speed, dtype=np.float64)
        if given.size != 1:  # one walk cycle's step rate serves every character
            raise SettingsError(f"GroundedWalker speed is one value for every character; got "
                                f"shape {given.shape}")
        value = float(given.reshape(-1)[0])
        if not (math.isfinite(value) and value >= 0.0):
            raise SettingsError(f"walker speed must be finite and ≥ 0; got {speed!r}")
        walker = self.walker
        walker.params = replace(walker.params, step_rate_hz=value / walker.step_length)

    def step_frames(self, dt: float = 1 / 60, frames: int = 1) -> GroundedFrame:
        """``frames`` steps of ``dt`` (whole walk-clock ticks) as :meth:`step` gives them, arrays
        ``(T, K, ...)``: the walk cycle frame by frame, the grounding in one batched call."""
        if frames < 1:
            raise SettingsError(f"frames must be ≥ 1, got {frames}")
        walker = self.walker
        self._snapshot = (copy.deepcopy(walker, self._shared()), float(dt), frames)
        animated, elapsed = [], []
        for _ in range(frames):
            before = walker.clock.ticks
            animated.append(walker.step(dt, self.terrain))
            elapsed.append((walker.clock.ticks - before) * walker.clock.step_s)
        if len(set(elapsed)) != 1:
            self.walker, self._snapshot = self._snapshot[0], None  # nothing changed
            raise SettingsError(
                f"step_frames needs frames of whole walk-clock ticks; dt={dt} s gave {elapsed}"
            )
        plans = [foot_plan(a) for a in animated]
        fields = ("stance", "swing", "plant_xz", "next_plant_xz")
        plan = FootPlan(**{f: np.stack([getattr(p, f) for p in plans]) for f in fields})
        rotations = np.stack([a.rotations for a in animated])
        positions = np.stack([a.positions for a in animated])
        return self.pipeline.step_frames(rotations, positions, plan, elapsed[0], ik=self.ik)

    def rewind(self, frame: int) -> None:
        """Go back to frame ``frame`` (0-based) of the last :meth:`step_frames` batch: the walk
        cycle replays from its copy taken before the batch; the grounding state is restored."""
        if self._snapshot is None or not 0 <= frame < self._snapshot[2]:
            raise SettingsError(f"rewind: frame {frame} is not in the last batch")
        snapshot, dt, _ = self._snapshot
        walker = copy.deepcopy(snapshot, self._shared())
        for _ in range(frame + 1):
            walker.step(dt, self.terrain)
        self.walker = walker
        self.pipeline.rewind(frame)

    def generate(self, seconds: float) -> list[GroundedFrame]:
        """Grounded frames at 60 fps for ``seconds`` (the start pose, then one per tick)."""
        step_s = self.walker.clock.step_s  # the start pose is grounded with dt = 0
        return [self.pipeline.step(a.rotations, a.positions, foot_plan(a), step_s if t else 0.0,
                                   ik=self.ik)
                for t, a in enumerate(self.walker.iterate(seconds, self.terrain))]

    def to_clip(self, frames: list[GroundedFrame], character: int = 0) -> Clip:
        """One character's grounded frames as a 60 fps :class:`Clip`."""
        return self.walker.to_clips(frames)[character]

    def _shared(self) -> dict[int, object]:
        """What a copy of the walk cycle shares with the original (read-only, large)."""
        walker = self.walker
        shared = (self.terrain, walker.skeleton, walker.rig, walker.params)
        return {id(item): item for item in shared}
