"""``footfall retarget``: motion capture (BVH) onto another skeleton or a glTF/GLB avatar."""

from __future__ import annotations

import argparse
from pathlib import Path

from footfall import bvh
from footfall.commands._motion_out import (
    add_motion_out_arguments,
    avatar_for,
    check_motion_out,
    joint_scales_for,
    root_motion_for,
    write_motion_extras,
)
from footfall.errors import SettingsError

NAME = "retarget"
HELP = "retarget a BVH motion onto another BVH skeleton or a glTF/GLB/VRM avatar"
DESCRIPTION = (
    "Map the motion of SOURCE.bvh onto the skeleton of --to (a .bvh file, a skinned "
    ".glb/.gltf avatar or a VRM 0.x/1.0 .vrm avatar) with seed 001's method: calibrated rotation "
    "offsets, spine and neck redistribution, hips from the leg-length difference, four-limb IK "
    "with automatic weights. Writes -o as BVH, or as GLB/glTF/VRM (the avatar's file with the "
    "animation replaced, which any glTF viewer plays), or as a VRM Animation (.vrma) for a VRM "
    "avatar. Bone names are matched automatically (a VRM file's own bone map is used as it is); "
    "--mapping / --target-mapping give a JSON file {canonical bone: joint} that overrides the "
    "guess. Nothing is written when anything fails."
)
_GLTF = (".glb", ".gltf", ".vrm")  # footfall.gltf.AVATAR_SUFFIXES
_MOTIONS = (".bvh", ".glb", ".gltf", ".vrm", ".vrma")
KERNELS = ("retarget",)  # compiled kernels made ready first (footfall.kernels): FK, IK, limbs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall retarget``."""
    parser.add_argument("source", help="the motion to retarget (.bvh)")
    parser.add_argument("--to", required=True, dest="target",
                        help="the target skeleton: a .bvh file, a skinned .glb/.gltf avatar "
                             "or a .vrm avatar")
    parser.add_argument("-o", "--output", required=True,
                        help="file to write: .bvh, or .glb/.gltf for a glTF target, "
                             ".vrm/.vrma for a VRM target")
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
                        help="calibrate from this frame of the source (or 'auto': its most "
                             "standing frame) instead of its rest pose; by default the rest "
                             "pose when it is a standing T/A/I-pose, else 'auto'")
    parser.add_argument("--preview", default=None, metavar="PNG",
                        help="also draw a contact sheet: the avatar from the side at six "
                             "moments with the floor line, the source skeleton beside it")
    add_motion_out_arguments(parser, "--floor-height")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Load, retarget, write; prints one summary line."""
    from tqdm import tqdm

    from footfall.contact_curves import retarget_contacts
    from footfall.gltf import check_motion_output, load_avatar, save_motion
    from footfall.retarget import Retargeter, RetargetSettings
    from footfall.sizes import check_size
    from footfall.skinning import avatar_targets

    output = Path(args.output)
    target_path = Path(args.target)
    glb_target = target_path.suffix.lower() in _GLTF
    if output.suffix.lower() not in _MOTIONS:
        raise SettingsError(f"-o {output}: write .bvh, .glb or .gltf (.vrm or .vrma for a VRM "
                            "avatar)")
    if output.suffix.lower() != ".bvh" and not glb_target:
        check_motion_output(output, None)  # raises: glTF/VRM output needs such an avatar
    if target_path.suffix.lower() not in (".bvh", *_GLTF):
        raise SettingsError(f"--to {target_path}: expected a .bvh, .glb, .gltf or .vrm file")
    if args.preview is not None:
        _check_preview(Path(args.preview))
    source = bvh.load(args.source)
    check_size(source, args.source, min_frames=1)  # the target may be a skeleton-only file
    avatar = load_avatar(target_path) if glb_target else None
    if output.suffix.lower() != ".bvh":
        check_motion_output(output, avatar)  # .vrm/.vrma: a VRM avatar
    check_motion_out(args, output, avatar)
    target_mapping = args.target_mapping or (avatar.target_mapping() if avatar else None)
    target = avatar.skeleton if avatar is not None else bvh.load(target_path).skeleton
    settings = RetargetSettings()
    settings.update({"ik_mode": args.ik, "floor_height": args.floor_height,
                     "avatar_scale": args.scale, "finger_copy": args.finger_copy})
    retargeter = Retargeter(source.skeleton, target, args.mapping, target_mapping,
                            settings=settings,
                            target_rest=None if avatar is None else avatar.rest_rotations,
                            **avatar_targets(avatar, target_mapping))
    calibrated = retargeter.calibrate_for(source, _frame(args.calibrate_frame))
    with tqdm(total=source.frame_count, unit="frame", disable=args.quiet,
              desc=f"retarget {Path(args.source).name}") as bar:
        clip = retargeter.apply(source, chunk=1024,
                                progress=lambda done: bar.update(done - bar.n))
    moved = root_motion_for(args, clip, floor=args.floor_height,
                            rest_rotations=None if avatar is None else avatar.rest_rotations)
    if output.suffix.lower() == ".bvh":
        bvh.save(moved.clip, output)
    else:
        assert avatar is not None  # glTF output needs a glTF avatar, checked above
        save_motion(avatar_for(args, avatar), moved.clip, output,
                    joint_scales=joint_scales_for(args, retargeter.joint_scales()),
                    root_scale=retargeter.avatar_scale)
    if args.preview:
        _preview(args.preview, source, clip, retargeter, avatar,
                 f"{Path(args.source).name} → {target_path.name}")
    print(f"wrote {output}: {clip.frame_count} frames at {clip.fps:g} fps, "
          f"{target.joint_count} joints, size ratio {retargeter.size_ratio:.3f}; {calibrated}")
    contacts = retarget_contacts(retargeter, source) if args.contacts_out else None
    write_motion_extras(args, output, moved, contacts, clip.fps)
    return 0


def _preview(path: str, source: object, clip: object, retargeter: object,
             avatar: object, title: str) -> None:
    """Draw the contact sheet of ``--preview`` (the skinned mesh when the avatar has one)."""
    from footfall.retarget.preview import contact_sheet
    from footfall.skinning import rest_mesh

    mesh = rest_mesh(avatar) if avatar is not None else None  # type: ignore[arg-type]
    contact_sheet(source, clip, path,  # type: ignore[arg-type]
                  mesh=None if mesh is None else (mesh[0], mesh[2]),
                  target_rest=None if avatar is None else avatar.rest_rotations,  # type: ignore[attr-defined]
                  planted=retargeter.source_contacts(source),  # type: ignore[attr-defined]
                  title=f"{title}: source (blue) → avatar, floor y = 0")
    print(f"wrote {path}")


def _frame(text: str | None) -> int | str | None:
    """``--calibrate-frame``: None, "auto" or a frame number."""
    if text is None or text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise SettingsError(f"--calibrate-frame {text!r}: calibration frame must be a frame "
                            f"number or 'auto'") from None


def _check_preview(path: Path) -> None:
    """``--preview``: a .png in a folder that exists, checked before any work."""
    if path.suffix.lower() != ".png":
        raise SettingsError(f"--preview {path}: the contact sheet is written as .png")
    if not path.parent.is_dir():
        raise SettingsError(f"--preview {path}: folder {path.parent} does not exist")
