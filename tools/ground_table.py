"""Print the `footfall ground` table of docs/experiment.md: every BVH clip in a folder grounded
on level ground at its own floor (not placed: the do-no-harm check) and on the stairs, hills and
rocks scenes (placed and sized as `footfall ground` does), before → after.

Run: ``.venv/bin/python tools/ground_table.py [FOLDER] [--only NAME ...]`` (default
``tests/data/bvh``). Clips that are not humanoids (no legs) get a row saying so.

Columns: *change* — the largest and mean displacement of any joint (mm; level ground only);
*flat offset* — the clip placed on flat ground 0.37 m up: median over the planted frames of
(lowest support joint over the ground − over the clip's own floor in the source), mm (level
rows; the same offset would sit on every terrain); *stance height* — mean |height of a planted
foot's support joints above or below planted| over the real ground (mm, the report's figure);
*stance offset* — mean |lowest support joint over the terrain − over the floor in the source|
of the planted feet (mm, independent of the report's rule); *swing lift* — how far the swings
rise above their animated height over the ground blended from lift-off to touch-down: mean
over the swing frames away from contacts, measured on the solved feet / the largest reported
for one swing (mm); GMD's foot-skate ratio (GMD's released evaluation); PhysDiff's
penetration / floating / sliding of the lowest joint (mm); frames in which a foot left the
terrain.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from footfall import bvh
from footfall.errors import FootfallError
from footfall.grounding.clip import animation_floor, ground_clip, prepare_clip
from footfall.grounding.clip.placement import place_clip, scene_size
from footfall.grounding.contacts import segments
from footfall.grounding.feet import calibration_frames, legs_of
from footfall.metrics.stance import support_heights
from footfall.metrics.swing import swing_lift
from footfall.skeleton import Clip
from footfall.terrain import LevelGround, scene

TERRAINS = ("level", "stairs", "hills", "rocks")


FLAT_HEIGHT = 0.37


def _support_lowest(feet, terrain) -> np.ndarray:  # noqa: ANN001
    """``(F, 2)`` each foot's lowest support joint (ankle, ball, toe tips) over ``terrain``."""
    return np.nanmin(support_heights(feet.ankle, feet.touch, terrain), axis=-1)


def swing_figures(source: Clip, result, terrain) -> tuple[float, float]:  # noqa: ANN001
    """(mean lift over the blended ground measured on the solved feet, away from contacts
    (0.1 s); the largest lift reported for one swing), metres."""
    prepared = prepare_clip(source, legs_of(source.skeleton))
    out = prepared.feet_of(result.clip)
    blend = max(1, round(0.1 * source.fps))
    near = np.zeros_like(result.contacts)
    for foot in range(2):
        for start, stop in segments(result.contacts[:, foot]):
            near[max(0, start - blend):stop + blend, foot] = True
    lift = swing_lift(prepared.feet.ankle, out.ankle, result.contacts)[~near]
    biggest = max((swing["lift_m"] for swing in result.swings), default=0.0)
    return (float(lift.mean()) if lift.size else 0.0), biggest


def stance_offset(source: Clip, result, terrain) -> float:  # noqa: ANN001
    """Mean |lowest support joint over the terrain − over the floor in the source| (metres)
    of the planted feet."""
    prepared = prepare_clip(source, legs_of(source.skeleton))
    before = _support_lowest(prepared.feet, LevelGround(prepared.floor))
    after = _support_lowest(prepared.feet_of(result.clip), terrain)
    offset = (after - before)[result.contacts]
    offset = offset[np.isfinite(offset)]
    return float(np.abs(offset).mean()) if offset.size else 0.0


def flat_offset(clip: Clip) -> float:
    """Median over the planted frames of (lowest support joint over flat ground
    :data:`FLAT_HEIGHT` m up, the clip placed on it − over its own floor in the source)."""
    motion = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    result = ground_clip(motion, LevelGround(FLAT_HEIGHT), place=True)
    prepared = prepare_clip(motion, legs_of(motion.skeleton))
    before = _support_lowest(prepared.feet, LevelGround(prepared.floor))
    after = _support_lowest(prepared.feet_of(result.clip), LevelGround(FLAT_HEIGHT))
    return float(np.median((after - before)[result.contacts]))


def row(stem: str, clip: Clip, name: str) -> str:
    """One table row: ``clip`` grounded on terrain ``name``."""
    motion = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    if name == "level":
        terrain = LevelGround(animation_floor(clip))
        result = ground_clip(motion, terrain, place=False)
        source = motion
        _, a = motion.forward_kinematics()
        _, b = result.clip.forward_kinematics()
        moved = np.linalg.norm(a - b, axis=-1)
        change = f"{1000 * moved.max():.1f} / {1000 * moved.mean():.2f}"
        flat = f"{1000 * flat_offset(clip):.1f}"
    else:
        length, width = scene_size(clip)
        terrain = scene(name, length=length, width=width)
        source = place_clip(motion, terrain)
        result = ground_clip(source, terrain, place=False)
        change = flat = "—"
    b, a = result.before, result.after
    lift_mean, lift_max = swing_figures(source, result, terrain)
    return (
        f"| {stem} | {name} | {clip.frame_count} | {change} | {flat} | "
        f"{1000 * b['stance_height_error_m']:.1f} → {1000 * a['stance_height_error_m']:.1f} | "
        f"{1000 * stance_offset(source, result, terrain):.1f} | "
        f"{1000 * lift_mean:.1f} / {1000 * lift_max:.0f} | "
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
    print("| clip | terrain | frames | change max / mean mm (level) | flat offset mm | stance "
          "height mm before → after | stance offset mm | swing lift mm mean / max | GMD "
          "foot-skate ratio before → after | PhysDiff penetration mm | PhysDiff floating mm | "
          "PhysDiff sliding mm | frames off the terrain |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        clip = bvh.load(path)
        for name in TERRAINS:
            try:
                print(row(path.stem, clip, name), flush=True)
            except FootfallError as error:
                print(f"| {path.stem} | {name} | {clip.frame_count} | not grounded: {error} "
                      "|||||||||")
                break
    print(f"\n({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
