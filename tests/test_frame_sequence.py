"""The NatNet frame sequencer on its own (no sockets, no clock): frame numbers and silences in,
keep / drop / resync out, the frames lost counted — the cases the live client meets."""

from __future__ import annotations

import itertools

from hypothesis import example, given
from hypothesis import strategies as st

from footfall.live.frame_sequence import JUMP, RESYNC_QUIET, RESYNC_RUN, FrameSequencer

LOUD = 0.0  # the followed stream delivered a moment ago
QUIET = RESYNC_QUIET  # … or has been silent long enough for a run of older frames to win


def _feed(numbers: list[int], silent_for: float = LOUD) -> tuple[list[str], int]:
    """Each frame's verdict as "keep", "drop" or "resync", and the dropped count at the end."""
    sequence = FrameSequencer()
    verdicts, dropped = [], 0
    for number in numbers:
        verdict = sequence.step(number, silent_for)
        dropped += verdict.dropped
        verdicts.append("resync" if verdict.resync else "keep" if verdict.keep else "drop")
    return verdicts, dropped


def test_the_live_clients_mixed_sequence() -> None:
    """The sequence tests/test_live_client.py sends over sockets, here without them: a gap, a
    duplicate, an older frame, a corrupt number 300 ahead that the next frame shows was
    corrupt, and a server restarted at 5 followed on the fourth frame of its steady run."""
    numbers = [100, 101, 101, 99, 103, 400, 104, 5, 6, 7, 8, 9]
    verdicts, dropped = _feed(numbers, QUIET)
    assert verdicts == ["keep", "keep", "drop", "drop", "keep", "keep", "keep",
                        "drop", "drop", "drop", "resync", "keep"]
    assert dropped == 1  # 102 only: 401–403 were taken back when 104 continued from 103


def test_a_run_of_older_frames_needs_silence() -> None:
    """Late frames of the followed stream on a second socket must not pull it back."""
    numbers = [500, 501, 5, 6, 7, 8, 9]
    assert _feed(numbers, LOUD)[0] == ["keep", "keep"] + ["drop"] * 5
    assert _feed(numbers, QUIET)[0] == ["keep", "keep", "drop", "drop", "drop", "resync", "keep"]


def test_a_far_jump_is_followed_once_the_next_frame_continues_it() -> None:
    far = 10 * JUMP
    verdicts, dropped = _feed([1, 2, far, far + 1, far + 2])
    assert verdicts == ["keep", "keep", "drop", "resync", "keep"]
    assert dropped == 0
    verdicts, _ = _feed([1, 2, far, 3, 4])  # a lone corrupt number: never followed
    assert verdicts == ["keep", "keep", "drop", "keep", "keep"]


def test_the_first_frame_is_kept_whatever_its_number() -> None:
    for number in (0, 7, 2**31 - 1, -5):
        assert FrameSequencer().step(number, LOUD).keep


@given(st.lists(st.integers(1, JUMP), min_size=1, max_size=60), st.integers(-(2**31), 2**31))
def test_rising_frames_are_all_kept_and_the_gaps_counted(steps: list[int], start: int) -> None:
    numbers = [start]
    for step in steps:
        numbers.append(numbers[-1] + step)
    verdicts, dropped = _feed(numbers)
    assert verdicts == ["keep"] * len(numbers)
    assert dropped == numbers[-1] - numbers[0] - (len(numbers) - 1)


@given(st.lists(st.integers(0, 3000), min_size=1, max_size=80),
       st.floats(0, 1, allow_nan=False))
@example([3, 0, 1, 2, 3], 1.0)  # found by hypothesis on main: a restarted count caught up
def test_kept_numbers_rise_except_at_a_resync(numbers: list[int], silent_for: float) -> None:
    """Whatever arrives: a kept frame is ahead of the last kept one unless it starts a new
    sequence or undoes a corrupt jump; a resync needs a frame far off or a run of
    RESYNC_RUN older frames in silence."""
    sequence = FrameSequencer()
    kept: list[int] = []
    for index, number in enumerate(numbers):
        before, jumped_from = sequence.last, sequence.jumped_from
        verdict = sequence.step(number, silent_for)
        if not verdict.keep:
            assert sequence.last == before
            continue
        if verdict.resync:
            assert before is not None and verdict.resync_from == before
            if abs(number - before) <= JUMP:  # not far off: a run of older frames in silence
                # (behind, or level with it: a restarted count that caught up, [3, 0, 1, 2, 3])
                assert number <= before and silent_for >= RESYNC_QUIET
                run = numbers[index - RESYNC_RUN : index + 1]
                assert index >= RESYNC_RUN and all(0 < b - a <= JUMP
                                                   for a, b in itertools.pairwise(run))
        elif kept and number <= kept[-1]:
            assert jumped_from is not None and number == jumped_from + 1  # a jump undone
        kept.append(number)
