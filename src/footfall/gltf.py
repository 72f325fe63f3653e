"""glTF/GLB skinned avatars: read the skeleton and rest pose, write an animation back.

Reading: a skin's joints become a :class:`Skeleton` in world metres, Y up — everything above
the skeleton root (a Z-up armature node, a ×100 armature scale) is folded into the root, uniform
node scales into the offsets — and the rest pose comes back as local rotations (glTF bind poses
are rarely identity). Writing: the original file with its animations replaced by one sampling
every joint, converted back through the same folded transforms. pygltflib does the container.
"""

from __future__ import annotations

import base64
import copy
import json
import struct
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TypeGuard

import numpy as np
import pygltflib
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray
from footfall.batch.atomic import replacing
from footfall.errors import GLTFError, SkeletonError
from footfall.skeleton import Clip, Skeleton

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
    document: pygltflib.GLTF2 | None = field(default=None, repr=False)

    def rest_clip(self, frames: int = 1, fps: float = 30.0) -> Clip:
        """The rest (bind) pose as a clip."""
        rotations = np.broadcast_to(self.rest_rotations, (frames, *self.rest_rotations.shape))
        positions = np.broadcast_to(self.skeleton.offsets, (frames, self.skeleton.joint_count, 3))
        return Clip(self.skeleton, rotations.copy(), positions.copy(), fps)


#: Most nodes a file may hold (an explicit limit; reading never recurses over the hierarchy).
MAX_NODES = 100_000
#: Largest magnitude of a node transform value (metres or unitless).
MAX_TRANSFORM_VALUE = 1e7
_TRANSFORM_LENGTHS = {"translation": 3, "rotation": 4, "scale": 3, "matrix": 16}
_COMPONENTS: dict[int, type[np.generic]] = {5120: np.int8, 5121: np.uint8, 5122: np.int16,
                                             5123: np.uint16, 5125: np.uint32, 5126: np.float32}
_TYPE_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


def _is_index(value: object, count: int) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < count


def _is_size(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 53


def _node_values(node: pygltflib.Node, where: str) -> dict[str, FloatArray]:
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


def _node_matrix(node: pygltflib.Node, where: str = "node") -> FloatArray:
    values = _node_values(node, where)
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


def _as_trs(node: pygltflib.Node, where: str) -> None:
    """Replace a node's ``matrix`` by the same transform as translation, rotation and scale (a
    node an animation targets must not hold a matrix, glTF 2.0 §3.7.3). A mirrored matrix keeps
    its mirror in the scale; a sheared one cannot be written as TRS (:class:`GLTFError`)."""
    if node.matrix is None:
        return
    matrix = _node_matrix(node, where)
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


def _read(path: Path) -> pygltflib.GLTF2:
    """The parsed document, its structure checked (:func:`_check_document`)."""
    if not path.is_file():
        raise GLTFError(f"{path}: cannot read glTF (no such file)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pygltflib warns, then fails or half-reads
            gltf = pygltflib.GLTF2().load(str(path))
    except Exception as exc:  # pygltflib raises many types for bad input
        message = str(exc).splitlines()[0][:200] if str(exc) else ""
        raise GLTFError(f"{path}: cannot read glTF ({type(exc).__name__}: {message})") from None
    if gltf is None:
        raise GLTFError(f"{path}: cannot read glTF (empty or unknown format)")
    _check_document(gltf, path)
    try:
        json.loads(gltf.to_json(), parse_constant=_refuse_constant)
    except ValueError as error:
        raise GLTFError(f"{path}: the document holds {error} (glTF JSON must be finite)") from None
    return gltf


def _refuse_constant(name: str) -> float:
    raise ValueError(name)


def _buffer_bytes(gltf: pygltflib.GLTF2, index: int, path: Path) -> bytes:
    """The bytes of buffer ``index`` (the GLB BIN chunk, a data: URI or a file beside it)."""
    uri = gltf.buffers[index].uri
    where = f"{path}: buffer {index}"
    if uri is None:
        return gltf.binary_blob() or b""
    if not isinstance(uri, str):
        raise GLTFError(f"{where}: 'uri' must be a string, got {uri!r:.60}")
    if uri.startswith("data:"):
        if ";base64," not in uri:
            raise GLTFError(f"{where}: data URI is not base64 ({uri[:40]!r})")
        try:
            return base64.b64decode(uri.split(";base64,", 1)[1], validate=True)
        except ValueError:  # binascii.Error too
            raise GLTFError(f"{where}: data URI is not valid base64") from None
    external = path.parent / uri
    try:
        return external.read_bytes()
    except (OSError, ValueError) as error:
        raise GLTFError(f"{where}: cannot read {uri!r:.80} ({error})") from None


def _check_document(gltf: pygltflib.GLTF2, path: Path) -> None:
    """Refuse what footfall could not read or would write back broken: node lists, transforms
    and child links that are not what the glTF schema says, cycles, buffer views that end past
    their buffer's data, accessors that end past their view."""
    for name in ("nodes", "skins", "buffers", "bufferViews", "accessors", "animations",
                 "meshes"):
        value = getattr(gltf, name)
        if value is None:
            setattr(gltf, name, [])
        elif not isinstance(value, list):
            raise GLTFError(f"{path}: '{name}' must be a list")
    nodes = gltf.nodes
    if len(nodes) > MAX_NODES:
        raise GLTFError(f"{path}: {len(nodes)} nodes; more than {MAX_NODES} is refused")
    parent_of: dict[int, int] = {}
    for index, node in enumerate(nodes):
        where = f"{path}: node {index}"
        if not isinstance(node, pygltflib.Node):
            raise GLTFError(f"{where} is not an object ({node!r:.40})")
        _node_values(node, where)
        children = node.children or []
        if not isinstance(children, list):
            raise GLTFError(f"{where}: 'children' must be a list")
        for child in children:
            if not _is_index(child, len(nodes)):
                raise GLTFError(f"{where}: child {child!r:.40} is not a node index")
            if child in parent_of or child == index:
                raise GLTFError(f"{where}: node {child} has a second parent or is its own child "
                                "(the hierarchy must be a tree)")
            parent_of[child] = index
    _hierarchy_depths(parent_of, len(nodes), path)  # refuses cycles
    blobs: dict[int, int] = {}
    for index, buffer in enumerate(gltf.buffers):
        if not isinstance(buffer, pygltflib.Buffer) or not _is_size(buffer.byteLength):
            raise GLTFError(f"{path}: buffer {index} needs a 'byteLength'")
        have = len(_buffer_bytes(gltf, index, path))
        if have < buffer.byteLength:
            raise GLTFError(f"{path}: buffer {index} declares {buffer.byteLength} bytes but "
                            f"holds {have} (truncated file?)")
        blobs[index] = buffer.byteLength
    for index, view in enumerate(gltf.bufferViews):
        where = f"{path}: bufferView {index}"
        if not isinstance(view, pygltflib.BufferView) or not _is_index(view.buffer, len(blobs)):
            raise GLTFError(f"{where}: 'buffer' is not a buffer index")
        offset = view.byteOffset or 0
        if not (_is_size(offset) and _is_size(view.byteLength) and view.byteLength > 0):
            raise GLTFError(f"{where}: 'byteOffset'/'byteLength' must be sizes")
        if offset + view.byteLength > blobs[view.buffer]:
            raise GLTFError(f"{where}: bytes {offset}–{offset + view.byteLength} end past "
                            f"buffer {view.buffer} ({blobs[view.buffer]} bytes)")
        if view.byteStride is not None and not (
                _is_size(view.byteStride) and 4 <= view.byteStride <= 252):
            raise GLTFError(f"{where}: 'byteStride' {view.byteStride!r:.40} is not 4–252")
    for index, accessor in enumerate(gltf.accessors):
        _check_accessor(gltf, index, accessor, path)
    for index, mesh in enumerate(gltf.meshes):
        _check_mesh(gltf, index, mesh, path)


def _check_mesh(gltf: pygltflib.GLTF2, index: int, mesh: object, path: Path) -> None:
    """Mesh primitives as the schema says (the writer copies meshes; pygltflib cannot read back
    a primitive whose attributes are empty or not accessor indices)."""
    where = f"{path}: mesh {index}"
    if not isinstance(mesh, pygltflib.Mesh) or not isinstance(mesh.primitives, list) or (
            not mesh.primitives):
        raise GLTFError(f"{where} needs a list of primitives")
    for number, primitive in enumerate(mesh.primitives):
        here = f"{where} primitive {number}"
        if not isinstance(primitive, pygltflib.Primitive):
            raise GLTFError(f"{here} is not an object")
        attributes = primitive.attributes
        values = ([v for v in vars(attributes).values() if v is not None]
                  if isinstance(attributes, pygltflib.Attributes) else [])
        if not values or not all(_is_index(v, len(gltf.accessors)) for v in values):
            raise GLTFError(f"{here}: 'attributes' must map names to accessor indices")
        if primitive.indices is not None and not _is_index(primitive.indices,
                                                           len(gltf.accessors)):
            raise GLTFError(f"{here}: 'indices' {primitive.indices!r:.20} is not an accessor")


def _check_accessor(gltf: pygltflib.GLTF2, index: int, accessor: object, path: Path) -> None:
    where = f"{path}: accessor {index}"
    if not isinstance(accessor, pygltflib.Accessor):
        raise GLTFError(f"{where} is not an object")
    component = _COMPONENTS.get(accessor.componentType)  # type: ignore[arg-type]
    width = _TYPE_WIDTHS.get(accessor.type)  # type: ignore[arg-type]
    if component is None or width is None:
        raise GLTFError(f"{where}: unknown componentType/type "
                        f"{accessor.componentType!r:.20}/{accessor.type!r:.20}")
    if not (_is_size(accessor.count) and accessor.count > 0):
        raise GLTFError(f"{where}: 'count' must be a positive integer")
    if accessor.bufferView is None:
        return  # all zeros (or sparse), nothing to read past
    if not _is_index(accessor.bufferView, len(gltf.bufferViews)):
        raise GLTFError(f"{where}: 'bufferView' {accessor.bufferView!r:.20} is not a view index")
    view = gltf.bufferViews[accessor.bufferView]
    offset = accessor.byteOffset or 0
    if not _is_size(offset):
        raise GLTFError(f"{where}: 'byteOffset' must be a size")
    element = np.dtype(component).itemsize * width
    stride = view.byteStride or element
    end = offset + stride * (accessor.count - 1) + element
    if end > view.byteLength:
        raise GLTFError(f"{where}: {accessor.count} elements end at byte {end}, past "
                        f"bufferView {accessor.bufferView} ({view.byteLength} bytes)")


def _accessor_values(gltf: pygltflib.GLTF2, blob: bytes, index: int) -> np.ndarray:
    """Accessor ``index`` as float64 ``(count, width)`` from ``blob``, its buffer's bytes
    (normalized unsigned integers scaled to 0…1); raises when the buffer is too short."""
    accessor = gltf.accessors[index]
    view = gltf.bufferViews[accessor.bufferView]
    dtype = np.dtype(_COMPONENTS[accessor.componentType]).newbyteorder("<")  # as glTF stores
    width = _TYPE_WIDTHS[accessor.type]
    start = (view.byteOffset or 0) + (accessor.byteOffset or 0)
    stride = view.byteStride or dtype.itemsize * width
    out = np.ndarray((accessor.count, width), dtype, blob, start, (stride, dtype.itemsize)
                     ).astype(np.float64)
    if accessor.normalized and dtype.kind == "u":
        out /= np.iinfo(dtype).max
    return out


def _hierarchy_depths(parent_of: dict[int, int], count: int, path: Path) -> list[int]:
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


def _world_matrices(nodes: list[pygltflib.Node], parent_of: dict[int, int], path: object
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
            local = _node_matrix(nodes[below], f"{path}: node {below}")
            above = local if above is None else above @ local
            world[below] = above
        return world[index]

    return world_matrix


def load_avatar(path: PathArg, skin: int = 0) -> Avatar:
    """Read the skeleton and rest pose of skin ``skin`` of a .glb/.gltf file.

    Raises :class:`GLTFError` naming the file for unreadable files, files without a skin,
    malformed or truncated documents (:func:`_check_document`), and transforms footfall cannot
    represent (non-uniform or mirrored scale).
    """
    path = Path(path)
    gltf = _read(path)
    if not gltf.skins:
        raise GLTFError(f"{path}: no skin (a skinned avatar is needed as retarget target)")
    if not _is_index(skin, len(gltf.skins)) or not isinstance(gltf.skins[skin], pygltflib.Skin):
        raise GLTFError(f"{path}: skin {skin} does not exist ({len(gltf.skins)} skins)")
    nodes = gltf.nodes
    joints = gltf.skins[skin].joints or []
    if (not isinstance(joints, list) or not joints
            or any(not _is_index(j, len(nodes)) for j in joints)):
        raise GLTFError(f"{path}: skin {skin} has no valid joint list")
    if len(set(joints)) != len(joints):
        raise GLTFError(f"{path}: skin {skin} lists a joint twice")
    parent_of = {child: index for index, node in enumerate(nodes)
                 for child in node.children or []}
    depths = _hierarchy_depths(parent_of, len(nodes), path)
    world_matrix = _world_matrices(nodes, parent_of, path)
    position_in_skin = {joint: n for n, joint in enumerate(joints)}
    order = sorted(joints, key=lambda j: (depths[j], position_in_skin[j]))
    joint_set = set(order)
    names, parents, offsets, rest, scales, frames = [], [], [], [], [], []
    world_rot: dict[int, FloatArray] = {}
    world_pos: dict[int, FloatArray] = {}
    for node_index in order:
        node = nodes[node_index]
        where = f"{path}: node {node_index} ({node.name!r})"
        position, rotation, _ = _split(world_matrix(node_index), where)
        world_rot[node_index], world_pos[node_index] = rotation, position
        direct_parent = ancestor = parent_of.get(node_index)
        while ancestor is not None and ancestor not in joint_set:
            ancestor = parent_of.get(ancestor)
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
    return Avatar(skeleton, np.array(rest), order, np.array(frames), np.array(scales), path, gltf)


def _accessor(gltf: pygltflib.GLTF2, blob: bytearray, data: np.ndarray, kind: str,
              with_bounds: bool = False) -> int:
    data = np.ascontiguousarray(data, dtype=np.float32)
    blob.extend(bytes(-len(blob) % 4))  # views start on 4-byte boundaries
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
    avatar: Avatar, clip: Clip, path: PathArg, *, name: str = "footfall",
    joint_scales: ArrayLike | None = None, root_scale: float = 1.0,
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
    try:
        clip.check_finite()
    except SkeletonError as error:
        raise GLTFError(f"{path}: cannot write: {error}") from None
    gltf = copy.deepcopy(avatar.document) if avatar.document is not None else _read(avatar.path)
    gltf.convert_buffers(pygltflib.BufferFormat.BINARYBLOB)
    blob = bytearray(gltf.binary_blob() or b"")
    frames = clip.frame_count
    times = np.arange(frames, dtype=np.float64) / clip.fps
    channels, samplers = [], []
    time_accessor = _accessor(gltf, blob, times, pygltflib.SCALAR, with_bounds=True)
    rotations = quat.unroll_sign(clip.rotations, axis=0)
    scales = np.ones(skeleton.joint_count) if joint_scales is None else np.asarray(joint_scales)
    # A joint without a translation channel plays its rest offset, scaled by the root's scale
    # channel below a root — but a root's own scale does not move the root itself.
    below_a_root = np.where(skeleton.parents >= 0, root_scale, 1.0)
    moving = np.any(np.abs(clip.positions - skeleton.offsets * below_a_root[:, None]) > 1e-7,
                    axis=(0, 2))

    def add(node: int, target_path: str, values: np.ndarray, kind: str) -> None:
        samplers.append(pygltflib.AnimationSampler(
            input=time_accessor, output=_accessor(gltf, blob, values, kind),
            interpolation="LINEAR"))
        channels.append(pygltflib.AnimationChannel(
            sampler=len(samplers) - 1,
            target=pygltflib.AnimationChannelTarget(node=node, path=target_path)))

    for j, node in enumerate(avatar.nodes):
        _as_trs(gltf.nodes[node], f"{path}: node {node}")  # every joint gets a channel
        frame = avatar.frames[j]
        _, frame_rotation, _ = _split(frame, f"{path}: joint {j}")
        local = quat.normalize(quat.inv_mul(frame_rotation, rotations[:, j]))
        add(node, "rotation", local[:, [1, 2, 3, 0]], pygltflib.VEC4)
        if moving[j]:
            # world = parent_world · frame · [t, 1]  ⇒  [t, 1] = frame⁻¹ · [l / s_parent, 1]
            inverse = np.linalg.inv(frame)
            scaled = clip.positions[:, j] / (avatar.parent_scale[j] * below_a_root[j])
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
    # Written beside the target under a name with the same suffix (pygltflib reads by suffix),
    # read back and checked, and only then renamed over the target.
    with replacing(path) as temporary:
        try:
            if path.suffix.lower() == ".glb":
                gltf.save_binary(str(temporary))
            else:
                gltf.convert_buffers(pygltflib.BufferFormat.DATAURI)
                gltf.save_json(str(temporary))
        except (OSError, ValueError) as error:
            raise GLTFError(f"{path}: cannot write ({error})") from None
        _check_written(temporary, gltf, path)


def _check_written(written: Path, gltf: pygltflib.GLTF2, path: Path) -> None:
    """Refuse to publish a written file that would not read back: the document is checked as
    on reading (:func:`_check_document`), and the file itself (pygltflib repacks the buffer
    views on writing) for a whole container: GLB header and chunk lengths, JSON that parses,
    and every buffer view inside the buffer it names."""
    _check_document(gltf, path)
    data = written.read_bytes()
    try:
        if written.suffix.lower() == ".glb":
            magic, version, total, json_length = struct.unpack_from("<4sIII", data, 0)
            bin_at = 20 + json_length
            bin_length, bin_kind = struct.unpack_from("<I4s", data, bin_at)
            if (magic, version, total, bin_kind) != (b"glTF", 2, len(data), b"BIN\0") or (
                    bin_at + 8 + bin_length > len(data)):
                raise ValueError("GLB header or chunk lengths")
            document = json.loads(data[20:bin_at])
            sizes = [bin_length]
        else:
            document = json.loads(data)
            sizes = [len(base64.b64decode(b["uri"].split(";base64,", 1)[1]))
                     for b in document.get("buffers", [])]
        for buffer, size in zip(document.get("buffers", []), sizes, strict=False):
            if buffer["byteLength"] > size:
                raise ValueError("a buffer is longer than its data")
        for view in document.get("bufferViews", []):
            end = view.get("byteOffset", 0) + view["byteLength"]
            if end > document["buffers"][view.get("buffer", 0)]["byteLength"]:
                raise ValueError("a buffer view ends past its buffer")
    except (ValueError, KeyError, IndexError, TypeError, struct.error) as error:
        raise GLTFError(f"{path}: the written file would not read back ({error}); "
                        "nothing was written") from None


#: Longest animation :func:`load_animation` samples, seconds, and its highest sampling rate.
MAX_ANIMATION_SECONDS = 3600.0
MAX_SAMPLE_FPS = 10_000.0


def load_animation(path: PathArg, animation: int = 0, fps: float = 30.0,
                   skin: int = 0, *, avatar: Avatar | None = None) -> Clip:
    """Sample animation ``animation`` of a glTF file on its avatar's skeleton at ``fps``.

    Rotation, translation and scale channels of skin joints are sampled linearly; a scale
    channel scales the offsets of every joint below its joint (the mean of its three factors
    over the node's rest scale), as :func:`save_animation` writes ``root_scale`` and
    ``joint_scales``. Joints without a channel keep their rest transform. ``avatar``: the
    file's avatar if already loaded by :func:`load_avatar`.
    """
    if avatar is None or avatar.document is None:
        avatar = load_avatar(path, skin)
    gltf = avatar.document
    assert gltf is not None  # load_avatar keeps the document
    if not 0 <= animation < len(gltf.animations):
        raise GLTFError(f"{path}: animation {animation} does not exist "
                        f"({len(gltf.animations)} animations)")
    anim = gltf.animations[animation]
    where = f"{path}: animation {animation}"
    if not isinstance(anim, pygltflib.Animation) or not isinstance(anim.channels, list) or (
            not isinstance(anim.samplers, list)):
        raise GLTFError(f"{where} needs 'channels' and 'samplers' lists")

    buffers: dict[int, bytes] = {}

    def read(accessor_index: object, what: str) -> np.ndarray:
        if not _is_index(accessor_index, len(gltf.accessors)):
            raise GLTFError(f"{where}: {what} accessor {accessor_index!r:.20} does not exist")
        accessor = gltf.accessors[accessor_index]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}.get(accessor.type)
        if accessor.componentType != pygltflib.FLOAT or width is None:
            raise GLTFError(f"{path}: accessor {accessor_index} is not float SCALAR/VEC3/VEC4")
        if accessor.bufferView is None:
            return np.zeros((accessor.count, width))
        buffer = gltf.bufferViews[accessor.bufferView].buffer
        if buffer not in buffers:
            buffers[buffer] = _buffer_bytes(gltf, buffer, Path(path))
        values = _accessor_values(gltf, buffers[buffer], accessor_index)  # ends were checked
        if not np.isfinite(values).all():
            raise GLTFError(f"{path}: accessor {accessor_index} ({what}) holds NaN or inf")
        return values

    if not (np.isfinite(fps) and 0 < fps <= MAX_SAMPLE_FPS):
        raise GLTFError(f"{path}: fps must be in (0, {MAX_SAMPLE_FPS:g}], got {fps}")
    end = 0.0
    tracks = []
    for number, channel in enumerate(anim.channels):
        if not isinstance(channel, pygltflib.AnimationChannel) or not _is_index(
                channel.sampler, len(anim.samplers)) or not isinstance(
                channel.target, pygltflib.AnimationChannelTarget):
            raise GLTFError(f"{where}: channel {number} has no valid sampler or target")
        sampler = anim.samplers[channel.sampler]
        if not isinstance(sampler, pygltflib.AnimationSampler):
            raise GLTFError(f"{where}: sampler {channel.sampler} is not an object")
        times = read(sampler.input, f"channel {number} input")[:, 0]
        if np.any(np.diff(times) < 0) or times[0] < 0 or times[-1] > MAX_ANIMATION_SECONDS:
            raise GLTFError(f"{where}: channel {number} times must rise from ≥ 0 to at most "
                            f"{MAX_ANIMATION_SECONDS:g} s")
        values = read(sampler.output, f"channel {number} output")
        if channel.target.path in ("translation", "scale") and not np.all(
                np.abs(values) <= MAX_TRANSFORM_VALUE):
            raise GLTFError(f"{where}: channel {number} {channel.target.path} goes beyond "
                            f"±{MAX_TRANSFORM_VALUE:g}, as no node transform may")
        if len(values) < len(times):
            raise GLTFError(f"{where}: channel {number} has {len(times)} times but "
                            f"{len(values)} values")
        end = max(end, float(times[-1]))
        tracks.append((channel.target.node, channel.target.path, times, values))
    if end * fps > 50_000_000:
        raise GLTFError(f"{where}: {end:g} s at {fps:g} fps is too many frames to sample")
    frames = int(np.floor(end * fps + 1e-3)) + 1  # float32 times
    clock = np.arange(frames) / fps
    clip = avatar.rest_clip(frames, fps)
    sampled: dict[tuple[int, str], FloatArray] = {}  # by (node, "rotation" / "translation" …)
    for node, target_path, times, values in tracks:
        if node not in avatar.nodes:
            continue
        index = np.clip(np.searchsorted(times, clock, side="right") - 1, 0, len(times) - 1)
        following = np.minimum(index + 1, len(times) - 1)
        span = np.maximum(times[following] - times[index], 1e-12)
        t = np.clip((clock - times[index]) / span, 0.0, 1.0)
        if target_path == "rotation" and values.shape[1] == 4:
            a = quat.normalize(values[index][:, [3, 0, 1, 2]])
            b = quat.normalize(values[following][:, [3, 0, 1, 2]])
            sampled[node, target_path] = quat.slerp(a, b, t)
        elif target_path in ("translation", "scale") and values.shape[1] == 3:
            sampled[node, target_path] = (values[index]
                                          + (values[following] - values[index]) * t[:, None])
    # Each joint's ``(F,)`` world scale relative to the rest pose, from the channels above it.
    relative_scale = np.ones((frames, len(avatar.nodes)))
    for j, node in enumerate(avatar.nodes):  # parents come before children
        parent = avatar.skeleton.parents[j]
        relative_scale[:, j] = relative_scale[:, parent] if parent >= 0 else 1.0
        if (node, "scale") in sampled:
            rest_scale = np.linalg.norm(_node_matrix(gltf.nodes[node])[:3, :3], axis=0).mean()
            relative_scale[:, j] *= sampled[node, "scale"].mean(axis=1) / rest_scale
        frame = avatar.frames[j]
        if (node, "rotation") in sampled:  # else the rest rotation the clip holds
            clip.rotations[:, j] = quat.mul(_split(frame, str(path))[1], sampled[node, "rotation"])
        if (node, "translation") in sampled:
            moved = sampled[node, "translation"] @ frame[:3, :3].T + frame[:3, 3]
            clip.positions[:, j] = moved * avatar.parent_scale[j]
        if parent >= 0:
            clip.positions[:, j] *= relative_scale[:, parent, None]
    return clip
