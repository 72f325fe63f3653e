"""The child reader's arrays from a loaded ufbx scene: the takes, each joint's world matrix at
every frame of a take, and the ``.npz`` the parent reads (:func:`run_scene`; the list of arrays
is in :mod:`footfall.fbx.worker`).

Local transforms are turned into matrices here (:func:`_trs_matrices`) rather than with
:mod:`footfall.quat`, which loads numba: the child imports numpy and ufbx alone, to start fast.
"""

from __future__ import annotations

import os
from itertools import repeat
from typing import Any

import numpy as np
import ufbx

from footfall.fbx.child_state import Refused, held
from footfall.fbx.scene_graph import (
    depth_of,
    matrix,
    rest_pose,
    select_skeleton,
    skinned_meshes,
)

#: Most frames a take is sampled at (a day at 120 fps would be 10 million).
MAX_FRAMES = 2_000_000
#: Largest disagreement (metres) between the fast composition of local transforms and ufbx's
#: own world matrices before the slow, exact per-frame evaluation is used instead.
COMPOSE_TOLERANCE = 1e-6
#: Environment variable that, set to 1, makes every frame take the exact path (tests compare).
EXACT_VARIABLE = "FOOTFALL_FBX_EXACT"


def takes(scene: Any) -> tuple[list[str], np.ndarray]:
    """Names and ``(T, 2)`` [begin, end] seconds of the animation stacks."""
    stacks = [held(stack) for stack in scene.anim_stacks]
    names = [stack.name for stack in stacks]
    ranges = np.array([[stack.time_begin, stack.time_end]
                       for stack in stacks], dtype=np.float64).reshape(-1, 2)
    return names, ranges


def find_take(scene: Any, take: str) -> Any:
    """The animation stack named or numbered by ``take`` ('' = the first; None when the file
    has no take and none was asked for)."""
    stacks = [held(stack) for stack in scene.anim_stacks]
    names = [stack.name for stack in stacks]
    if not stacks:
        if take == "":
            return None
        raise Refused(f"no take {take!r}: the file has no animation take")
    if take == "":
        return stacks[0]
    if take in names:
        return stacks[names.index(take)]
    if take.lstrip("-").isdigit():
        number = int(take)
        if 0 <= number < len(stacks):
            return stacks[number]
        raise Refused(f"take {number} does not exist ({len(stacks)} takes: {names})")
    raise Refused(f"no take named {take!r} (takes: {names})")


def sample_take(scene: Any, joints: list[Any], stack: Any, fps: float
                ) -> tuple[np.ndarray, np.ndarray, str]:
    """``times (F,)`` and ``world (F, J, 4, 4)`` of the joints at each frame of ``stack``, and
    the path taken (``composed`` or ``evaluated``).

    Fast path (``composed``): each node's local transform (ufbx evaluates pre/post rotations,
    pivots and offsets) composed down the hierarchy here; checked against ufbx's own world
    matrices on the first, middle and last frames, and replaced by a whole-scene evaluation per
    frame (``evaluated``: exact for every inheritance mode, about 8× slower) when they disagree.
    """
    begin, end = float(stack.time_begin), float(stack.time_end)
    if not (np.isfinite(begin) and np.isfinite(end) and fps > 0 and np.isfinite(fps)):
        raise Refused(f"take has an unusable time range ({begin} to {end} s at {fps} fps)")
    count = int(np.floor((end - begin) * fps + 1e-6)) + 1
    if count > MAX_FRAMES or count < 1:
        raise Refused(f"take of {end - begin:g} s at {fps:g} fps is too many frames to sample")
    times = begin + np.arange(max(count, 1)) / fps
    anim = held(stack.anim)
    chain_nodes, chain_parent, rows_of_joints = _chains(joints)
    local = np.empty((count, len(chain_nodes), 4, 4))
    clock = times.tolist()
    for n, node in enumerate(chain_nodes):
        # one row per frame: translation, rotation (x, y, z, w), scale (a transform is the
        # tuple of those three tuples)
        rows = np.array([t + r + s for t, r, s in map(node.evaluate_transform, repeat(anim),
                                                      clock)], dtype=np.float64)
        local[:, n] = _trs_matrices(rows[:, :3], rows[:, 3:7], rows[:, 7:])
    world = np.empty_like(local)
    for n in range(len(chain_nodes)):
        p = chain_parent[n]
        world[:, n] = local[:, n] if p < 0 else world[:, p] @ local[:, n]
    picked = world[:, rows_of_joints]
    checks = sorted({0, count // 2, count - 1})
    exact = np.stack([_evaluated_world(scene, anim, joints, times[k]) for k in checks])
    if os.environ.get(EXACT_VARIABLE) != "1" and np.allclose(
            picked[checks], exact, rtol=0.0, atol=COMPOSE_TOLERANCE):
        return times, picked, "composed"
    return times, np.stack([_evaluated_world(scene, anim, joints, t) for t in times]), \
        "evaluated"


def _chains(joints: list[Any]) -> tuple[list[Any], list[int], list[int]]:
    """The joints and every other node above them, parents first, with each one's parent in
    that list (−1 above the scene root), and the row of each joint."""
    out = list(joints)
    ids = {node.element_id: k for k, node in enumerate(out)}
    parent_ids: list[int | None] = []
    k = 0
    while k < len(out):
        up = out[k].parent
        if up is None:
            parent_ids.append(None)
        else:
            held(up)
            if up.element_id not in ids:
                ids[up.element_id] = len(out)
                out.append(up)
            parent_ids.append(up.element_id)
        k += 1
    parents = [-1 if pid is None else ids[pid] for pid in parent_ids]
    depth = [depth_of(k, parents) for k in range(len(parents))]
    order = sorted(range(len(parents)), key=lambda k: (depth[k], k))
    position = {old: new for new, old in enumerate(order)}
    return ([out[k] for k in order],
            [position[parents[k]] if parents[k] >= 0 else -1 for k in order],
            [position[j] for j in range(len(joints))])


def _trs_matrices(translation: np.ndarray, rotation: np.ndarray, scale: np.ndarray
                  ) -> np.ndarray:
    """``(F, 4, 4)`` matrices T·R·S from translations, x-y-z-w quaternions and scales."""
    x, y, z, w = (rotation[:, i] for i in range(4))
    out = np.zeros((len(translation), 4, 4))
    out[:, 0, 0] = 1 - 2 * (y * y + z * z)
    out[:, 0, 1] = 2 * (x * y - z * w)
    out[:, 0, 2] = 2 * (x * z + y * w)
    out[:, 1, 0] = 2 * (x * y + z * w)
    out[:, 1, 1] = 1 - 2 * (x * x + z * z)
    out[:, 1, 2] = 2 * (y * z - x * w)
    out[:, 2, 0] = 2 * (x * z - y * w)
    out[:, 2, 1] = 2 * (y * z + x * w)
    out[:, 2, 2] = 1 - 2 * (x * x + y * y)
    out[:, :3, :3] *= scale[:, None, :]
    out[:, :3, 3] = translation
    out[:, 3, 3] = 1.0
    return out


def _evaluated_world(scene: Any, anim: Any, joints: list[Any], time: float
                     ) -> np.ndarray:
    """``(J, 4, 4)`` ufbx's world matrices of the joints with the scene evaluated at ``time``."""
    evaluated = held(ufbx.evaluate_scene(scene, anim, float(time)))
    nodes = held(evaluated.nodes)
    return np.stack([matrix(held(nodes[node.typed_id]).node_to_world)
                     for node in joints])


def _axis_name(axis: Any) -> str:
    """``+Y`` for ufbx's POSITIVE_Y, and so on."""
    name = str(getattr(axis, "name", axis))
    sign = "-" if name.startswith("NEGATIVE") else "+"
    return sign + name.rsplit("_", 1)[-1] if "_" in name else name


def run_scene(scene: Any, mode: str, out: str, take: str) -> None:
    """Save the arrays ``mode`` asks of the loaded ``scene`` to ``out`` (see
    :mod:`footfall.fbx.worker` for what they are)."""
    settings = held(scene.settings)
    names, ranges = takes(scene)
    fps = float(settings.frames_per_second)
    result: dict[str, np.ndarray] = {
        "takes": np.array(names, dtype=str), "take_ranges": ranges,
        "fps": np.array(fps), "unit": np.array(float(settings.unit_meters)),
        "up": np.array(_axis_name(held(settings.axes).up)),
        "version": np.array(int(held(scene.metadata).version)),
    }
    if mode != "takes":
        joints, parents = select_skeleton(scene)
        result["names"] = np.array([node.name for node in joints], dtype=str)
        result["parents"] = np.array(parents, dtype=np.int64)
        result["rest"] = rest_pose(scene, joints, parents)
        if mode == "clip":
            stack = find_take(scene, take)
            if stack is None:  # no take: the file's pose, one frame
                result["take"], result["path"] = np.array(""), np.array("static")
                result["times"] = np.zeros(1)
                result["world"] = _evaluated_world(scene, held(scene.anim), joints, 0.0)[None]
            else:
                result["take"] = np.array(stack.name)
                result["times"], result["world"], path = sample_take(scene, joints, stack, fps)
                result["path"] = np.array(path)
        else:
            result.update(skinned_meshes(scene, joints))
    np.savez(out, **result)  # type: ignore[arg-type]
