"""Draw cmu_01_01's left leg from the side at four frames of the stance whose toe the source
bends through its floor, before and after ``footfall ground --terrain level`` (the floor in
green): ``docs/images/toe_bend_cmu_01_01.png``.

    PYTHONPATH=src .venv/bin/python tools/toe_bend_plot.py docs/images/toe_bend_cmu_01_01.png
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from footfall import bvh, quat  # noqa: E402
from footfall.footing.foot_model import calibration_frames  # noqa: E402
from footfall.grounding.clip import animation_floor, ground_clip  # noqa: E402
from footfall.terrain import LevelGround  # noqa: E402

CLIP = (Path(__file__).resolve().parent.parent / "tests" / "data" / "bvh"
        / "cmu_01_01_fairmotion.bvh")
FRAMES = (2011, 2023, 2029, 2035)  # of the motion (the file's frame 0, a T-pose, left out)
LEG = ("LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase")


def main(argv: list[str]) -> int:
    """Ground the clip on level ground at its own floor and write the picture to ``argv[0]``."""
    out_path = Path(argv[0]) if argv else Path("toe_bend_cmu_01_01.png")
    clip = bvh.load(CLIP)
    source = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    floor = animation_floor(source)
    grounded = ground_clip(source, LevelGround(floor), place=False).clip
    names = source.skeleton.names
    chain = [names.index(joint) for joint in LEG]
    toe, site = chain[-1], source.skeleton.end_sites[chain[-1]]
    fig, axes = plt.subplots(1, len(FRAMES), figsize=(16, 5), sharey=True)
    for ax, frame in zip(axes, FRAMES, strict=True):
        for motion, colour, label in ((source, "tab:red", "source"),
                                      (grounded, "tab:blue", "grounded (level)")):
            rotations, positions = motion.forward_kinematics()
            points = np.vstack([positions[frame, chain],
                                positions[frame, toe] + quat.rotate(rotations[frame, toe], site)])
            ahead = points[-1] - points[2]
            ahead[1] = 0.0
            ahead /= np.linalg.norm(ahead)
            ax.plot((points - points[2]) @ ahead * 100, (points[:, 1] - floor) * 100, "o-",
                    color=colour, label=label)
        ax.axhline(0.0, color="green", lw=2)
        ax.set_title(f"motion frame {frame}")
        ax.set_xlim(-15, 25)
        ax.set_ylim(-8, 30)
        ax.set_aspect("equal")
        ax.set_xlabel("cm along the foot")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("cm over the floor")
    axes[0].legend()
    fig.suptitle("cmu_01_01, left foot on level ground: the toe the source bends through the "
                 "floor, turned back up by its toe joint")
    fig.savefig(out_path, dpi=80, bbox_inches="tight")
    print(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
