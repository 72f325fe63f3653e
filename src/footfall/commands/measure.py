"""``footfall measure FILE [--layout L] [--json OUT]``: the metrics ``footfall batch measure``
computes, for one file (BVH, glTF or joint positions), as a table and as JSON."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from footfall.errors import FootfallError

if TYPE_CHECKING:
    from footfall.grounding.clip.files import GroundOptions

NAME = "measure"
HELP = ("contact metrics of one clip (BVH, glTF or joint positions): GMD's foot-skate ratio, "
        "PhysDiff's penetration/floating/sliding, footfall's own; table and JSON")
DESCRIPTION = (
    "Measure one motion file exactly as 'footfall batch measure' measures each file of a "
    "library (the same code: footfall ground on the clip's own flat floor, its report kept and "
    "the grounded clip thrown away): GMD's foot-skate ratio (on joint-position files exactly as "
    "GMD's released code computes it: toe joints, the file's own floor at height 0, 20 fps), "
    "PhysDiff's penetration, floating and sliding (mm), and footfall's contact metrics, for "
    "the clip as it is and after the level clean-up. Prints a table; --json writes the same "
    "row 'footfall batch measure' writes into its summary.json (the same keys)."
)
KERNELS = ("grounding", "clip")  # what footfall ground compiles (footfall.kernels)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall measure``."""
    from footfall.motion_io.cli import add_joint_arguments, add_motion_arguments

    parser.add_argument("clip", help="a motion file: .bvh, .glb/.gltf, .vrm, .vrma, .fbx, "
                        "joint-position .npy, AMASS .npz or MDM's results.npy")
    add_joint_arguments(parser, npy=False)
    add_motion_arguments(parser)
    parser.add_argument("--terrain", default=None,
                        help="terrain to measure on (default flat, the clip's own floor; see "
                        "footfall ground --help)")
    parser.add_argument("--json", metavar="OUT", default=None,
                        help="write the metrics here (batch measure's row: the same keys)")


def measure_row(clip: str, options: GroundOptions | None = None) -> dict[str, Any]:
    """``footfall batch measure``'s summary row for one file (its job, run here); raises
    :class:`FootfallError` with the row's error when the file cannot be measured."""
    from footfall.batch.jobs import Job, JobSpec, run_job

    path = str(Path(clip).absolute())
    job = Job(path, Path(clip).name, None, None, JobSpec("measure", options, None))
    row = run_job(job)["row"]
    if row["status"] != "ok":
        raise FootfallError(row["error"])
    return row


def _number(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value}"
    return f"{value:.4f}" if isinstance(value, float) else ""


def table(row: dict[str, Any]) -> str:
    """The row as text: each metric as it is and after the level clean-up, then the other
    numbers."""
    from footfall.batch.jobs import BASE_COLUMNS

    lines = [f"{'metric':<28}{'clip':>12}{'cleaned up':>12}"]
    pairs = [key.split(".", 1)[1] for key in row if key.startswith("before.")]
    for metric in pairs:
        lines.append(f"{metric:<28}{_number(row.get('before.' + metric)):>12}"
                     f"{_number(row.get('after.' + metric)):>12}")
    others = [key for key in row if key not in BASE_COLUMNS and not key.startswith(
        ("before.", "after."))]
    for key in ["frames", *others]:
        text = _number(row.get(key))
        if text:
            lines.append(f"{key:<28}{text:>12}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Measure the file, print the table, write the JSON."""
    from footfall.batch.atomic import write_atomic
    from footfall.grounding.clip.files import MEASURE_TERRAIN, GroundOptions
    from footfall.motion_io import detect

    detect(args.clip)  # a missing file or an unknown format: said before the job starts
    if args.json and not Path(args.json).absolute().parent.is_dir():
        raise FootfallError(f"--json {args.json}: folder {Path(args.json).parent} does not "
                            "exist")
    terrain = MEASURE_TERRAIN if args.terrain is None else args.terrain
    options = GroundOptions(terrain, layout=args.layout, take=args.take, sample=args.sample,
                            unit=args.unit)
    row = measure_row(args.clip, options)
    for warning in row.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    print(table(row))
    if args.json:
        write_atomic(Path(args.json), json.dumps(row, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0
