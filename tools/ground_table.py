"""Print the `footfall ground` table of docs/experiment.md: every BVH clip in a folder grounded
on level ground at its own floor (not placed: the do-no-harm check) and on the stairs, hills and
rocks scenes (placed and sized as `footfall ground` does), before → after.

Run: ``.venv/bin/python tools/ground_table.py [FOLDER] [--only NAME ...]`` (default
``tests/data/bvh``). Clips that are not humanoids (no legs) get a row saying so.

Columns: *change* — the largest and mean displacement of any joint (mm; level ground only);
*stance height* — mean |height of a planted foot's support joints above or below planted| over
the real ground (mm); *swing change* — mean change of the swinging feet's lowest point height
over the real ground against its animated height over the floor (mm); GMD's foot-skate ratio
(GMD's released evaluation); PhysDiff's penetration / floating / sliding of the lowest joint
(mm); frames in which a foot left the terrain.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from footfall import bvh, metrics
from footfall.errors import FootfallError
from footfall.grounding.clip import animation_floor, clip_feet, ground_clip, prepare_clip
from footfall.grounding.clip.placement import scene_size
from footfall.grounding.contacts import segments
from footfall.grounding.feet import legs_of
from footfall.skeleton import Clip
from footfall.terrain import LevelGround, scene

TERRAINS = ("level", "stairs", "hills", "rocks")


def swing_change(source: Clip, result, terrain) -> float:  # noqa: ANN001
    """Mean change (metres) of each swinging foot's lowest sole point over the real ground
    against its animated height over the clip's floor, away from contacts (0.1 s)."""
    prepared = prepare_clip(source, legs_of(source.skeleton))
    legs, models, floor, feet = prepared.legs, prepared.models, prepared.floor, prepared.feet
    out = clip_feet(result.clip.rotations, result.clip.positions, source.skeleton, legs, models)
    blend = max(1, round(0.1 * source.fps))
    near = np.zeros_like(result.contacts)
    for foot in range(2):
        for start, stop in segments(result.contacts[:, foot]):
            near[max(0, start - blend):stop + blend, foot] = True
    over = np.nanmin(metrics.ground_gaps(terrain, out.sole), axis=-1)
    animated = np.nanmin(feet.sole[..., 1], axis=-1) - floor
    change = (over - animated)[~near]
    change = change[np.isfinite(change)]
    return float(change.mean()) if change.size else 0.0


def row(stem: str, clip: Clip, name: str) -> str:
    """One table row: ``clip`` grounded on terrain ``name``."""
    if name == "level":
        terrain = LevelGround(animation_floor(clip))
        result = ground_clip(clip, terrain, place=False)
        source = clip
        _, a = clip.forward_kinematics()
        _, b = result.clip.forward_kinematics()
        moved = np.linalg.norm(a - b, axis=-1)
        change = f"{1000 * moved.max():.1f} / {1000 * moved.mean():.2f}"
    else:
        length, width = scene_size(clip)
        terrain = scene(name, length=length, width=width)
        result = ground_clip(clip, terrain)
        from footfall.grounding.clip.placement import place_clip

        source = place_clip(clip, terrain)
        change = "—"
    b, a = result.before, result.after
    return (
        f"| {stem} | {name} | {clip.frame_count} | {change} | "
        f"{1000 * b['stance_height_error_m']:.1f} → {1000 * a['stance_height_error_m']:.1f} | "
        f"{1000 * swing_change(source, result, terrain):.1f} | "
        f"{b['gmd_foot_skate_ratio']:.3f} → {a['gmd_foot_skate_ratio']:.3f} | "
        f"{b['physdiff_penetration_mm']:.1f} → {a['physdiff_penetration_mm']:.1f} | "
        f"{b['physdiff_floating_mm']:.1f} → {a['physdiff_floating_mm']:.1f} | "
        f"{b['physdiff_sliding_mm']:.2f} → {a['physdiff_sliding_mm']:.2f} | "
        f"{result.off_terrain_frames} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default="tests/data/bvh")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="clip file names to include")
    args = parser.parse_args(argv)
    paths = sorted(Path(args.folder).glob("*.bvh"))
    if args.only:
        paths = [p for p in paths if p.name in args.only]
    if not paths:
        raise SystemExit(f"no .bvh files in {args.folder}")
    started = time.perf_counter()
    print(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
          f"(`.venv/bin/python tools/ground_table.py {args.folder}`):\n")
    print("| clip | terrain | frames | change max / mean mm (level) | stance height mm before → "
          "after | swing change mm | GMD foot-skate ratio before → after | PhysDiff penetration "
          "mm | PhysDiff floating mm | PhysDiff sliding mm | frames off the terrain |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        clip = bvh.load(path)
        for name in TERRAINS:
            try:
                print(row(path.stem, clip, name), flush=True)
            except FootfallError as error:
                print(f"| {path.stem} | {name} | {clip.frame_count} | not grounded: {error} "
                      "|||||||")
                break
    print(f"\n({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
