"""What every walker offers: K characters walking over a terrain, grounded, in fixed steps.

:class:`~footfall.gait.stepping.StepWalker` and :class:`~footfall.gait.grounded.GroundedWalker`
implement it, so the demo, ``footfall render`` and the benchmarks drive either one the same way.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.grounding.pipeline import GroundedFrame


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
