"""``footfall ground CLIP.bvh --terrain NAME|MESHFILE|IMAGE -o OUT.bvh``: ground any clip on a
terrain (a built-in scene, a mesh file, or a greyscale heightmap image)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from footfall.errors import FootfallError

NAME = "ground"
HELP = "put a BVH clip's feet on a terrain: contacts, foot locks, pelvis, leg IK, sole alignment"
DESCRIPTION = (
    "Read a clip animated on flat ground, place it on a built-in terrain scene, a mesh file or a "
    "greyscale heightmap image (black = the low end of --height-range, white = the high end, "
    "covering --size metres centred on the origin) "
    "(its path turned to walk along +X over the terrain's interesting part unless --no-place), "
    "find the foot contacts from the motion, lock planted feet in world space, offset each foot "
    "by the ground under it, lower the pelvis, solve the legs and align the soles. Writes a BVH "
    "with the same skeleton, joint names and frame rate, and optionally a JSON report of the "
    "contact metrics before and after."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall ground``."""
    parser.add_argument("clip", help="the .bvh file to ground")
    parser.add_argument("--terrain", required=True,
                        help="a built-in scene (stairs, hills, rocks, …), a mesh file (.obj, "
                        ".stl, .ply, .glb, …) or a greyscale heightmap image (.png, .jpg, .tif…)")
    parser.add_argument("--size", type=float, nargs=2, default=(20.0, 20.0),
                        metavar=("X_M", "Z_M"),
                        help="heightmap images: metres the image covers along x and z "
                        "(default 20 20), centred on the origin")
    parser.add_argument("--height-range", type=float, nargs=2, default=(0.0, 1.0),
                        metavar=("BLACK_M", "WHITE_M"),
                        help="heightmap images: heights of black and white pixels, metres "
                        "(default 0 1)")
    parser.add_argument("-o", "--output", required=True, help="where to write the grounded .bvh")
    parser.add_argument("--report", metavar="JSON", help='write {"before": …, "after": …} here')
    parser.add_argument("--no-place", action="store_true",
                        help="use the clip where it is instead of placing it on the terrain")
    parser.add_argument(
        "--ball-clearance", type=float, default=None, metavar="M",
        help="a swinging foot moving faster than 0.5 m/s keeps its ball this high over the "
             "ground (metres; default 0.05, GMD's skate height; 0 = as animated)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


#: File suffixes read as heightmap images (anything else is read as a mesh).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".pgm", ".gif", ".webp")


def _terrain(text: str, size: tuple[float, float] = (20.0, 20.0),
             height_range: tuple[float, float] = (0.0, 1.0)):  # noqa: ANN202 - a Terrain
    """The terrain ``--terrain`` names: a scene, a heightmap image or a mesh file."""
    from footfall.terrain import SCENES, load_heightmap, load_mesh, scene

    if text in SCENES:
        return scene(text)
    path = Path(text)
    if not path.is_file():
        raise FootfallError(
            f"--terrain {text!r} is neither a scene ({', '.join(sorted(SCENES))}) nor a file"
        )
    if path.suffix.lower() in IMAGE_SUFFIXES:
        origin = (-size[0] / 2, -size[1] / 2)
        return load_heightmap(path, tuple(size), tuple(height_range), origin_xz=origin)
    return load_mesh(path)


def run(args: argparse.Namespace) -> int:
    """Ground the clip, write the BVH and the report."""
    from tqdm import tqdm

    from footfall import bvh
    from footfall.grounding.postprocess import ground_clip

    terrain = _terrain(args.terrain, tuple(args.size), tuple(args.height_range))
    clip = bvh.load(args.clip)
    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if args.quiet:
            return
        if bar is None:
            bar = tqdm(total=total, desc="grounding", unit="pass", file=sys.stderr, leave=False)
        bar.update(done - bar.n)

    extra = {} if args.ball_clearance is None else {"ball_clearance": args.ball_clearance}
    result = ground_clip(clip, terrain, place=not args.no_place, progress=progress, **extra)
    if bar is not None:
        bar.close()
    bvh.save(result.clip, args.output)
    report = result.report()
    report["clip"] = str(args.clip)
    report["terrain"] = args.terrain
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"{'metric':<22}{'before':>12}{'after':>12}")
    for key in ("penetration_m", "floating_m", "contact_error_m", "foot_skate_ratio",
                "contact_skate_ratio"):
        print(f"{key:<22}{report['before'][key]:>12.4f}{report['after'][key]:>12.4f}")
    print(f"swinging feet raised by at most {100 * result.swing_lift_max_m:.1f} cm")
    print(f"wrote {args.output}")
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.report}")
    return 0
