"""Side views for docs/experiment.md (issue 25): a walk grounded on the stairs, straight and bent
into a circle; per foot, along the distance the foot travels, the terrain straight under it, the
grounded foot's lowest joint or toe tip, the source's over its floor put on the ground blended
from lift-off to touch-down, and the planted frames.

Run: ``.venv/bin/python docs/images/ground_side_view.py`` → ``docs/images/ground_side_straight.png``
and ``docs/images/ground_side_turning.png``; prints the figures quoted under the pictures.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from footfall import bvh  # noqa: E402
from footfall.grounding.clip import ground_clip, prepare_clip  # noqa: E402
from footfall.grounding.clip.placement import along_x, place_clip, terrain_for_clip  # noqa: E402
from footfall.footing.foot_model import legs_of  # noqa: E402
from footfall.metrics import ground_gaps  # noqa: E402
from footfall.metrics.swing import blend_across_swings  # noqa: E402
from footfall.skeleton import Clip  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))  # the turning walk is the tests' own

from test_grounding_floor import _bent  # noqa: E402

CLIP = ROOT / "tests" / "data" / "bvh" / "games105_walk60.bvh"


def side_view(clip: Clip, title: str, out: Path) -> None:
    """Ground ``clip`` on the stairs and draw both feet's side views into ``out``."""
    terrain = terrain_for_clip("stairs", clip)
    placed = place_clip(clip, terrain)
    result = ground_clip(placed, terrain, place=False)
    prepared = prepare_clip(placed, legs_of(clip.skeleton))
    source, solved = prepared.feet, prepared.feet_of(result.clip)
    # the joints a foot stands on (ankle, ball, toe tips: joints and End Sites, no modelled
    # sole): the lowest of them, and every sole sample and touch point for the clearance
    points = np.concatenate([solved.ankle[:, :, None], solved.touch[:, :, 1:]], axis=2)
    source_points = np.concatenate([source.ankle[:, :, None], source.touch[:, :, 1:]], axis=2)
    lowest = np.nanmin(points[..., 1], axis=-1)  # (F, 2) world height
    whole = np.concatenate([solved.sole, solved.touch], axis=2)
    animated = np.concatenate([source.sole, source.touch], axis=2)[..., 1] - prepared.floor
    clearance = np.nanmin(ground_gaps(terrain, whole) - np.minimum(animated, 0.0), axis=-1)
    gaps = np.nanmin(ground_gaps(terrain, points), axis=-1)
    # the source's lowest joint over its floor, on the ground the foot stands on when planted
    # (the grounded foot's lowest joint less its height over the floor in the source), blended
    # from lift-off to touch-down in the swings
    over_floor = np.nanmin(source_points[..., 1], axis=-1) - prepared.floor
    stood = blend_across_swings(np.where(result.contacts, lowest - over_floor, 0.0),
                                result.contacts, source.ankle)
    figure, axes = plt.subplots(2, 1, figsize=(11, 6.2), sharex=False)
    for foot, (axis, name) in enumerate(zip(axes, ("left", "right"), strict=True)):
        track = solved.ball[:, foot][:, [0, 2]]
        distance = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(track, axis=0),
                                                                   axis=-1))])
        # the terrain under the foot, sampled every 5 mm along its track
        dense = np.arange(0.0, distance[-1], 0.005)
        xz = np.stack([np.interp(dense, distance, track[:, k]) for k in range(2)], axis=-1)
        ground = np.asarray(terrain.height(xz), dtype=float)
        axis.fill_between(dense, ground, ground.min() - 0.05, color="0.85",
                          label="terrain under the foot's ball")
        axis.plot(dense, ground, color="0.35", lw=1.0)
        axis.plot(distance, stood[:, foot] + over_floor[:, foot], color="tab:orange", lw=1.4,
                  ls="--",
                  label="source: lowest joint over its floor, on the blended ground")
        axis.plot(distance, stood[:, foot], color="tab:orange", lw=0.8, ls=":",
                  label="blended ground (lift-off → touch-down)")
        axis.plot(distance, lowest[:, foot], color="tab:blue", lw=1.6,
                  label="grounded: lowest joint or toe tip of the foot")
        planted = result.contacts[:, foot]
        axis.scatter(distance[planted], lowest[planted, foot], s=6, color="tab:green",
                     zorder=3, label="planted frames")
        axis.set_ylabel(f"{name} foot: height (m)")
        axis.set_ylim(ground.min() - 0.05, max(ground.max(), lowest[:, foot].max()) + 0.08)
        print(f"{out.name} {name}: least swing clearance (sole and touch points, beyond the "
              f"source's own dip under its floor) {1000 * clearance[~planted, foot].min():.1f} mm;"
              f" planted lowest joint over the terrain {1000 * gaps[planted, foot].mean():.1f} mm"
              f" (source over its floor {1000 * over_floor[planted, foot].mean():.1f} mm)")
    axes[-1].set_xlabel("distance travelled by the foot's ball (m)")
    axes[0].legend(loc="upper left", fontsize=7, ncol=2)
    lifts = ", ".join(f"{s['foot'][0]}{s['frames'][0]}: {1000 * s['lift_m']:.0f}"
                      for s in result.swings)
    figure.suptitle(f"{title} — lift per swing (mm): {lifts}", fontsize=9)
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    plt.close(figure)
    print(f"{out.name}: stance height {1000 * result.after['stance_height_error_m']:.1f} mm, "
          f"swings {result.swings}")


def main() -> int:
    walk = along_x(bvh.load(CLIP))
    side_view(walk, "games105_walk60 on the stairs, straight", HERE / "ground_side_straight.png")
    side_view(_bent(walk, 1.2), "games105_walk60 bent into a 1.2 m circle, on the stairs",
              HERE / "ground_side_turning.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
