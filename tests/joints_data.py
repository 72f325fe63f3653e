"""Joint-position test data made here: the procedural walker's output (the Mixamo test rig
walking) written as HumanML3D's 22 joints at 20 fps, with seeded noise — what a text-to-motion
model hands its users (for the joint-file tests and ``benchmarks/bench_research.py``)."""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

from footfall import bvh, quat
from footfall.gait import GaitParams, ProceduralWalker
from footfall.joints import LAYOUTS
from footfall.joints.from_clip import positions_from_clip

DATA = Path(__file__).parent / "data"
RIG = DATA / "bvh" / "mixamo_stepping.bvh"
FPS = 20.0
#: Measurement noise added to every coordinate, metres (one millimetre, standard deviation).
NOISE = 0.001


@lru_cache(maxsize=4)
def walker_clip(seconds: float = 6.0, step_rate: float = 1.6):
    """The walker's clip (60 fps) on the Mixamo rig, flat floor, along +X."""
    walker = ProceduralWalker(bvh.load(RIG).skeleton, params=GaitParams(step_rate_hz=step_rate))
    return walker.to_clips(list(walker.iterate(seconds, None)))[0]


def walker_joints(layout: str = "humanml3d", seconds: float = 6.0, step_rate: float = 1.6
                  ) -> np.ndarray:
    """Noise-free joint positions ``(T, J, 3)`` of the walk at 20 fps, Y up, metres."""
    clip = walker_clip(seconds, step_rate).resample(FPS)
    return positions_from_clip(clip, LAYOUTS[layout])


def noisy(positions: np.ndarray, seed: int = 0, noise: float = NOISE) -> np.ndarray:
    """``positions`` with seeded Gaussian noise of ``noise`` metres on every coordinate."""
    return positions + np.random.default_rng(seed).normal(0.0, noise, positions.shape)


def library(count: int, frames: int | tuple[int, int] = 120, seed: int = 0
            ) -> list[np.ndarray]:
    """``count`` varied clips ``(T, 22, 3)`` (float32, as models save them; ``T`` = ``frames``,
    or drawn from the range ``(low, high)``): windows of walks at three step rates, each turned
    to its own heading and started at the origin as HumanML3D's are, with noise."""
    rng = np.random.default_rng(seed)
    walks = [walker_joints("humanml3d", 12.0, rate) for rate in (1.3, 1.6, 2.0)]
    clips = []
    for _ in range(count):
        length = frames if isinstance(frames, int) else int(rng.integers(frames[0],
                                                                         frames[1] + 1))
        walk = walks[rng.integers(len(walks))]
        start = rng.integers(0, walk.shape[0] - length)
        turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), rng.uniform(-np.pi, np.pi))
        window = quat.rotate(turn, walk[start:start + length])
        window[..., [0, 2]] -= window[0, 0, [0, 2]]
        clips.append(noisy(window, int(rng.integers(1 << 31))).astype(np.float32))
    return clips


if __name__ == "__main__":
    # python tests/joints_data.py OUT.npy           one noisy walk (6 s, 121 frames)
    # python tests/joints_data.py FOLDER --clips N  N varied clips of 40–196 frames
    if len(sys.argv) == 4 and sys.argv[2] == "--clips":
        folder = Path(sys.argv[1])
        folder.mkdir(parents=True, exist_ok=True)
        for index, clip in enumerate(library(int(sys.argv[3]), frames=(40, 196))):
            np.save(folder / f"sample_{index:04d}.npy", clip)
    else:
        np.save(sys.argv[1], noisy(walker_joints()).astype(np.float32))
