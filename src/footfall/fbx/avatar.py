"""A skinned FBX character as a retarget target: the :class:`~footfall.gltf.Avatar` a glTF file
would give, built from a glTF document made in memory of the FBX skeleton and skin.

The document holds the skeleton's joints as nodes at the bind pose (metres, Y up, no scale),
one skin whose inverse bind matrices are those joints' inverses, and the skinned meshes with
their vertices where the bind pose puts them and each vertex's four largest weights. So
everything that reads a glTF avatar reads this one the same way: the retargeter's rest pose,
the sole measured from the skin (:func:`footfall.skinning.foot_sole_points`), the preview's
mesh, and ``save_motion``, which writes the character with its new animation as .glb/.gltf.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pygltflib

from footfall import quat
from footfall.errors import FBXError, GLTFError
from footfall.fbx.clip import rest_skeleton, split_world, unique_names
from footfall.fbx.isolate import PathArg, read_arrays
from footfall.gltf import Avatar
from footfall.gltf.avatar import avatar_of_joints
from footfall.gltf.writer import add_accessor


def load_fbx_avatar(path: PathArg) -> Avatar:
    """The skinned character of an FBX file as an :class:`~footfall.gltf.Avatar` (joints: the
    skin's bones and the bones between and below them; a file without a mesh gives its
    skeleton alone). Raises :class:`FBXError` naming the file for anything unreadable."""
    arrays = read_arrays(path, "avatar")
    rest_skeleton(arrays, path)  # checks names, parents and offsets as a clip's would be
    gltf = fbx_document(arrays, path)
    try:
        return avatar_of_joints(gltf, list(range(len(arrays["names"]))), Path(path))
    except GLTFError as error:
        raise FBXError(str(error)) from None


def fbx_document(arrays: dict[str, np.ndarray], path: PathArg) -> pygltflib.GLTF2:
    """The glTF document of the worker's avatar arrays (see the module docstring)."""
    names = unique_names([str(name) for name in arrays["names"]])
    parents = np.asarray(arrays["parents"], dtype=np.int64)
    positions, rotations = split_world(arrays["rest"][None], path, "bind pose")
    positions, rotations = positions[0], rotations[0]
    world = np.zeros((len(names), 4, 4))
    world[:, :3, :3] = quat.to_matrix(rotations)
    world[:, :3, 3] = positions
    world[:, 3, 3] = 1.0
    gltf = pygltflib.GLTF2(asset=pygltflib.Asset(version="2.0", generator="footfall.fbx"))
    blob = bytearray()
    for j, name in enumerate(names):
        p = parents[j]
        local = world[j] if p < 0 else np.linalg.solve(world[p], world[j])
        rotation = quat.from_matrix(local[:3, :3])
        gltf.nodes.append(pygltflib.Node(
            name=name, translation=[float(v) for v in local[:3, 3]],
            rotation=[float(v) for v in rotation[[1, 2, 3, 0]]],
            children=[int(c) for c in np.nonzero(parents == j)[0]] or None))
    inverse_bind = np.linalg.inv(world).transpose(0, 2, 1).reshape(-1, 16)  # column-major
    gltf.skins.append(pygltflib.Skin(
        joints=list(range(len(names))),
        inverseBindMatrices=add_accessor(gltf, blob, inverse_bind, pygltflib.MAT4)))
    roots = [int(j) for j in np.nonzero(parents < 0)[0]]
    if "vertices" in arrays and len(arrays["vertices"]):
        vertices = np.asarray(arrays["vertices"], dtype=np.float64)
        triangles = np.asarray(arrays["triangles"], dtype=np.int64)
        joints = np.asarray(arrays["skin_joints"], dtype=np.int64)
        weights = np.asarray(arrays["skin_weights"], dtype=np.float64)
        if (not np.all(np.isfinite(vertices)) or triangles.size and (
                triangles.min() < 0 or triangles.max() >= len(vertices))
                or joints.min() < 0 or joints.max() >= len(names)):
            raise FBXError(f"{path}: the skinned mesh is damaged (indices out of range or NaN)")
        weights = weights / np.maximum(weights.sum(axis=1, keepdims=True), 1e-12)
        attributes = pygltflib.Attributes(
            POSITION=add_accessor(gltf, blob, vertices, pygltflib.VEC3, with_bounds=True),
            JOINTS_0=_add_integers(gltf, blob, joints, pygltflib.VEC4,
                                   pygltflib.UNSIGNED_SHORT),
            WEIGHTS_0=add_accessor(gltf, blob, weights, pygltflib.VEC4))
        primitive = pygltflib.Primitive(
            attributes=attributes,
            indices=_add_integers(gltf, blob, triangles.reshape(-1), pygltflib.SCALAR,
                                  pygltflib.UNSIGNED_INT))
        gltf.meshes.append(pygltflib.Mesh(name="fbx mesh", primitives=[primitive]))
        gltf.nodes.append(pygltflib.Node(name="fbx mesh", mesh=0, skin=0))
        roots.append(len(gltf.nodes) - 1)
    gltf.scenes.append(pygltflib.Scene(nodes=roots))
    gltf.scene = 0
    gltf.buffers.append(pygltflib.Buffer(byteLength=len(blob)))
    gltf.set_binary_blob(bytes(blob))
    return gltf


def _add_integers(gltf: pygltflib.GLTF2, blob: bytearray, data: np.ndarray, kind: str,
                  component: int) -> int:
    """Append integer ``data`` as ``component`` (unsigned short or int) behind a new buffer
    view and accessor of type ``kind``; returns the accessor's index."""
    dtype = np.uint16 if component == pygltflib.UNSIGNED_SHORT else np.uint32
    values = np.ascontiguousarray(data, dtype=dtype)
    blob.extend(bytes(-len(blob) % 4))
    offset = len(blob)
    blob.extend(values.tobytes())
    gltf.bufferViews.append(pygltflib.BufferView(buffer=0, byteOffset=offset,
                                                 byteLength=values.nbytes))
    gltf.accessors.append(pygltflib.Accessor(
        bufferView=len(gltf.bufferViews) - 1, componentType=component,
        count=int(values.shape[0]), type=kind))
    return len(gltf.accessors) - 1
