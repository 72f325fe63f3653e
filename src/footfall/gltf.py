"""glTF/GLB skinned avatars: read the skeleton and rest pose, write an animation back.

Reading: the joints of the first skin become a :class:`Skeleton` in world metres, Y up —
everything above the skeleton root (a Z-up armature node, a ×100 armature scale) is folded into
the root, and uniform node scales are folded into the offsets. The rest pose comes back as local
rotations (glTF bind poses are rarely identity). Writing: the original file with its animations
replaced by one animation sampling every joint's rotation (and the translation of joints that
move), converted back through those same folded transforms, so any glTF viewer plays it.

pygltflib does the container; the transform bookkeeping is here because it is specific to how
footfall represents skeletons (no scale, rest offsets in the parent's rotated frame).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np
import pygltflib
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.errors import GLTFError
from footfall.skeleton import Clip, Skeleton

FloatArray = NDArray[np.float64]
PathArg = str | PathLike[str]


@dataclass
class Avatar:
    """A skinned avatar's skeleton.

    Attributes:
        skeleton: joints of the skin, parents first; offsets in metres (world Y up).
        rest_rotations: ``(J, 4)`` local rotations of the bind (rest) pose.
        nodes: glTF node index of each joint.
        frames: ``(J, 4, 4)`` transform of each joint's glTF parent node relative to its parent
            joint's (scaled) world frame — the world matrix for roots, identity when the glTF
            parent is the parent joint itself.
        parent_scale: ``(J,)`` uniform world scale of each joint's parent joint (1 for roots).
        path: the file it came from.
    """

    skeleton: Skeleton
    rest_rotations: FloatArray
    nodes: list[int]
    frames: FloatArray
    parent_scale: FloatArray
    path: Path
    names: list[str] = field(default_factory=list)
    document: pygltflib.GLTF2 | None = field(default=None, repr=False)

    def rest_clip(self, frames: int = 1, fps: float = 30.0) -> Clip:
        """The rest (bind) pose as a clip."""
        rotations = np.broadcast_to(self.rest_rotations, (frames, *self.rest_rotations.shape))
        positions = np.broadcast_to(self.skeleton.offsets, (frames, self.skeleton.joint_count, 3))
        return Clip(self.skeleton, rotations.copy(), positions.copy(), fps)


def _node_matrix(node: pygltflib.Node) -> FloatArray:
    if node.matrix is not None:
        return np.asarray(node.matrix, dtype=np.float64).reshape(4, 4).T
    m = np.eye(4)
    if node.rotation is not None:
        x, y, z, w = node.rotation
        m[:3, :3] = quat.to_matrix(quat.normalize([w, x, y, z]))
    if node.scale is not None:
        m[:3, :3] = m[:3, :3] * np.asarray(node.scale, dtype=np.float64)
    if node.translation is not None:
        m[:3, 3] = node.translation
    return m


def _split(matrix: FloatArray, where: str) -> tuple[FloatArray, FloatArray, float]:
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


def _read(path: Path) -> pygltflib.GLTF2:
    try:
        gltf = pygltflib.GLTF2().load(str(path))
    except Exception as exc:  # pygltflib raises many types for bad input
        raise GLTFError(f"{path}: cannot read glTF ({type(exc).__name__}: {exc})") from None
    if gltf is None:
        raise GLTFError(f"{path}: cannot read glTF (empty or unknown format)")
    return gltf


def load_avatar(path: PathArg, skin: int = 0) -> Avatar:
    """Read the skeleton and rest pose of skin ``skin`` of a .glb/.gltf file.

    Raises :class:`GLTFError` naming the file for unreadable files, files without a skin,
    and transforms footfall cannot represent (non-uniform or mirrored scale).
    """
    path = Path(path)
    gltf = _read(path)
    if not gltf.skins:
        raise GLTFError(f"{path}: no skin (a skinned avatar is needed as retarget target)")
    if not 0 <= skin < len(gltf.skins):
        raise GLTFError(f"{path}: skin {skin} does not exist ({len(gltf.skins)} skins)")
    nodes = gltf.nodes
    joints = list(gltf.skins[skin].joints or [])
    if not joints or any(not 0 <= j < len(nodes) for j in joints):
        raise GLTFError(f"{path}: skin {skin} has no valid joint list")
    parent_of: dict[int, int] = {}
    for index, node in enumerate(nodes):
        for child in node.children or []:
            parent_of[child] = index
    world: dict[int, FloatArray] = {}

    def world_matrix(index: int, depth: int = 0) -> FloatArray:
        if depth > len(nodes):
            raise GLTFError(f"{path}: node hierarchy has a cycle at node {index}")
        if index not in world:
            local = _node_matrix(nodes[index])
            parent = parent_of.get(index)
            world[index] = local if parent is None else world_matrix(parent, depth + 1) @ local
        return world[index]

    def depth_of(index: int) -> int:
        depth = 0
        while index in parent_of:
            index = parent_of[index]
            depth += 1
        return depth

    order = sorted(joints, key=lambda j: (depth_of(j), joints.index(j)))
    joint_set = set(order)
    names, parents, offsets, rest, scales, frames = [], [], [], [], [], []
    world_rot: dict[int, FloatArray] = {}
    world_pos: dict[int, FloatArray] = {}
    for node_index in order:
        node = nodes[node_index]
        where = f"{path}: node {node_index} ({node.name!r})"
        position, rotation, _ = _split(world_matrix(node_index), where)
        world_rot[node_index], world_pos[node_index] = rotation, position
        ancestor = parent_of.get(node_index)
        while ancestor is not None and ancestor not in joint_set:
            ancestor = parent_of.get(ancestor)
        direct_parent = parent_of.get(node_index)
        parent_matrix = world_matrix(direct_parent) if direct_parent is not None else np.eye(4)
        if ancestor is None:
            parents.append(-1)
            offsets.append(position)
            rest.append(rotation)
            scales.append(1.0)
            frames.append(parent_matrix)
        else:
            parent_rotation = world_rot[ancestor]
            parents.append(order.index(ancestor))
            offsets.append(quat.inv_rotate(parent_rotation, position - world_pos[ancestor]))
            rest.append(quat.inv_mul(parent_rotation, rotation))
            ancestor_matrix = world_matrix(ancestor)
            scales.append(_split(ancestor_matrix, where)[2])
            frames.append(np.linalg.inv(ancestor_matrix) @ parent_matrix)
        _split(frames[-1], where)  # rejects mirrored / non-uniform frames early
        name = node.name or f"joint{node_index}"
        names.append(name if name not in names else f"{name}_{node_index}")
    skeleton = Skeleton(names, np.array(parents), np.array(offsets))
    return Avatar(skeleton, np.array(rest), order, np.array(frames), np.array(scales), path,
                  names, gltf)


def _accessor(gltf: pygltflib.GLTF2, blob: bytearray, data: np.ndarray, kind: str,
              with_bounds: bool = False) -> int:
    data = np.ascontiguousarray(data, dtype=np.float32)
    while len(blob) % 4:
        blob.append(0)
    offset = len(blob)
    blob.extend(data.tobytes())
    gltf.bufferViews.append(pygltflib.BufferView(buffer=0, byteOffset=offset,
                                                 byteLength=data.nbytes))
    accessor = pygltflib.Accessor(bufferView=len(gltf.bufferViews) - 1,
                                  componentType=pygltflib.FLOAT, count=int(data.shape[0]),
                                  type=kind)
    if with_bounds:
        accessor.min = [float(v) for v in np.atleast_1d(data.min(axis=0))]
        accessor.max = [float(v) for v in np.atleast_1d(data.max(axis=0))]
    gltf.accessors.append(accessor)
    return len(gltf.accessors) - 1


def save_animation(
    avatar: Avatar,
    clip: Clip,
    path: PathArg,
    *,
    name: str = "footfall",
    joint_scales: ArrayLike | None = None,
    root_scale: float = 1.0,
) -> None:
    """Write ``avatar``'s file with its animations replaced by ``clip`` (same joint names).

    ``joint_scales`` ``(J,)`` adds a constant scale channel where ≠ 1 (head scale); with
    ``root_scale`` ≠ 1 the clip is taken to be of the avatar scaled by it (its offsets ×
    ``root_scale``) and the root joints get that scale. The output is GLB when ``path`` ends
    in ``.glb``. Raises :class:`GLTFError` when the clip does not fit the avatar.
    """
    path = Path(path)
    skeleton = avatar.skeleton
    if clip.skeleton.names != skeleton.names:
        raise GLTFError(f"{path}: clip joints do not match the avatar {avatar.path.name}")
    clip.check_finite()
    gltf = copy.deepcopy(avatar.document) if avatar.document is not None else _read(avatar.path)
    gltf.convert_buffers(pygltflib.BufferFormat.BINARYBLOB)
    blob = bytearray(gltf.binary_blob() or b"")
    frames = clip.frame_count
    times = np.arange(frames, dtype=np.float64) / clip.fps
    channels, samplers = [], []
    time_accessor = _accessor(gltf, blob, times, pygltflib.SCALAR, with_bounds=True)
    rotations = quat.unroll_sign(clip.rotations, axis=0)
    scales = np.ones(skeleton.joint_count) if joint_scales is None else np.asarray(joint_scales)
    moving = np.any(np.abs(clip.positions - skeleton.offsets * root_scale) > 1e-7, axis=(0, 2))

    def add(node: int, target_path: str, values: np.ndarray, kind: str) -> None:
        samplers.append(pygltflib.AnimationSampler(
            input=time_accessor, output=_accessor(gltf, blob, values, kind),
            interpolation="LINEAR"))
        channels.append(pygltflib.AnimationChannel(
            sampler=len(samplers) - 1,
            target=pygltflib.AnimationChannelTarget(node=node, path=target_path)))

    for j, node in enumerate(avatar.nodes):
        frame = avatar.frames[j]
        _, frame_rotation, _ = _split(frame, f"{path}: joint {j}")
        local = quat.normalize(quat.inv_mul(frame_rotation, rotations[:, j]))
        add(node, "rotation", local[:, [1, 2, 3, 0]], pygltflib.VEC4)
        if moving[j]:
            # world = parent_world · frame · [t, 1]  ⇒  [t, 1] = frame⁻¹ · [l / s_parent, 1]
            inverse = np.linalg.inv(frame)
            below_root = root_scale if skeleton.parents[j] >= 0 else 1.0  # root scale applies
            scaled = clip.positions[:, j] / (avatar.parent_scale[j] * below_root)
            add(node, "translation", scaled @ inverse[:3, :3].T + inverse[:3, 3], pygltflib.VEC3)
        scale = scales[j] * (root_scale if skeleton.parents[j] < 0 else 1.0)
        if abs(scale - 1.0) > 1e-9:
            original = np.asarray(gltf.nodes[node].scale or [1.0, 1.0, 1.0])
            add(node, "scale", np.tile(original * scale, (frames, 1)), pygltflib.VEC3)
    gltf.animations = [pygltflib.Animation(name=name, channels=channels, samplers=samplers)]
    if not gltf.buffers:
        gltf.buffers = [pygltflib.Buffer(byteLength=0)]
    gltf.buffers[0].byteLength = len(blob)
    gltf.buffers[0].uri = None
    gltf.set_binary_blob(bytes(blob))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    try:
        if path.suffix.lower() == ".glb":
            gltf.save_binary(str(temporary))
        else:
            gltf.convert_buffers(pygltflib.BufferFormat.DATAURI)
            gltf.save_json(str(temporary))
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)


def load_animation(path: PathArg, animation: int = 0, fps: float = 30.0,
                   skin: int = 0) -> Clip:
    """Sample animation ``animation`` of a glTF file on its avatar's skeleton at ``fps``.

    Only rotation and translation channels of skin joints are read (linear/step sampling);
    joints without a channel keep their rest transform.
    """
    avatar = load_avatar(path, skin)
    gltf = avatar.document
    if not 0 <= animation < len(gltf.animations):
        raise GLTFError(f"{path}: animation {animation} does not exist "
                        f"({len(gltf.animations)} animations)")
    anim = gltf.animations[animation]

    buffers: dict[int, bytes] = {}

    def buffer(index: int) -> bytes:
        if index not in buffers:
            uri = gltf.buffers[index].uri
            buffers[index] = (gltf.binary_blob() if uri is None
                              else gltf.get_data_from_buffer_uri(uri))
        return buffers[index]

    def read(accessor_index: int) -> np.ndarray:
        accessor = gltf.accessors[accessor_index]
        view = gltf.bufferViews[accessor.bufferView]
        data = buffer(view.buffer)
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor.type]
        if accessor.componentType != pygltflib.FLOAT:
            raise GLTFError(f"{path}: accessor {accessor_index} is not float")
        stride = view.byteStride or 4 * width
        start = (view.byteOffset or 0) + (accessor.byteOffset or 0)
        raw = np.frombuffer(data, dtype=np.uint8, count=stride * (accessor.count - 1) + 4 * width,
                            offset=start)
        rows = np.lib.stride_tricks.as_strided(raw, (accessor.count, 4 * width), (stride, 1))
        return np.frombuffer(rows.copy().tobytes(), dtype=np.float32).reshape(-1, width)

    end = 0.0
    tracks = []
    for channel in anim.channels:
        sampler = anim.samplers[channel.sampler]
        times = read(sampler.input)[:, 0].astype(np.float64)
        end = max(end, float(times[-1]))
        tracks.append((channel.target.node, channel.target.path, times,
                       read(sampler.output).astype(np.float64)))
    frames = int(np.floor(end * fps + 1e-3)) + 1  # float32 times
    clock = np.arange(frames) / fps
    clip = avatar.rest_clip(frames, fps)
    local_rot = np.empty((frames, len(avatar.nodes), 4))
    node_rot = {}
    node_pos = {}
    for node, target_path, times, values in tracks:
        if node not in avatar.nodes:
            continue
        index = np.clip(np.searchsorted(times, clock, side="right") - 1, 0, len(times) - 1)
        following = np.minimum(index + 1, len(times) - 1)
        span = np.maximum(times[following] - times[index], 1e-12)
        t = np.clip((clock - times[index]) / span, 0.0, 1.0)
        if target_path == "rotation":
            a = quat.normalize(values[index][:, [3, 0, 1, 2]])
            b = quat.normalize(values[following][:, [3, 0, 1, 2]])
            node_rot[node] = quat.slerp(a, b, t)
        elif target_path == "translation":
            node_pos[node] = values[index] + (values[following] - values[index]) * t[:, None]
    for j, node in enumerate(avatar.nodes):
        frame = avatar.frames[j]
        frame_rotation = _split(frame, str(path))[1]
        if node in node_rot:
            local_rot[:, j] = quat.mul(frame_rotation, node_rot[node])
        else:
            local_rot[:, j] = avatar.rest_rotations[j]
        if node in node_pos:
            moved = node_pos[node] @ frame[:3, :3].T + frame[:3, 3]
            clip.positions[:, j] = moved * avatar.parent_scale[j]
    clip.rotations = local_rot
    return clip
