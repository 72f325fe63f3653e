"""Which NatNet frames to follow, by frame number alone: no sockets, no clock.

Frames reach a client twice (a command and a data socket), late, out of order, with a corrupt
number now and then, or from a server that restarted and counts from 0 again. A
:class:`FrameSequencer` is fed each frame's number and how long the followed stream has been
silent, and answers with a :class:`Verdict`:

- a frame at most :data:`JUMP` ahead of the last one followed is kept (the numbers between
  are counted as dropped);
- one behind (a duplicate, out of order) is dropped;
- one far off (:data:`JUMP` or more either way) is kept — a *resync* — once the next frame
  continues from it; a steady run of :data:`RESYNC_RUN` increasing frames behind is followed
  too (a server restarted early in its count), but only while the followed stream has been
  silent for :data:`RESYNC_QUIET` seconds (late frames of the same stream on a second socket
  must not pull it back);
- after a jump ahead, a frame continuing from before the jump shows the jump was a corrupt
  number: the sequence goes back, and the frames counted as dropped over the jump are not.
"""

from __future__ import annotations

from dataclasses import dataclass

JUMP = 1000  # frame numbers further than this from the last one need a second frame to follow
RESYNC_RUN = 3  # this many increasing older frames in a row are followed …
RESYNC_QUIET = 0.25  # … once the followed stream has been silent this long (seconds)


@dataclass(frozen=True)
class Verdict:
    """What to do with one frame.

    Attributes:
        keep: follow it (hand it on).
        dropped: change to the count of frames lost (may be negative: a corrupt jump undone).
        resync_from: the frame number followed before, when this frame starts a new sequence.
    """

    keep: bool
    dropped: int = 0
    resync_from: int | None = None

    @property
    def resync(self) -> bool:
        """This frame was kept as the start of a new sequence."""
        return self.resync_from is not None


DROP = Verdict(False)


@dataclass
class FrameSequencer:
    """The frame-number state of one followed stream (see the module docstring).

    Attributes:
        last: the number of the last frame kept (None before the first).
        candidate: a number off the sequence, not yet followed, and ``run`` the frames in a row
            that continued from it.
        jumped_from: the number before the last forward jump (None when it continued by one).
    """

    jump: int = JUMP
    resync_run: int = RESYNC_RUN
    resync_quiet: float = RESYNC_QUIET
    last: int | None = None
    candidate: int | None = None
    run: int = 0
    jumped_from: int | None = None

    def step(self, number: int, silent_for: float) -> Verdict:
        """The verdict on frame ``number`` given ``silent_for``, the seconds since the followed
        stream last delivered a frame; the state moves on with it."""
        last, restored = self._undo_corrupt_jump(number)
        resync_from = None
        if last is not None and not 0 < number - last <= self.jump:
            if not self._follows_off_sequence(number, last, silent_for):
                return DROP
            resync_from, last = last, None
        self.candidate, self.run = None, 0
        gap = number - last - 1 if last is not None and number > last + 1 else 0
        self.jumped_from = last if gap else None
        self.last = number
        return Verdict(True, gap - restored, resync_from)

    def _undo_corrupt_jump(self, number: int) -> tuple[int | None, int]:
        """``(last number to continue from, dropped frames to take back)``: before the last
        jump ahead when ``number`` continues from there (the jump was a corrupt number)."""
        last, before = self.last, self.jumped_from
        if last is not None and number <= last and before is not None and number == before + 1:
            return before, last - before - 1
        return last, 0

    def _follows_off_sequence(self, number: int, last: int, silent_for: float) -> bool:
        """Whether a frame off the sequence starts a new one (counting it as a candidate)."""
        previous = self.candidate
        continues = previous is not None and 0 < number - previous <= self.jump
        self.candidate, self.run = number, self.run + 1 if continues else 0
        far = abs(number - last) > self.jump
        return (far and self.run >= 1
                or self.run >= self.resync_run and silent_for >= self.resync_quiet)
