"""What the motion-writing commands (``ground``, ``retarget``, ``import``) share about their
output beyond the motion itself: ``--root-motion`` (:mod:`footfall.root_motion`) applied just
before the clip is saved, and ``--contacts-out`` (:mod:`footfall.contact_curves`) written just
after."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from numpy.typing import ArrayLike

from footfall.errors import SettingsError
from footfall.root_motion import MODES, RootMotion, apply_root_motion, track_path
from footfall.skeleton import Clip


def add_motion_out_arguments(parser: argparse.ArgumentParser, floor: str) -> None:
    """Add ``--root-motion``, ``--remove-heading`` and ``--contacts-out``; ``floor`` says where
    the extracted root stands in this command."""
    parser.add_argument(
        "--root-motion", choices=MODES, default="keep",
        help="keep: the hips carry the travel (default); in-place: take the horizontal path "
             "out (the hips stay over the origin; with --remove-heading they also face +Z) and "
             "write it beside -o as OUT.root.csv (frame,time,x,y,z,heading); extract: add a "
             f"bone 'root' above the hips at {floor} carrying the hips' x, z and heading about "
             "Y, as Unreal and Unity expect (the hips keep the rest; not into a VRM). World "
             "poses, and so the planted feet, do not change")
    parser.add_argument("--remove-heading", action="store_true",
                        help="with --root-motion in-place: take the heading out too")
    parser.add_argument(
        "--contacts-out", action="store_true",
        help="write the foot contacts as curves contact_l, contact_r (0/1) and weight_l, "
             "weight_r (smooth, 0–1): into a glTF/GLB/VRM output as the animated morph-target "
             "weights of a node 'footfall_contacts' (Blender: shape keys; also in the node's "
             "extras), else beside -o as OUT.contacts.csv "
             "(frame,time,contact_l,contact_r,weight_l,weight_r)")


def check_motion_out(args: argparse.Namespace, output: str | Path,
                     avatar: Any = None) -> None:
    """Refuse, before any work, what the options cannot do: ``--remove-heading`` without
    in-place; ``extract`` into a VRM file or VRM Animation (a VRM humanoid starts at its hips:
    no bone above them). ``avatar``: the glTF avatar the output is written into, if any."""
    if args.remove_heading and args.root_motion != "in-place":
        raise SettingsError("--remove-heading goes with --root-motion in-place")
    vrm = Path(output).suffix.lower() in (".vrm", ".vrma") or (
        avatar is not None and getattr(avatar, "vrm", None) is not None)
    if args.root_motion == "extract" and vrm:
        raise SettingsError(f"-o {output}: --root-motion extract adds a root bone above the "
                            "hips, which a VRM humanoid cannot take; write .bvh or .glb, or "
                            "use --root-motion in-place")


def avatar_for(args: argparse.Namespace, avatar: Any) -> Any:
    """The avatar to write an ``extract`` clip into: ``avatar`` with the root bone added
    (:func:`footfall.gltf.root_bone.with_root_bone`); otherwise ``avatar`` itself."""
    if avatar is None or args.root_motion != "extract":
        return avatar
    from footfall.gltf.root_bone import with_root_bone
    from footfall.root_motion import root_name

    return with_root_bone(avatar, root_name(avatar.skeleton))


def joint_scales_for(args: argparse.Namespace, scales: Any) -> Any:
    """Per-joint scales ``(J,)`` for the written skeleton (the added root: 1)."""
    if scales is None or args.root_motion != "extract":
        return scales
    import numpy as np

    return np.concatenate([[1.0], np.asarray(scales, dtype=np.float64)])


def root_motion_for(args: argparse.Namespace, clip: Clip, *, floor: float = 0.0,
                    rest_rotations: ArrayLike | None = None) -> RootMotion:
    """The clip to save under ``--root-motion`` (extracted root at ``floor`` metres; headings
    measured from ``rest_rotations``, a glTF avatar's local rest rotations when the clip is
    one's)."""
    return apply_root_motion(clip, args.root_motion, floor=floor, heading=args.remove_heading,
                             rest_rotations=rest_rotations)


def write_motion_extras(args: argparse.Namespace, output: str | Path, moved: RootMotion,
                        contacts: Any, fps: float, *, quiet: bool = False) -> list[Path]:
    """After the motion is saved to ``output``: the in-place track (``OUT.root.csv``) and,
    with ``--contacts-out``, the contact curves of ``contacts (F, 2)``; returns the files
    written (each printed "wrote …" unless ``quiet``)."""
    from footfall.contact_curves import contact_curves, write_contacts
    from footfall.root_motion import write_track_csv

    written = []
    if moved.track is not None:
        path = track_path(output)
        write_track_csv(moved.track, path)
        written.append(path)
    if args.contacts_out:
        written.append(write_contacts(output, contact_curves(contacts, fps)))
    for path in [] if quiet else written:
        if Path(path) != Path(output):
            print(f"wrote {path}")
        else:
            print(f"wrote contact curves into {path}")
    return written
