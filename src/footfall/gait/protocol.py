"""What every walker offers: K characters walking over a terrain, grounded, in fixed steps.

:class:`~footfall.gait.stepping.StepWalker` and :class:`~footfall.gait.grounded.GroundedWalker`
implement it, so the demo, ``footfall render`` and the benchmarks drive either one the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.grounding.params import GroundingParams
from footfall.grounding.pipeline import GroundedFrame, GroundingPipeline, frame_at


@runtime_checkable
class Walker(Protocol):
    """K grounded walkers.

    ``ik`` ``(K,)`` bool switches each character's leg IK (settable per element);
    ``block_frames``: frames per :meth:`step_frames` call a live view should simulate ahead.
    """

    ik: NDArray[np.bool_]
    block_frames: int

    @property
    def speed(self) -> Any:
        """Ground speed on level ground, m/s (settable)."""

    @speed.setter
    def speed(self, speed: float | ArrayLike) -> None: ...

    @property
    def params(self) -> Any:
        """The grounding parameters (settable: one GroundingParams for every character)."""

    @params.setter
    def params(self, params: Any) -> None: ...

    def step(self, dt: float) -> GroundedFrame:
        """Advance one frame of ``dt`` seconds; the grounded frame ``(K, ...)``."""
        ...

    def step_frames(self, dt: float, frames: int) -> GroundedFrame:
        """``frames`` steps of ``dt`` batched, as :meth:`step` gives them: ``(T, K, ...)``."""
        ...

    def rewind(self, frame: int) -> None:
        """Go back to frame ``frame`` (0-based) of the last :meth:`step_frames` batch."""
        ...


class PipelineWalker:
    """What both walkers share: their poses are grounded by one :attr:`pipeline` of K
    characters, switched per character by ``ik`` ``(K,)``; :meth:`step` is a one-frame
    ``step_frames``."""

    step_frames: Callable[[float, int], GroundedFrame]

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
