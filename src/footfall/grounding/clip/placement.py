"""Where a clip goes on a terrain: its hips path turned and moved over the interesting ground,
kept inside the terrain, the size a built-in scene needs to hold all of it, and the terrain a
``--terrain`` name means for a clip (:func:`terrain_for_clip`).

The path is the hips' (the joint the two legs hang from), never the root joint's: datasets
that give every joint position channels leave the root at the origin while the hips walk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.foot_model import Leg, legs_of
from footfall.footing.runs import segments
from footfall.grounding.clip.prepared import animation_floor
from footfall.humanoid.limbs import body_joints, hips_joint
from footfall.skeleton import Clip
from footfall.terrain.level import LevelGround
from footfall.terrain.scenes import SCENES
from footfall.terrain.spec import from_spec

if TYPE_CHECKING:
    from footfall.terrain.base import BoundedRaySource, RaySource


#: How :func:`~footfall.grounding.clip.ground_clip` puts a clip on the terrain: True turns it
#: to travel along +X over the terrain's interesting part (:func:`place_clip`); False uses it
#: where it is; "under" keeps it where it is and lays the terrain (a built-in scene, whose
#: layout means nothing in the clip's coordinates) under it: moved over the terrain's middle
#: (:func:`centring_shift`) for grounding and back after (``GroundResult.scene_offset_xz``).
Placement = bool | Literal["under"]

#: Candidate shifts along x tried over uneven non-stair ground, and the margin (metres) kept
#: between the clip's feet and the terrain's border.
PLACE_CANDIDATES = 64
PLACE_MARGIN = 0.5
#: A built-in scene is at least this big (the scenes' own default strip) and holds the clip's
#: footprint with PLACE_MARGIN + this much room on every side.
SCENE_MIN_SIZE = (32.0, 4.0)
SCENE_ROOM = 1.0
#: Paths shorter than this (metres) have no direction of travel: they are not turned.
MIN_TRAVEL = 0.2


def travel_heading(path_xz: FloatArray) -> float | None:
    """Heading (radians about +Y, 0 along +Z) of a path ``(F, 2)`` as (x, z): its start → end
    direction, or for a path that comes back (a circle, a figure eight, back and forth) its
    longest axis; None when it hardly moves."""
    travel = path_xz[-1] - path_xz[0]
    centred = path_xz - path_xz.mean(axis=0)
    spread = float(np.abs(centred).max(initial=0.0))
    if np.hypot(*travel) > max(MIN_TRAVEL, 0.5 * spread):
        return float(np.arctan2(travel[0], travel[1]))
    if spread < MIN_TRAVEL:
        return None
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    return float(np.arctan2(axes[0, 0], axes[0, 1]))


def turned(clip: Clip, turn: FloatArray, shift: FloatArray) -> Clip:
    """The clip turned by ``turn (4,)`` about the world +Y axis and moved by ``shift (3,)``."""
    root = np.nonzero(clip.skeleton.parents < 0)[0]
    rotations = clip.rotations.copy()
    positions = clip.positions.copy()
    rotations[:, root] = quat.mul(turn, rotations[:, root])
    positions[:, root] = quat.rotate(turn, positions[:, root]) + shift
    return Clip(clip.skeleton, rotations, positions, clip.fps)


def along_x(clip: Clip, legs: Any = None) -> Clip:
    """The clip turned about +Y so its hips travel along +X."""
    leg_pair = legs_of(clip.skeleton, legs)
    _, gpos = clip.forward_kinematics()
    hips = gpos[:, hips_joint(clip.skeleton, leg_pair)]
    heading = travel_heading(hips[:, [0, 2]])
    angle = 0.0 if heading is None else np.pi / 2 - heading
    turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), angle)
    return turned(clip, turn, np.zeros(3))


def footprint(clip: Clip, legs: Any = None) -> tuple[FloatArray, FloatArray]:
    """(x, z) minimum and maximum ``(2,)`` of every body joint (:func:`body_joints`) over the
    clip, metres."""
    _, gpos = clip.forward_kinematics()
    body = body_joints(clip.skeleton, legs_of(clip.skeleton, legs))
    xz = gpos[:, body][..., [0, 2]].reshape(-1, 2)
    return xz.min(axis=0), xz.max(axis=0)


def scene_size(clip: Clip, legs: Any = None, turn: bool = True) -> tuple[float, float]:
    """(length along x, width along z) metres of a built-in scene that holds the clip once it
    is turned along +X (:func:`along_x`; as it is with ``turn=False``), with room to spare."""
    low, high = footprint(along_x(clip, legs) if turn else clip, legs)
    room = 2 * (PLACE_MARGIN + SCENE_ROOM)
    return (max(SCENE_MIN_SIZE[0], float(high[0] - low[0]) + room),
            max(SCENE_MIN_SIZE[1], float(high[1] - low[1]) + room))


def terrain_for_clip(text: str, clip: Clip, size: tuple[float, float] | None = None,
                     height_range: tuple[float, float] = (0.0, 1.0), turn: bool = True
                     ) -> BoundedRaySource:
    """:func:`footfall.terrain.from_spec` for ``clip``: ``"level"`` is level ground at the
    clip's own floor (:func:`~footfall.grounding.clip.prepared.animation_floor`), a built-in scene
    without a ``size`` is big enough for the clip (:func:`scene_size`; turned along +X unless
    not ``turn``)."""
    if text == LevelGround.name:
        return from_spec(text, level_height=animation_floor(clip))
    if text in SCENES and size is None:
        size = scene_size(clip, turn=turn)
    return from_spec(text, size, height_range)


def placement_for(text: str, no_place: bool = False) -> Placement:
    """How ``footfall ground --terrain TEXT [--no-place]`` puts the clip on the terrain: level
    ground and files keep their coordinates under ``--no-place`` (False), a built-in scene is
    laid under the clip ("under"); placed (True) otherwise, except on level ground."""
    if text == LevelGround.name or (no_place and text not in SCENES):
        return False
    return "under" if no_place else True


def centring_shift(clip: Clip, bounds: tuple[tuple[float, float], tuple[float, float]],
                   legs: Any = None) -> FloatArray:
    """Horizontal shift ``(3,)`` metres that moves the middle of the clip's footprint to the
    middle of ``bounds`` ``((x_min, z_min), (x_max, z_max))``: with its opposite, a built-in
    scene is laid under a clip that stays where it is."""
    low, high = footprint(clip, legs)
    shift = np.add(*bounds) / 2 - (low + high) / 2  # (x, z)
    return np.array([shift[0], 0.0, shift[1]])


def place_clip(clip: Clip, terrain: BoundedRaySource, legs: Any = None) -> Clip:
    """The clip turned so its hips travel along +X and moved over the terrain's interesting
    part: the up flight of stairs, else the stretch along x where the ground under its lowest
    points varies most (the middle on level ground) — kept inside the terrain with a margin
    wherever the terrain is big enough."""
    leg_pair = legs_of(clip.skeleton, legs)
    facing = along_x(clip, leg_pair)
    _, gpos = facing.forward_kinematics()
    hips = gpos[:, hips_joint(clip.skeleton, leg_pair), :]
    focus = terrain.focus_x
    (x_min, z_min), (x_max, z_max) = terrain.bounds
    if focus is not None:
        centre = np.array([(focus[0] + focus[1]) / 2, 0.0])
    else:
        centre = np.array([(x_min + x_max) / 2, (z_min + z_max) / 2])
    middle = (hips[:, [0, 2]].min(axis=0) + hips[:, [0, 2]].max(axis=0)) / 2
    low, high = footprint(facing, leg_pair)
    shift = _inside(centre - middle, low, high, (x_min, z_min), (x_max, z_max))
    placed = turned(facing, quat.identity(), np.array([shift[0], 0.0, shift[1]]))
    if focus is None:
        room = (x_min + PLACE_MARGIN - (low[0] + shift[0]),
                x_max - PLACE_MARGIN - (high[0] + shift[0]))
        extra = _roughest_shift(placed, leg_pair, terrain, room)
        placed = turned(placed, quat.identity(), np.array([extra, 0.0, 0.0]))
    return placed


def _inside(shift: FloatArray, low: FloatArray, high: FloatArray, lower: tuple[float, float],
            upper: tuple[float, float]) -> FloatArray:
    """``shift (2,)`` moved as little as needed to keep a footprint [low, high] + shift inside
    [lower, upper] with the margin, per axis (centred where it cannot fit)."""
    least = np.asarray(lower) + PLACE_MARGIN - low
    most = np.asarray(upper) - PLACE_MARGIN - high
    return np.where(least > most, (least + most) / 2, np.clip(shift, least, most))


def _roughest_shift(clip: Clip, legs: tuple[Leg, Leg], terrain: RaySource,
                    limits: tuple[float, float]) -> float:
    """Shift along x (metres, within ``limits``) that puts the clip's lowest body points over
    the most uneven ground (largest spread of heights); 0 when all is level or nothing fits."""
    low, high = limits
    if high <= low:
        return 0.0
    _, gpos = clip.forward_kinematics()
    gpos = gpos[:, body_joints(clip.skeleton, legs)]
    lowest = np.take_along_axis(gpos, gpos[..., 1].argmin(axis=1)[:, None, None], axis=1)[:, 0]
    points = lowest[:, [0, 2]]  # (F, 2)
    shifts = np.append(np.linspace(low, high, PLACE_CANDIDATES), 0.0)  # the middle wins ties
    shifts = np.clip(shifts, low, high)
    moved = points[None] + np.stack([shifts, np.zeros_like(shifts)], axis=-1)[:, None]
    heights = np.asarray(terrain.height(moved), np.float64)
    spread = np.where(np.isfinite(heights), heights, 0.0).std(axis=1)
    best = int(np.argmax(spread))
    return float(shifts[best]) if spread[best] > spread[-1] + 1e-6 else float(shifts[-1])


def frame_ranges(flags: NDArray[np.bool_]) -> str:
    """Frames where a 1-D bool array is True as text: ``"10–40, 97"`` (inclusive)."""
    return ", ".join(str(start) if stop - start == 1 else f"{start}–{stop - 1}"
                     for start, stop in segments(flags))
