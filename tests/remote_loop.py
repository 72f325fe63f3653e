"""A tiny animation loop for the remote-control tests and benchmark (not ``footfall live``).

A thread steps one or more :class:`Retargeter` over a BVH clip at a fixed rate (60 Hz by
default, looping the clip) and calls ``ControlService.process_pending`` between frames, as the
live loop does. It implements :class:`footfall.remote.ControlTarget`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from footfall import bvh
from footfall.remote import ControlService
from footfall.retarget import Retargeter

DATA = Path(__file__).parent / "data"
SOURCE = DATA / "bvh" / "games105_walk60.bvh"
TARGETS = {"mixamo": DATA / "bvh" / "mixamo_stepping.bvh",
           "cmu": DATA / "bvh" / "cmu_131_01_metres.bvh"}


def build_characters(names: tuple[str, ...] = ("mixamo", "cmu")) -> tuple[object, dict]:
    """The source clip and ``{name: Retargeter}`` onto the test avatars."""
    source = bvh.load(SOURCE)
    return source, {name: Retargeter(source.skeleton, bvh.load(TARGETS[name]).skeleton)
                    for name in names}


class ClipLoop:
    """Steps ``characters`` over ``clip`` at ``fps`` in a thread; runs the service's actions."""

    def __init__(self, clip, characters: Mapping[str, Retargeter], service: ControlService | None,
                 fps: float = 60.0, settings_folder: Path | None = None) -> None:
        self.clip = clip
        self._characters = dict(characters)
        self.service = service
        self.period = 1.0 / fps
        self.settings_folder = settings_folder
        self.saved: list[str] = []
        self.pose_reads: list[int] = []  # the frame of every source_pose() call
        self.frame = 0
        self.frame_starts: list[float] = []
        self.step_seconds: list[float] = []  # each frame's work: steps and actions
        self.action_seconds: list[float] = []  # of which process_pending
        self.errors: list[BaseException] = []
        self._root = int(np.flatnonzero(clip.skeleton.parents < 0)[0])
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="clip-loop", daemon=True)

    # ControlTarget
    def characters(self) -> Mapping[str, Retargeter]:
        return self._characters

    def source_pose(self) -> tuple[np.ndarray, np.ndarray]:
        self.pose_reads.append(self.frame)
        index = self.frame % self.clip.frame_count
        return self.clip.rotations[index], self.clip.positions[index, self._root]

    def save_settings(self, name: str) -> None:
        self.saved.append(name)
        if self.settings_folder is not None:
            self._characters[name].save(name, self.settings_folder)

    # the loop
    def start(self) -> ClipLoop:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        assert not self._thread.is_alive(), "the loop did not stop"

    def __enter__(self) -> ClipLoop:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _run(self) -> None:
        deadline = time.perf_counter()
        try:
            while not self._stop.is_set():
                start = time.perf_counter()
                self.frame_starts.append(start)
                index = self.frame % self.clip.frame_count
                for retargeter in self._characters.values():
                    retargeter.step(self.clip.rotations[index], self.clip.positions[index],
                                    self.period)
                if self.service is not None:
                    before = time.perf_counter()
                    self.service.process_pending(self)
                    self.action_seconds.append(time.perf_counter() - before)
                self.step_seconds.append(time.perf_counter() - start)
                self.frame += 1
                deadline += self.period
                pause = deadline - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
                elif pause < -0.25:
                    deadline = time.perf_counter()  # far behind: start the clock again
                # a little late: the next frames come at once and catch up (fixed time step)
        except BaseException as exc:  # noqa: BLE001 - reported by the tests
            self.errors.append(exc)
        finally:
            if self.service is not None:
                self.service.flush(self)


@contextlib.contextmanager
def running_service(**options) -> Iterator[tuple[ControlService, ClipLoop]]:
    """A service on a free port with a :class:`ClipLoop` over both test avatars; on exit
    both stop and the loop must have raised nothing."""
    clip, characters = build_characters()
    service = ControlService(port=0, **options).start()
    loop = ClipLoop(clip, characters, service).start()
    try:
        yield service, loop
    finally:
        loop.stop()
        service.stop()
    assert not loop.errors, loop.errors
