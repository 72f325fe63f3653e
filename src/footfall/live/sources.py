"""What a live source hands the loop, and the replay source (a clip at its own rate, looping).

A source gives the newest :class:`LiveFrame` only (older unread frames are dropped and counted),
its current :class:`Skeleton` with a ``generation`` that changes when the skeleton does, and a
status for the view.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

from footfall.arrays import FloatArray
from footfall.sizes import check_size
from footfall.skeleton import Clip, Skeleton


@dataclass(frozen=True)
class LiveFrame:
    """One source frame.

    Attributes:
        number: the stream's frame number (increasing).
        seconds: the stream's time stamp, seconds.
        rotations: ``(J, 4)`` local rotations wxyz on the source skeleton.
        translations: ``(J, 3)`` local translations, metres (the root's is its position).
        received: ``time.perf_counter()`` when its packet arrived.
        generation: the skeleton generation it belongs to.
    """

    number: int
    seconds: float
    rotations: FloatArray
    translations: FloatArray
    received: float
    generation: int


@dataclass
class SourceStatus:
    """Counters a source keeps (read by the view and the command's summary); ``up`` is the
    stream's own up axis ("y", or "z" for a stream the source turned to Y up)."""

    connected: bool = False
    frames: int = 0
    dropped: int = 0
    overwritten: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    server: str = ""
    version: str = ""
    last_frame_at: float = 0.0
    up: str = "y"


class Source(Protocol):
    """What the loop needs from a source."""

    skeleton: Skeleton | None
    mapping: dict[str, str] | None
    generation: int
    status: SourceStatus

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def wait(self, timeout: float) -> LiveFrame | None: ...


class ReplaySource:
    """A clip played at its own frame rate, looping; frame numbers keep counting up."""

    def __init__(self, clip: Clip, speed: float = 1.0, up: str = "y") -> None:
        """``up``: the file's own up axis, for the status (the clip is Y up already)."""
        check_size(clip, "replay", min_frames=1)
        self.clip = clip
        self.skeleton: Skeleton | None = clip.skeleton
        self.mapping: dict[str, str] | None = None
        self.generation = 1
        self.status = SourceStatus(connected=True, server="replay", version="file", up=up)
        self._period = 1.0 / (clip.fps * speed)
        self._start = 0.0
        self._last = -1
        self._stopped = threading.Event()

    @property
    def period(self) -> float:
        """Seconds between two frames of the replay (the loop's step for its first frame)."""
        return self._period

    def start(self) -> None:
        """Start the clock."""
        self._start = time.perf_counter()

    def stop(self) -> None:
        """Stop (a waiting ``wait`` returns)."""
        self._stopped.set()

    def wait(self, timeout: float) -> LiveFrame | None:
        """The frame due now (sleeping until the next one is due, at most ``timeout``)."""
        now = time.perf_counter()
        due = int((now - self._start) / self._period)
        if due <= self._last:
            sleep = self._start + (self._last + 1) * self._period - now
            if sleep > timeout or self._stopped.wait(max(sleep, 0.0)):
                return None
            due = self._last + 1
        if self._last >= 0:  # due > self._last here: the frames between were skipped
            self.status.overwritten += due - self._last - 1
        self._last = due
        index = due % self.clip.frame_count
        self.status.frames += 1
        self.status.last_frame_at = time.perf_counter()
        return LiveFrame(due, due * self._period, self.clip.rotations[index],
                         self.clip.positions[index], time.perf_counter(), self.generation)
