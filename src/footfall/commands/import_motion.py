"""``footfall import JOINTS.npy --layout humanml3d -o OUT.bvh|.glb``: joint-position motion (a
text-to-motion model's output, HumanML3D, AMASS) as a skeleton with rotations."""

from __future__ import annotations

import argparse
from pathlib import Path

from footfall.commands._motion_out import (
    add_motion_out_arguments,
    check_motion_out,
    root_motion_for,
    write_motion_extras,
)
from footfall.errors import JointsError

NAME = "import"
HELP = ("turn joint positions (.npy, HumanML3D/SMPL layouts) or AMASS .npz into a BVH or glTF "
        "skeleton with rotations, fixed bone lengths and root motion")
DESCRIPTION = (
    "Read joint positions (T, J, 3) — a motion-generation model's output or HumanML3D's "
    "new_joints — and solve a skeleton with fixed bone lengths (the median measured, or "
    "--lengths) and per-frame rotations: two-bone IK on legs and arms with the knee/elbow plane "
    "from the positions, pelvis and chest frames from their joints, twist kept continuous "
    "(never flipping), the pelvis as root translation. The layout names the joints (SMPL's "
    "names, which footfall's humanoid mapping recognises), the up axis "
    "and the default frame rate. AMASS-style .npz files (poses, trans, mocap_framerate) need "
    "the body model's rest joints (--skeleton) or joint positions (--joints): no body model is "
    "bundled. Prints how far the solved joints lie from the input (mean and max, mm)."
)
KERNELS = ("clip",)  # compiled kernels made ready first (footfall.kernels)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall import``."""
    from footfall.joints.layouts import LAYOUTS

    parser.add_argument("motion", help="joint positions (.npy, (T, J, 3)) or an AMASS-style "
                        ".npz (poses, trans, mocap_framerate)")
    parser.add_argument("-o", "--output", required=True,
                        help="the file to write: .bvh, .glb or .gltf (a skeleton-only glTF)")
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
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")


def _lengths(path: str | None) -> dict[str, float] | None:
    if path is None:
        return None
    from footfall.json_input import parse_json

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise JointsError(f"--lengths {path}: cannot read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise JointsError(f"--lengths {path}: not UTF-8 text") from None
    data = parse_json(text, f"--lengths {path}", JointsError)
    if not isinstance(data, dict):
        raise JointsError(f'--lengths {path}: expected {{"joint": metres, …}}')
    return data


def run(args: argparse.Namespace) -> int:
    """Solve the motion and write it; prints one summary line."""
    from footfall.joints.io import load_motion, save_motion

    output = Path(args.output)
    if output.suffix.lower() not in (".bvh", ".glb", ".gltf"):
        raise JointsError(f"-o {output}: write .bvh, .glb or .gltf")
    suffix = Path(args.motion).suffix.lower()
    if suffix not in (".npy", ".npz"):
        raise JointsError(f"{args.motion}: expected joint positions (.npy) or AMASS "
                          "parameters (.npz)")
    if suffix == ".npy" and (args.skeleton or args.joints):
        raise JointsError("--skeleton and --joints go with an AMASS .npz input")
    check_motion_out(args, output)
    motion = load_motion(args.motion, args.layout, fps=args.fps, up=args.up,
                         lengths=_lengths(args.lengths), skeleton=args.skeleton,
                         joints=args.joints)
    moved = root_motion_for(args, motion.clip)
    save_motion(moved.clip, output, motion)
    if not args.quiet:
        clip, layout = motion.clip, motion.layout
        assert layout is not None  # joint and AMASS files have a layout
        fit = ""
        if motion.fit is not None:
            worst = layout.joints[int(motion.fit.error_m.max(axis=0).argmax())]
            fit = (f"; joints within {motion.fit.mean_error_mm:.2f} mm mean, "
                   f"{motion.fit.max_error_mm:.2f} mm max ({worst}) of the input")
        print(f"wrote {output}: {clip.frame_count} frames at {clip.fps:g} fps, layout "
              f"{layout.name} ({layout.joint_count} joints, {motion.up.upper()} up){fit}")
    if args.root_motion != "keep" or args.contacts_out:
        from footfall.contact_curves import clip_contacts

        contacts = clip_contacts(motion.clip) if args.contacts_out else None
        write_motion_extras(args, output, moved, contacts, motion.clip.fps, quiet=args.quiet)
    return 0

