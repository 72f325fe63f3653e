"""glTF node transforms and the node hierarchy: matrices, their split into position, rotation
and uniform scale, and world matrices computed with loops (never recursion)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pygltflib

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import GLTFError

#: Largest magnitude of a node transform value (metres or unitless).
MAX_TRANSFORM_VALUE = 1e7
_TRANSFORM_LENGTHS = {"translation": 3, "rotation": 4, "scale": 3, "matrix": 16}


def node_values(node: pygltflib.Node, where: str) -> dict[str, FloatArray]:
    """The node's transform properties as float arrays, each checked for length and range."""
    out = {}
    for name, length in _TRANSFORM_LENGTHS.items():
        value = getattr(node, name)
        if value is None:
            continue
        if not isinstance(value, list) or len(value) != length or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            raise GLTFError(f"{where}: '{name}' must be {length} numbers, got {value!r:.80}")
        array = np.asarray(value, dtype=np.float64)
        if not np.all(np.abs(array) <= MAX_TRANSFORM_VALUE):  # NaN fails too
            raise GLTFError(f"{where}: '{name}' holds {value!r:.80} (non-finite or beyond "
                            f"±{MAX_TRANSFORM_VALUE:g})")
        out[name] = array
    if "rotation" in out and not np.linalg.norm(out["rotation"]) > 1e-6:
        raise GLTFError(f"{where}: 'rotation' {node.rotation} is not a rotation (zero length)")
    return out


def node_matrix(node: pygltflib.Node, where: str = "node") -> FloatArray:
    values = node_values(node, where)
    if "matrix" in values:
        return values["matrix"].reshape(4, 4).T
    m = np.eye(4)
    if "rotation" in values:
        x, y, z, w = values["rotation"]
        m[:3, :3] = quat.to_matrix(quat.normalize([w, x, y, z]))
    if "scale" in values:
        m[:3, :3] = m[:3, :3] * values["scale"]
    if "translation" in values:
        m[:3, 3] = values["translation"]
    return m


def split_transform(matrix: FloatArray, where: str) -> tuple[FloatArray, FloatArray, float]:
    """(position (3,), rotation (4,), uniform scale) of an affine matrix."""
    linear = matrix[:3, :3]
    scales = np.linalg.norm(linear, axis=0)
    if not np.all(scales > 1e-12) or not np.all(np.isfinite(matrix)):
        raise GLTFError(f"{where}: degenerate transform (scale {scales})")
    if np.max(scales) - np.min(scales) > 1e-3 * np.max(scales):
        raise GLTFError(f"{where}: non-uniform scale {scales} is not supported")
    rotation = linear / scales
    if np.linalg.det(rotation) < 0:
        raise GLTFError(f"{where}: mirrored transform is not supported")
    return matrix[:3, 3].copy(), quat.normalize(quat.from_matrix(rotation)), float(scales.mean())


def as_trs(node: pygltflib.Node, where: str) -> None:
    """Replace a node's ``matrix`` by the same transform as translation, rotation and scale (a
    node an animation targets must not hold a matrix, glTF 2.0 §3.7.3). A mirrored matrix keeps
    its mirror in the scale; a sheared one cannot be written as TRS (:class:`GLTFError`)."""
    if node.matrix is None:
        return
    matrix = node_matrix(node, where)
    scale = np.linalg.norm(matrix[:3, :3], axis=0)
    if not np.all(scale > 1e-12):
        raise GLTFError(f"{where}: degenerate matrix (scale {scale}) cannot be animated")
    if np.linalg.det(matrix[:3, :3]) < 0:
        scale[0] = -scale[0]
    rotation = matrix[:3, :3] / scale
    if not np.allclose(rotation.T @ rotation, np.eye(3), atol=1e-5):
        raise GLTFError(f"{where}: sheared matrix cannot be animated (no translation, rotation "
                        "and scale give it)")
    w, x, y, z = quat.normalize(quat.from_matrix(rotation))
    node.translation = [float(v) for v in matrix[:3, 3]]
    node.rotation = [float(x), float(y), float(z), float(w)]
    node.scale = [float(v) for v in scale]
    node.matrix = None



def hierarchy_depths(parent_of: dict[int, int], count: int, path: Path) -> list[int]:
    """Depth of every node below its scene root, by walking up with a loop (never recursing);
    a cycle is a :class:`GLTFError`."""
    depth = [-1] * count
    for start in range(count):
        chain = []
        node = start
        while depth[node] < 0 and node in parent_of:
            chain.append(node)
            if len(chain) > count:
                raise GLTFError(f"{path}: node hierarchy has a cycle through node {start}")
            node = parent_of[node]
        if depth[node] < 0:
            depth[node] = 0
        for offset, below in enumerate(reversed(chain), start=1):
            depth[below] = depth[node] + offset
    return depth



def world_matrices(nodes: list[pygltflib.Node], parent_of: dict[int, int], path: object
                    ) -> Callable[[int], FloatArray]:
    """The world matrix ``(4, 4)`` of a node by index, each node's computed once."""
    world: dict[int, FloatArray] = {}

    def world_matrix(index: int) -> FloatArray:
        # Up to the nearest ancestor already known (or the root), then down multiplying: a loop.
        chain = []
        node = index
        while node not in world:
            chain.append(node)
            if node not in parent_of:
                break
            node = parent_of[node]
        above = world.get(node)
        for below in reversed(chain):
            local = node_matrix(nodes[below], f"{path}: node {below}")
            above = local if above is None else above @ local
            world[below] = above
        return world[index]

    return world_matrix

