"""Picture for docs/live.md: CesiumMan and RobotExpressive grounded live on the stairs.

Run: ``.venv/bin/python docs/images/live_terrain_figure.py`` →
``docs/images/live_terrain_avatars.png``. The live loop of ``footfall live --terrain stairs``
fed games105_walk60 turned a quarter so its walk crosses the stairs (as
``tests/test_live_terrain_avatars.py`` does); each panel shows the skinned avatar from the side
(x → right, y up) on the stairs' profile, its foot vertices red, with each foot's closest
vertex to the ground under it and whether the source's foot is planted there.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from footfall import bvh, quat  # noqa: E402
from footfall.live.ground import LiveGrounder  # noqa: E402
from footfall.live.loop import LiveLoop, load_target  # noqa: E402
from footfall.live.sources import LiveFrame, ReplaySource  # noqa: E402
from footfall.retarget.preview import skin_vertices  # noqa: E402
from footfall.skeleton import Clip, forward_kinematics  # noqa: E402
from footfall.skinning import FOOT_WEIGHT, rest_mesh  # noqa: E402
from footfall.terrain import scene  # noqa: E402
from footfall.terrain.profiles import stair_profile  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from skinned_feet import source_contacts  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
OUT = Path(__file__).resolve().parent / "live_terrain_avatars.png"
NAMES = ("CesiumMan", "RobotExpressive")
MOMENTS = {"CesiumMan": (40, 80, 120, 160), "RobotExpressive": (30, 70, 110, 150)}


def main() -> None:
    walk = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    planted = source_contacts(walk)
    turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.pi / 2)
    rotations, positions = walk.rotations.copy(), walk.positions.copy()
    rotations[:, 0] = quat.mul(turn, rotations[:, 0])
    positions[:, 0] = quat.rotate(turn, positions[:, 0])
    clip = Clip(walk.skeleton, rotations, positions, walk.fps)
    terrain = scene("stairs")
    targets = [load_target(DATA / "avatars" / f"{name}.glb") for name in NAMES]
    with tempfile.TemporaryDirectory() as settings:
        loop = LiveLoop(ReplaySource(clip), targets, settings={"filter_enabled": False},
                        settings_folder=Path(settings))
        loop.grounder = LiveGrounder(terrain)
        poses: dict[str, list] = {name: [] for name in NAMES}
        for f in range(clip.frame_count):
            loop.process(LiveFrame(f, f / clip.fps, clip.rotations[f], clip.positions[f],
                                   time.perf_counter(), 1))
            for name in NAMES:
                poses[name].append(loop._characters[name].pose)
    x, y, _ = stair_profile(1.0, 5, 0.15, 0.30, 1.2)
    x, y = np.concatenate([[-2.0], x, [6.0]]), np.concatenate([[0.0], y, [0.0]])
    fig, axes = plt.subplots(2, 4, figsize=(13, 7.4))
    for row, (name, spec) in enumerate(zip(NAMES, targets, strict=True)):
        skeleton = spec.skeleton
        bones = loop._characters[name].retargeter.target_map
        vertices, _, weights = rest_mesh(spec.avatar)
        rest_world, rest_positions = forward_kinematics(skeleton.parents, spec.rest,
                                                        skeleton.offsets)
        sides = []
        for bone in ("LeftFoot", "RightFoot"):
            foot = skeleton.index(bones[bone])
            below = [j for j in range(skeleton.joint_count) if foot in skeleton.chain(j)]
            sides.append(weights[:, below].sum(axis=1) >= FOOT_WEIGHT)
        feet = sides[0] | sides[1]
        for ax, f in zip(axes[row], MOMENTS[name], strict=True):
            local, translations = poses[name][f]
            world, joints = forward_kinematics(skeleton.parents, local, translations)
            posed = skin_vertices(vertices, weights, rest_world, rest_positions, world, joints)
            ax.fill_between(x, y, -0.3, color="0.85", step=None)
            ax.plot(x, y, color="k", lw=0.8)
            ax.scatter(posed[~feet, 0], posed[~feet, 1], s=0.1, c="0.6")
            ax.scatter(posed[feet, 0], posed[feet, 1], s=0.3, c="tab:red")
            # Each foot's closest vertex to the ground under it (a foot resting on a stair's
            # nose, its heel over the tread below, is on the ground).
            gaps = [float(np.min(posed[side, 1]
                                 - terrain.raycast_down(posed[side][:, [0, 2]]).height))
                    for side in sides]
            centre = float(np.median(posed[:, 0]))
            tall = float(np.ptp(posed[:, 1]))
            ax.set_xlim(centre - 0.5 * tall - 0.2, centre + 0.5 * tall + 0.2)
            ax.set_ylim(-0.1, tall + 1.0)
            ax.set_aspect("equal")
            marks = [" (planted)" if planted[f, side] else "" for side in range(2)]
            ax.set_title(f"{name} frame {f}, above the ground:\nleft {gaps[0] * 100:+.1f} cm"
                         f"{marks[0]}, right {gaps[1] * 100:+.1f} cm{marks[1]}", fontsize=8)
            ax.tick_params(labelsize=7)
    fig.suptitle("footfall live --terrain stairs: skinned avatars (feet red) on the stairs "
                 "profile, side view", fontsize=10)
    fig.tight_layout()
    fig.savefig(OUT, dpi=90)
    print(OUT)


if __name__ == "__main__":
    main()
