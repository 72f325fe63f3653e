"""``footfall retarget``: motion capture (BVH) onto another skeleton or a glTF/GLB avatar."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from footfall.commands._motion_out import add_motion_out_arguments, extras_lines
from footfall.motion_io.cli import add_motion_arguments

if TYPE_CHECKING:
    from footfall.retarget.files import RetargetOptions

NAME = "retarget"
HELP = ("retarget a motion (BVH, glTF, VRMA, FBX, joint positions) onto a BVH skeleton or a "
        "glTF/GLB/VRM/FBX avatar")
DESCRIPTION = (
    "Map the motion of SOURCE (any motion file footfall reads: BVH, glTF/GLB animations with "
    "--take, VRM Animation, FBX, joint positions, MDM results with --sample) onto the skeleton of"
    " --to (a .bvh file, a skinned .glb/.gltf avatar, a VRM 0.x/1.0 .vrm avatar or a skinned .fbx"
    " character, written out as .glb/.gltf) with seed 001's method: calibrated rotation offsets, "
    "spine and neck redistribution, hips from the leg-length difference, four-limb IK with "
    "automatic weights. Writes -o as BVH, or as GLB/glTF/VRM (the avatar's file with the "
    "animation replaced, which any glTF viewer plays), or as a VRM Animation (.vrma) for a VRM "
    "avatar. Bone names are matched automatically (a VRM file's own bone map is used as it is); "
    "--mapping / --target-mapping give a JSON file {canonical bone: joint} that overrides the "
    "guess. Nothing is written when anything fails."
)
KERNELS = ("retarget",)  # compiled kernels made ready first (footfall.kernels): FK, IK, limbs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall retarget``."""
    parser.add_argument("source", help="the motion to retarget: .bvh, .glb/.gltf, .vrm, .vrma, "
                        ".fbx, joint positions .npy, AMASS .npz or MDM's results.npy")
    parser.add_argument("-o", "--output", required=True,
                        help="file to write: .bvh, or .glb/.gltf for a glTF target, "
                             ".vrm/.vrma for a VRM target")
    add_options(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of :class:`~footfall.retarget.files.RetargetOptions` (what ``footfall batch
    retarget`` passes to every file too)."""
    parser.add_argument("--to", required=True, dest="target",
                        help="the target skeleton: a .bvh file, a skinned .glb/.gltf avatar, "
                             "a .vrm avatar or a skinned .fbx character")
    parser.add_argument("--mapping", default=None,
                        help="JSON {canonical bone: source joint} overriding the automatic guess")
    parser.add_argument("--target-mapping", default=None,
                        help="JSON {canonical bone: target joint} for the target")
    parser.add_argument("--ik", choices=("auto", "ik", "fk"), default="auto",
                        help="limb IK weights: automatic layers (default), always IK, always FK")
    parser.add_argument("--floor-height", type=float, default=0.0,
                        help="world height added to the hips and feet, metres (default 0)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="avatar scale, 0.1–3 (default 1)")
    parser.add_argument("--finger-copy", choices=("rotation", "curl", "none"),
                        default="rotation",
                        help="source fingers onto the avatar: bone by bone (default), as curl "
                             "and spread per finger (hands built differently), or not at all")
    parser.add_argument("--calibrate-frame", default=None, metavar="N|auto",
                        help="calibrate from this frame of the source as it is; by default "
                             "('auto') from the pose its motion stands in: its most standing "
                             "frame with each foot set flat as it stands in its stances, stood "
                             "up (legs straight, trunk upright) when no frame stands (never "
                             "the file's rest rotations, which exporters define as they like)")
    parser.add_argument("--preview", default=None, metavar="PNG",
                        help="also draw a contact sheet: the avatar from the side at six "
                             "moments with the floor line, the source skeleton beside it")
    add_motion_out_arguments(parser, "--floor-height")
    add_motion_arguments(parser)


def options_from_args(args: argparse.Namespace) -> RetargetOptions:
    """The :class:`RetargetOptions` that parsed :func:`add_options` arguments say."""
    from footfall.retarget.files import RetargetOptions

    return RetargetOptions(
        target=args.target, mapping=args.mapping, target_mapping=args.target_mapping,
        ik=args.ik, floor_height=args.floor_height, scale=args.scale,
        finger_copy=args.finger_copy, calibrate_frame=args.calibrate_frame,
        preview=args.preview, root_motion=args.root_motion,
        remove_heading=args.remove_heading, contacts_out=args.contacts_out, take=args.take,
        sample=args.sample, unit=args.unit)


def run(args: argparse.Namespace) -> int:
    """Load, retarget, write; prints one summary line."""
    from tqdm import tqdm

    from footfall.retarget.files import retarget_file
    from footfall.terminal import show_progress

    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, unit="frame", disable=not show_progress(args.quiet),
                       desc=f"retarget {Path(args.source).name}")
        bar.update(done - bar.n)

    try:
        report = retarget_file(args.source, args.output, options_from_args(args),
                               progress=progress)
    finally:
        if bar is not None:
            bar.close()
    if report.preview:
        print(f"wrote {report.preview}")
    print(f"wrote {report.output}: {report.frames} frames at {report.fps:g} fps, "
          f"{report.joint_count} joints, size ratio {report.size_ratio:.3f}; "
          f"{report.calibration}")
    for line in extras_lines(report.output, [Path(path) for path in report.extras]):
        print(line)
    return 0
