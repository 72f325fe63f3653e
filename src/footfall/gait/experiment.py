"""Seed 002's stairs experiment in metres and 3D, plus a slope scenario for foot alignment.

Stairs up 5, a landing, down 5; 20 s at 60 Hz; step heights swept. Walkers: ``no_ik`` (the body
follows the ground under it, legs play the flat walk), ``all_on`` and one ablation per stage,
measured on the solved soles in stance (:func:`sole_samples`). The bunny walks the heights
scaled by its leg over a 0.80 m human leg (:data:`HUMAN_LEG`); treads, landing and stride scale
with each character's leg. All walkers and scenarios of one character run in one batch, each
scenario's terrain in its own lane along z (:class:`LaneTerrain`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from footfall import metrics
from footfall.bunny import PROPORTIONS, bunny_skeleton
from footfall.footing.foot_model import sole_world
from footfall.gait.stepping import StepWalker
from footfall.grounding import GroundingParams
from footfall.skeleton import Skeleton
from footfall.terrain import scene
from footfall.terrain.lanes import LANE_WIDTH, LaneTerrain

STEP_HEIGHTS = (0.05, 0.10, 0.15, 0.20, 0.25)
#: Each walker's (ik on, grounding parameters): IK off, everything on, one stage off each.
SETUPS = {
    "no_ik": (False, GroundingParams()),
    "all_on": (True, GroundingParams()),
    "no_tread_snap": (True, GroundingParams().without("tread_snap")),
    "no_hips": (True, GroundingParams().without("hips")),
    "no_foot_align": (True, GroundingParams().without("foot_align")),
}
WALKERS = tuple(SETUPS)
SLOPES = ("slope_up", "slope_down", "slope_sideways")
SLOPE_DEG = 12.0
HUMAN_LEG = 0.80  # the leg the swept step heights are meant for (CMU subject 131)
DURATION = 20.0
FPS = 60.0
BLOCK = 30  # frames per batched pipeline call


@dataclass(frozen=True)
class Character:
    """A walking test character: its name and skeleton (legs found by the walker)."""

    name: str
    skeleton: Skeleton


def humanoid(path: str | Path) -> Character:
    """A humanoid from a BVH file, its rest pose stood up if it lies (``humanoid.stood_up``)."""
    from footfall import bvh
    from footfall.humanoid import map_skeleton, stood_up

    skeleton = bvh.load(path).skeleton
    return Character(f"humanoid:{Path(path).stem}",
                     stood_up(skeleton, map_skeleton(skeleton).mapping))


def _scenarios(scale: float, height_scale: float, heights: Sequence[float]) -> list[dict]:
    """Terrains of one run: stairs per step height, then the three slopes."""
    out = []
    for nominal in heights:
        terrain = scene(
            "stairs", step_height=nominal * height_scale, tread_depth=0.30 * scale,
            landing=1.2 * scale, start=1.0 * scale, length=32.0 * max(scale, 1.0),
        )
        out.append({"kind": "stairs", "nominal": nominal, "terrain": terrain,
                    "start": -0.5 * scale, "end": terrain.params["stairs_end"] + 1.0 * scale})
    for name in SLOPES:
        if name == "slope_sideways":
            terrain = scene("slope", angle_deg=SLOPE_DEG, sideways=True, width=LANE_WIDTH)
        else:
            angle = SLOPE_DEG if name == "slope_up" else -SLOPE_DEG
            length = 32.0 * max(scale, 1.0)
            terrain = scene("slope", angle_deg=angle, start=1.0 * scale, length=length)
        out.append({"kind": name, "nominal": 0.0, "terrain": terrain,
                    "start": -0.5 * scale, "end": 6.0 * scale})
    return out


def run_character(character: Character, heights: Sequence[float] = STEP_HEIGHTS,
                  duration: float = DURATION, reference_leg: float | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  ) -> tuple[list[dict], list[dict]]:
    """Walk every walker over every scenario; returns (stairs rows, slope rows). Heights are
    scaled by the character's leg over ``reference_leg`` (None: heights as given)."""
    probe = StepWalker(character.skeleton, scene("flat"), 1)
    leg = probe.leg_length
    scale = leg / PROPORTIONS.leg_length
    height_scale = 1.0 if reference_leg is None else leg / reference_leg
    scenarios = _scenarios(scale, height_scale, heights)
    lanes = LaneTerrain([s["terrain"] for s in scenarios])
    count = len(scenarios) * len(WALKERS)
    lane = np.repeat(np.arange(len(scenarios)), len(WALKERS))
    which = np.tile(np.arange(len(WALKERS)), len(scenarios))
    setups = [SETUPS[WALKERS[w]] for w in which]
    start = np.array([scenarios[i]["start"] for i in lane])
    end = np.array([scenarios[i]["end"] for i in lane])
    walker = StepWalker(character.skeleton, lanes, count, params=[s[1] for s in setups],
                        ik=[s[0] for s in setups], lateral_z=lane * LANE_WIDTH, start_x=start,
                        speed=(end - start) / duration)
    frames = int(round(duration * FPS))
    pipe = walker.pipeline
    feet = np.array([leg.foot for leg in pipe.legs])
    record = []
    for done in range(0, frames, BLOCK):  # BLOCK frames a batched call (the same as one by one)
        size = min(BLOCK, frames - done)
        block = walker.step_frames(1.0 / FPS, size)
        assert block.plant_xz is not None  # step_frames always sets it
        record.append((block.global_rotations[:, :, feet], block.global_positions[:, :, feet],
                       block.stance, block.hips_height, block.clamped,
                       block.global_positions[:, :, pipe.root, 0], block.plant_xz[..., 0]))
        if progress is not None:
            progress(done + size, frames)
    rot, pos, stance, hips, clamp, body_x, plant = map(np.concatenate, zip(*record, strict=True))
    soles = [sole_world(rot[:, :, s], pos[:, :, s], sole_samples(pipe.feet[s]))
             for s in range(2)]
    per_foot = [metrics.ground_gaps(lanes, sole) for sole in soles]  # (F, K, S_foot) each
    samples = max(g.shape[-1] for g in per_foot)
    gaps = np.full((*per_foot[0].shape[:2], 2, samples), np.nan)  # (F, K, 2, S), NaN-padded
    for s, g in enumerate(per_foot):
        gaps[:, :, s, : g.shape[-1]] = g
    stairs_rows, slope_rows = [], []
    for k in range(count):
        spec = scenarios[lane[k]]
        row: dict[str, str | float] = {"character": character.name, "walker": WALKERS[which[k]]}
        row.update(metrics.contact_metrics(gaps[:, k], stance[:, k]))
        row["stance_slip_m"] = metrics.stance_slip(pos[:, k], stance[:, k])
        row["hips_jerk"] = metrics.hips_jerk(hips[:, k], 1.0 / FPS)
        row["clamped_ratio"] = metrics.clamped_ratio(clamp[:, k])
        if spec["kind"] == "stairs":
            params = spec["terrain"].params
            row["step_height_m"] = float(params["step_height"])
            row["step_height_nominal_m"] = float(spec["nominal"])
            down = (body_x[:, k] > params["landing_end"]) & (body_x[:, k] < params["stairs_end"])
            up = (body_x[:, k] > params["stairs_start"]) & (body_x[:, k] < params["landing_start"])
            row["contact_error_down_m"] = _error(gaps[:, k], stance[:, k] & down[:, None])
            row["contact_error_up_m"] = _error(gaps[:, k], stance[:, k] & up[:, None])
            near = _near_edge(plant[:, k], params["riser_x"], pipe)
            row["contact_error_near_edge_m"] = _error(gaps[:, k], stance[:, k] & near)
            stairs_rows.append(row)
        else:
            row["scenario"] = spec["kind"]
            slope_rows.append(row)
    return stairs_rows, slope_rows


def sole_samples(foot: Any) -> np.ndarray:
    """Measurement points ``(S·3, 3)`` of a :class:`~footfall.footing.foot_model.FootModel`'s sole
    (ankle frame): every centimetre from heel to toe tip, in three columns across the sole's
    width (:data:`footfall.metrics.SOLE_WIDTH_RATIO` of its length), so sole roll is scored."""
    length = foot.heel_back + foot.toe_forward
    return metrics.sole_grid(foot.sole, -np.asarray(foot.below_ankle),
                             metrics.SOLE_WIDTH_RATIO * length)


def _error(gaps: np.ndarray, mask: np.ndarray) -> float:
    return metrics.contact_metrics(gaps, mask)["contact_error_m"]


def _near_edge(plant_x: np.ndarray, risers: Sequence[float], pipe: Any) -> np.ndarray:
    """``(F, 2)``: the animated (unsnapped) footstep ``plant_x (F, 2)`` puts the sole within a
    tread margin of a riser — where seed 002 says tread snapping matters."""
    margin = GroundingParams().tread_margin
    heel = np.array([f.heel_back for f in pipe.feet])[None, :, None]
    toe = np.array([f.toe_forward for f in pipe.feet])[None, :, None]
    riser_x = np.asarray(risers)[None, None, :]
    x = plant_x[..., None]
    return np.any((riser_x > x - heel - margin) & (riser_x < x + toe + margin), axis=-1)


def run_experiment(humanoid_bvh: str | Path | None = None,
                   heights: Sequence[float] = STEP_HEIGHTS, duration: float = DURATION,
                   progress: Callable[[str, int, int], None] | None = None,
                   ) -> dict[str, list[dict]]:
    """Every walker and height for the humanoid (if given) and the bunny: rows and slope_rows."""
    characters: list[tuple[Character, float | None]] = []
    if humanoid_bvh is not None:
        characters.append((humanoid(humanoid_bvh), None))
    characters.append((Character("bunny", bunny_skeleton()), HUMAN_LEG))
    result: dict[str, list[dict]] = {"rows": [], "slope_rows": []}
    for character, ref in characters:
        report = None if progress is None else (lambda i, n, c=character: progress(c.name, i, n))
        stairs, slopes = run_character(character, heights, duration, ref, report)
        result["rows"] += stairs
        result["slope_rows"] += slopes
    return result


def format_table(result: dict[str, list[dict]]) -> str:
    """The result as a plain-text table (contact error in mm, ratios in %)."""
    head = (f"{'character':<28}{'walker':<15}{'step m':>7}{'err mm':>8}{'defect%':>8}"
            f"{'pen mm':>8}{'float mm':>9}{'slip mm':>8}{'jerk':>8}{'clamp%':>7}"
            f"{'down mm':>8}{'edge mm':>8}")
    lines = [head, "-" * len(head)] + [
        f"{row['character']:<28}{row['walker']:<15}{row['step_height_m']:>7.3f}"
        f"{row['contact_error_m'] * 1e3:>8.2f}{row['support_defect_ratio'] * 100:>8.1f}"
        f"{row['penetration_m'] * 1e3:>8.2f}{row['floating_m'] * 1e3:>9.2f}"
        f"{row['stance_slip_m'] * 1e3:>8.3f}{row['hips_jerk']:>8.1f}"
        f"{row['clamped_ratio'] * 100:>7.1f}{row['contact_error_down_m'] * 1e3:>8.2f}"
        f"{row['contact_error_near_edge_m'] * 1e3:>8.2f}" for row in result["rows"]]
    if result.get("slope_rows"):
        lines += ["", f"{'character':<28}{'walker':<15}{'scenario':<16}{'err mm':>8}{'defect%':>8}"]
        lines += [f"{row['character']:<28}{row['walker']:<15}{row['scenario']:<16}"
                  f"{row['contact_error_m'] * 1e3:>8.2f}{row['support_defect_ratio'] * 100:>8.1f}"
                  for row in result["slope_rows"]]
    return "\n".join(lines)


def plot(result: dict[str, list[dict]], path: str | Path) -> None:
    """Contact error and support defects against step height, one line per walker (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    characters = sorted({row["character"] for row in result["rows"]})
    fig, axes = plt.subplots(2, len(characters), figsize=(5.5 * len(characters), 7), squeeze=False)
    for (top, bottom), name in zip(axes.T, characters, strict=True):
        for walker in WALKERS:
            rows = [r for r in result["rows"] if r["character"] == name and r["walker"] == walker]
            x = [r["step_height_m"] for r in rows]
            style = "s--" if walker == "no_foot_align" else "o-"  # equals all_on on level treads
            top.plot(x, [r["contact_error_m"] * 1e3 for r in rows], style, label=walker)
            bottom.plot(x, [r["support_defect_ratio"] * 100 for r in rows], style, label=walker)
        top.set(title=name, ylabel="contact error (mm)")
        bottom.set(ylabel="support defects (%)", xlabel="step height (m)")
        top.axhline(2.0, color="grey", lw=0.8, ls="--")
        bottom.axhline(1.0, color="grey", lw=0.8, ls="--")
        top.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
