"""``footfall eval``: seed 002's stairs experiment (and a slope scenario) as a table, JSON, PNG."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from footfall.commands import number_in
from footfall.errors import FootfallError

NAME = "eval"
HELP = "run the stairs experiment: contact error and support defects per walker and step height"
DESCRIPTION = (
    "Walk seed 000's walker up 5 stairs, over a landing and down 5 for 20 s at 60 Hz at each "
    "step height, with IK off, everything on and each stage switched off, and measure the "
    "solved soles in stance: contact error, support defects, penetration, floating, stance slip, "
    "hips jerk and the share of clamped frames. The bunny always walks; --humanoid adds a "
    "humanoid built from a BVH file's skeleton."
)
KERNELS = ("grounding",)  # compiled kernels made ready first (footfall.kernels)


def _heights(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated metres like 0.05,0.1; got {text!r}"
        ) from None
    if not values or any(not 0.0 < v < 2.0 for v in values):
        raise argparse.ArgumentTypeError(f"step heights must lie in (0, 2) m; got {text!r}")
    return values


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall eval``."""
    parser.add_argument("--humanoid", metavar="BVH", help="also walk this BVH file's skeleton")
    parser.add_argument(
        "--heights", type=_heights, default=None,
        help="step heights in metres, comma-separated (default 0.05,0.10,0.15,0.20,0.25)",
    )
    parser.add_argument("--seconds", type=number_in(float, 0.5, 600, "seconds"), default=20.0,
                        help="simulated time (20)")
    parser.add_argument("--json", metavar="PATH", help='write {"rows": [...]} here')
    parser.add_argument("--plot", metavar="PATH", help="write a PNG of the sweep here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Run the experiment and print the table."""
    from tqdm import tqdm

    from footfall.gait import experiment
    from footfall.terminal import show_progress

    if args.humanoid is not None and not Path(args.humanoid).is_file():
        raise FootfallError(f"--humanoid: no such file {args.humanoid!r}")
    heights = args.heights or list(experiment.STEP_HEIGHTS)
    bars: dict[str, tqdm] = {}

    def progress(name: str, done: int, total: int) -> None:
        if not show_progress(args.quiet):
            return
        if name not in bars:
            bars[name] = tqdm(total=total, desc=name, unit="frame", file=sys.stderr, leave=False)
        bars[name].update(done - bars[name].n)

    result = experiment.run_experiment(args.humanoid, heights, args.seconds, progress)
    for bar in bars.values():
        bar.close()
    print(experiment.format_table(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {args.json}")
    if args.plot:
        experiment.plot(result, args.plot)
        print(f"wrote {args.plot}")
    return 0
