"""The glTF container: reading a file with pygltflib, checking its structure before anything
uses it, and reading accessor data."""

from __future__ import annotations

import base64
import json
import warnings
from pathlib import Path
from typing import TypeGuard

import numpy as np
import pygltflib

from footfall.errors import GLTFError
from footfall.gltf.nodes import hierarchy_depths, node_values

#: Most nodes a file may hold (an explicit limit; reading never recurses over the hierarchy).
MAX_NODES = 100_000
#: Suffixes of files that are GLB containers (pygltflib itself knows only .glb).
BINARY_SUFFIXES = (".glb", ".vrm", ".vrma")
_COMPONENTS: dict[int, type[np.generic]] = {5120: np.int8, 5121: np.uint8, 5122: np.int16,
                                             5123: np.uint16, 5125: np.uint32, 5126: np.float32}
_TYPE_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


def is_index(value: object, count: int) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < count


def is_size(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 53


def is_binary(path: Path) -> bool:
    """Whether ``path`` names a binary glTF container (GLB) by its suffix: .glb, and VRM's
    .vrm and .vrma, which are GLB files under another name."""
    return path.suffix.lower() in BINARY_SUFFIXES


def _starts_as_glb(path: Path) -> bool:
    """Whether the file's first bytes are GLB's magic (a GLB under another name)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"glTF"
    except OSError:
        return False


def read_document(path: Path) -> pygltflib.GLTF2:
    """The parsed document, its structure checked (:func:`check_document`)."""
    if not path.is_file():
        raise GLTFError(f"{path}: cannot read glTF (no such file)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pygltflib warns, then fails or half-reads
            gltf = (pygltflib.GLTF2().load_binary(str(path))
                    if is_binary(path) or _starts_as_glb(path)
                    else pygltflib.GLTF2().load(str(path)))
    except Exception as exc:  # pygltflib raises many types for bad input
        message = str(exc).splitlines()[0][:200] if str(exc) else ""
        raise GLTFError(f"{path}: cannot read glTF ({type(exc).__name__}: {message})") from None
    if gltf is None:
        raise GLTFError(f"{path}: cannot read glTF (empty or unknown format)")
    check_document(gltf, path)
    try:
        json.loads(gltf.to_json(), parse_constant=_refuse_constant)
    except ValueError as error:
        raise GLTFError(f"{path}: the document holds {error} (glTF JSON must be finite)") from None
    return gltf


def _refuse_constant(name: str) -> float:
    raise ValueError(name)


def buffer_bytes(gltf: pygltflib.GLTF2, index: int, path: Path) -> bytes:
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



def check_document(gltf: pygltflib.GLTF2, path: Path) -> None:
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
        node_values(node, where)
        children = node.children or []
        if not isinstance(children, list):
            raise GLTFError(f"{where}: 'children' must be a list")
        for child in children:
            if not is_index(child, len(nodes)):
                raise GLTFError(f"{where}: child {child!r:.40} is not a node index")
            if child in parent_of or child == index:
                raise GLTFError(f"{where}: node {child} has a second parent or is its own child "
                                "(the hierarchy must be a tree)")
            parent_of[child] = index
    hierarchy_depths(parent_of, len(nodes), path)  # refuses cycles
    blobs: dict[int, int] = {}
    for index, buffer in enumerate(gltf.buffers):
        if not isinstance(buffer, pygltflib.Buffer) or not is_size(buffer.byteLength):
            raise GLTFError(f"{path}: buffer {index} needs a 'byteLength'")
        have = len(buffer_bytes(gltf, index, path))
        if have < buffer.byteLength:
            raise GLTFError(f"{path}: buffer {index} declares {buffer.byteLength} bytes but "
                            f"holds {have} (truncated file?)")
        blobs[index] = buffer.byteLength
    for index, view in enumerate(gltf.bufferViews):
        where = f"{path}: bufferView {index}"
        if not isinstance(view, pygltflib.BufferView) or not is_index(view.buffer, len(blobs)):
            raise GLTFError(f"{where}: 'buffer' is not a buffer index")
        offset = view.byteOffset or 0
        if not (is_size(offset) and is_size(view.byteLength) and view.byteLength > 0):
            raise GLTFError(f"{where}: 'byteOffset'/'byteLength' must be sizes")
        if offset + view.byteLength > blobs[view.buffer]:
            raise GLTFError(f"{where}: bytes {offset}–{offset + view.byteLength} end past "
                            f"buffer {view.buffer} ({blobs[view.buffer]} bytes)")
        if view.byteStride is not None and not (
                is_size(view.byteStride) and 4 <= view.byteStride <= 252):
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
        if not values or not all(is_index(v, len(gltf.accessors)) for v in values):
            raise GLTFError(f"{here}: 'attributes' must map names to accessor indices")
        if primitive.indices is not None and not is_index(primitive.indices,
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
    if not (is_size(accessor.count) and accessor.count > 0):
        raise GLTFError(f"{where}: 'count' must be a positive integer")
    if accessor.bufferView is None:
        return  # all zeros (or sparse), nothing to read past
    if not is_index(accessor.bufferView, len(gltf.bufferViews)):
        raise GLTFError(f"{where}: 'bufferView' {accessor.bufferView!r:.20} is not a view index")
    view = gltf.bufferViews[accessor.bufferView]
    offset = accessor.byteOffset or 0
    if not is_size(offset):
        raise GLTFError(f"{where}: 'byteOffset' must be a size")
    element = np.dtype(component).itemsize * width
    stride = view.byteStride or element
    end = offset + stride * (accessor.count - 1) + element
    if end > view.byteLength:
        raise GLTFError(f"{where}: {accessor.count} elements end at byte {end}, past "
                        f"bufferView {accessor.bufferView} ({view.byteLength} bytes)")


def accessor_values(gltf: pygltflib.GLTF2, blob: bytes, index: int) -> np.ndarray:
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

