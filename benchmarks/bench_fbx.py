"""FBX take reading speed of :func:`footfall.fbx.load_fbx` against real time and against BVH.

Run: ``.venv/bin/python benchmarks/bench_fbx.py``  (about a minute; needs Debian's ``blender``
the first time).

The take: Kenney's walk (tests/data/fbx/maya_kenney_character_7700_binary.fbx, 39 skeleton
joints beside its control rig, a skinned mesh) played at 120 fps and repeated for 60 s, every
frame keyed, written by Blender 3.4 (``tests/data/fbx/blender_export.py long``) into the system
temporary folder once (19 MB, kept out of git). ``load_fbx`` reads it whole: the child process,
ufbx's parse and evaluation of every node at every frame, the clip. The baseline, measured in
the same run: ``footfall.bvh.load`` of that clip written as BVH (7,200 frames, same joints).
Best-of and median wall times over interleaved calls; the ratios use the best times.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from footfall import bvh
from footfall.fbx import load_fbx

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "fbx" / "maya_kenney_character_7700_binary.fbx"
SCRIPT = ROOT / "tests" / "data" / "fbx" / "blender_export.py"
LONG = Path(tempfile.gettempdir()) / "footfall-bench-fbx" / "kenney_60s_120fps.fbx"
REPEATS = 5


def long_take() -> Path:
    """The 60 s, 120 fps file, made with Blender if it is not there yet."""
    if LONG.exists():
        return LONG
    blender = shutil.which("blender")
    if blender is None:
        sys.exit(f"{LONG} is missing and making it needs Blender (apt-get install blender)")
    LONG.parent.mkdir(parents=True, exist_ok=True)
    partial = LONG.with_suffix(".part.fbx")
    subprocess.run([blender, "-b", "--factory-startup", "-P", str(SCRIPT), "--", "long",
                    str(SOURCE), str(partial)], check=True, capture_output=True)
    partial.rename(LONG)
    return LONG


def interleaved(actions: list[Callable[[], object]], repeats: int
                ) -> list[tuple[float, float]]:
    """Per action (best wall s, median wall s), after one warm-up call each, in turn."""
    for action in actions:
        action()
    wall: list[list[float]] = [[] for _ in actions]
    for _ in range(repeats):
        for index, action in enumerate(actions):
            start = time.perf_counter()
            action()
            wall[index].append(time.perf_counter() - start)
    return [(min(w), statistics.median(w)) for w in wall]


def main() -> None:
    path = long_take()
    clip = load_fbx(path)
    seconds = clip.duration
    with tempfile.TemporaryDirectory() as folder:
        as_bvh = Path(folder) / "same.bvh"
        bvh.save(clip, as_bvh)
        (fbx_best, fbx_median), (bvh_best, bvh_median) = interleaved(
            [lambda: load_fbx(path), lambda: bvh.load(as_bvh)], REPEATS)
    print(f"take: {path.name}, {path.stat().st_size / 1e6:.1f} MB, {clip.frame_count} frames "
          f"at {clip.fps:g} fps ({seconds:.1f} s), {clip.skeleton.joint_count} joints")
    print(f"load_fbx : best {fbx_best:.3f} s, median {fbx_median:.3f} s -> "
          f"{seconds / fbx_best:.1f}x real time (target >= 10x)")
    print(f"bvh.load : best {bvh_best:.3f} s, median {bvh_median:.3f} s -> "
          f"{seconds / bvh_best:.1f}x real time")
    print(f"FBX / BVH time ratio (best): {fbx_best / bvh_best:.2f}")


if __name__ == "__main__":
    main()
