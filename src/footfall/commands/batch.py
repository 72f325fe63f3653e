"""``footfall batch ground|retarget|measure|import INPUTS… -o OUTDIR``: a whole motion library at
once, on a local process pool or (``--scheduler``) a Dask distributed cluster."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from footfall.batch.inputs import BatchError

if TYPE_CHECKING:
    from footfall.grounding.clip.files import GroundOptions
    from footfall.joints.files import ImportOptions
    from footfall.retarget.files import RetargetOptions

NAME = "batch"
HELP = ("ground, retarget, measure or import a whole library of clips (process pool or Dask "
        "cluster)")
DESCRIPTION = (
    "Run ground, retarget, measure or import over every clip the inputs name (files, folders "
    "searched recursively for motion files: .bvh, .npy, .npz, .glb, .gltf, .vrma, .fbx; or "
    "globs), writing each output at the input's relative path under "
    "OUTDIR, atomically, plus OUTDIR/summary.csv, summary.json (one row per file: frames, "
    "seconds, every metric before/after, warnings, error) and summary.png. A file that fails "
    "is an error row and the batch goes on: exit status 0 when all succeeded, 1 when some "
    "failed, 2 for a usage error. The options of the command (--terrain, --to, …) apply to "
    "every file. Runs on a local process pool, or on a running Dask cluster with --scheduler."
)
_KIND_HELP = {
    "ground": "ground every clip on a terrain (footfall ground's options)",
    "retarget": "retarget every clip onto one skeleton or avatar (footfall retarget's options)",
    "measure": "only the contact metrics on a terrain (default flat), no clip written",
    "import": "turn every motion file (joint positions, AMASS, MDM results, glTF …) into a BVH "
              "(footfall import's options)",
}
_GLTF = (".glb", ".gltf")
KERNELS = ("grounding", "clip", "retarget")  # compiled kernels made ready first (footfall.kernels)


def _add_batch_options(parser: argparse.ArgumentParser) -> None:
    from footfall.batch.local import default_jobs

    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="clip files, folders (every .bvh, .npy, .npz, .glb, .gltf, .vrma "
                        "and .fbx below) or glob patterns")
    parser.add_argument("-o", "--output", dest="outdir", required=True, metavar="OUTDIR",
                        help="folder for the outputs, summary.csv/json/png and the manifest")
    parser.add_argument("--jobs", type=int, default=default_jobs(), metavar="N",
                        help="local worker processes (default: the core count)")
    parser.add_argument("--resume", action="store_true",
                        help="skip inputs whose output and manifest entry (input hash, "
                        "options, footfall version) match an earlier run into OUTDIR")
    parser.add_argument("--scheduler", metavar="tcp://HOST:8786",
                        help="run on this Dask distributed scheduler instead of locally "
                        "(needs footfall[cluster] here and on the workers)")
    parser.add_argument("--ship-data", action="store_true",
                        help="with --scheduler: send the input bytes to the workers and get the "
                        "outputs back (no shared filesystem needed)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall batch``: a sub-command per kind of job, each with the options of
    the command that does one file (``footfall ground --help``, ``footfall retarget --help``)."""
    from footfall.commands import ground, import_motion, retarget

    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    for kind, text in _KIND_HELP.items():
        sub = kinds.add_parser(kind, help=text, description=f"{DESCRIPTION} This one: {text}.")
        _add_batch_options(sub)
        if kind == "retarget":
            retarget.add_options(sub)
        elif kind == "import":
            import_motion.add_options(sub)
        else:
            ground.add_options(sub, terrain_required=kind != "measure")


def options_from_args(args: argparse.Namespace
                      ) -> GroundOptions | RetargetOptions | ImportOptions:
    """The options every file of the batch gets, from the batch's own arguments."""
    from footfall.commands import ground, import_motion, retarget

    if args.kind == "retarget":
        return retarget.options_from_args(args)
    if args.kind == "import":
        return import_motion.options_from_args(args)
    return ground.options_from_args(args)


def _output_suffix(kind: str, args: argparse.Namespace) -> str | None:
    if kind == "measure":
        return None
    if kind == "retarget" and Path(args.target).suffix.lower() == ".vrm":
        return ".vrm"  # the VRM avatar's own file, with the animation
    if kind == "ground" and getattr(args, "npy", False):
        return ".npy"  # joint positions in the input's layout (footfall ground --npy)
    if kind == "retarget" and Path(args.target).suffix.lower() in _GLTF:
        return ".glb"
    return ".bvh"


def run(args: argparse.Namespace) -> int:
    """Run the batch; 0 when every file succeeded, 1 when some failed."""
    from footfall.batch.jobs import JobSpec
    from footfall.batch.runner import run_batch
    from footfall.batch.summary import metric_stats, stats_table

    if args.jobs < 1:
        raise BatchError(f"--jobs {args.jobs}: needs at least 1")
    spec = JobSpec(args.kind, options_from_args(args), _output_suffix(args.kind, args))
    result = run_batch(args.inputs, args.outdir, spec, jobs=args.jobs, scheduler=args.scheduler,
                       ship_data=args.ship_data, resume=args.resume, quiet=args.quiet)
    total = len(result.rows)
    rate = result.ran / result.seconds if result.seconds > 0 else 0.0
    print(f"{total} files: {total - result.failed} ok, {result.failed} failed"
          + (f", {result.skipped} done before (resumed)" if result.skipped else "")
          + f"; {result.ran} run in {result.seconds:.1f} s ({rate:.2f} files/s)")
    folder = Path(args.outdir)
    stats = metric_stats(result.rows, list(dict.fromkeys(k for row in result.rows for k in row)))
    if stats:
        print(stats_table(stats))
    print(f"wrote {folder / 'summary.csv'}, {folder / 'summary.json'}, {folder / 'summary.png'}")
    if result.failed:
        print(f"footfall batch: {result.failed} of {total} files failed "
              f"(the error column of {folder / 'summary.csv'} says why)", file=sys.stderr)
        return 1
    return 0
