"""``footfall info FILE``: what a motion file holds and how footfall reads it — any format the
front door reads (:mod:`footfall.motion_io`): a BVH's unit and channels, an avatar's skeleton,
VRM meta and bone map (``.vrm``/``.glb``/``.gltf``) with its animations, a VRM Animation's,
FBX's or joint file's clip and takes."""

from __future__ import annotations

import argparse
from collections import Counter

from footfall import bvh
from footfall.motion_io import LoadedMotion
from footfall.skeleton import Clip

NAME = "info"
HELP = ("joints, frames, fps, duration, takes, detected unit/up axis and standing height of a "
        "motion file (BVH, glTF, VRMA, FBX, joint arrays); title, authors, licence and bone map "
        "of a VRM avatar")
DESCRIPTION = (
    "Read a BVH file the way footfall does (unit and up axis detected unless given) and print "
    "its joint count and tree, frame count, frame rate, duration, the unit and up axis found, "
    "and the standing height in metres. A file with 'Frames: 0' holds a skeleton only: it is "
    "described with 0 frames (retarget --to and walk --skeleton take it; commands that need "
    "motion refuse it). For an avatar (.vrm, .glb, .gltf): the VRM meta (title, authors, "
    "licence), facing, joints and the humanoid bone map the file declares, then its "
    "animations. Any other motion file (.vrma, .fbx, .npy, .npz, MDM results.npy): its format, "
    "joints, frames, rate, duration and takes. The format is found from the content."
)


def _scale(text: str) -> float | str:
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 'auto' or metres per unit, got {text!r}"
        ) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall info``."""
    from footfall.motion_io.cli import add_joint_arguments, add_motion_arguments

    parser.add_argument("file", help="a motion file (.bvh, .glb/.gltf, .vrm, .vrma, .fbx, "
                        ".npy, .npz, MDM results.npy) or an avatar")
    parser.add_argument(
        "--scale", type=_scale, default="auto", help="metres per file unit, or auto (default)"
    )
    parser.add_argument("--up", choices=("auto", "y", "z"), default="auto", help="file's up axis")
    parser.add_argument("--no-tree", action="store_true", help="do not print the joint tree")
    add_motion_arguments(parser, unit=False)
    add_joint_arguments(parser, npy=False)


def describe(clip: Clip, info: bvh.BVHInfo, tree: bool = True) -> str:
    """The text ``footfall info`` prints for a loaded clip and its :class:`BVHInfo`."""
    skeleton = clip.skeleton
    roots = [skeleton.names[j] for j in range(skeleton.joint_count) if skeleton.parents[j] < 0]
    unit = {
        "fitted": f"none fits; scaled to 1.7 m (x {info.scale:.6g})",
        "given": f"given (x {info.scale:.6g} m per unit)",
    }.get(info.unit, f"{info.unit} (x {info.scale:.6g} m per unit)")
    counts = Counter(len(c) for c in info.channels)
    channel_text = ", ".join(
        f"{n} channels on {k} joint{'s' if k > 1 else ''}" for n, k in sorted(counts.items())
    )
    orders = ", ".join(sorted({o for o, c in zip(info.rotation_orders, info.channels,
                                                  strict=True) if any("rot" in n for n in c)}))
    lines = [
        info.path,
        f"  joints           {skeleton.joint_count} (root{'s' if len(roots) > 1 else ''}: "
        f"{', '.join(roots)}; {len(skeleton.end_sites)} end sites)",
        f"  frames           {clip.frame_count}",
        f"  fps              {clip.fps:g} (frame time {info.frame_time:g} s)",
        f"  duration         {clip.duration:.3f} s",
        f"  unit             {unit}",
        f"  up axis          {info.up}" + ("  (turned to Y up)" if info.up == "z" else ""),
        f"  standing height  {info.standing_height:.3f} m",
        f"  channels         {channel_text}; rotation order {orders or 'none'}",
    ]
    if tree:
        lines.append("  joint tree")
        for j in range(skeleton.joint_count):
            indent = "  " * (len(skeleton.chain(j)) - 1)  # two spaces a level below the root
            lines.append(f"    {indent}{skeleton.names[j]}  [{len(info.channels[j])}]")
    return "\n".join(lines)


def describe_motion(motion: LoadedMotion, tree: bool = True) -> str:
    """The text ``footfall info`` prints for a motion read by the front door (not BVH)."""
    from footfall.motion_io.readers import format_label
    from footfall.sizes import reach

    clip = motion.clip
    skeleton = clip.skeleton
    roots = [skeleton.names[j] for j in range(skeleton.joint_count) if skeleton.parents[j] < 0]
    lines = [
        motion.path,
        f"  format           {format_label(motion.format)}",
        f"  joints           {skeleton.joint_count} (root{'s' if len(roots) > 1 else ''}: "
        f"{', '.join(roots)})",
        f"  frames           {clip.frame_count}",
        f"  fps              {clip.fps:g}",
        f"  duration         {clip.duration:.3f} s",
        f"  up axis          {motion.up}" + ("  (turned to Y up)" if motion.up == "z" else ""),
        f"  reach            {reach(clip):.3f} m",
    ]
    if motion.layout is not None:
        lines.append(f"  layout           {motion.layout.name}")
    lines += _takes(motion)
    if tree:
        lines.append("  joint tree")
        for j in range(skeleton.joint_count):
            lines.append(f"    {'  ' * (len(skeleton.chain(j)) - 1)}{skeleton.names[j]}")
    return "\n".join(lines)


def _takes(motion: LoadedMotion) -> list[str]:
    if len(motion.takes) <= 1 and motion.format not in ("mdm", "glb", "gltf", "vrm", "fbx"):
        return []
    lines = [f"  takes            {len(motion.takes)} (read: {motion.take})"]
    for index, name in enumerate(motion.takes[:40]):
        lines.append(f"    {index:>3}  {' '.join(name.split())[:70]}")
    if len(motion.takes) > 40:
        lines.append(f"    … and {len(motion.takes) - 40} more")
    return lines


def run(args: argparse.Namespace) -> int:
    """Print the description of ``args.file``; errors surface as the format's
    :class:`~footfall.errors.FootfallError` (naming the file, the format and the reason)."""
    from footfall.errors import MotionFileError
    from footfall.motion_io import detect
    from footfall.motion_io.cli import motion_from_args

    fmt = detect(args.file)
    if fmt in ("glb", "gltf", "vrm"):
        from footfall.gltf import load_avatar
        from footfall.gltf.describe import describe_avatar

        print(describe_avatar(load_avatar(args.file), tree=not args.no_tree))
        try:
            motion = motion_from_args(args.file, args)
        except MotionFileError:  # an avatar without animations
            print("  animations       none")
            return 0
        print("\n".join(_takes(motion)))
        return 0
    if fmt != "bvh":
        print(describe_motion(motion_from_args(args.file, args), tree=not args.no_tree))
        return 0
    clip, info = bvh.load(args.file, scale=args.scale, up=args.up, return_info=True)
    print(describe(clip, info, tree=not args.no_tree))
    return 0
