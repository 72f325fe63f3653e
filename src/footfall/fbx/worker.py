"""The child process that reads an FBX file with ufbx and hands back plain arrays.

Run as a script, not imported: ``python worker.py MODE FILE OUT [TAKE]`` (MODE ``takes``,
``clip`` or ``avatar``) writes ``OUT`` (an ``.npz`` without pickles) or prints one line to
stderr and exits 3. The ufbx binding can crash the interpreter (a use-after-free in its object
cache: every wrapper read here is kept alive in :data:`HOLD` to avoid it), so
:mod:`footfall.fbx.isolate` runs this file in a child process and turns a crash into an
:class:`~footfall.errors.FBXError`. Only numpy and ufbx are imported, so the child starts fast.

What comes back, in footfall's space (metres, Y up, +Z front, as ufbx converts the file's unit
and axes into the root node's transform):

- every mode: ``takes`` (names), ``take_ranges (T, 2)`` seconds, ``fps``, ``unit`` (the file's
  metres per unit), ``up`` (the file's up axis, e.g. ``+Y``), ``version``;
- ``clip`` / ``avatar``: the skeleton ``names (J,)``, ``parents (J,)``, ``rest (J, 4, 4)`` world
  matrices of the rest pose (the bind pose where skinned, else the file's static pose);
- ``clip``: ``times (F,)`` and ``world (F, J, 4, 4)`` per frame of the take;
- ``avatar``: the skinned meshes as ``vertices (V, 3)`` world at bind, ``triangles (T, 3)``,
  ``skin_joints (V, 4)`` skeleton joint indices and ``skin_weights (V, 4)``.
"""

from __future__ import annotations

import os
import resource
import sys

import numpy as np
import ufbx

#: Every ufbx wrapper this process touched, kept alive until it exits (see module docstring).
HOLD: list[object] = []
#: Address-space limit of the child, bytes: a hostile file fails with "out of memory" here
#: instead of taking the machine's memory.
MEMORY_LIMIT = 8 << 30
#: Most frames a take is sampled at (a day at 120 fps would be 10 million).
MAX_FRAMES = 2_000_000
#: Largest disagreement (metres) between the fast composition of local transforms and ufbx's
#: own world matrices before the slow, exact per-frame evaluation is used instead.
COMPOSE_TOLERANCE = 1e-6


#: Environment variable that, set to 1, makes every frame take the exact path (tests compare).
EXACT_VARIABLE = "FOOTFALL_FBX_EXACT"


class Refused(Exception):
    """A file this reader cannot use; the message is printed as the child's one line."""


def held(value: object) -> object:
    """``value``, kept alive for the rest of the process."""
    HOLD.append(value)
    return value


def matrix(m: object) -> np.ndarray:
    """A ufbx Matrix (four column Vec3) as a 4×4 array."""
    out = np.eye(4)
    out[:3, :] = np.array(m, dtype=np.float64).T
    return out


def load(path: str) -> object:
    """The scene of ``path`` in footfall's space, or :class:`Refused` naming ufbx's error."""
    axes = ufbx.CoordinateAxes(ufbx.CoordinateAxis.POSITIVE_X, ufbx.CoordinateAxis.POSITIVE_Y,
                               ufbx.CoordinateAxis.POSITIVE_Z)
    try:
        scene = ufbx.load_file(path, target_axes=axes, target_unit_meters=1.0,
                               space_conversion=ufbx.SpaceConversion.TRANSFORM_ROOT,
                               ignore_embedded=True, load_external_files=False)
    except ufbx.UfbxError as error:
        raise Refused(_ufbx_message(error)) from None
    return held(scene)


def _ufbx_message(error: Exception) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return f"not a readable FBX file ({text})"


def takes(scene: object) -> tuple[list[str], np.ndarray]:
    """Names and ``(T, 2)`` [begin, end] seconds of the animation stacks."""
    stacks = [held(stack) for stack in scene.anim_stacks]  # type: ignore[attr-defined]
    names = [stack.name for stack in stacks]  # type: ignore[attr-defined]
    ranges = np.array([[stack.time_begin, stack.time_end]  # type: ignore[attr-defined]
                       for stack in stacks], dtype=np.float64).reshape(-1, 2)
    return names, ranges


def select_skeleton(scene: object) -> tuple[list[object], list[int]]:
    """The skeleton's nodes (parents first) and each one's parent among them (−1: a root).

    The bones are the nodes skin clusters bind with weights (a rig's controls bind none), the
    nodes between them, and the bone nodes (FBX LimbNodes) below them; a file without a skin
    gives its bone nodes. Of several separate trees the largest is kept.
    """
    nodes = [held(node) for node in scene.nodes]  # type: ignore[attr-defined]
    index = {node.element_id: k for k, node in enumerate(nodes)}  # type: ignore[attr-defined]
    parent = [-1 if node.parent is None else index.get(held(node.parent).element_id, -1)
              for node in nodes]  # type: ignore[attr-defined]
    is_bone = [node.bone is not None for node in nodes]  # type: ignore[attr-defined]
    skinned = set()
    for cluster in scene.skin_clusters:  # type: ignore[attr-defined]
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
    if not chosen:
        raise Refused("no skeleton (no bone nodes and no skin)")
    depth = [_depth(k, parent) for k in range(len(nodes))]
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


def _depth(k: int, parent: list[int]) -> int:
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


def rest_pose(scene: object, joints: list[object], parents: list[int]) -> np.ndarray:
    """``(J, 4, 4)`` world matrices of the rest pose: a skinned joint's bind matrix, any other
    joint where the file's static pose puts it relative to its parent joint."""
    bind = {}
    for cluster in scene.skin_clusters:  # type: ignore[attr-defined]
        held(cluster)
        bone = cluster.bone_node
        if bone is not None:
            bind[held(bone).element_id] = matrix(cluster.bind_to_world)
    static = [matrix(node.node_to_world) for node in joints]  # type: ignore[attr-defined]
    rest = np.empty((len(joints), 4, 4))
    for j, node in enumerate(joints):
        if node.element_id in bind:  # type: ignore[attr-defined]
            rest[j] = bind[node.element_id]  # type: ignore[attr-defined]
        elif parents[j] >= 0:
            p = parents[j]
            rest[j] = rest[p] @ np.linalg.solve(static[p], static[j])
        else:
            rest[j] = static[j]
    return rest


def find_take(scene: object, take: str) -> object:
    """The animation stack named or numbered by ``take`` ('' = the first)."""
    stacks = [held(stack) for stack in scene.anim_stacks]  # type: ignore[attr-defined]
    names = [stack.name for stack in stacks]  # type: ignore[attr-defined]
    if not stacks:
        raise Refused("no animation take")
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


def sample_take(scene: object, joints: list[object], stack: object, fps: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """``times (F,)`` and ``world (F, J, 4, 4)`` of the joints at each frame of ``stack``.

    Fast path: each node's local transform (ufbx evaluates pre/post rotations, pivots and
    offsets) composed down the hierarchy here; checked against ufbx's own world matrices on
    the first, middle and last frames, and replaced by a whole-scene evaluation per frame
    (exact for every inheritance mode, slower) when they disagree.
    """
    begin, end = float(stack.time_begin), float(stack.time_end)  # type: ignore[attr-defined]
    if not (np.isfinite(begin) and np.isfinite(end) and fps > 0 and np.isfinite(fps)):
        raise Refused(f"take has an unusable time range ({begin} to {end} s at {fps} fps)")
    count = int(np.floor((end - begin) * fps + 1e-6)) + 1
    if count > MAX_FRAMES or count < 1:
        raise Refused(f"take of {end - begin:g} s at {fps:g} fps is too many frames to sample")
    times = begin + np.arange(max(count, 1)) / fps
    anim = held(stack.anim)  # type: ignore[attr-defined]
    chain_nodes, chain_parent = _chains(joints)
    local = np.empty((count, len(chain_nodes), 4, 4))
    for n, node in enumerate(chain_nodes):
        evaluate = node.evaluate_transform  # type: ignore[attr-defined]
        rows = [evaluate(anim, t) for t in times.tolist()]
        translation = np.array([row.translation for row in rows], dtype=np.float64)
        rotation = np.array([row.rotation for row in rows], dtype=np.float64)  # x, y, z, w
        scale = np.array([row.scale for row in rows], dtype=np.float64)
        local[:, n] = _trs_matrices(translation, rotation, scale)
    world = np.empty_like(local)
    for n in range(len(chain_nodes)):
        p = chain_parent[n]
        world[:, n] = local[:, n] if p < 0 else world[:, p] @ local[:, n]
    picked = world[:, :len(joints)]
    checks = sorted({0, count // 2, count - 1})
    exact = np.stack([_evaluated_world(scene, anim, joints, times[k]) for k in checks])
    if os.environ.get(EXACT_VARIABLE) == "1" or not np.allclose(
            picked[checks], exact, rtol=0.0, atol=COMPOSE_TOLERANCE):
        picked = np.stack([_evaluated_world(scene, anim, joints, t) for t in times])
    return times, picked


def _chains(joints: list[object]) -> tuple[list[object], list[int]]:
    """The joints, then every other node above them, with each one's parent in that list
    (−1 above the scene root); parents may come after children, so composition follows
    :func:`_compose_order`."""
    out = list(joints)
    ids = {node.element_id: k for k, node in enumerate(out)}  # type: ignore[attr-defined]
    parent_ids = []
    k = 0
    while k < len(out):
        up = out[k].parent  # type: ignore[attr-defined]
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
    order = _compose_order(parents)
    position = {old: new for new, old in enumerate(order)}
    return ([out[k] for k in order],
            [position[parents[k]] if parents[k] >= 0 else -1 for k in order])


def _compose_order(parents: list[int]) -> list[int]:
    """An order with every parent before its children, the original joints' order kept first
    where it already is (the joints are parents-first among themselves, their ancestors come
    first)."""
    depth = [_depth(k, parents) for k in range(len(parents))]
    return sorted(range(len(parents)), key=lambda k: (depth[k], k))


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


def _evaluated_world(scene: object, anim: object, joints: list[object], time: float
                     ) -> np.ndarray:
    """``(J, 4, 4)`` ufbx's world matrices of the joints with the scene evaluated at ``time``."""
    evaluated = held(ufbx.evaluate_scene(scene, anim, float(time)))
    nodes = held(evaluated.nodes)  # type: ignore[attr-defined]
    return np.stack([matrix(held(nodes[node.typed_id]).node_to_world)  # type: ignore
                     for node in joints])


def skinned_meshes(scene: object, joints: list[object]) -> dict[str, np.ndarray]:
    """The meshes skinned to the joints at their bind pose: world vertices, triangles, and the
    four largest skin weights of each vertex (on skeleton joints)."""
    joint_of = {node.element_id: j for j, node in enumerate(joints)}  # type: ignore[attr-defined]
    vertices, triangles, skin_joints, skin_weights, base = [], [], [], [], 0
    for mesh in scene.meshes:  # type: ignore[attr-defined]
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
            "skin_joints": np.concatenate(skin_joints), "skin_weights": np.concatenate(skin_weights)}


def _triangles(mesh: object) -> np.ndarray:
    """``(T, 3)`` vertex indices of the mesh's faces split as fans."""
    faces = np.array(mesh.faces, dtype=np.int64).reshape(-1, 2)  # type: ignore[attr-defined]
    corners = np.array(mesh.vertex_indices, dtype=np.int64)  # type: ignore[attr-defined]
    out = [np.stack([corners[first + np.zeros(count - 2, dtype=np.int64)],
                     corners[first + 1 + np.arange(count - 2)],
                     corners[first + 2 + np.arange(count - 2)]], axis=1)
           for first, count in faces.tolist() if count >= 3]
    return np.concatenate(out) if out else np.zeros((0, 3), dtype=np.int64)


def _axis_name(axis: object) -> str:
    """``+Y`` for ufbx's POSITIVE_Y, and so on."""
    name = str(getattr(axis, "name", axis))
    sign = "-" if name.startswith("NEGATIVE") else "+"
    return sign + name.rsplit("_", 1)[-1] if "_" in name else name


def run(mode: str, path: str, out: str, take: str) -> None:
    """Read ``path`` for ``mode`` and save the arrays to ``out``."""
    scene = load(path)
    settings = held(scene.settings)  # type: ignore[attr-defined]
    names, ranges = takes(scene)
    fps = float(settings.frames_per_second)  # type: ignore[attr-defined]
    result: dict[str, np.ndarray] = {
        "takes": np.array(names, dtype=str), "take_ranges": ranges,
        "fps": np.array(fps), "unit": np.array(float(settings.original_unit_meters)),  # type: ignore
        "up": np.array(_axis_name(settings.original_axis_up)),  # type: ignore[attr-defined]
        "version": np.array(int(held(scene.metadata).version)),  # type: ignore[attr-defined]
    }
    if mode != "takes":
        joints, parents = select_skeleton(scene)
        result["names"] = np.array([node.name for node in joints], dtype=str)  # type: ignore
        result["parents"] = np.array(parents, dtype=np.int64)
        result["rest"] = rest_pose(scene, joints, parents)
        if mode == "clip":
            stack = find_take(scene, take)
            result["take"] = np.array(stack.name)  # type: ignore[attr-defined]
            result["times"], result["world"] = sample_take(scene, joints, stack, fps)
        else:
            result.update(skinned_meshes(scene, joints))
    np.savez(out, **result)


def main(argv: list[str]) -> int:
    """Entry point of the child: 0 and the .npz written, or 3 and one line on stderr."""
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ValueError, OSError):
        pass
    mode, path, out = argv[1], argv[2], argv[3]
    take = argv[4] if len(argv) > 4 else ""
    try:
        run(mode, path, out, take)
    except Refused as refusal:
        print(refusal, file=sys.stderr)
        return 3
    except MemoryError:
        print("out of memory reading it", file=sys.stderr)
        return 3
    except ufbx.UfbxError as error:
        print(_ufbx_message(error), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stdout.flush()
    sys.stderr.flush()
    # The binding can crash while the interpreter frees its wrappers at exit: leave at once.
    os._exit(code)
