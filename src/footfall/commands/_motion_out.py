"""What the motion-writing commands (``ground``, ``retarget``, ``import``) share about their
output beyond the motion itself: the ``--root-motion``, ``--remove-heading`` and
``--contacts-out`` options; what they do is :mod:`footfall.motion_out` (re-exported here)."""

from __future__ import annotations

import argparse

from footfall.motion_out import (
    avatar_for,
    check_motion_out,
    extras_lines,
    joint_scales_for,
    root_motion_for,
    write_motion_extras,
)
from footfall.root_motion import MODES

__all__ = ["add_motion_out_arguments", "avatar_for", "check_motion_out", "extras_lines",
           "joint_scales_for", "root_motion_for", "write_motion_extras"]


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
