"""Dump what the retargeter computes, to show a refactor of it changes nothing, bit for bit.

Four shared clips (150 frames) × CesiumMan and vrm1_mtoon_uv_test, through ``Retargeter``'s
public API only (so it runs on any commit): ``apply`` (chunked), ``step`` frame by frame, the
source contacts, stance levels and limb weights; then a second retargeter calibrated from a frame,
with the filter and IK on and a given stance level, auto-calibrated, a hand pose, saved, loaded
into a third and applied and stepped again (with a stance level), its joint scales and props.
Writes every array to an .npz; with ``--against OLD.npz`` lists the arrays that differ (exact
comparison) and exits 1 if any do.

    PYTHONPATH=$PWD/src python tools/retarget_identical.py -o /tmp/main.npz     # on main
    PYTHONPATH=$PWD/src python tools/retarget_identical.py -o /tmp/new.npz --against /tmp/main.npz
"""

from __future__ import annotations

import argparse
import inspect
import sys
import tempfile
from pathlib import Path

import numpy as np

from footfall import bvh
from footfall.gltf import load_avatar
from footfall.retarget import Retargeter
from footfall.skinning import avatar_targets

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
CLIPS = ("cmu_131_01", "mocapbank_zxy_cm", "mixamo_stepping", "bvhio_example")
AVATARS = ("CesiumMan.glb", "vrm1_mtoon_uv_test.vrm")


def dump() -> dict[str, np.ndarray]:
    """Every array, by name."""
    out: dict[str, np.ndarray] = {}
    for name in CLIPS:
        clip = bvh.load(DATA / "bvh" / f"{name}.bvh")[:150]
        for avatar_name in AVATARS:
            avatar = load_avatar(DATA / "avatars" / avatar_name)
            mapping = avatar.target_mapping()

            def make(clip=clip, avatar=avatar, mapping=mapping) -> Retargeter:
                return Retargeter(clip.skeleton, avatar.skeleton, None, mapping,
                                  target_rest=avatar.rest_rotations,
                                  **avatar_targets(avatar, mapping))

            key = f"{name}-{avatar_name}"
            r = make()
            r.calibrate_for(clip)
            a = r.apply(clip, chunk=64)
            out[f"{key}-apply-rot"], out[f"{key}-apply-pos"] = a.rotations, a.positions
            out[f"{key}-contacts"] = r.source_contacts(clip)
            out[f"{key}-levels"] = r.stance_levels(clip)
            out[f"{key}-level"] = r.stance_level(clip)
            w = r.limb_weights(clip)
            out[f"{key}-w"] = np.concatenate([w.arms.ravel(), w.legs.ravel(), w.hips.ravel()])
            steps = [r.step(clip.rotations[f], clip.positions[f], 1.0 / clip.fps)
                     for f in range(clip.frame_count)]
            out[f"{key}-step-rot"] = np.array([s[0] for s in steps])
            out[f"{key}-step-pos"] = np.array([s[1] for s in steps])
            r2 = make()
            r2.calibrate_for(clip, min(10, clip.frame_count - 1))
            r2.settings.update({"filter_enabled": True, "ik_mode": "ik"})
            a2 = r2.apply(clip, stance_level=(0.01, 0.02))
            out[f"{key}-apply2-pos"], out[f"{key}-apply2-rot"] = a2.positions, a2.rotations
            scale = r2.auto_calibrate(clip.rotations[-1], clip.positions[-1])
            r2.set_hand_pose("rock")
            out[f"{key}-scale"] = np.array([scale, r2.settings["floor_height"], r2.size_ratio])
            with tempfile.TemporaryDirectory() as folder:
                r2.save("x", folder)
                r3 = make()
                r3.load("x", folder)
            a3 = r3.apply(clip)
            out[f"{key}-apply3-pos"], out[f"{key}-apply3-rot"] = a3.positions, a3.rotations
            given: dict[str, object] = {}
            if "stance_level" in inspect.signature(r3.step).parameters:
                given = {"stance_level": [0.01, 0.0]}
            else:  # before the live state was handed its stance level
                r3.live_stance_level = [0.01, 0.0]  # type: ignore[attr-defined]
            out[f"{key}-step3"] = np.array([
                np.concatenate([v.ravel() for v in r3.step(
                    clip.rotations[f], clip.positions[f], 1 / 30, timestamp=f / 30, **given)])
                for f in range(min(40, clip.frame_count))])
            out[f"{key}-joint-scales"] = r3.joint_scales()
            for prop, (p, q) in r3.prop_transforms(a3.rotations[:3], a3.positions[:3]).items():
                out[f"{key}-prop-{prop}"] = np.concatenate([p.ravel(), q.ravel()])
            print(key, flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True, help=".npz to write")
    parser.add_argument("--against", help="an earlier .npz to compare with")
    args = parser.parse_args()
    arrays = dump()
    np.savez(args.output, **arrays)  # type: ignore[arg-type]
    if args.against is None:
        return 0
    old = np.load(args.against)
    names = set(old) | set(arrays)
    differ = sorted(k for k in names if k not in old or k not in arrays
                    or old[k].shape != arrays[k].shape or not np.array_equal(old[k], arrays[k]))
    values = sum(a.size for a in arrays.values())
    print(f"{len(arrays)} arrays, {values} values; differing: {differ or 'none'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
