"""A crowd split into walkers on threads grounds exactly what one walker of all its characters
does (every character's arithmetic is its own), step by step, in blocks, and after a rewind."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from dataclasses import fields

import numpy as np
import pytest

from footfall.bunny import bunny_skeleton
from footfall.errors import SettingsError
from footfall.gait.crowd import Crowd
from footfall.gait.stepping import StepWalker
from footfall.memory import keep_freed_memory
from footfall.terrain import scene

COUNT = 7


def _walkers(terrain_name: str) -> tuple[StepWalker, Crowd]:
    rng = np.random.default_rng(5)
    lateral, start, speed = (rng.uniform(-1.5, 1.5, COUNT), rng.uniform(-1.0, 8.0, COUNT),
                             rng.uniform(0.4, 1.2, COUNT))
    skeleton, terrain = bunny_skeleton(), scene(terrain_name)

    def make(part: slice) -> StepWalker:
        return StepWalker(skeleton, terrain, len(lateral[part]), lateral_z=lateral[part],
                          start_x=start[part], speed=speed[part])

    return make(slice(0, COUNT)), Crowd.split(make, COUNT, parts=3)


def _assert_same(one: object, joined: object) -> None:
    for field in fields(one):  # type: ignore[arg-type]
        a, b = getattr(one, field.name), getattr(joined, field.name)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=field.name)


@pytest.mark.parametrize("terrain_name", ["course", "stairs"])
def test_crowd_equals_one_walker_of_all_its_characters(terrain_name: str) -> None:
    one, crowd = _walkers(terrain_name)
    assert [len(p.ik) for p in crowd.parts] == [2, 3, 2]
    one.ik[1] = False
    crowd.ik = one.ik
    for _ in range(5):
        _assert_same(one.step(1 / 60), crowd.step(1 / 60))
    block_one, block_crowd = one.step_frames(1 / 60, 12), crowd.step_frames(1 / 60, 12)
    assert block_crowd.global_positions.shape[:2] == (12, COUNT)
    _assert_same(block_one, block_crowd)
    one.rewind(4)
    crowd.rewind(4)
    _assert_same(one.step(1 / 60), crowd.step(1 / 60))
    crowd.close()


def test_a_crowd_refuses_nothing_to_walk() -> None:
    with pytest.raises(SettingsError, match="at least one walker"):
        Crowd([])
    with pytest.raises(SettingsError, match="≥ 1 character"):
        Crowd.split(lambda part: None, 0)  # type: ignore[arg-type, return-value]
    one, crowd = _walkers("course")
    with pytest.raises(SettingsError, match="ik: one switch or 7"):
        crowd.ik = [True, False]
    crowd.ik = False
    assert not crowd.ik.any()
    crowd.close()


FAULTS = r"""
import resource, sys
import numpy as np
from footfall.bunny import bunny_skeleton
from footfall.gait.crowd import Crowd
from footfall.gait.stepping import StepWalker
from footfall.terrain import scene

count, keep = 10_000, sys.argv[1] == "keep"
rng = np.random.default_rng(0)  # scattered over the course, as benchmarks/bench_grounding.py
x, z = rng.uniform(-1.0, 20.0, count), rng.uniform(-1.5, 1.5, count)
v = rng.uniform(0.4, 1.2, count)
crowd = Crowd.split(lambda part: StepWalker(bunny_skeleton(), scene("course"), len(x[part]),
                                            start_x=x[part], lateral_z=z[part], speed=v[part]),
                    count, 2, keep_memory=keep)
for _ in range(3):
    crowd.step(1 / 60)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    crowd.step(1 / 60)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5)
crowd.close()
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's allocator policy")
def test_a_big_crowd_keeps_its_freed_memory_instead_of_faulting_it_in_every_frame() -> None:
    # Frames of 10,000 bunnies allocated on two worker threads: glibc handed them back to the
    # system and every frame faulted them in again (about 2,400–2,800 faults and 12–15 ms of
    # system time a frame here); a crowd asks glibc to keep them (footfall.memory).
    # glibc's own rule starts at 128 KiB and rises with the largest block freed so far, so
    # whether it returns a frame's blocks depends on what was freed before the timed frames
    # (loading the kernels' machine code: from 1 to 2,200 faults a frame as it changed); the
    # comparison pins glibc's starting values.
    assert keep_freed_memory()

    def faults(mode: str) -> float:
        env = dict(os.environ)
        if mode == "return":
            env["GLIBC_TUNABLES"] = ("glibc.malloc.mmap_threshold=131072:"
                                     "glibc.malloc.trim_threshold=131072")
        out = subprocess.run([sys.executable, "-c", FAULTS, mode], capture_output=True,
                             text=True, timeout=300, check=True, env=env)
        return float(out.stdout.split()[-1])

    kept, returned = faults("keep"), faults("return")
    assert kept < 50, kept
    assert returned > 10 * max(kept, 1.0), (kept, returned)
