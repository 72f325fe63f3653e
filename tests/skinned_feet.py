"""What a viewer sees of a retargeted avatar's feet, measured without footfall's retargeter.

The output glTF is read with pygltflib alone: its animation sampled at its key times, node world
matrices composed from TRS, vertices skinned as the glTF specification defines (joint matrix =
joint world × inverse bind matrix, blended by the vertex weights; meshes without a skin follow
their node rigidly). The source's foot contacts are found from the source clip's own foot points
(joints and End Sites below each foot), from their height above that foot's stance level and
their speed. Used by the retargeting tests and by ``tools/retarget_sheet.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pygltflib

_COMPONENTS = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32,
               5126: np.float32}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}

CONTACT_BAND = 0.025  # metres above a foot's stance level that still counts as planted
CONTACT_SPEED = 0.35  # metres per second of horizontal speed below which a low foot is planted


def _read(gltf: pygltflib.GLTF2, blob: bytes, index: int) -> np.ndarray:
    accessor = gltf.accessors[index]
    view = gltf.bufferViews[accessor.bufferView]
    dtype = np.dtype(_COMPONENTS[accessor.componentType])
    width = _WIDTHS[accessor.type]
    start = (view.byteOffset or 0) + (accessor.byteOffset or 0)
    stride = view.byteStride or dtype.itemsize * width
    rows = np.ndarray((accessor.count, width), dtype=dtype, buffer=blob, offset=start,
                      strides=(stride, dtype.itemsize))
    values = rows.astype(np.float64)
    if accessor.normalized and dtype.kind in "iu":
        values /= np.iinfo(dtype).max
    return values


def _matrices(t: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """(F, 4, 4) from translation (F, 3), rotation (F, 4) x, y, z, w (glTF order), scale (F, 3)."""
    x, y, z, w = (r[:, k] for k in range(4))
    rot = np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)
    out = np.zeros((len(t), 4, 4))
    out[:, :3, :3] = rot * s[:, None, :]
    out[:, :3, 3] = t
    out[:, 3, 3] = 1.0
    return out


@dataclass
class SkinnedClip:
    """Skinned vertices of an animated glTF, frame by frame.

    Attributes:
        vertices: ``(F, V, 3)`` world positions, metres (every mesh, rigid parts included).
        foot: ``(2, V)`` whether a vertex belongs to the left / right foot (its weight on the
            foot joint and the joints below it is at least one half).
        times: ``(F,)`` seconds.
    """

    vertices: np.ndarray
    foot: np.ndarray
    times: np.ndarray


def skin(path: str | Path, feet: tuple[str, str], every: int = 1,
         animation: int = 0) -> SkinnedClip:
    """Skin every mesh of the glTF at ``path`` at the key times of ``animation`` (each
    ``every``-th); ``feet`` names the left and right foot nodes."""
    gltf = pygltflib.GLTF2().load(str(path))
    blob = gltf.binary_blob()
    nodes = gltf.nodes
    parent = {c: i for i, n in enumerate(nodes) for c in (n.children or [])}
    anim = gltf.animations[animation]
    times = None
    tracks: dict[tuple[int, str], np.ndarray] = {}
    for channel in anim.channels:
        sampler = anim.samplers[channel.sampler]
        key_times = _read(gltf, blob, sampler.input)[:, 0]
        if times is None:
            times = key_times
        assert len(key_times) == len(times), "channels with different key times"
        tracks[(channel.target.node, channel.target.path)] = _read(gltf, blob, sampler.output)
    assert times is not None
    pick = np.arange(0, len(times), every)
    frames = len(pick)

    def trs(i: int) -> np.ndarray:
        node = nodes[i]
        if node.matrix is not None and not any((i, p) in tracks for p in
                                               ("translation", "rotation", "scale")):
            return np.broadcast_to(np.array(node.matrix, dtype=float).reshape(4, 4).T,
                                   (frames, 4, 4))
        base = {"translation": node.translation or [0.0, 0.0, 0.0],
                "rotation": node.rotation or [0.0, 0.0, 0.0, 1.0],
                "scale": node.scale or [1.0, 1.0, 1.0]}
        parts = {}
        for key, value in base.items():
            track = tracks.get((i, key))
            fixed = np.asarray(value, dtype=float)
            parts[key] = (track[pick] if track is not None
                          else np.broadcast_to(fixed, (frames, len(fixed))))
        rotation = parts["rotation"] / np.linalg.norm(parts["rotation"], axis=-1, keepdims=True)
        return _matrices(parts["translation"], rotation, parts["scale"])

    world: dict[int, np.ndarray] = {}

    def world_of(i: int) -> np.ndarray:
        if i not in world:
            local = trs(i)
            world[i] = local if i not in parent else world_of(parent[i]) @ local
        return world[i]

    names = [n.name for n in nodes]
    foot_nodes = [names.index(f) for f in feet]

    def below(i: int, top: int) -> bool:
        while True:
            if i == top:
                return True
            if i not in parent:
                return False
            i = parent[i]

    vertices, foot_masks = [], []
    for index, node in enumerate(nodes):
        if node.mesh is None:
            continue
        for prim in gltf.meshes[node.mesh].primitives:
            v = _read(gltf, blob, prim.attributes.POSITION)
            homogeneous = np.concatenate([v, np.ones((len(v), 1))], axis=1)
            if node.skin is not None:
                skin_ = gltf.skins[node.skin]
                ibm = _read(gltf, blob, skin_.inverseBindMatrices).reshape(-1, 4, 4)
                ibm = ibm.transpose(0, 2, 1)  # column-major in the file
                joints = _read(gltf, blob, prim.attributes.JOINTS_0).astype(int)
                weights = _read(gltf, blob, prim.attributes.WEIGHTS_0)
                weights /= np.maximum(weights.sum(-1, keepdims=True), 1e-12)
                mats = np.stack([world_of(j) for j in skin_.joints], axis=1) @ ibm  # (F, K, 4, 4)
                out = np.zeros((frames, len(v), 3))
                for k in range(joints.shape[1]):
                    m = mats[:, joints[:, k]]  # (F, V, 4, 4)
                    out += weights[None, :, k, None] * np.einsum(
                        "fvij,vj->fvi", m[..., :3, :], homogeneous)
                mask = []
                for foot in foot_nodes:
                    on_foot = np.array([below(j, foot) for j in skin_.joints])
                    mask.append((weights * on_foot[joints]).sum(-1) >= 0.5)
            else:
                m = world_of(index)
                out = np.einsum("fij,vj->fvi", m[:, :3, :], homogeneous)
                mask = [np.full(len(v), below(index, foot)) for foot in foot_nodes]
            vertices.append(out)
            foot_masks.append(np.stack(mask))
    return SkinnedClip(np.concatenate(vertices, axis=1), np.concatenate(foot_masks, axis=1),
                       times[pick])


def source_foot_points(clip: object) -> np.ndarray:
    """``(F, 2, P, 3)`` every point of the source's left / right foot — the foot joint, the
    joints below it and their End Sites — frame by frame (NaN padding where one foot has fewer
    points), metres, the source's own coordinates."""
    from footfall import quat
    from footfall.humanoid import map_skeleton
    from footfall.skeleton import forward_kinematics

    skeleton = clip.skeleton  # type: ignore[attr-defined]
    mapping = map_skeleton(skeleton).mapping
    world, positions = forward_kinematics(skeleton.parents, clip.rotations,  # type: ignore
                                          clip.positions)  # type: ignore[attr-defined]
    feet = []
    for bone in ("LeftFoot", "RightFoot"):
        foot = skeleton.index(mapping[bone])
        joints = [j for j in range(skeleton.joint_count) if foot in skeleton.chain(j)]
        points = [positions[:, joints]]
        for j in joints:
            if j in skeleton.end_sites:
                end = np.asarray(skeleton.end_sites[j], dtype=float)
                points.append((positions[:, j] + quat.rotate(world[:, j], end))[:, None])
        feet.append(np.concatenate(points, axis=1))  # (F, P, 3)
    width = max(f.shape[1] for f in feet)
    out = np.full((len(positions), 2, width, 3), np.nan)
    for side, pts in enumerate(feet):
        out[:, side, : pts.shape[1]] = pts
    return out


def foot_turns(clip: object) -> np.ndarray:
    """``(F − 1, 2)`` how far (degrees) the left / right foot joint turns in the world between
    two frames: the foot bones named by the humanoid mapping, forward kinematics here."""
    from footfall import quat
    from footfall.humanoid import map_skeleton
    from footfall.skeleton import forward_kinematics

    skeleton = clip.skeleton  # type: ignore[attr-defined]
    mapping = map_skeleton(skeleton).mapping
    feet = [skeleton.index(mapping[bone]) for bone in ("LeftFoot", "RightFoot")]
    world, _ = forward_kinematics(skeleton.parents, clip.rotations,  # type: ignore
                                  clip.positions)  # type: ignore[attr-defined]
    return np.degrees(quat.angle_between(world[1:, feet], world[:-1, feet]))


def source_soles(clip: object) -> tuple[np.ndarray, np.ndarray]:
    """``(F, 2)`` height (metres, the source's own y) of the lowest point of the source's left /
    right foot (:func:`source_foot_points`) and ``(F, 2, 3)`` where that point is, frame by
    frame."""
    points = source_foot_points(clip)
    y = np.where(np.isfinite(points[..., 1]), points[..., 1], np.inf)
    lowest = y.argmin(axis=-1)  # (F, 2)
    lows = np.take_along_axis(points, lowest[..., None, None], axis=2)[:, :, 0]
    return lows[..., 1], lows


def source_contacts(clip: object, every: int = 1) -> np.ndarray:
    """``(F, 2)`` whether the source's left / right foot is planted, frame by frame: its lowest
    point (:func:`source_soles`) within :data:`CONTACT_BAND` of that foot's stance level (the
    10th percentile of its lowest point) and slower than :data:`CONTACT_SPEED` horizontally."""
    heights, lows = source_soles(clip)
    result = []
    for side in range(2):
        lowest, low = heights[:, side], lows[:, side]
        level = np.percentile(lowest, 10)
        speed = np.zeros(len(lowest))
        speed[1:] = np.linalg.norm(np.diff(low[:, [0, 2]], axis=0), axis=-1) * clip.fps  # type: ignore
        speed[0] = speed[1] if len(speed) > 1 else 0.0
        result.append((lowest - level < CONTACT_BAND) & (speed < CONTACT_SPEED))
    return np.stack(result, axis=-1)[::every]


def planted_sole(skinned: SkinnedClip, contacts: np.ndarray) -> dict[str, float]:
    """Figures of the planted feet: per foot the lowest foot vertex (metres above y = 0) over
    the frames its source foot is planted — median, 5th/95th percentile, share within
    −1…+1.5 cm — and the lowest vertex of the whole mesh over all frames."""
    out: dict[str, float] = {}
    inside = []
    for side, name in enumerate(("left", "right")):
        sole = skinned.vertices[:, skinned.foot[side], 1].min(axis=1)
        planted = sole[contacts[: len(sole), side]]
        out[f"{name}_median"] = float(np.median(planted)) if len(planted) else float("nan")
        out[f"{name}_p05"] = float(np.percentile(planted, 5)) if len(planted) else float("nan")
        out[f"{name}_p95"] = float(np.percentile(planted, 95)) if len(planted) else float("nan")
        inside.append((planted >= -0.01) & (planted <= 0.015))
    both = np.concatenate(inside)
    out["share_in_band"] = float(both.mean()) if len(both) else float("nan")
    out["stance_frames"] = float(len(both))
    out["lowest_foot"] = float(skinned.vertices[:, skinned.foot.any(0), 1].min())
    out["lowest_vertex"] = float(skinned.vertices[..., 1].min())
    return out


#: Share of the clip's standing hips height above which the source counts as standing.
STANDING_SHARE = 0.85


def source_standing(clip: object) -> np.ndarray:
    """``(F,)`` whether the source stands: its hips (the skeleton's root joint) at least
    :data:`STANDING_SHARE` of their standing height above its lower foot's lowest point, the
    standing height being the 90th percentile of that over the clip."""
    heights, _ = source_soles(clip)
    hips = clip.global_positions()[:, 0, 1]  # type: ignore[attr-defined]
    above = hips - heights.min(axis=1)
    return above >= STANDING_SHARE * np.percentile(above, 90)


def foot_joint_positions(clip: object) -> np.ndarray:
    """``(F, 2, 3)`` world positions of the left / right foot joint (the foot bones named by
    the humanoid mapping), metres."""
    from footfall.humanoid import map_skeleton
    from footfall.skeleton import forward_kinematics

    skeleton = clip.skeleton  # type: ignore[attr-defined]
    mapping = map_skeleton(skeleton).mapping
    feet = [skeleton.index(mapping[bone]) for bone in ("LeftFoot", "RightFoot")]
    _, positions = forward_kinematics(skeleton.parents, clip.rotations,  # type: ignore
                                      clip.positions)  # type: ignore[attr-defined]
    return positions[:, feet]
