"""The two clocks of seed 004: walk time drives the step phase, scene time drives schedules.

Frame time is clamped to ``MAX_FRAME_S`` (0.05 s), accumulated and run in fixed ``STEP_S``
(1/60 s) ticks, so the same frame times always give the same motion.
"""

from __future__ import annotations

import math

from footfall.errors import SettingsError

STEP_S = 1.0 / 60.0
MAX_FRAME_S = 0.05


class WalkClock:
    """Fixed-step accumulator with a walk clock and a scene clock (seconds).

    Attributes:
        walk_time: seconds of walking simulated (the phase clock, seed ``walkT``).
        scene_time: seconds of scene simulated (schedules such as turns, seed ``sceneT``).
        ticks: number of fixed steps taken since the last reset.
    """

    def __init__(self, step_s: float = STEP_S, max_frame_s: float = MAX_FRAME_S) -> None:
        if not (math.isfinite(step_s) and step_s > 0):
            raise SettingsError(f"WalkClock step_s must be positive, got {step_s!r}")
        if not (math.isfinite(max_frame_s) and max_frame_s >= step_s):
            raise SettingsError(
                f"WalkClock max_frame_s must be at least step_s ({step_s}), got {max_frame_s!r}"
            )
        self.step_s = step_s
        self.max_frame_s = max_frame_s
        self.reset()

    def reset(self) -> None:
        """Both clocks and the accumulator back to zero (seed ``begin()``)."""
        self.walk_time = 0.0
        self.scene_time = 0.0
        self.ticks = 0
        self._accumulated = 0.0

    def resume(self) -> None:
        """Forget the accumulated frame time (call when the loop restarts after a pause)."""
        self._accumulated = 0.0

    def consume(self, frame_s: float) -> int:
        """Add one frame's time (clamped to ``[0, max_frame_s]``; NaN counts as 0); return how
        many fixed steps to run now (each: :meth:`tick`)."""
        if not math.isfinite(frame_s):
            frame_s = 0.0
        self._accumulated += min(max(frame_s, 0.0), self.max_frame_s)
        # A tiny tolerance so that 1/60 s frames give exactly one step despite rounding.
        count = int(math.floor(self._accumulated / self.step_s + 1e-9))
        self._accumulated = max(self._accumulated - count * self.step_s, 0.0)
        return count

    def tick(self) -> None:
        """Advance both clocks by one fixed step."""
        self.ticks += 1
        self.walk_time = self.ticks * self.step_s
        self.scene_time = self.walk_time
