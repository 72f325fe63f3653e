"""Figures for docs/walk.md: ``footfall walk --path circle`` and ``--path eight`` seen from above
on the flat floor, and a circle walk grounded on the stairs seen from above and from the side.

Everything drawn is read back from the BVH files the command line writes (forward kinematics of
the written clip), never from the walker's targets.

Run: ``.venv/bin/python docs/images/walk_paths_figure.py`` → ``docs/images/walk_top.png`` and
``docs/images/walk_stairs.png``; prints the figures quoted under the pictures. With ``--table``
it prints docs/walk.md's table of planted feet over stairs, rocks and hills instead.
"""

from __future__ import annotations

import contextlib
import io
import math
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from footfall import bvh, terrain  # noqa: E402
from footfall.cli import main  # noqa: E402
from footfall.gait import GaitParams, ProceduralWalker, WalkPath  # noqa: E402
from footfall.metrics import ground_gaps  # noqa: E402
from footfall.skeleton import Clip  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests"))  # the feet are measured as the tests do

from test_walk_paths import _support_points as feet_points  # noqa: E402

COLOURS = ("tab:blue", "tab:orange")  # left, right foot


def walk(*args: str, say: bool = True) -> Clip:
    """``footfall walk ARGS`` into a temporary file, read back (``say``: print its line)."""
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "walk.bvh")
        with contextlib.redirect_stdout(io.StringIO()) as said:
            if main(["walk", *args, "-o", out]) != 0:
                sys.exit(f"footfall walk {' '.join(args)} failed")
        if say:
            print(f"footfall walk {' '.join(args)}: "
                  f"{said.getvalue().split(': ', 1)[1].strip()}")
        return bvh.load(out)


def planted(points: np.ndarray, ground: terrain.Terrain | None) -> np.ndarray:
    """``(F, 2)`` a foot's toe tip is still (< 1 cm/s) and down: within 5 mm of its usual
    lowest height over the ground (the 5th percentile)."""
    toe = points[:, :, -1]
    speed = np.linalg.norm(np.gradient(toe[..., [0, 2]], axis=0), axis=-1) * 60
    height = toe[..., 1] if ground is None else ground_gaps(ground, toe)
    return (speed < 0.01) & (np.abs(height - np.nanpercentile(height, 5)) < 0.005)


def top_view(axis: plt.Axes, clip: Clip, radius: float, centres: list[tuple[float, float]],
             title: str, legend: str = "center", ground: terrain.Terrain | None = None) -> None:
    """The pelvis path, the requested circles, each planted foot (ankle → toe) from above."""
    hips = clip.global_positions()[:, clip.skeleton.index("Hips")]
    points = feet_points(clip)
    down = planted(points, ground)
    for cx, cz in centres:
        angle = np.linspace(0, 2 * math.pi, 200)
        axis.plot(cx + radius * np.cos(angle), cz + radius * np.sin(angle), color="0.6",
                  lw=1, ls="--")
    axis.plot(hips[:, 0], hips[:, 2], color="0.2", lw=1.2, label="pelvis path")
    for side, name in enumerate(("left", "right")):
        frames = np.nonzero(down[:, side])[0]
        for i, f in enumerate(frames[::6]):
            ankle, toe = points[f, side, 0], points[f, side, -1]
            axis.plot([ankle[0], toe[0]], [ankle[2], toe[2]], color=COLOURS[side], lw=2.5,
                      solid_capstyle="round", label=f"{name} foot planted" if i == 0 else None)
    thighs = clip.global_positions()[:, [clip.skeleton.index("LeftUpperLeg"),
                                         clip.skeleton.index("RightUpperLeg")]]
    for f in range(0, clip.frame_count, 60):  # the body's facing once a second
        left = thighs[f, 0] - thighs[f, 1]  # the body's left, twist (±6°) included
        facing = np.array([-left[2], left[0]]) / np.linalg.norm(left[[0, 2]])
        axis.annotate("", xy=(hips[f, 0] + 0.25 * facing[0], hips[f, 2] + 0.25 * facing[1]),
                      xytext=(hips[f, 0], hips[f, 2]),
                      arrowprops={"arrowstyle": "->", "color": "0.2", "lw": 1})
    axis.set_aspect("equal")
    axis.set_xlabel("x (m)")
    axis.set_ylabel("z (m)")
    axis.invert_yaxis()  # seen from above (+Y toward the viewer): x right, z down
    axis.set_title(title, fontsize=10)
    if legend == "outside":
        axis.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8)
    else:
        axis.legend(loc=legend, fontsize=8)


def inside_outside(clip: Clip, centre: tuple[float, float]) -> tuple[float, float, float, float]:
    """Median step of the (left, right) foot between its plants and the plants' mean radius."""
    points = feet_points(clip)
    down = planted(points, None)
    out = []
    for side in range(2):
        starts = np.nonzero(np.diff(down[:, side].astype(int)) == 1)[0] + 1
        places = points[starts + 5, side, -1][:, [0, 2]]
        out += [float(np.median(np.linalg.norm(np.diff(places, axis=0), axis=-1))),
                float(np.linalg.norm(places - centre, axis=-1).mean())]
    return out[0], out[2], out[1], out[3]


def main_figures() -> None:
    radius = 0.8
    circle = walk("--path", "circle", "--radius", str(radius), "--seconds", "10")
    eight = walk("--path", "eight", "--radius", str(radius), "--seconds", "20")
    figure, axes = plt.subplots(1, 2, figsize=(12, 5.6), gridspec_kw={"width_ratios": [1, 1.4]})
    top_view(axes[0], circle, radius, [(0.0, 0.0)],
             "footfall walk --path circle --radius 0.8 --seconds 10")
    top_view(axes[1], eight, radius, [(0.0, -radius), (0.0, radius)],
             "footfall walk --path eight --radius 0.8 --seconds 20", legend="outside")
    figure.tight_layout()
    figure.savefig(HERE / "walk_top.png", dpi=110)
    step_in, step_out, r_in, r_out = inside_outside(circle, (0.0, 0.0))
    print(f"circle 0.8 m: left (inside) step {1000 * step_in:.0f} mm on r {r_in:.3f} m, right "
          f"(outside) {1000 * step_out:.0f} mm on r {r_out:.3f} m; ratio {step_in / step_out:.3f}"
          f" vs radii {r_in / r_out:.3f}")
    hips = circle.global_positions()[:, circle.skeleton.index("Hips")]
    distance = np.linalg.norm(hips[:, [0, 2]], axis=-1)
    print(f"pelvis distance from the centre: {distance.min():.4f}–{distance.max():.4f} m")

    # Grounded on the stairs: from above over the terrain, and from the side.
    start_x, radius = 2.8, 1.2
    stairs = terrain.scene("stairs")
    on_stairs = walk("--path", "circle", "--radius", str(radius), "--terrain", "stairs",
                     "--start-x", str(start_x), "--seconds", "14")
    points = feet_points(on_stairs)
    down = planted(points, stairs)
    lowest = np.nanmin(points[..., 1], axis=-1)
    gaps = np.nanmin(ground_gaps(stairs, points), axis=-1)
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [1, 1.4]})
    x = np.linspace(start_x - 1.7, start_x + 1.7, 341)
    z = np.linspace(-1.7, 1.7, 341)
    grid = np.stack(np.meshgrid(x, z), axis=-1)
    image = axes[0].imshow(stairs.height(grid.reshape(-1, 2)).reshape(grid.shape[:2]),
                           extent=(x[0], x[-1], z[-1], z[0]), cmap="Greys", alpha=0.55)
    figure.colorbar(image, ax=axes[0], label="ground height (m)", shrink=0.8)
    top_view(axes[0], on_stairs, radius, [(start_x, 0.0)],
             "--path circle --radius 1.2 --terrain stairs --start-x 2.8", legend="center",
             ground=stairs)
    axes[0].set_xlim(x[0], x[-1])
    axes[0].set_ylim(z[-1], z[0])
    profile = np.linspace(start_x - 1.8, start_x + 1.8, 721)
    axes[1].fill_between(profile, stairs.height(np.stack([profile, 0 * profile], -1)), -0.05,
                         step=None, color="0.85", label="stairs (the same at every z)")
    hips = on_stairs.global_positions()[:, on_stairs.skeleton.index("Hips")]
    axes[1].plot(hips[:, 0], hips[:, 1], color="0.2", lw=1, label="pelvis")
    for side, name in enumerate(("left", "right")):
        axes[1].plot(points[:, side, -1, 0], lowest[:, side], color=COLOURS[side], lw=0.6,
                     alpha=0.6)
        axes[1].scatter(points[down[:, side], side, -1, 0], lowest[down[:, side], side], s=6,
                        color=COLOURS[side], label=f"{name} foot's lowest joint, planted")
    axes[1].set_xlabel("x (m)")
    axes[1].set_ylabel("height (m)")
    axes[1].set_ylim(-0.05, 1.4)
    axes[1].set_title("the same walk from the side (−Z)", fontsize=10)
    axes[1].legend(loc="upper right", fontsize=8)
    figure.tight_layout()
    figure.savefig(HERE / "walk_stairs.png", dpi=110)
    heights = stairs.height(points[..., 0, [0, 2]][down])
    print(f"stairs: {down.sum()} planted foot-frames over ground {heights.min():.2f}–"
          f"{heights.max():.2f} m; the lowest joint {1000 * np.median(gaps[down]):.1f} mm "
          f"(median) over the ground under it, 95 % within "
          f"{1000 * np.percentile(np.abs(gaps[down] - np.median(gaps[down])), 95):.1f} mm")


def stance_table() -> None:
    """Per skeleton, path and scene: each planted foot's lowest support joint over the ground
    under it, less the same joint's height over the floor in the walk the grounding was given
    (the walker on the flat floor reading the scene's slope), over the walker's stance frames;
    and the median horizontal speed of that joint in stance."""
    skeletons = {"bunny": None, "cmu_131_01": "tests/data/bvh/cmu_131_01.bvh"}
    print("| skeleton | path | scene | mean abs (mm) | 95 % (mm) | max (mm) "
          "| stance speed median (mm/s) |")
    print("|---|---|---|---|---|---|---|")
    for name, file in skeletons.items():
        extra = ["--skeleton", file] if file else []
        skeleton = bvh.load(file).skeleton if file else None
        for kind, radius in (("straight", 0.0), ("circle", 1.2), ("eight", 0.8)):
            for scene in ("stairs", "rocks", "hills"):
                ground = terrain.scene(scene)
                start_x = 0.5 if kind == "straight" else 2.8
                args = [*extra, "--terrain", scene, "--start-x", str(start_x), "--seconds", "8"]
                path = WalkPath()
                if kind != "straight":
                    args += ["--path", kind, "--radius", str(radius)]
                    path = WalkPath(kind, radius)
                clip = walk(*args, say=False)
                walker = ProceduralWalker(skeleton, params=GaitParams(), path=path,
                                          start=path.start_for((start_x, 0.0, 0.0)),
                                          flat_floor=True)
                if path.straight:  # as footfall walk does on a scene
                    (x_min, _), (x_max, _) = ground.bounds
                    margin = 2.0 * walker.step_length + walker.leg_length
                    walker.patrol(x_min + margin, x_max - margin)
                frames = walker.generate(8.0, ground)
                stance = np.stack([f.stance[0] for f in frames])
                source = feet_points(walker.to_clips(frames)[0])
                points = feet_points(clip)
                under = np.nanmin(ground_gaps(ground, points), axis=-1)
                offsets = np.abs(under - np.nanmin(source[..., 1], axis=-1))[stance]
                lowest = np.nanargmin(points[1:, ..., 1], axis=-1)
                moved = np.take_along_axis(np.diff(points, axis=0), lowest[..., None, None],
                                           axis=2)[:, :, 0]
                speed = np.linalg.norm(moved[..., [0, 2]], axis=-1) * 60
                both = stance[1:] & stance[:-1]
                label = f"{kind} {radius:g}" if radius else kind
                print(f"| {name} | {label} | {scene} | {1000 * offsets.mean():.1f} "
                      f"| {1000 * np.percentile(offsets, 95):.1f} | {1000 * offsets.max():.1f} "
                      f"| {1000 * np.median(speed[both]):.1f} |")


if __name__ == "__main__":
    if "--table" in sys.argv[1:]:
        stance_table()
    else:
        main_figures()
