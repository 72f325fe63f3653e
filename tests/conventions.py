"""More conventions made from the shared clips (issue 36 item 6): the same motion mirrored,
played backwards, bent along an arc or into an S, resampled, and written to BVH Z-up or in
inches and read back through :func:`footfall.bvh.load` (so the reader's unit and axis handling
is part of what is tested).

Every variant is a function ``Clip → Clip`` in :data:`VARIANTS`; :func:`variant` makes one by
name. Used by the grounding tests and by ``tools/ground_table.py`` / ``tools/turning_table.py``.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from footfall import bvh, quat
from footfall.footing.foot_model import legs_of
from footfall.grounding.clip.placement import along_x
from footfall.humanoid.limbs import hips_joint
from footfall.skeleton import Clip, Skeleton

#: Metres per inch (what a file in inches is scaled by when read).
INCH = 0.0254
_Y_TO_Z_UP = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), np.pi / 2)
_SIDES = [(r"Left", "Right"), (r"left", "right"), (r"LEFT", "RIGHT")]


def _swapped_name(name: str) -> str:
    """``name`` with its side swapped: Left ↔ Right (any case), a leading ``l``/``r`` before a
    capital (``lAnkle``), ``L_``/``R_`` and ``_L``/``.L`` suffixes."""
    for left, right in _SIDES:
        if left in name or right in name:
            other = {left: right, right: left}
            return re.sub(f"{left}|{right}", lambda m: other[m.group(0)], name)  # noqa: B023
    match = re.match(r"^(.*?)([lr])([A-Z].*)$", name)
    if match and (match.group(1) == "" or match.group(1).endswith(":")):
        return match.group(1) + {"l": "r", "r": "l"}[match.group(2)] + match.group(3)
    swap = {"L": "R", "R": "L"}
    match = re.match(r"^([LR])([_.].*)$", name)
    if match:
        return swap[match.group(1)] + match.group(2)
    match = re.match(r"^(.*[_.])([LR])$", name)
    if match:
        return match.group(1) + swap[match.group(2)]
    return name


def mirrored(clip: Clip) -> Clip:
    """``clip`` mirrored left ↔ right: the world reflected through the plane x = 0 (offsets,
    End Sites, positions x → −x; rotations ``(w, x, y, z)`` → ``(w, x, −y, −z)``) and the joint
    names' sides swapped, so the joint named left is on the left again."""
    skeleton = clip.skeleton
    flip = np.array([-1.0, 1.0, 1.0])
    rotations = clip.rotations * np.array([1.0, 1.0, -1.0, -1.0])
    names = [_swapped_name(name) for name in skeleton.names]
    assert names != list(skeleton.names), "no side found in the joint names"
    return Clip(Skeleton(names, skeleton.parents.copy(), skeleton.offsets * flip,
                         {j: e * flip for j, e in skeleton.end_sites.items()}),
                rotations, clip.positions * flip, clip.fps)


def reversed_in_time(clip: Clip) -> Clip:
    """The clip played backwards: a walk becomes a backward walk."""
    return Clip(clip.skeleton, clip.rotations[::-1].copy(), clip.positions[::-1].copy(), clip.fps)


def bent(clip: Clip, radius: float, sign: float = 1.0) -> Clip:
    """A walk (turned along +X) bent into an arc of ``radius`` metres: its root path and heading
    rotated about +Y progressively, by the distance the hips have travelled over the radius
    (to the left with ``sign`` +1, to the right with −1)."""
    clip = along_x(clip)
    legs = legs_of(clip.skeleton)
    _, gpos = clip.forward_kinematics()
    hips = gpos[:, hips_joint(clip.skeleton, legs)]
    travelled = hips[:, 0] - hips[0, 0]
    turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), sign * travelled / radius)
    base = np.stack([hips[:, 0], np.zeros(len(hips)), hips[:, 2]], axis=-1)
    step = np.gradient(travelled)[:, None] * quat.rotate(turn, np.array([1.0, 0.0, 0.0]))
    path = np.cumsum(step, axis=0) - step[0] + base[0]
    rotations, positions = clip.rotations.copy(), clip.positions.copy()
    for root in np.nonzero(clip.skeleton.parents < 0)[0]:
        rotations[:, root] = quat.mul(turn, rotations[:, root])
        positions[:, root] = quat.rotate(turn, positions[:, root] - base) + path
    return Clip(clip.skeleton, rotations, positions, clip.fps)


def eight(clip: Clip, radius: float) -> Clip:
    """First half of the walk bent left, the second half right: an S, half a figure eight.
    Each half needs two frames at least (its heading is taken between its first two)."""
    if clip.frame_count < 4:
        raise ValueError(f"an eight needs 4 frames at least (two per half); the clip has "
                         f"{clip.frame_count}")
    half = clip.frame_count // 2
    left = bent(clip[:half], radius)
    right = bent(clip[half:], radius, -1.0)
    # the second half continues where the first ends, heading where it heads
    _, a = left.forward_kinematics()
    _, b = right.forward_kinematics()
    legs = legs_of(clip.skeleton)
    hips = hips_joint(clip.skeleton, legs)
    end, start = a[-1, hips] * [1, 0, 1], b[0, hips] * [1, 0, 1]  # joined on the floor
    heading = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]),
                                   np.arctan2(*(a[-1, hips] - a[-2, hips])[[0, 2]])
                                   - np.arctan2(*(b[1, hips] - b[0, hips])[[0, 2]]))
    rotations, positions = right.rotations.copy(), right.positions.copy()
    for root in np.nonzero(clip.skeleton.parents < 0)[0]:
        rotations[:, root] = quat.mul(heading, rotations[:, root])
        positions[:, root] = quat.rotate(heading, positions[:, root] - start) + end
    return Clip(clip.skeleton, np.concatenate([left.rotations, rotations]),
                np.concatenate([left.positions, positions]), clip.fps)


def conjugated(clip: Clip, turn: np.ndarray, scale: float) -> Clip:
    """``clip`` as a file of another convention would hold it: every offset, End Site, motion
    position and rotation expressed in a world turned by ``turn`` (rest pose included, as a real
    Z-up export has it), lengths times ``scale``."""
    skeleton = clip.skeleton
    inverse = quat.inv(turn)
    return Clip(Skeleton(list(skeleton.names), skeleton.parents.copy(),
                         quat.rotate(turn, skeleton.offsets) * scale,
                         {j: quat.rotate(turn, e) * scale for j, e in skeleton.end_sites.items()}),
                quat.mul(quat.mul(turn, clip.rotations), inverse),
                quat.rotate(turn, clip.positions) * scale, clip.fps)


def through_bvh(clip: Clip, turn: np.ndarray, scale: float) -> Clip:
    """``clip`` written to a BVH file in another convention (:func:`conjugated`) and read back
    with :func:`footfall.bvh.load`'s defaults (unit and up axis guessed)."""
    with tempfile.TemporaryDirectory(prefix="footfall-conventions-") as folder:
        path = Path(folder) / "variant.bvh"
        path.write_text(bvh.format_bvh(conjugated(clip, turn, scale)))
        return bvh.load(path)


def z_up(clip: Clip) -> Clip:
    """Written Z up (metres) and read back."""
    return through_bvh(clip, _Y_TO_Z_UP, 1.0)


def inches(clip: Clip) -> Clip:
    """Written in inches (Y up) and read back."""
    return through_bvh(clip, quat.identity(()), 1.0 / INCH)


#: Every variant by name: ``Clip → Clip``.
VARIANTS: dict[str, Callable[[Clip], Clip]] = {
    "straight": along_x,
    "mirrored": mirrored,
    "backward": reversed_in_time,
    "circle": lambda clip: bent(clip, 1.2),
    "circle_right_backward": lambda clip: reversed_in_time(bent(clip, 1.2, -1.0)),
    "eight": lambda clip: eight(clip, 1.0),
    "fps30": lambda clip: clip.resample(30.0),
    "fps60": lambda clip: clip.resample(60.0),
    "fps120": lambda clip: clip.resample(120.0),
    "z_up": z_up,
    "inches": inches,
}


def variant(clip: Clip, name: str) -> Clip:
    """``clip`` as variant ``name`` (:data:`VARIANTS`)."""
    return VARIANTS[name](clip)


def grounded_on_scene(clip: Clip, terrain_name: str) -> tuple[Clip, Clip, Any]:
    """``clip`` (its calibration frames cut) placed on the built-in scene ``terrain_name``,
    sized to hold it, and grounded as ``footfall ground`` does: (placed source, output,
    terrain)."""
    from footfall.footing.foot_model import calibration_frames
    from footfall.grounding.clip import ground_clip
    from footfall.grounding.clip.placement import place_clip, scene_size
    from footfall.terrain import scene

    motion = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    length, width = scene_size(motion)
    terrain = scene(terrain_name, length=length, width=width)
    source = place_clip(motion, terrain)
    return source, ground_clip(source, terrain, place=False).clip, terrain


def scene_scores(name: str, made: str, terrain_name: str, frames: slice = slice(0, 600),
                 window: slice | None = None, heel: bool = False) -> dict[str, float]:
    """Issue 36's independent figures (``tools/ground_table.py``'s ``independent_scores``) of
    the shared clip ``name`` (a file in ``tests/data/bvh``; variant ``made``, ``frames`` of it)
    grounded on ``terrain_name`` (:func:`grounded_on_scene`); with ``window``, of those frames
    of the run only (the source's contacts found in them, its floor the whole run's); ``heel``:
    scored with the heel modelled from the source rig, as the tables are (the tool's
    ``--heel``, its default)."""
    from conftest import DATA, ground_table

    source, out, terrain = grounded_on_scene(
        VARIANTS[made](bvh.load(DATA / "bvh" / name)[frames]), terrain_name)
    tool = ground_table()
    if window is None:
        return dict(tool.independent_scores(source, out, terrain, heel=heel))
    floor = tool.source_floor(tool.source_foot_points(source), tool.source_contacts(source))
    return dict(tool.independent_scores(source[window], out[window], terrain, floor, heel=heel))
