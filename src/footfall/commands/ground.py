"""``footfall ground CLIP.bvh --terrain NAME|level|MESHFILE|IMAGE -o OUT.bvh``: ground any clip
on a terrain (a built-in scene, level ground at the clip's own floor, a mesh file, or a
greyscale heightmap image)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from footfall.commands._motion_out import add_motion_out_arguments, extras_lines
from footfall.motion_io.cli import add_joint_arguments, add_motion_arguments

if TYPE_CHECKING:
    from footfall.grounding.clip.files import GroundOptions

NAME = "ground"
HELP = ("put a BVH clip's feet on a terrain, changing nothing but real stance defects on level "
        "ground: ground offsets, hips, leg IK, sole tilt, slip locks; GMD/PhysDiff report")
DESCRIPTION = (
    "Read a clip animated on flat ground, place it on a built-in terrain scene (sized to hold "
    "the clip's whole path), a mesh file or a greyscale heightmap image (black = the low end of "
    "--height-range, white = the high end, covering --size metres centred on the origin) (its "
    "hips path turned to travel along +X over the terrain's interesting part unless "
    "--no-place: then a built-in scene is laid under the clip where it is). 'level' is endless "
    "level ground at the clip's own floor: only the clip's own stance defects are fixed. Find "
    "the foot contacts from the motion (or read them with --contacts), offset "
    "each foot by the ground under it, move the hips with the lower foot, solve the legs and "
    "tilt the soles by the slope. Stance feet that slide, sink or float in the source are "
    "corrected by no more than their own defect; swings keep their animated height over the real "
    "ground; on level ground at the clip's own floor nothing else changes. Writes a BVH with the "
    "same skeleton, joint names and frame rate, and optionally a JSON report: GMD's foot-skate "
    "ratio, PhysDiff's penetration/floating/sliding and footfall's contact metrics before and "
    "after, and the contact frames per foot."
)
KERNELS = ("grounding", "clip")  # compiled kernels made ready first (footfall.kernels)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall ground``."""
    parser.add_argument("clip", help="the motion to ground: .bvh, .glb/.gltf, .vrm, .vrma, "
                        ".fbx, joint positions .npy (see --layout), AMASS .npz or MDM's "
                        "results.npy (see --sample)")
    parser.add_argument("-o", "--output", required=True, help="where to write the grounded .bvh "
                        "(or .glb/.gltf, .vrm/.vrma for a VRM source, or .npy joint positions "
                        "in the input's layout)")
    add_options(parser)
    parser.add_argument("--report", metavar="JSON", help='write {"before": …, "after": …} here')
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_options(parser: argparse.ArgumentParser, terrain_required: bool = True) -> None:
    """The options of :class:`~footfall.grounding.clip.files.GroundOptions` (what ``footfall
    batch ground|measure`` passes to every file too); ``terrain_required`` False (``measure``):
    ``--terrain`` defaults to the clip's own flat floor."""
    if terrain_required:
        parser.add_argument("--terrain", required=True,
                            help="a built-in scene (stairs, hills, rocks, flat, …), 'level' "
                            "(endless level ground at the clip's own floor, never placed: the "
                            "clean-up that changes only stance defects), a mesh file (.obj, "
                            ".stl, .ply, .glb, …) or a greyscale heightmap image (.png, .jpg, "
                            ".tif…)")
    else:
        parser.add_argument("--terrain", default=None,
                            help="terrain to measure on (default flat, the clip's own floor); "
                            "see footfall ground --help")
    parser.add_argument("--size", type=float, nargs=2, default=None,
                        metavar=("X_M", "Z_M"),
                        help="metres along x and z: for a built-in scene its length and width "
                        "(default: big enough for the clip's whole path, at least 32 × 4); for a "
                        "heightmap image the area it covers, centred on the origin (default 20 20)")
    parser.add_argument("--height-range", type=float, nargs=2, default=(0.0, 1.0),
                        metavar=("BLACK_M", "WHITE_M"),
                        help="heightmap images: heights of black and white pixels, metres "
                        "(default 0 1)")
    add_joint_arguments(parser)
    add_motion_arguments(parser)
    parser.add_argument("--no-place", action="store_true",
                        help="use the clip where it is instead of placing it on the terrain (a "
                        "built-in scene is then laid under it: the report's scene_offset_xz is "
                        "where the scene's origin lies in the clip's coordinates)")
    parser.add_argument(
        "--ball-clearance", type=float, default=0.0, metavar="M",
        help="extra clearance, off by default: a swinging foot moving faster than 0.5 m/s keeps "
             "its ball this high over the ground (metres; 0 = swings as animated). It changes "
             "the motion and the report says by how much (swing_lift_max_m; a lift the terrain "
             "forces is terrain_lift_max_m)",
    )
    parser.add_argument(
        "--contacts", metavar="JSON",
        help='use these foot contacts instead of finding them: {"left": [[start, stop], ...], '
             '"right": [...]} (frames, stop exclusive; a --report file works too)',
    )
    add_motion_out_arguments(parser, "y = 0")


def options_from_args(args: argparse.Namespace) -> GroundOptions:
    """The :class:`GroundOptions` that parsed :func:`add_options` arguments say."""
    from footfall.grounding.clip.files import MEASURE_TERRAIN, GroundOptions

    return GroundOptions(
        terrain=MEASURE_TERRAIN if args.terrain is None else args.terrain,
        size=None if args.size is None else (args.size[0], args.size[1]),
        height_range=(args.height_range[0], args.height_range[1]), layout=args.layout,
        npy=getattr(args, "npy", False), no_place=args.no_place,
        ball_clearance=args.ball_clearance, contacts=args.contacts,
        root_motion=args.root_motion, remove_heading=args.remove_heading,
        contacts_out=args.contacts_out, take=args.take, sample=args.sample, unit=args.unit)


#: What the command prints, before → after (every figure is in the report).
SHOWN = ("gmd_foot_skate_ratio", "physdiff_penetration_mm", "physdiff_floating_mm",
         "physdiff_sliding_mm", "contact_error_m", "stance_slip_m")


def run(args: argparse.Namespace) -> int:
    """Ground the clip, write it and the report; prints the metrics before → after."""
    from tqdm import tqdm

    from footfall.batch.atomic import replacing
    from footfall.errors import FootfallError
    from footfall.grounding.clip.files import ground_file
    from footfall.terminal import show_progress

    if args.report and not Path(args.report).absolute().parent.is_dir():
        raise FootfallError(f"--report {args.report}: folder {Path(args.report).parent} "
                            "does not exist")  # before anything is written
    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if not show_progress(args.quiet):
            return
        if bar is None:
            bar = tqdm(total=total, desc="grounding", unit="pass", file=sys.stderr, leave=False)
        bar.update(done - bar.n)

    try:
        result = ground_file(args.clip, args.output, options_from_args(args), progress=progress)
    finally:
        if bar is not None:
            bar.close()
    report = result.metrics
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"{'metric':<26}{'before':>12}{'after':>12}")
    for key in SHOWN:
        print(f"{key:<26}{report['before'][key]:>12.4f}{report['after'][key]:>12.4f}")
    if result.swing_lift_max_m > 0:  # only ever with --ball-clearance
        print("--ball-clearance raised swinging feet by up to "
              f"{100 * result.swing_lift_max_m:.1f} cm")
    if result.terrain_lift_max_m > 0.0005:
        print("the terrain lifted swinging feet by up to "
              f"{100 * result.terrain_lift_max_m:.1f} cm where it would cut them")
    print(f"wrote {', '.join(result.written)}")
    for line in extras_lines(args.output, [Path(path) for path in result.extras]):
        print(line)
    if args.report:
        with replacing(Path(args.report)) as partial:  # a reader never sees half a report
            partial.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.report}")
    return 0
