"""Print the `footfall ground` table of docs/experiment.md: every BVH clip in a folder grounded
on level ground at its own floor (not placed: the do-no-harm check) and on the stairs, hills and
rocks scenes (placed and sized as `footfall ground` does), before → after.

Run: ``.venv/bin/python tools/ground_table.py [FOLDER] [--only NAME ...]`` (default
``tests/data/bvh``). Clips that are not humanoids (no legs) get a row saying so.

Columns: *change* — the largest and mean displacement of any joint (mm; level ground only);
*flat offset* — the clip placed on flat ground 0.37 m up: median over the planted frames of
(lowest support joint over the ground − over the clip's own floor in the source), mm (level
rows; the same offset would sit on every terrain); *stance height* — mean |height of a planted
foot's support joints above or below planted| over the real ground (mm, the report's figure);
*stance offset* — mean |lowest support joint over the terrain − over the floor in the source|
of the planted feet (mm, independent of the report's rule); *swing lift* — how far the swings
rise above their animated height over the ground blended from lift-off to touch-down: mean
over the swing frames away from contacts, measured on the solved feet / the largest reported
for one swing (mm); GMD's foot-skate ratio (GMD's released evaluation); PhysDiff's
penetration / floating / sliding of the lowest joint (mm); frames in which a foot left the
terrain.

``--conventions`` prints the independent table of issue 36 instead: every clip and its variants
of other conventions (``tests/conventions.py``: mirrored, backward, circling, resampled, Z-up,
inches) on level ground and the stairs, hills and rocks, scored by :func:`independent_scores`
— test-side arithmetic that shares nothing with the code under test but the terrain's ray cast:
the source's contacts and feet from ``tests/skinned_feet.py`` (foot joint, joints below it and
their End Sites), its floor the 2nd percentile of the planted feet's lowest points.
Run: ``PYTHONPATH=src .venv/bin/python tools/ground_table.py --conventions [--variants ...]
[--terrains ...] [--only NAME ...] [--frames N] [--no-heel]``. The scorer models a heel from
the source rig (heel stances as contacts, the heel and the sole from it to the toe tip in the
forced-lift test; ``docs/heel_scorer.md``): the reference since 2026-12-07, the rig points
alone calling a foot standing on its heel with its toes raised a swing. ``--no-heel``: the
scorer without it (the table before that date). Its last column, the largest turn of a foot
joint between two frames after grounding against the source's (``skinned_feet.foot_turns``),
shows a foot that snaps: issue 35's rule is the source's + 5°.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from footfall import bvh
from footfall.errors import FootfallError
from footfall.footing.foot_model import calibration_frames, legs_of
from footfall.footing.runs import segments
from footfall.grounding.clip import animation_floor, ground_clip, prepare_clip
from footfall.grounding.clip.placement import place_clip, scene_size
from footfall.metrics.stance import support_heights
from footfall.metrics.swing import swing_lift
from footfall.skeleton import Clip
from footfall.terrain import LevelGround, scene

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conventions import VARIANTS  # noqa: E402  (tests/conventions.py: the clips' variants)
from skinned_feet import (  # noqa: E402  (independent feet)
    CONTACT_BAND,
    CONTACT_SPEED,
    foot_turns,
    source_contacts,
    source_foot_points,
)

TERRAINS = ("level", "stairs", "hills", "rocks")


FLAT_HEIGHT = 0.37


def _support_lowest(feet, terrain) -> np.ndarray:  # noqa: ANN001
    """``(F, 2)`` each foot's lowest support joint (ankle, ball, toe tips) over ``terrain``."""
    return np.nanmin(support_heights(feet, terrain), axis=-1)


def swing_figures(source: Clip, result, terrain) -> tuple[float, float]:  # noqa: ANN001
    """(mean lift over the blended ground measured on the solved feet, away from contacts
    (0.1 s); the largest lift reported for one swing), metres."""
    prepared = prepare_clip(source, legs_of(source.skeleton))
    out = prepared.feet_of(result.clip)
    blend = max(1, round(0.1 * source.fps))
    near = np.zeros_like(result.contacts)
    for foot in range(2):
        for start, stop in segments(result.contacts[:, foot]):
            near[max(0, start - blend):stop + blend, foot] = True
    lift = swing_lift(prepared.feet.ankle, out.ankle, result.contacts)[~near]
    biggest = max((swing["lift_m"] for swing in result.swings), default=0.0)
    return (float(lift.mean()) if lift.size else 0.0), biggest


def stance_offset(source: Clip, result, terrain) -> float:  # noqa: ANN001
    """Mean |lowest support joint over the terrain − over the floor in the source| (metres)
    of the planted feet."""
    prepared = prepare_clip(source, legs_of(source.skeleton))
    before = _support_lowest(prepared.feet, LevelGround(prepared.floor))
    after = _support_lowest(prepared.feet_of(result.clip), terrain)
    offset = (after - before)[result.contacts]
    offset = offset[np.isfinite(offset)]
    return float(np.abs(offset).mean()) if offset.size else 0.0


def flat_offset(clip: Clip) -> float:
    """Median over the planted frames of (lowest support joint over flat ground
    :data:`FLAT_HEIGHT` m up, the clip placed on it − over its own floor in the source)."""
    motion = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    result = ground_clip(motion, LevelGround(FLAT_HEIGHT), place=True)
    prepared = prepare_clip(motion, legs_of(motion.skeleton))
    before = _support_lowest(prepared.feet, LevelGround(prepared.floor))
    after = _support_lowest(prepared.feet_of(result.clip), LevelGround(FLAT_HEIGHT))
    return float(np.median((after - before)[result.contacts]))


def row(stem: str, clip: Clip, name: str) -> str:
    """One table row: ``clip`` grounded on terrain ``name``."""
    motion = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    if name == "level":
        terrain = LevelGround(animation_floor(clip))
        result = ground_clip(motion, terrain, place=False)
        source = motion
        _, a = motion.forward_kinematics()
        _, b = result.clip.forward_kinematics()
        moved = np.linalg.norm(a - b, axis=-1)
        change = f"{1000 * moved.max():.1f} / {1000 * moved.mean():.2f}"
        flat = f"{1000 * flat_offset(clip):.1f}"
    else:
        length, width = scene_size(clip)
        terrain = scene(name, length=length, width=width)
        source = place_clip(motion, terrain)
        result = ground_clip(source, terrain, place=False)
        change = flat = "—"
    b, a = result.before, result.after
    lift_mean, lift_max = swing_figures(source, result, terrain)
    return (
        f"| {stem} | {name} | {clip.frame_count} | {change} | {flat} | "
        f"{1000 * b['stance_height_error_m']:.1f} → {1000 * a['stance_height_error_m']:.1f} | "
        f"{1000 * stance_offset(source, result, terrain):.1f} | "
        f"{1000 * lift_mean:.1f} / {1000 * lift_max:.0f} | "
        f"{b['gmd_foot_skate_ratio']:.3f} → {a['gmd_foot_skate_ratio']:.3f} | "
        f"{b['physdiff_penetration_mm']:.1f} → {a['physdiff_penetration_mm']:.1f} | "
        f"{b['physdiff_floating_mm']:.1f} → {a['physdiff_floating_mm']:.1f} | "
        f"{b['physdiff_sliding_mm']:.2f} → {a['physdiff_sliding_mm']:.2f} | "
        f"{result.off_terrain_frames} |"
    )


#: The independent floor: this percentile of the planted feet's lowest points (issue 36).
SCORE_FLOOR_PERCENTILE = 2


def _gaps(terrain, points: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """Height of ``points (..., 3)`` over the ground straight under them (NaN off the terrain or
    for NaN points): the terrain's own ray cast, nothing else of footfall's."""
    valid = np.all(np.isfinite(points), axis=-1)
    hits = terrain.raycast_down(np.where(valid[..., None], points[..., [0, 2]], 0.0))
    return np.where(hits.hit & valid, points[..., 1] - hits.height, np.nan)


def _lowest(values: np.ndarray) -> np.ndarray:
    """Minimum over the last axis ignoring NaN (NaN where all are)."""
    filled = np.where(np.isfinite(values), values, np.inf)
    low = filled.min(axis=-1)
    return np.where(np.isfinite(low), low, np.nan)


#: How far sideways (metres) the way out of the terrain is looked for, and in how many steps
#: and directions: a point just inside a riser is not a riser's height deep.
EXIT_REACH, EXIT_STEPS, EXIT_DIRECTIONS = 0.2, 100, 16


def shortest_depth(terrain, points: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """How deep points ``(..., 3)`` are inside the terrain (metres, 0 outside or off it): the
    shortest of the way straight up and the way sideways to where the ground is below the
    point (up to :data:`EXIT_REACH`) — a toe tip 1 mm into a riser is 1 mm deep, not the
    step's height."""
    gaps = _gaps(terrain, points)
    depth = np.where(np.isfinite(gaps), np.maximum(-gaps, 0.0), 0.0)
    inside = np.nonzero(depth > 0.0)
    if not inside[0].size:
        return depth
    where = points[inside]  # (K, 3)
    best = depth[inside].copy()
    angles = np.linspace(0.0, 2 * np.pi, EXIT_DIRECTIONS, endpoint=False)
    ways = np.stack([np.cos(angles), np.sin(angles)], axis=-1)  # (D, 2)
    radii = np.linspace(EXIT_REACH / EXIT_STEPS, EXIT_REACH, EXIT_STEPS)  # (R,)
    xz = where[:, None, None, [0, 2]] + radii[None, :, None, None] * ways[None, None]
    ground = np.asarray(terrain.height(xz), dtype=np.float64)  # (K, R, D)
    out = np.isfinite(ground) & (ground <= where[:, 1, None, None])
    reach = np.where(out, radii[None, :, None], np.inf).min(axis=(1, 2))
    depth[inside] = np.minimum(best, reach)
    return depth


def source_floor(points: np.ndarray, contacts: np.ndarray) -> float:
    """The source's floor (metres): the :data:`SCORE_FLOOR_PERCENTILE` th percentile of the
    lowest point of each planted foot ``points (F, 2, P, 3)`` over ``contacts (F, 2)`` (over
    every frame when no foot is planted)."""
    lowest = _lowest(points[..., 1])
    chosen = lowest[contacts] if contacts.any() else lowest.ravel()
    return float(np.nanpercentile(chosen, SCORE_FLOOR_PERCENTILE))


def _swings(planted: np.ndarray) -> list[tuple[int, int]]:
    """``(start, stop)`` of every run of False in ``planted (F,)``."""
    edges = np.diff(np.r_[0, (~planted).astype(int), 0])
    return list(zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0], strict=True))


def independent_scores(source: Clip, out: Clip, terrain, floor_source: float | None = None,
                       heel: bool = False) -> dict[str, float]:  # noqa: ANN001
    """Issue 36's figures of ``out`` (``source`` grounded on ``terrain``), metres, computed from
    the source's own feet and contacts (``tests/skinned_feet.py``) only:

    - ``stance``: mean over the source's planted frames of |the output foot's lowest point over
      the terrain − the source foot's lowest point over the source's floor|;
    - ``swing``: mean over the swing frames of |the output foot's lowest point over the ground
      blended from lift-off to touch-down (the terrain under the foot's lowest point at the two
      contact frames, by the foot's horizontal progress) − the source's over its floor|, frames
      where the terrain forces a lift (the foot at its source height over the blended ground
      would cut the terrain) left out; ``forced``: the share of swing frames left out;
    - ``depth``: the deepest foot point inside the terrain, any frame, by its shortest way out
      (:func:`shortest_depth`; ``vertical_depth``: straight up, which counts a toe tip 1 mm
      into a riser as the riser's height); ``dip``: the source's own deepest foot point below
      its floor; ``beyond_dip``: depth − dip;
    - ``floor`` / ``floor_out``: the source's floor and the output's, measured the same way
      over the source's contacts (level ground: they should agree).

    ``floor_source``: the floor the source stands on when it is not the source's own (a clip
    placed on a terrain: the terrain's height there is unknown to the scorer, so the caller
    passes the placed source's own floor, which this computes when None).

    ``heel`` (the opt-in experiment of ``docs/heel_scorer.md``): the source's heel stances
    (:func:`heel_stances`) count as contacts, judged and taken as a swing's end by a heel
    point modelled from the source rig (:func:`heel_model`) instead of the lowest rig point
    (a raised toe there), and the forced-lift test also checks that heel point and the sole
    from it to the tip (:data:`SOLE_SHARES`).
    """
    contacts = source_contacts(source)
    src = source_foot_points(source)
    dst = source_foot_points(out)
    floor = source_floor(src, contacts) if floor_source is None else floor_source
    src_h = _lowest(src[..., 1]) - floor  # (F, 2)
    gaps = _gaps(terrain, dst)  # (F, 2, P)
    out_h = _lowest(gaps)
    low_y = _lowest(dst[..., 1])
    ground = low_y - out_h  # terrain height under the output's lowest point
    stance = np.abs(out_h - src_h)[contacts]
    heel_gap = None
    if heel:
        tips, model = heel_model(src, contacts)
        src_heel, dst_heel = heel_points(src, tips, model), heel_points(dst, tips, model)
        on_heel = heel_stances(src, contacts, source.fps, src_heel)
        heel_gap = _gaps(terrain, dst_heel)  # (F, 2)
        sole_gap = sole_gaps(terrain, dst_heel,
                             np.take_along_axis(dst, tips[None, :, None, None], axis=2)[:, :, 0])
        pad_gap = _pad_gaps(terrain, dst_heel)
        # a heel stance stands on the heel: judged, and a swing's end taken, on the ground
        # under the heel's pad
        ground = np.where(on_heel, dst_heel[..., 1] - pad_gap, ground)
        stance = np.abs(np.where(on_heel, pad_gap - (src_heel[..., 1] - floor), out_h - src_h)
                        )[contacts | on_heel]
        judged = contacts | on_heel
    else:
        judged = contacts
    swing, forced, count = [], 0, 0
    for foot in range(2):
        planted = judged[:, foot]
        if not planted.any():
            continue
        path = dst[:, foot, 0, [0, 2]]
        for start, stop in _swings(planted):
            lift_off, touch_down = start - 1, stop
            if lift_off < 0 or touch_down >= len(planted):
                continue  # before the first contact / after the last: no blended ground
            steps = np.linalg.norm(np.diff(path[lift_off:touch_down + 1], axis=0), axis=-1)
            travelled = np.r_[0.0, np.cumsum(steps)]
            share = (travelled / travelled[-1] if travelled[-1] > 1e-9
                     else np.linspace(0.0, 1.0, len(travelled)))[1:-1]
            blended = ground[lift_off, foot] + share * (ground[touch_down, foot]
                                                       - ground[lift_off, foot])
            frames = np.arange(start, stop)
            height = low_y[frames, foot] - blended
            # the output foot moved so its lowest point sits at the source's height over the
            # blended ground: does any of its points go into the terrain?
            shift = blended + src_h[frames, foot] - low_y[frames, foot]
            cut = _lowest(gaps[frames, foot] + shift[:, None]) < 0.0
            if heel_gap is not None:  # the heel and sole the rig does not have, moved so
                cut |= heel_gap[frames, foot] + shift < 0.0
                cut |= sole_gap[frames, foot] + shift < 0.0
            count += len(frames)
            forced += int(cut.sum())
            keep = ~cut & np.isfinite(height)
            swing.extend(np.abs(height - src_h[frames, foot])[keep])
    vertical = max(0.0, -float(np.nanmin(gaps))) if np.isfinite(gaps).any() else 0.0
    depth = float(shortest_depth(terrain, dst).max(initial=0.0))
    dip = max(0.0, floor - float(np.nanmin(src[..., 1])))
    floor_out = source_floor(dst, contacts)
    return {
        "stance": float(np.nanmean(stance)) if np.isfinite(stance).any() else 0.0,
        "swing": float(np.mean(swing)) if swing else 0.0,
        "forced": forced / count if count else 0.0,
        "depth": depth,
        "vertical_depth": vertical,
        "dip": dip,
        "beyond_dip": depth - dip,
        "floor": floor,
        "floor_out": floor_out,
    }


#: How far behind the foot joint the modelled heel sits, as a share of the horizontal distance
#: from the foot joint to the foot's farthest rig point (the toe tip's End Site, else the last
#: toe joint), in the foot's flat stances. Anthropometric tables put the ankle about a quarter
#: of the foot's length in front of the heel's back and the toe tip about three quarters in
#: front of it (Winter, *Biomechanics and Motor Control of Human Movement*, segment tables),
#: so a quarter over three quarters: 0.33 of the ankle→tip length; the scorer takes 0.25 — a
#: heel a little short of the real one, so that the forced-lift test calls fewer frames forced
#: (and leaves more frames judged) rather than more.
HEEL_SHARE = 0.25
#: Where the heel scorer's forced-lift test samples the sole, as shares of the way from the
#: modelled heel to the tip: a foot is a sole, not two points (games105 circle_right_backward
#: on the stairs, frames 125-126: the sole's middle 72-90 mm inside a nose the heel and the toe
#: both cleared, charged as a lift above the blended ground).
SOLE_SHARES = np.array([0.25, 0.5, 0.75])
#: A flat stance: a contact frame whose foot joint is within this (metres) of the flattest
#: contact's height over the foot's lowest rig point (either foot: a rig's feet are alike).
FLAT_BAND = 0.010


#: The heel's pad (metres): a heel stands on the highest ground within this of the modelled
#: heel point that is not above it (a heel at a tread's nose stands on the tread, not on the
#: one below it — a point of the model 1 mm behind the nose would read a riser's height off;
#: a riser behind the heel, higher than it, is not under it).
HEEL_PAD = 0.025


def _pad_gaps(terrain, heels: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """``(...)`` height of ``heels (..., 3)`` over the highest ground within :data:`HEEL_PAD`
    of them horizontally and not above them (the point and two rings of 8 samples; the ground
    straight under the point where all are above it, i.e. the heel is inside; NaN off the
    terrain)."""
    angles = np.linspace(0.0, 2 * np.pi, 8, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=-1)  # (8, 2)
    offsets = np.concatenate([np.zeros((1, 2)), 0.5 * HEEL_PAD * ring, HEEL_PAD * ring])
    valid = np.all(np.isfinite(heels), axis=-1)
    xz = np.where(valid[..., None], heels[..., [0, 2]], 0.0)[..., None, :] + offsets  # (..., 17, 2)
    ground = np.asarray(terrain.height(xz), dtype=np.float64)
    below = np.isfinite(ground) & (ground <= heels[..., 1, None])
    top = np.where(below, ground, -np.inf).max(axis=-1)
    top = np.where(below.any(axis=-1), top, ground[..., 0])
    return np.where(valid & np.isfinite(top), heels[..., 1] - top, np.nan)


def heel_stances(points: np.ndarray, contacts: np.ndarray, fps: float,
                 heels: np.ndarray | None = None) -> np.ndarray:
    """``(F, 2)`` frames a source foot stands on its heel, toes raised, outside the scorer's
    ``contacts (F, 2)`` (its lowest rig point is a raised toe there): the foot joint of
    ``points (F, 2, P, 3)`` within ``CONTACT_BAND`` of its median height over that foot's
    contacts and slower than ``CONTACT_SPEED`` horizontally, for 0.1 s or more (a foot held
    low and still off the floor, its joint well below its standing height, is none). With
    ``heels (F, 2, 3)`` (:func:`heel_points`), the heel must also be down: within
    ``CONTACT_BAND`` of its height in the foot's flat stances (:func:`heel_model`: the foot's
    lowest rig point there) — the scorer's own contact rule applied to the heel, so that a
    flat foot still coming down (games105_walk60: its heel 20-30 mm over that, its joint back
    at its standing height a few frames before touch-down) is no stance."""
    ankle = points[:, :, 0]
    speed = np.zeros(ankle.shape[:2])
    if len(ankle) > 1:
        speed[1:] = np.linalg.norm(np.diff(ankle[..., [0, 2]], axis=0), axis=-1) * fps
        speed[0] = speed[1]
    hold = max(1, round(0.1 * fps))
    flat = _flat_stances(points, contacts)
    out = np.zeros(contacts.shape, dtype=bool)
    for foot in range(2):
        if not contacts[:, foot].any():
            continue
        level = np.median(ankle[contacts[:, foot], foot, 1])
        still = ((np.abs(ankle[:, foot, 1] - level) < CONTACT_BAND)
                 & (speed[:, foot] < CONTACT_SPEED) & ~contacts[:, foot])
        if heels is not None:
            own = flat[:, foot] if flat[:, foot].any() else contacts[:, foot]
            down = np.median(_lowest(points[own, foot, :, 1]))
            still &= heels[:, foot, 1] - down < CONTACT_BAND
        for start, stop in _runs(still):
            out[start:stop, foot] = stop - start >= hold
    return out


def _flat_stances(points: np.ndarray, contacts: np.ndarray) -> np.ndarray:
    """``(F, 2)`` the scorer's ``contacts`` in which the foot stands flat: its foot joint within
    :data:`FLAT_BAND` of the flattest contact's height over the foot's lowest rig point (either
    foot: a rig's feet are alike)."""
    rise = points[:, :, 0, 1] - _lowest(points[..., 1])  # (F, 2)
    if not contacts.any():
        return contacts.copy()
    flattest = np.nanmin(np.where(contacts, rise, np.nan))
    return contacts & (rise <= flattest + FLAT_BAND)


def _foot_frames(points: np.ndarray, tips: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(F, 2, 3)`` each foot's forward axis (foot joint → tip, unit) and its down axis (unit,
    perpendicular to it in the vertical plane through it) for ``points (F, 2, P, 3)`` and the
    tip's index per foot ``tips (2,)``: a frame carried by the rig's own points, the same for a
    left and a right foot (nothing to mirror)."""
    ankle = points[:, :, 0]
    tip = np.take_along_axis(points, tips[None, :, None, None], axis=2)[:, :, 0]
    ahead = tip - ankle
    ahead = ahead / np.linalg.norm(ahead, axis=-1, keepdims=True)
    side = np.cross(ahead, np.array([0.0, 1.0, 0.0]))
    side = side / np.linalg.norm(side, axis=-1, keepdims=True)
    return ahead, np.cross(side, ahead) * -1.0


def heel_model(points: np.ndarray, contacts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each foot's heel modelled from the source rig alone (``points (F, 2, P, 3)`` its foot
    points, ``contacts (F, 2)`` the scorer's): ``(2,)`` the tip's index (the foot's farthest rig
    point) and ``(2, 2)`` the heel's coordinates (metres) along the foot's forward and down
    axes (:func:`_foot_frames`) from the foot joint. In the flat stances (:data:`FLAT_BAND`)
    the heel is at the height of the foot's lowest rig point, behind the foot joint by
    :data:`HEEL_SHARE` of the horizontal joint → tip distance; the median over those frames
    of either foot (a foot that never stands flat — cmu_131_01's left, on its toes — takes
    the other's)."""
    ankle = points[:, :, 0]
    reach = np.nanmedian(np.linalg.norm(points - ankle[:, :, None], axis=-1), axis=0)  # (2, P)
    tips = np.nanargmax(np.where(np.isfinite(reach), reach, -1.0), axis=-1)
    ahead, down = _foot_frames(points, tips)
    flat = _flat_stances(points, contacts)
    tip = np.take_along_axis(points, tips[None, :, None, None], axis=2)[:, :, 0]
    heel = ankle.copy()
    heel[..., [0, 2]] -= HEEL_SHARE * (tip - ankle)[..., [0, 2]]
    heel[..., 1] = _lowest(points[..., 1])
    local = np.stack([np.sum((heel - ankle) * ahead, -1), np.sum((heel - ankle) * down, -1)],
                     axis=-1)  # (F, 2, 2)
    model = np.zeros((2, 2))
    for foot in range(2):
        own = flat[:, foot] if flat[:, foot].any() else flat[:, 1 - foot]
        chosen = local[:, foot] if flat[:, foot].any() else local[:, 1 - foot]
        if own.any():
            model[foot] = np.median(chosen[own], axis=0)
    return tips, model


def sole_gaps(terrain, heels: np.ndarray, tips: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """``(...)`` how high the lowest of the sole's points between ``heels`` and ``tips`` (both
    ``(..., 3)``, at :data:`SOLE_SHARES` of the way) is over the ground under it (metres, − in
    it; NaN off the terrain): a stair nose under the arch cuts a foot whose heel and toe clear
    it."""
    arch = heels[..., None, :] + SOLE_SHARES[:, None] * (tips - heels)[..., None, :]
    return _lowest(_gaps(terrain, arch))


def heel_points(points: np.ndarray, tips: np.ndarray, model: np.ndarray) -> np.ndarray:
    """``(F, 2, 3)`` the modelled heels (:func:`heel_model`) carried by the foot points
    ``points (F, 2, P, 3)`` (the foot joint first; metres)."""
    ahead, down = _foot_frames(points, tips)
    return points[:, :, 0] + model[None, :, :1] * ahead + model[None, :, 1:] * down


def level_change(source: Clip, out: Clip) -> tuple[float, float, float]:
    """How far ``out`` is from ``source`` moved rigidly: (largest, mean) distance of any joint
    from where the median translation of all joints over all frames puts it, and that
    translation's vertical part (metres)."""
    _, a = source.forward_kinematics()
    _, b = out.forward_kinematics()
    moved = b - a
    shift = np.median(moved.reshape(-1, 3), axis=0)
    residual = np.linalg.norm(moved - shift, axis=-1)
    return float(residual.max()), float(residual.mean()), float(shift[1])


def level_harm(source: Clip, out: Clip) -> float:
    """What a clean-up on level ground changed beyond the source's own stance defects (metres):
    the largest over frames of (a) any joint above the knees moved, (b) a foot joint moved more
    than its source's defect in the stance it is in (or within 0.1 s of): how far the lowest
    point sank under the floor plus the horizontal travel of the foot point that slid most
    (joint or End Site: a lock holds the ball, which can slide more than the ankle), over that
    stance
    (the source's own contacts and floor, ``tests/skinned_feet.py``, and its heel stances,
    :func:`heel_contacts`; contacts broken for less than 0.1 s are one stance: a foot does not
    land again in a frame)."""
    contacts = source_contacts(source)
    points = source_foot_points(source)
    floor = source_floor(points, contacts)
    lowest = _lowest(points[..., 1])
    contacts = contacts | heel_contacts(points, source.fps)
    _, a = source.forward_kinematics()
    _, b = out.forward_kinematics()
    moved = np.linalg.norm(b - a, axis=-1)  # (F, J)
    skeleton = source.skeleton
    legs = legs_of(skeleton)
    knees = {leg.lower for leg in legs}
    body = [j for j in range(skeleton.joint_count) if not knees & set(skeleton.chain(j))]
    harm = float(moved[:, body].max(initial=0.0))
    blend = max(1, round(0.1 * source.fps))
    for foot, leg in enumerate(legs):
        bound = np.zeros(source.frame_count)
        planted = contacts[:, foot].copy()
        for start, stop in _swings(planted):
            if 0 < start and stop < len(planted) and stop - start <= blend:
                planted[start:stop] = True
        for start, stop in _runs(planted):
            sink = max(0.0, floor - float(np.nanmin(lowest[start:stop, foot])))
            travel = points[start:stop, foot][..., [0, 2]]  # (n, P, 2) every foot point
            slide = float(np.nanmax(np.linalg.norm(np.ptp(travel, axis=0), axis=-1)))
            lo, hi = max(0, start - blend), stop + blend
            bound[lo:hi] = np.maximum(bound[lo:hi], sink + slide)
        harm = max(harm, float(np.max(moved[:, leg.foot] - bound, initial=0.0)))
    return harm


def heel_contacts(points: np.ndarray, fps: float) -> np.ndarray:
    """``(F, 2)`` feet standing on the heel with the toes raised, which the lowest rig point
    does not show (a rig has no heel joint): the foot joint within ``CONTACT_BAND`` of its own
    stance level (its 10th percentile) and slower than ``CONTACT_SPEED`` horizontally — the
    rule of ``tests/skinned_feet.py``'s :func:`source_contacts` applied to the foot joint."""
    ankle = points[:, :, 0]  # (F, 2, 3) the foot joint
    level = np.percentile(ankle[..., 1], 10, axis=0)
    speed = np.zeros(ankle.shape[:2])
    if len(ankle) > 1:
        speed[1:] = np.linalg.norm(np.diff(ankle[..., [0, 2]], axis=0), axis=-1) * fps
        speed[0] = speed[1]
    return (ankle[..., 1] - level < CONTACT_BAND) & (speed < CONTACT_SPEED)


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """``(start, stop)`` of every run of True in ``flags (F,)``."""
    return _swings(~flags)


def conventions_row(stem: str, made: str, clip: Clip, name: str) -> str:
    """One row of the ``--conventions`` table: ``clip`` (variant ``made``) on terrain ``name``,
    scored independently."""
    return scored_row(stem, made, clip, name)[0]


def scored_row(stem: str, made: str, clip: Clip, name: str, heel: bool = False
               ) -> tuple[str, float, tuple[Clip, Clip, Any]]:
    """:func:`conventions_row`'s text, how bad the run is (the deepest foot point beyond the
    source's dip, else the stance figure, metres) and (source, output, terrain)."""
    motion = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    if name == "level":
        terrain = LevelGround(animation_floor(motion))
        source = motion
    else:
        length, width = scene_size(motion)
        terrain = scene(name, length=length, width=width)
        source = place_clip(motion, terrain)
    result = ground_clip(source, terrain, place=False)
    got = independent_scores(source, result.clip, terrain, heel=heel)
    if name == "level":
        largest, mean, _ = level_change(source, result.clip)
        change = (f"{1000 * largest:.1f} / {1000 * mean:.2f} | "
                  f"{1000 * level_harm(source, result.clip):.1f} | "
                  f"{1000 * (got['floor_out'] - got['floor']):+.1f}")
    else:
        change = "— | — | —"
    b, a = result.before, result.after
    badness = max(got["beyond_dip"], got["stance"])
    return (
        f"| {stem} | {made} | {name} | {motion.frame_count} | {1000 * got['stance']:.1f} | "
        f"{1000 * got['swing']:.1f} ({100 * got['forced']:.0f} %) | "
        f"{1000 * got['depth']:.1f} ({1000 * got['vertical_depth']:.0f} straight up) − "
        f"{1000 * got['dip']:.1f} = {1000 * got['beyond_dip']:+.1f} | "
        f"{change} | "
        f"{b['gmd_foot_skate_ratio']:.3f} → {a['gmd_foot_skate_ratio']:.3f} | "
        f"{b['physdiff_penetration_mm']:.2f} → {a['physdiff_penetration_mm']:.2f} | "
        f"{1000 * a['stance_height_error_m']:.1f} | "
        f"{foot_turns(result.clip).max(initial=0.0):.1f} / "
        f"{foot_turns(source).max(initial=0.0):.1f} |"
    ), badness, (source, result.clip, terrain)


CONVENTIONS_HEADER = (
    "| clip | variant | terrain | frames | stance mm | swing mm (forced lift, share) | foot "
    "depth (shortest way out) − source dip mm | level change max / mean mm | level change "
    "beyond the source's defects mm | level floor change mm | GMD ratio before → after | "
    "PhysDiff penetration mm before → after | reported stance_height_error mm | largest foot "
    "turn in a frame ° after / source |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def side_view(source: Clip, out: Clip, terrain, path: Path, title: str) -> int:  # noqa: ANN001
    """Draw ``out`` from the side (x along the walk, y up) at its worst frame for the
    independent scorer — the deepest foot point in the terrain, else the planted foot farthest
    off the ground it stood on in the source — over the terrain's profile under that foot,
    with the foot's lowest point over the whole clip and the source's pose (moved as the
    output's hips moved) in grey; saved to ``path`` (PNG). Returns the frame drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    contacts = source_contacts(source)
    src, dst = source_foot_points(source), source_foot_points(out)
    floor = source_floor(src, contacts)
    gaps = _gaps(terrain, dst)
    over = _lowest(gaps)
    error = np.where(contacts, np.abs(over - (_lowest(src[..., 1]) - floor)), 0.0)
    error = np.where(np.isfinite(error), error, 0.0)
    depth = shortest_depth(terrain, dst).max(axis=-1)  # (F, 2)
    if depth.max() > 0.005:
        frame, foot = np.unravel_index(np.argmax(depth), depth.shape)
        why = f"deepest foot point {1000 * depth[frame, foot]:.0f} mm inside"
    else:
        frame, foot = np.unravel_index(np.argmax(error), error.shape)
        why = f"planted foot {1000 * error[frame, foot]:.0f} mm off its source height"
    _, a = source.forward_kinematics()
    _, b = out.forward_kinematics()
    parents = out.skeleton.parents
    shift = b[frame, 0] - a[frame, 0]
    figure, axis = plt.subplots(figsize=(9, 5))
    z = float(dst[frame, foot, 0, 2])
    xs = np.linspace(b[frame, :, 0].min() - 0.8, b[frame, :, 0].max() + 0.8, 600)
    profile = terrain.height(np.stack([xs, np.full_like(xs, z)], axis=-1))
    axis.fill_between(xs, np.nanmin(profile) - 0.2, profile, color="#c8b89a", label="terrain")
    for j, parent in enumerate(parents):
        if parent >= 0:
            axis.plot(*(a[frame, [parent, j]] + shift)[:, [0, 1]].T, color="0.7", lw=1)
            axis.plot(*b[frame, [parent, j]][:, [0, 1]].T, color="C0", lw=1.5)
    axis.plot(dst[:, foot, :, 0].ravel(), dst[:, foot, :, 1].ravel(), ",", color="C3", alpha=0.3)
    axis.plot(dst[frame, foot, :, 0], dst[frame, foot, :, 1], "o", color="C3", ms=4,
              label="foot points (this frame; all frames: dots)")
    axis.set_aspect("equal")
    axis.set_xlim(xs[0], xs[-1])
    axis.set_title(f"{title}, frame {frame}, {('left', 'right')[foot]} foot: {why}", fontsize=9)
    axis.legend(loc="upper right", fontsize=8)
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)
    return int(frame)


def conventions_table(paths: list[Path], variants: list[str], terrains: list[str],
                      frames: int | None, views: Path | None = None, heel: bool = False
                      ) -> None:
    """Print the ``--conventions`` table (one row per clip × variant × terrain); with
    ``views``, draw the worst run of each terrain there from the side (:func:`side_view`);
    ``heel``: score with the heel (:func:`independent_scores`)."""
    print(CONVENTIONS_HEADER)
    worst: dict[str, tuple[float, str, tuple[Clip, Clip, Any]]] = {}
    for path in paths:
        clip = bvh.load(path)
        if frames is not None:
            clip = clip[:frames]
        for made in variants:
            try:
                variant = VARIANTS[made](clip)
            except (FootfallError, ValueError) as error:  # a 2-frame clip bends no arc
                print(f"| {path.stem} | {made} | — | {clip.frame_count} | not made: {error} "
                      "||||||||||")
                continue
            for name in terrains:
                try:
                    text, badness, run = scored_row(path.stem, made, variant, name, heel)
                    print(text, flush=True)
                    if views is not None and badness > worst.get(name, (-1.0,))[0]:
                        worst[name] = (badness, f"{path.stem} {made} on {name}", run)
                except FootfallError as error:
                    print(f"| {path.stem} | {made} | {name} | {clip.frame_count} | not "
                          f"grounded: {error} |||||||||||")
                    break
    if views is not None:
        views.mkdir(parents=True, exist_ok=True)
        for name, (_, title, (source, out, terrain)) in worst.items():
            image = views / f"ground_worst_{name}.png"
            frame = side_view(source, out, terrain, image, title)
            print(f"\nworst on {name}: {title}, frame {frame} → {image}")



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default="tests/data/bvh")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="clip file names to include")
    parser.add_argument("--conventions", action="store_true",
                        help="the independent table of issue 36: every clip and its variants")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS),
                        help="with --conventions: the variants (default all)")
    parser.add_argument("--terrains", nargs="+", default=list(TERRAINS), choices=TERRAINS,
                        help="with --conventions: the terrains (default all)")
    parser.add_argument("--frames", type=int, default=None,
                        help="with --conventions: only each clip's first N frames")
    parser.add_argument("--side-views", type=Path, default=None, metavar="FOLDER",
                        help="with --conventions: draw each terrain's worst run from the side")
    parser.add_argument("--heel", action=argparse.BooleanOptionalAction, default=True,
                        help="with --conventions: score with a heel modelled from the source "
                        "rig (docs/heel_scorer.md; default), or, --no-heel, by the rig points "
                        "alone")
    args = parser.parse_args(argv)
    paths = sorted(Path(args.folder).glob("*.bvh"))
    if args.only:
        paths = [p for p in paths if p.name in args.only]
    if not paths:
        raise SystemExit(f"no .bvh files in {args.folder}")
    started = time.perf_counter()
    if args.conventions:
        heel = "" if args.heel else " --no-heel"
        print(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} (`PYTHONPATH=src "
              f".venv/bin/python tools/ground_table.py {args.folder} --conventions{heel}`):\n")
        conventions_table([p for p in paths if p.name != "pybvh_rotation_first_root.bvh"],
                          args.variants, args.terrains, args.frames, args.side_views, args.heel)
        print(f"\n({time.perf_counter() - started:.1f} s)")
        return 0
    print(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
          f"(`.venv/bin/python tools/ground_table.py {args.folder}`):\n")
    print("| clip | terrain | frames | change max / mean mm (level) | flat offset mm | stance "
          "height mm before → after | stance offset mm | swing lift mm mean / max | GMD "
          "foot-skate ratio before → after | PhysDiff penetration mm | PhysDiff floating mm | "
          "PhysDiff sliding mm | frames off the terrain |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        clip = bvh.load(path)
        for name in TERRAINS:
            try:
                print(row(path.stem, clip, name), flush=True)
            except FootfallError as error:
                print(f"| {path.stem} | {name} | {clip.frame_count} | not grounded: {error} "
                      "|||||||||")
                break
    print(f"\n({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
