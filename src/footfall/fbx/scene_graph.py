"""The FBX scene graph as the child reader sees it: which nodes are the skeleton, its rest
pose, and the skinned meshes, from ufbx's objects (imported by :mod:`footfall.fbx.worker` in the
child process only; numpy and ufbx alone, so the child starts fast).

Every ufbx wrapper read is kept alive (:func:`footfall.fbx.child_state.held`) until the child
exits: the binding's object cache otherwise hands back freed wrappers and crashes the interpreter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from footfall.fbx.child_state import Refused, held


def matrix(m: Any) -> np.ndarray:
    """A ufbx Matrix (four column Vec3) as a 4×4 array."""
    out = np.eye(4)
    out[:3, :] = np.array(m, dtype=np.float64).T
    return out


def select_skeleton(scene: Any) -> tuple[list[Any], list[int]]:
    """The skeleton's nodes (parents first) and each one's parent among them (−1: a root).

    The bones are the nodes skin clusters bind with weights (a rig's controls bind none), the
    nodes between them, and the bone nodes (FBX LimbNodes) below them; a file without a skin
    gives its bone nodes, one without bone nodes its empty (Null) nodes. Of several separate
    trees the largest is kept.
    """
    nodes = [held(node) for node in scene.nodes]
    index = {node.element_id: k for k, node in enumerate(nodes)}
    parent = [-1 if node.parent is None else index.get(held(node.parent).element_id, -1)
              for node in nodes]
    is_bone = [node.bone is not None for node in nodes]
    skinned = set()
    for cluster in scene.skin_clusters:
        held(cluster)
        bone = cluster.bone_node
        if bone is not None and cluster.num_weights > 0:
            skinned.add(index[held(bone).element_id])
    if skinned:
        chosen = set(skinned)
        top = _common_ancestor(sorted(skinned), parent)
        for k in skinned:  # the nodes between skinned bones
            if k == top:
                continue
            k = parent[k]
            while k >= 0 and k != top and k not in chosen:
                if is_bone[k]:
                    chosen.add(k)
                k = parent[k]
        if top >= 0 and is_bone[top]:
            chosen.add(top)
        for k in range(len(nodes)):  # bone nodes below the skeleton (end bones)
            if is_bone[k] and k not in chosen and _has_ancestor(k, chosen, parent, is_bone):
                chosen.add(k)
    else:
        chosen = {k for k in range(len(nodes)) if is_bone[k]}
    if not chosen:  # joints written as empty (Null) nodes, as some exporters do
        chosen = {k for k, node in enumerate(nodes)
                  if parent[k] >= 0 and (node.attrib is None or node.attrib_type.name == "EMPTY")}
    if not chosen:
        raise Refused("no skeleton (no bone or empty nodes, no skin)")
    depth = [depth_of(k, parent) for k in range(len(nodes))]
    order = sorted(chosen, key=lambda k: (depth[k], k))
    position = {k: n for n, k in enumerate(order)}
    parents = []
    for k in order:
        up = parent[k]
        while up >= 0 and up not in position:
            up = parent[up]
        parents.append(position[up] if up >= 0 else -1)
    keep = _largest_tree(parents)
    remap = {old: new for new, old in enumerate(keep)}
    return ([nodes[order[k]] for k in keep],
            [remap[parents[k]] if parents[k] >= 0 else -1 for k in keep])


def _common_ancestor(members: list[int], parent: list[int]) -> int:
    """The deepest node that is (or is above) every one of ``members``; −1 if none."""
    chains = []
    for k in members:
        chain = []
        while k >= 0:
            chain.append(k)
            k = parent[k]
        chains.append(chain[::-1])
    common = -1
    for level in zip(*chains, strict=False):
        if all(node == level[0] for node in level):
            common = level[0]
        else:
            break
    return common


def _has_ancestor(k: int, chosen: set[int], parent: list[int], is_bone: list[bool]) -> bool:
    """Whether ``k`` hangs below a chosen node through bone nodes only."""
    k = parent[k]
    while k >= 0 and is_bone[k]:
        if k in chosen:
            return True
        k = parent[k]
    return False


def depth_of(k: int, parent: list[int]) -> int:
    depth = 0
    while parent[k] >= 0:
        k, depth = parent[k], depth + 1
    return depth


def _largest_tree(parents: list[int]) -> list[int]:
    """Indices (ascending) of the largest tree of a parents-first forest."""
    root = list(range(len(parents)))
    for k, p in enumerate(parents):
        if p >= 0:
            root[k] = root[p]
    sizes: dict[int, int] = {}
    for r in root:
        sizes[r] = sizes.get(r, 0) + 1
    best = max(sizes, key=lambda r: (sizes[r], -r))
    return [k for k in range(len(parents)) if root[k] == best]


def rest_pose(scene: Any, joints: list[Any], parents: list[int]) -> np.ndarray:
    """``(J, 4, 4)`` world matrices of the rest pose: a skinned joint's bind matrix, any other
    joint where the file's static pose puts it relative to its parent joint."""
    bind = {}
    for cluster in scene.skin_clusters:
        held(cluster)
        bone = cluster.bone_node
        if bone is not None:
            bind[held(bone).element_id] = matrix(cluster.bind_to_world)
    static = [matrix(node.node_to_world) for node in joints]
    rest = np.empty((len(joints), 4, 4))
    for j, node in enumerate(joints):
        if node.element_id in bind:
            rest[j] = bind[node.element_id]
        elif parents[j] >= 0:
            p = parents[j]
            rest[j] = rest[p] @ np.linalg.solve(static[p], static[j])
        else:
            rest[j] = static[j]
    return rest


def skinned_meshes(scene: Any, joints: list[Any]) -> dict[str, np.ndarray]:
    """The meshes skinned to the joints at their bind pose: world vertices, triangles, and the
    four largest skin weights of each vertex (on skeleton joints)."""
    joint_of = {node.element_id: j for j, node in enumerate(joints)}
    vertices, triangles, skin_joints, skin_weights, base = [], [], [], [], 0
    for mesh in scene.meshes:
        held(mesh)
        for skin in mesh.skin_deformers:
            held(skin)
            clusters = [held(cluster) for cluster in skin.clusters]
            bones = [cluster.bone_node for cluster in clusters]
            cluster_joint = np.array([joint_of.get(held(b).element_id, -1) if b is not None
                                      else -1 for b in bones], dtype=np.int64)
            to_world = np.stack([matrix(c.bind_to_world) @ matrix(c.geometry_to_bone)
                                 for c in clusters]) if clusters else np.zeros((0, 4, 4))
            points = np.array(mesh.vertices, dtype=np.float64).reshape(-1, 3)
            spans = np.array(skin.vertices, dtype=np.float64).reshape(-1, 3)[:, :2]
            pairs = np.array(skin.weights, dtype=np.float64).reshape(-1, 2)
            if len(spans) != len(points) or len(clusters) == 0:
                continue
            dense = np.zeros((len(points), len(clusters)))
            for v, (first, count) in enumerate(spans.astype(np.int64)):
                for cluster, weight in pairs[first:first + count]:
                    dense[v, int(cluster)] += weight
            total = dense.sum(axis=1, keepdims=True)
            blend = dense / np.maximum(total, 1e-12)
            placed = np.einsum("vc,cij,vj->vi", blend, to_world[:, :3, :],
                               np.c_[points, np.ones(len(points))])
            dense[:, cluster_joint < 0] = 0.0
            top = np.argsort(-dense, axis=1)[:, :4]
            weights = np.take_along_axis(dense, top, axis=1)
            if top.shape[1] < 4:
                pad = 4 - top.shape[1]
                top = np.pad(top, ((0, 0), (0, pad)))
                weights = np.pad(weights, ((0, 0), (0, pad)))
            joints_of_vertex = np.where(weights > 0, cluster_joint[top], 0)
            vertices.append(placed)
            skin_joints.append(joints_of_vertex)
            skin_weights.append(weights)
            triangles.append(_triangles(mesh) + base)
            base += len(points)
            break  # one skin per mesh
    if not vertices:
        return {}
    return {"vertices": np.concatenate(vertices), "triangles": np.concatenate(triangles),
            "skin_joints": np.concatenate(skin_joints),
            "skin_weights": np.concatenate(skin_weights)}


def _triangles(mesh: Any) -> np.ndarray:
    """``(T, 3)`` vertex indices of the mesh's faces split as fans."""
    faces = np.array(mesh.faces, dtype=np.int64).reshape(-1, 2)
    corners = np.array(mesh.vertex_indices, dtype=np.int64)
    out = [np.stack([corners[first + np.zeros(count - 2, dtype=np.int64)],
                     corners[first + 1 + np.arange(count - 2)],
                     corners[first + 2 + np.arange(count - 2)]], axis=1)
           for first, count in faces.tolist() if count >= 3]
    return np.concatenate(out) if out else np.zeros((0, 3), dtype=np.int64)
