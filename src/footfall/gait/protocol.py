"""What every walker offers: K characters walking over a terrain, grounded, in fixed steps.

:class:`~footfall.gait.stepping.StepWalker` and :class:`~footfall.gait.grounded.GroundedWalker`
are both a :class:`Walker`, so the demo, ``footfall render`` and the benchmarks drive either
one the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from footfall.grounding.params import GroundingParams
from footfall.grounding.pipeline import GroundedFrame, GroundingPipeline, frame_at


class Walker:
    """K walkers whose poses one :attr:`pipeline` grounds.

    ``ik`` ``(K,)`` bool switches each character's leg IK (settable per element);
    ``block_frames``: frames per :meth:`step_frames` call a live view should simulate ahead;
    ``speed``: ground speed on level ground, m/s (settable). ``step_frames(dt, frames)``:
    ``frames`` steps of ``dt`` batched, as :meth:`step` gives them, ``(T, K, ...)``;
    ``rewind(frame)``: back to frame ``frame`` (0-based) of the last ``step_frames`` batch.
    """

    block_frames: int
    speed: Any
    step_frames: Callable[[float, int], GroundedFrame]
    rewind: Callable[[int], None]

    def __init__(self, pipeline: GroundingPipeline, ik: bool | ArrayLike) -> None:
        self.pipeline = pipeline
        self.ik = np.array(np.broadcast_to(np.asarray(ik, dtype=bool), (pipeline.count,)))

    @property
    def params(self) -> Any:
        """Per-character grounding parameters (assign one or K GroundingParams)."""
        return self.pipeline.params

    @params.setter
    def params(self, params: GroundingParams | Sequence[GroundingParams]) -> None:
        self.pipeline.params = params

    def step(self, dt: float = 1 / 60) -> Any:
        """Advance one frame of ``min(dt, 0.05)`` s: ``step_frames(dt, 1)``'s only frame."""
        return frame_at(self.step_frames(dt, 1), 0)
