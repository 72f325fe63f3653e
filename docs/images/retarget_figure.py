"""Before/after picture for docs/retarget.md: a real walk retargeted onto both glTF avatars.

Run: ``.venv/bin/python docs/images/retarget_figure.py`` → ``docs/images/retarget_walk.png``,
and prints the contact and skate figures quoted in the note.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from footfall import bvh  # noqa: E402
from footfall.gltf import load_avatar  # noqa: E402
from footfall.metrics import gmd_foot_skate_ratio  # noqa: E402
from footfall.retarget import Retargeter  # noqa: E402
from footfall.retarget.toes import Toes  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
OUT = Path(__file__).resolve().parent / "retarget_walk.png"


def lowest_foot(positions, skeleton, mapping, measures, toes: bool = True) -> np.ndarray:
    """Lowest foot point (ankle, or toe with ``toes``) above its standing height, ``(F, 2)``."""
    ankles = positions[:, [skeleton.index(mapping[b]) for b in ("LeftFoot", "RightFoot")], 1]
    heights = ankles - measures.ankle_height
    if toes and "LeftToes" in mapping:
        toes = positions[:, [skeleton.index(mapping[b]) for b in ("LeftToes", "RightToes")], 1]
        heights = np.minimum(heights, toes - measures.toe_height)
    return heights


def gmd_ratio(clip, mapping) -> float:
    """GMD's foot-skate ratio at the clip's toe points (``retarget/toes.py``; the ankles of a rig
    without any, RobotExpressive), its floor at the lowest of them and the joints."""
    positions = clip.global_positions()
    toes = Toes.of(clip.skeleton, mapping)
    if toes is None:
        feet = [clip.skeleton.index(mapping[b]) for b in ("LeftFoot", "RightFoot")]
        return gmd_foot_skate_ratio(positions, clip.fps, *feet)
    points = toes.positions(clip.global_rotations(), positions)
    joints = positions.shape[1]
    return gmd_foot_skate_ratio(np.concatenate([positions, points], axis=1), clip.fps,
                                joints, joints + 1)


def draw(axis, positions, parents, frames, colour, title, hips: int = 0) -> None:
    """Stick figures; bones hanging from a root other than the hips (IK helpers, feet of
    RobotExpressive's IK rig, which hang from the floor-level root) are not drawn."""
    for f in frames:
        for j, p in enumerate(parents):
            if p >= 0 and (parents[p] >= 0 or p == hips):
                axis.plot(positions[f, [p, j], 2], positions[f, [p, j], 1], color=colour, lw=1.2)
    axis.axhline(0.0, color="0.4", lw=0.8)
    axis.set_aspect("equal")
    axis.set_title(title, fontsize=10)
    axis.set_xlabel("z (m, walking direction)")


def main() -> None:
    source = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    gs = source.global_positions()
    frames = list(range(0, source.frame_count, 30))
    fig, axes = plt.subplots(2, 2, figsize=(13, 8))
    draw(axes[0, 0], gs, source.skeleton.parents, frames, "tab:blue",
         "before: GAMES-105 walk (BVH, 20 joints)")
    axes[0, 0].set_ylabel("y (m)")
    curves = []
    for axis, name, colour in ((axes[0, 1], "CesiumMan", "tab:orange"),
                               (axes[1, 0], "RobotExpressive", "tab:green")):
        avatar = load_avatar(DATA / "avatars" / f"{name}.glb")
        r = Retargeter(source.skeleton, avatar.skeleton, target_rest=avatar.rest_rotations)
        out = r.apply(source)
        gt = out.global_positions()
        draw(axis, gt, avatar.skeleton.parents, frames, colour,
             f"after: {name}.glb ({avatar.skeleton.joint_count} joints, size ×{r.size_ratio:.2f})",
             hips=r.correspondence.hips[0])
        toes = "LeftToes" in r.target_map  # compare the same foot points on both sides
        low_s = lowest_foot(gs, source.skeleton, r.source_map, r.source_measures, toes)
        low_t = lowest_foot(gt, avatar.skeleton, r.target_map, r.target_measures, toes)
        contact = low_s < np.percentile(low_s, 5) + 0.02
        skate_s = gmd_ratio(source, r.source_map)
        skate_t = gmd_ratio(out, r.target_map)
        print(f"{name}: size ratio {r.size_ratio:.3f}, contact error "
              f"{np.mean(np.abs(low_t - low_s)[contact]) * 1000:.1f} mm over "
              f"{contact.mean():.0%} of foot-frames, GMD's foot-skate ratio {skate_s:.3f} → "
              f"{skate_t:.3f}, NaN: {bool(np.isnan(gt).any())}")
        ankle_t = lowest_foot(gt, avatar.skeleton, r.target_map, r.target_measures, toes=False)
        curves.append((name, colour, ankle_t[:, 0]))
    time = np.arange(source.frame_count) / source.fps
    itself = Retargeter(source.skeleton, source.skeleton)
    low_source = lowest_foot(gs, source.skeleton, itself.source_map, itself.source_measures,
                             toes=False)
    axis = axes[1, 1]
    axis.plot(time, low_source[:, 0], color="tab:blue", lw=2.5, label="source (BVH)")
    for name, colour, curve in curves:
        axis.plot(time, curve, color=colour, lw=1.2, label=name)
    axis.set_title("left ankle above its standing height (flat parts: foot planted)",
                   fontsize=10)
    axis.set_xlabel("time (s)")
    axis.set_ylabel("m")
    axis.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
