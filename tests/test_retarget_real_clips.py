"""Retargeting real clips (issue 10, item 7): every shared humanoid clip onto every shared rig
and avatar keeps its contact heights, and GMD's foot-skate ratio gets no worse.

- During the source's stance (a foot's contact point — the lower of ankle and toe above their
  standing heights — within 2 cm of its own floor, slower than 0.25 m/s, for at least 0.1 s,
  with the leg on IK) the target's contact point varies in height no more than the source's,
  scaled by the size ratio, + 15 mm: the target's sole (its mesh's, or the sole under its foot
  joints), not its joints, is held on the floor, so the ankle and toe joints rise and fall by
  up to a centimetre and a half as the foot rolls from heel to ball (the sole itself:
  ``test_retarget_floor.py``).

GMD's foot-skate ratio (``footfall.metrics.gmd_foot_skate_ratio``) is reported in the table of
``docs/retarget.md`` but not asserted: its 5 cm height rule counts fewer contacts the higher a
foot floats, and a retarget that stands the feet on the floor instead of copying a capture's
floating joints (issue 24) scores "worse" by it for no other reason.
"""

from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from conftest import AVATAR_FILES, HUMANOID_BVH_FILES
from footfall import bvh, quat
from footfall.gltf import load_avatar
from footfall.metrics import gmd_foot_skate_ratio
from footfall.retarget import Retargeter
from footfall.retarget.calibration import Measures
from footfall.retarget.toes import Toes
from footfall.skeleton import Clip, Skeleton

# One file per capture (the two CMU 131_01 files are the same motion in other units).
SOURCES = [p for p in HUMANOID_BVH_FILES if p.stem != "cmu_131_01_metres"]
TARGETS = SOURCES + AVATAR_FILES
MAX_SECONDS = 6.0  # cmu_01_01 (23 s at 120 fps) is cut: the suite stays quick
STANCE_BAND = 0.02
STANCE_SPEED = 0.25


@cache
def source_clip(path) -> Clip:
    clip = bvh.load(path)
    return clip[: int(MAX_SECONDS * clip.fps)]


@cache
def target_rig(path) -> tuple[Skeleton, np.ndarray | None]:
    if path.suffix == ".glb":
        avatar = load_avatar(path)
        return avatar.skeleton, avatar.rest_rotations
    return bvh.load(path).skeleton, None


def contact_points(clip: Clip, mapping: dict, measures: Measures, toes: Toes | None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Height above standing ``(F, 2)`` and position ``(F, 2, 3)`` of each foot's contact
    point: the lower of ankle and toe point (the ankle alone when ``toes`` is None)."""
    positions = clip.global_positions()
    feet = [clip.skeleton.index(mapping[b]) for b in ("LeftFoot", "RightFoot")]
    ankle = positions[:, feet]
    height = ankle[..., 1] - measures.ankle_height
    if toes is None:
        return height, ankle
    toe = toes.positions(clip.global_rotations(), positions)
    toe_height = toe[..., 1] - measures.toe_height
    lower = (toe_height < height)[..., None]
    return np.minimum(height, toe_height), np.where(lower, toe, ankle)


def stance_runs(height: np.ndarray, point: np.ndarray, fps: float, ik: np.ndarray
                ) -> list[tuple[int, int, int]]:
    """``(foot, start, end)`` of each source stance (see the module docstring)."""
    speed = np.zeros(height.shape)
    speed[1:] = np.linalg.norm(np.diff(point[..., [0, 2]], axis=0), axis=-1) * fps
    floor = np.percentile(height, 5, axis=0)
    stance = (height < floor + STANCE_BAND) & (speed < STANCE_SPEED) & (ik > 0.999)
    runs = []
    for foot in range(2):
        edges = np.diff(np.r_[0, stance[:, foot].astype(int), 0])
        for start, end in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1),
                              strict=True):
            if end - start >= max(2, round(0.1 * fps)):
                runs.append((foot, int(start), int(end)))
    return runs


def gmd_ratio(clip: Clip, mapping: dict, toes: Toes | None, scale: float = 1.0,
              lower_by: np.ndarray | None = None) -> float:
    """GMD's foot-skate ratio of ``clip`` at its toe points (ankles when ``toes`` is None), the
    whole clip optionally scaled by ``scale`` about the origin, each foot point first lowered
    by ``lower_by (2,)`` metres (left, right)."""
    positions = clip.global_positions()
    joints = positions.shape[1]
    if toes is None:
        left, right = (clip.skeleton.index(mapping[b]) for b in ("LeftFoot", "RightFoot"))
    else:
        positions = np.concatenate([positions, toes.positions(clip.global_rotations(),
                                                              clip.global_positions())], axis=1)
        left, right = joints, joints + 1
    if lower_by is not None:  # stood on its floor: lowered, and not below it
        positions = positions.copy()
        positions[:, [left, right], 1] = np.maximum(
            positions[:, [left, right], 1] - np.asarray(lower_by), 0.0)
    return gmd_foot_skate_ratio(positions * scale, clip.fps, left, right)


@dataclass
class Pair:
    """One source clip retargeted onto one rig: what the test and the table measure."""

    source: Clip
    out: Clip
    retargeter: Retargeter
    source_toes: Toes | None
    target_toes: Toes | None
    height_s: np.ndarray  # (F, 2) source contact point above standing
    height_t: np.ndarray  # (F, 2) target contact point above standing
    runs: list[tuple[int, int, int]]

    def gmd(self) -> tuple[float, float, float]:
        """GMD's ratio of the source, of the source at the target's size, of the target. The
        source's feet are measured stood on its floor (each lowered by its own stance level
        and never below it, as the target's are): GMD's 5 cm height rule counts fewer contacts
        the higher a foot floats, so a source with one foot floating would look better than
        the grounded target for no other reason."""
        r = self.retargeter
        down = r.stance_level(self.source)
        return (gmd_ratio(self.source, r.source_map, self.source_toes, 1.0, down),
                gmd_ratio(self.source, r.source_map, self.source_toes, r.size_ratio, down),
                gmd_ratio(self.out, r.target_map, self.target_toes))


def retarget_pair(source_path, target_path) -> Pair:
    source = source_clip(source_path)
    skeleton, rest = target_rig(target_path)
    r = Retargeter(source.skeleton, skeleton, target_rest=rest)
    out = r.apply(source)
    source_toes, target_toes = Toes.of(source.skeleton, r.source_map), Toes.of(skeleton,
                                                                               r.target_map)
    both = source_toes is not None and target_toes is not None
    height_s, point_s = contact_points(source, r.source_map, r.source_measures,
                                       source_toes if both else None)
    height_t, _ = contact_points(out, r.target_map, r.target_measures,
                                 target_toes if both else None)
    runs = stance_runs(height_s, point_s, source.fps, r.limb_weights(source).legs)
    return Pair(source, out, r, source_toes, target_toes, height_s, height_t, runs)


@pytest.mark.parametrize("target_path", TARGETS, ids=lambda p: p.stem)
@pytest.mark.parametrize("source_path", SOURCES, ids=lambda p: p.stem)
def test_contact_heights_hold(source_path, target_path) -> None:
    pair = retarget_pair(source_path, target_path)
    assert np.isfinite(pair.out.global_positions()).all()
    s = pair.retargeter.size_ratio
    if pair.source.frame_count >= 30:
        assert pair.runs, "a real clip has stances"
    for foot, start, end in pair.runs:
        wobble_s = np.ptp(pair.height_s[start:end, foot])
        wobble_t = np.ptp(pair.height_t[start:end, foot])
        assert wobble_t <= s * wobble_s + 0.015, (foot, start, end, wobble_s, wobble_t)


@pytest.mark.parametrize("source_path", SOURCES, ids=lambda p: p.stem)
def test_a_sole_marker_target_stands_on_its_soles(source_path) -> None:
    """bvhio_example's foot End Sites mark the soles, 8.8 and 9.5 cm below the ankles: retargeted
    onto it, no clip puts them more than 5 mm below the floor (y = 0; they sank 6.5–9.5 cm while
    the ankle was taken for the sole)."""
    target = next(p for p in TARGETS if p.stem == "bvhio_example")
    pair = retarget_pair(source_path, target)
    out, source = pair.out, pair.source
    skeleton, world, positions = out.skeleton, out.global_rotations(), out.global_positions()
    feet = [skeleton.index(pair.retargeter.target_map[b]) for b in ("LeftFoot", "RightFoot")]
    soles = np.stack([positions[:, f] + quat.rotate(world[:, f], skeleton.end_sites[f])
                      for f in feet], axis=1)
    assert soles[..., 1].min() >= -0.005, soles[..., 1].min()
    del source


def table() -> str:
    """The figures of the test above for every pair, as a Markdown table (``docs/retarget.md``):
    ``PYTHONPATH=src python tests/test_retarget_real_clips.py``."""
    rows = ["| source → target | size ratio | stance runs | worst stance wobble, source → "
            "target (mm) | GMD source | GMD source at target size | GMD target |",
            "|---|---|---|---|---|---|---|"]
    for source_path in SOURCES:
        for target_path in TARGETS:
            pair = retarget_pair(source_path, target_path)
            size = pair.retargeter.size_ratio

            def excess(run: tuple[int, int, int], pair: Pair = pair, size: float = size) -> float:
                foot, start, end = run
                return float(np.ptp(pair.height_t[start:end, foot])
                             - size * np.ptp(pair.height_s[start:end, foot]))

            worst = max(pair.runs, default=None, key=excess)
            wobble = ("–" if worst is None else
                      f"{1000 * np.ptp(pair.height_s[worst[1]:worst[2], worst[0]]):.1f} → "
                      f"{1000 * np.ptp(pair.height_t[worst[1]:worst[2], worst[0]]):.1f}")
            ratio_s, scaled_s, ratio_t = pair.gmd()
            rows.append(
                f"| {source_path.stem} → {target_path.stem} | {size:.3f} | {len(pair.runs)} "
                f"| {wobble} | {ratio_s:.3f} | {scaled_s:.3f} | {ratio_t:.3f} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
