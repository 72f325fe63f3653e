"""How often clip grounding's contacts (``footfall ground``, ``measure``, ``import``: the
contacts found in a clip's motion) agree with the retargeter's (``Retargeter.source_contacts``)
on every shared clip x avatar, frame by frame (both feet), over the clip's motion frames.

    PYTHONPATH=src python tools/contact_agreement.py [--avatars A.glb ...] [--clips NAME ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from footfall import bvh
from footfall.contact_curves import clip_contacts
from footfall.footing.foot_model import calibration_frames
from footfall.gltf import load_avatar
from footfall.retarget import Retargeter
from footfall.skinning import avatar_targets

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
AVATARS = ["CesiumMan.glb", "RobotExpressive.glb", "vrm1_debug_robot.vrm",
           "vrm1_mtoon_uv_test.vrm"]
NOT_HUMANOID = "pybvh_rotation_first_root.bvh"


def retarget_contacts(clip: bvh.Clip, name: str) -> np.ndarray:
    """``(F, 2)`` the retargeter's source contacts of ``clip`` onto avatar ``name``, calibrated
    as the command does."""
    avatar = load_avatar(DATA / "avatars" / name)
    mapping = avatar.target_mapping()
    r = Retargeter(clip.skeleton, avatar.skeleton, None, mapping,
                   target_rest=avatar.rest_rotations, **avatar_targets(avatar, mapping))
    r.calibrate_for(clip)
    return np.asarray(r.source_contacts(clip), dtype=bool)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--avatars", nargs="*", default=AVATARS)
    parser.add_argument("--clips", nargs="*", default=None, help="clip stems (default: all)")
    args = parser.parse_args(argv)
    paths = [p for p in sorted((DATA / "bvh").glob("*.bvh")) if p.name != NOT_HUMANOID
             and (args.clips is None or p.stem in args.clips)]
    print(f"{'clip':26s} {'contacts %':>10s} " + " ".join(f"{a[:18]:>18s}" for a in args.avatars))
    for path in paths:
        clip = bvh.load(path)
        motion = ~calibration_frames(clip.rotations, clip.skeleton.parents)
        found = clip_contacts(clip)
        row = []
        for name in args.avatars:
            theirs = retarget_contacts(clip, name)
            row.append(100.0 * float(np.mean(found[motion] == theirs[motion])))
        print(f"{path.stem:26s} {100 * found[motion].mean():10.1f} "
              + " ".join(f"{v:18.1f}" for v in row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
