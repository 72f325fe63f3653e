"""A VRM Animation (``.vrma``) as a clip of its own skeleton, without a VRM avatar to play it on.

A .vrma holds a humanoid skeleton (its nodes) and an animation of it. The clip's joints are the
file's humanoid bones (named as canonical bones: Hips, LeftUpperLeg …), each parented to its
nearest humanoid ancestor; its rest pose is the file's T-pose with every rotation the identity
(VRM Animation's normalized pose) and its offsets the bones' rest positions in the file's space
(Y up, +Z forward, metres: VRM 1.0's). Each frame's global rotation of a bone is its node's
animated world rotation times the inverse of its rest world rotation, so global joint positions
are exactly the file's node positions (the hips also take their animated translation).
:func:`footfall.gltf.load_vrm_animation` plays the same file on a VRM avatar instead.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from footfall import quat
from footfall.errors import GLTFError
from footfall.gltf.animation import MAX_SAMPLE_FPS, find_animation, read_tracks, sample_tracks
from footfall.gltf.document import read_document
from footfall.gltf.nodes import node_matrix, split_transform
from footfall.gltf.vrma import _human_bones
from footfall.skeleton import Clip, Skeleton


def animation_names(path: str | Path) -> list[str]:
    """The names of a .vrma's animations (``"animation N"`` where unnamed)."""
    gltf = read_document(Path(path))
    return [a.name or f"animation {i}" for i, a in enumerate(gltf.animations or [])]


def _key_rate(tracks: list, default: float = 30.0) -> float:
    steps = np.concatenate([np.diff(t.times) for t in tracks]) if tracks else np.zeros(0)
    steps = steps[steps > 1e-6]
    return float(np.round(1.0 / np.median(steps), 3)) if len(steps) else default


def load_vrma_clip(path: str | Path, animation: int = 0, fps: float | None = None) -> Clip:
    """Animation ``animation`` of VRM Animation ``path`` as a clip of its humanoid skeleton,
    sampled at ``fps`` (default: the file's key rate). Raises :class:`GLTFError` naming the
    file and field for files that are not VRM Animations or are malformed."""
    path = Path(path)
    gltf = read_document(path)
    bones = _human_bones(gltf, path)  # {canonical bone: node}, hips present
    parent_of = {child: index for index, node in enumerate(gltf.nodes)
                 for child in node.children or []}
    node_parents = np.full(len(gltf.nodes), -1)
    for child, parent in parent_of.items():
        if isinstance(child, int) and 0 <= child < len(gltf.nodes):
            node_parents[child] = parent
    chain = _node_order(node_parents, path)
    anim = find_animation(gltf, animation, path)
    tracks = read_tracks(gltf, anim, f"{path}: animation {animation}", path)
    rate = _key_rate(tracks) if fps is None else float(fps)
    if not (np.isfinite(rate) and 0 < rate <= MAX_SAMPLE_FPS):
        raise GLTFError(f"{path}: fps must be in (0, {MAX_SAMPLE_FPS:g}], got {rate}")
    end = max([0.0, *(float(t.times[-1]) for t in tracks)])
    frames = int(np.floor(end * rate + 1e-3)) + 1
    sampled = sample_tracks(tracks, np.arange(frames) / rate)
    # Every node's local transform (rest and animated), then world transforms down the tree.
    count = len(gltf.nodes)
    rest_local = np.stack([node_matrix(gltf.nodes[n]) for n in range(count)])
    rest_world = np.empty_like(rest_local)
    world = np.empty((frames, count, 4, 4))
    for n in chain:
        local = np.broadcast_to(rest_local[n], (frames, 4, 4)).copy()
        rotation, translation, scale = _parts(rest_local[n], f"{path}: node {n}")
        if (n, "rotation") in sampled:
            rotation = sampled[n, "rotation"]
        if (n, "translation") in sampled:
            translation = sampled[n, "translation"]
        if (n, "scale") in sampled:
            scale = sampled[n, "scale"].mean(axis=1)
        local[:, :3, :3] = quat.to_matrix(rotation) * np.reshape(scale, (-1, 1, 1))
        local[:, :3, 3] = translation
        parent = node_parents[n]
        rest_world[n] = rest_local[n] if parent < 0 else rest_world[parent] @ rest_local[n]
        world[:, n] = local if parent < 0 else world[:, parent] @ local
    rank = {node: i for i, node in enumerate(chain)}
    order = sorted(bones, key=lambda bone: rank[bones[bone]])  # parents before children
    nodes = [bones[b] for b in order]
    joint_of = {node: j for j, node in enumerate(nodes)}
    parents = np.array([_bone_parent(node, node_parents, joint_of) for node in nodes])
    rest_at = rest_world[nodes, :3, 3]
    offsets = rest_at - np.where(parents[:, None] >= 0, rest_at[np.maximum(parents, 0)], 0.0)
    rest_rot = np.stack([split_transform(rest_world[n], f"{path}: node {n}")[1] for n in nodes])
    anim_rot = quat.from_matrix(_orthonormal(world[:, nodes, :3, :3]))
    global_rot = quat.mul_inv(anim_rot, rest_rot)  # identity in the T-pose
    rotations = global_rot.copy()
    has_parent = parents >= 0
    rotations[:, has_parent] = quat.inv_mul(global_rot[:, parents[has_parent]],
                                            global_rot[:, has_parent])
    positions = np.broadcast_to(offsets, (frames, len(nodes), 3)).copy()
    world_at = world[:, nodes][..., :3, 3]  # (F, B, 3)
    for j, node in enumerate(nodes):
        if parents[j] < 0:
            positions[:, j] = world_at[:, j]
        elif (node, "translation") in sampled:  # not VRM Animation's, but kept exactly
            positions[:, j] = quat.inv_rotate(global_rot[:, parents[j]],
                                              world_at[:, j] - world_at[:, parents[j]])
    skeleton = Skeleton(order, parents, offsets)
    return Clip(skeleton, quat.normalize(rotations), positions, rate)


def _node_order(parents: np.ndarray, path: Path) -> list[int]:
    """Node indices parents first; a :class:`GLTFError` for a cycle."""
    order: list[int] = []
    state = np.zeros(len(parents), dtype=np.int8)
    for start in range(len(parents)):
        stack, node = [], start
        while node >= 0 and state[node] == 0:
            state[node] = 1
            stack.append(node)
            node = int(parents[node])
        if node >= 0 and state[node] == 1:
            raise GLTFError(f"{path}: node {node} is its own ancestor (a cycle in children)")
        for item in reversed(stack):
            state[item] = 2
            order.append(item)
    return order


def _bone_parent(node: int, parents: np.ndarray, joint_of: dict[int, int]) -> int:
    above = int(parents[node])
    while above >= 0 and above not in joint_of:
        above = int(parents[above])
    return joint_of.get(above, -1)


def _parts(matrix: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rotation (4,), translation (3,), uniform scale ())`` of a node's local matrix."""
    scale = np.linalg.norm(matrix[:3, :3], axis=0).mean()
    return split_transform(matrix, where)[1], matrix[:3, 3], np.asarray(scale)


def _orthonormal(matrices: np.ndarray) -> np.ndarray:
    """``matrices (..., 3, 3)`` with their (uniform) scale divided out."""
    return matrices / np.linalg.norm(matrices, axis=-2, keepdims=True)
