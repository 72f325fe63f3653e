"""``footfall info FILE.bvh``: what a BVH file holds and how footfall reads it (and
``footfall info AVATAR.vrm|.glb|.gltf``: an avatar's skeleton, VRM meta and bone map)."""

from __future__ import annotations

import argparse
from collections import Counter

from footfall import bvh
from footfall.errors import BVHError
from footfall.skeleton import Clip

NAME = "info"
HELP = ("joints, frames, fps, duration, detected unit/up axis and standing height of a BVH "
        "file; title, authors, licence and bone map of a VRM avatar")
DESCRIPTION = (
    "Read a BVH file the way footfall does (unit and up axis detected unless given) and print "
    "its joint count and tree, frame count, frame rate, duration, the unit and up axis found, "
    "and the standing height in metres. A file with 'Frames: 0' holds a skeleton only: it is "
    "described with 0 frames (retarget --to and walk --skeleton take it; commands that need "
    "motion refuse it). For an avatar (.vrm, .glb, .gltf): the VRM meta (title, authors, "
    "licence), facing, joints and the humanoid bone map the file declares."
)
_AVATARS = (".glb", ".gltf", ".vrm")  # footfall.gltf.AVATAR_SUFFIXES


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
    parser.add_argument("file", help="the .bvh file (or a .vrm/.glb/.gltf avatar)")
    parser.add_argument(
        "--scale", type=_scale, default="auto", help="metres per file unit, or auto (default)"
    )
    parser.add_argument("--up", choices=("auto", "y", "z"), default="auto", help="file's up axis")
    parser.add_argument("--no-tree", action="store_true", help="do not print the joint tree")


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


def run(args: argparse.Namespace) -> int:
    """Print the description of ``args.file``; errors surface as :class:`BVHError` (or
    :class:`GLTFError` for avatars)."""
    if str(args.file).lower().endswith(_AVATARS):
        from footfall.gltf import load_avatar
        from footfall.gltf.describe import describe_avatar

        print(describe_avatar(load_avatar(args.file), tree=not args.no_tree))
        return 0
    if not str(args.file).lower().endswith(".bvh"):
        raise BVHError(f"{args.file}: footfall info reads .bvh files")
    clip, info = bvh.load(args.file, scale=args.scale, up=args.up, return_info=True)
    print(describe(clip, info, tree=not args.no_tree))
    return 0
