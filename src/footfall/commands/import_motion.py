"""``footfall import JOINTS.npy --layout humanml3d -o OUT.bvh|.glb``: joint-position motion (a
text-to-motion model's output, HumanML3D, AMASS) as a skeleton with rotations."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from footfall.commands._motion_out import add_motion_out_arguments, extras_lines

if TYPE_CHECKING:
    from footfall.joints.files import ImportOptions

NAME = "import"
HELP = ("turn joint positions (.npy, HumanML3D/SMPL layouts) or AMASS .npz into a BVH or glTF "
        "skeleton with rotations, fixed bone lengths and root motion")
DESCRIPTION = (
    "Read joint positions (T, J, 3) — a motion-generation model's output or HumanML3D's "
    "new_joints — and solve a skeleton with fixed bone lengths (the median measured, or "
    "--lengths) and per-frame rotations: two-bone IK on legs and arms with the knee/elbow plane "
    "from the positions, hips and chest frames from their joints, twist kept continuous "
    "(never flipping), the hips as root translation. The layout names the joints (SMPL's "
    "names, which footfall's humanoid mapping recognises), the up axis "
    "and the default frame rate. AMASS-style .npz files (poses, trans, mocap_framerate) need "
    "the body model's rest joints (--skeleton) or joint positions (--joints): no body model is "
    "bundled. MDM's results.npy (a pickled dictionary, read without running any code it "
    "names) gives sample --sample. Any other motion file footfall reads (BVH, glTF, VRMA, FBX) "
    "is converted as it is. Prints how far the solved joints lie from the input (mean and max, "
    "mm). Nothing is written when anything fails."
)
KERNELS = ("clip",)  # compiled kernels made ready first (footfall.kernels)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall import``."""
    parser.add_argument("motion", help="joint positions (.npy, (T, J, 3)), an AMASS-style "
                        ".npz (poses, trans, mocap_framerate), MDM's results.npy, or any "
                        "motion file footfall reads")
    parser.add_argument("-o", "--output", required=True,
                        help="the file to write: .bvh, .glb or .gltf (a skeleton-only glTF), "
                        "or .npy joint positions")
    add_options(parser)
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of :class:`~footfall.joints.files.ImportOptions` (what ``footfall batch
    import`` passes to every file too)."""
    from footfall.joints.layouts import LAYOUTS
    from footfall.motion_io.cli import add_motion_arguments

    parser.add_argument("--layout", choices=sorted(LAYOUTS), default=None,
                        help="which joint each row is: " + "; ".join(
                            f"{name}: {layout.description}" for name, layout in LAYOUTS.items())
                        + " (default: the layout with the file's joint count)")
    parser.add_argument("--fps", type=float, default=None,
                        help="frame rate (default: the layout's, or the .npz's "
                        "mocap_framerate)")
    parser.add_argument("--up", choices=("y", "z"), default=None,
                        help="the file's up axis (default: the layout's; .npz: z, AMASS)")
    parser.add_argument("--lengths", metavar="JSON", default=None,
                        help='bone lengths to use instead of the measured medians, metres: '
                        '{"left_knee": 0.39, …} (the bone ending at that joint)')
    parser.add_argument("--skeleton", metavar="REST.npy", default=None,
                        help=".npz input: the body model's rest joint positions for this "
                        "subject, (J, 3) in SMPL order")
    parser.add_argument("--joints", metavar="JOINTS.npy", default=None,
                        help=".npz input: the body model's joint positions per frame, "
                        "(T, J, 3)")
    add_motion_out_arguments(parser, "y = 0")
    add_motion_arguments(parser)


def options_from_args(args: argparse.Namespace) -> ImportOptions:
    """The :class:`ImportOptions` that parsed arguments say."""
    from footfall.joints.files import ImportOptions

    return ImportOptions(layout=args.layout, fps=args.fps, up=args.up, lengths=args.lengths,
                         skeleton=args.skeleton, joints=args.joints,
                         root_motion=args.root_motion, remove_heading=args.remove_heading,
                         contacts_out=args.contacts_out, take=args.take, sample=args.sample,
                         unit=args.unit)


def run(args: argparse.Namespace) -> int:
    """Solve the motion and write it; prints one summary line."""
    from footfall.joints.files import import_file

    report = import_file(args.motion, args.output, options_from_args(args))
    if not args.quiet:
        fit = ""
        if report.fit_mean_error_mm is not None:
            fit = (f"; joints within {report.fit_mean_error_mm:.2f} mm mean, "
                   f"{report.fit_max_error_mm:.2f} mm max ({report.worst_joint}) of the input")
        if report.layout is None:  # a skeleton file (BVH, glTF, VRMA, FBX) converted as it is
            print(f"wrote {report.output}: {report.frames} frames at {report.fps:g} fps, "
                  f"{report.joint_count} joints ({report.format})")
        else:
            print(f"wrote {report.output}: {report.frames} frames at {report.fps:g} fps, "
                  f"layout {report.layout} ({report.joint_count} joints, "
                  f"{report.up.upper()} up){fit}")
        for line in extras_lines(report.output, [Path(path) for path in report.extras]):
            print(line)
    return 0
