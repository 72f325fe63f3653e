"""The procedural walk grounded on uneven terrain: walker → foot placement pipeline.

The walker animates on the flat floor (reading only the slope from the terrain: lean and step
rate, seed 004 #07); :class:`footfall.grounding.GroundingPipeline` then casts the rays, lowers
the pelvis, solves the legs and aligns the soles (SPEC §4). The walker's footsteps and swing
progress become the pipeline's :class:`~footfall.grounding.FootPlan`, so planned steps and
tread snapping work on the generated walk exactly as on any animation.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from footfall.gait.params import GaitParams
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


class GroundedWalker:
    """K procedural walkers grounded on ``terrain`` (batched; fixed 1/60 s ticks).

    Args:
        terrain: the ground.
        skeleton, count, params, start, heading, cycle: as :class:`ProceduralWalker`.
        grounding: one :class:`GroundingParams` or one per character.
    """

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
    ) -> None:
        self.terrain = terrain
        self.walker = ProceduralWalker(skeleton, count, params, start=start, heading=heading,
                                       cycle=cycle, flat_floor=True)
        self.pipeline = GroundingPipeline(self.walker.skeleton, terrain, count, grounding)

    def step(self, frame_s: float = 1 / 60) -> tuple[WalkFrame, GroundedFrame]:
        """Advance one rendered frame; the animated (flat) frame and the grounded one."""
        before = self.walker.clock.ticks
        animated = self.walker.step(frame_s, self.terrain)
        elapsed = (self.walker.clock.ticks - before) * self.walker.clock.step_s
        return animated, self._ground(animated, elapsed)

    def generate(self, seconds: float) -> list[GroundedFrame]:
        """Grounded frames at 60 fps for ``seconds`` (the start pose, then one per tick)."""
        frames = []
        dt = 0.0
        for animated in self.walker.iterate(seconds, self.terrain):
            frames.append(self._ground(animated, dt))
            dt = self.walker.clock.step_s
        return frames

    def to_clip(self, frames: list[GroundedFrame], character: int = 0) -> Clip:
        """One character's grounded frames as a 60 fps :class:`Clip`."""
        rotations = np.stack([f.rotations[character] for f in frames])
        positions = np.stack([f.positions[character] for f in frames])
        return Clip(self.walker.skeleton, rotations, positions, 1.0 / self.walker.clock.step_s)

    def _ground(self, animated: WalkFrame, dt: float) -> GroundedFrame:
        return self.pipeline.step(animated.rotations, animated.positions, foot_plan(animated),
                                  dt)
