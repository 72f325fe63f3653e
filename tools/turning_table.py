"""Print the turning-walk table of docs/experiment.md (issue 25): the first 400 frames of shared
walks, straight, bent into a circle, bent into an S and the right-hand circle played backwards
(the walks ``tests/test_grounding_floor.py`` builds), grounded on the stairs, hills and rocks;
per cell the mean |lowest support joint over the terrain − over the floor in the source| of the
planted feet (mm) and, in brackets, the report's ``stance_height_error_m`` (mm).

Run: ``.venv/bin/python tools/turning_table.py [CLIP.bvh ...]`` (default games105_walk60,
mixamo_stepping, cmu_131_01).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the walks are the tests' own

from footfall import bvh  # noqa: E402
from footfall.footing.foot_model import calibration_frames  # noqa: E402
from footfall.grounding.clip import ground_clip  # noqa: E402
from footfall.grounding.clip.placement import place_clip, terrain_for_clip  # noqa: E402
from test_grounding_floor import WALKS, _stance_offsets  # noqa: E402

CLIPS = ("games105_walk60.bvh", "mixamo_stepping.bvh", "cmu_131_01.bvh")
TERRAINS = ("stairs", "hills", "rocks")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clips", nargs="*", default=list(CLIPS))
    args = parser.parse_args(argv)
    print("| clip | walk | " + " | ".join(TERRAINS) + " |")
    print("|---|---|" + "---|" * len(TERRAINS))
    for name in args.clips:
        path = Path(name) if Path(name).is_file() else ROOT / "tests" / "data" / "bvh" / name
        clip = bvh.load(path)[:400]
        clip = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
        for walk, make in WALKS.items():
            made = make(clip)
            cells = []
            for terrain_name in TERRAINS:
                terrain = terrain_for_clip(terrain_name, made)
                placed = place_clip(made, terrain)
                result = ground_clip(placed, terrain, place=False)
                offsets = _stance_offsets(placed, result, terrain)
                cells.append(f"{1000 * np.abs(offsets).mean():.1f} "
                             f"({1000 * result.after['stance_height_error_m']:.1f})")
            print(f"| {path.stem} | {walk} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
