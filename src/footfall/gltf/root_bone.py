"""A root bone added to a glTF avatar, so a clip with extracted root motion
(:func:`footfall.root_motion.extract_root_motion`) can be written into the avatar's own file.

The new node sits between the skeleton's root joint(s) and their glTF parent (or the scene),
with the identity as its rest transform, so the bind pose and the mesh do not move; it joins
the avatar's skin (appended to ``skin.joints``, its inverse bind matrix the inverse of its
parent's world matrix, so the existing ``JOINTS_0`` indices stay valid), and the avatar is read
again from the changed document (:func:`~footfall.gltf.avatar.avatar_of_joints`), every
transform folded as the reader folds it.
"""

from __future__ import annotations

import copy

import numpy as np
import pygltflib

from footfall.errors import GLTFError
from footfall.gltf.avatar import Avatar, avatar_of_joints
from footfall.gltf.document import accessor_values, read_document
from footfall.gltf.nodes import world_matrices
from footfall.gltf.writer import add_accessor


def with_root_bone(avatar: Avatar, name: str) -> Avatar:
    """``avatar`` with a bone ``name`` added above its root joint(s) (joint 0 of the new
    skeleton; the other joints as before, in the same order). Raises :class:`GLTFError` for a
    VRM avatar (its humanoid starts at the hips), or root joints under different parents."""
    path = avatar.path
    if avatar.vrm is not None:
        raise GLTFError(f"{path}: a VRM avatar's humanoid starts at its hips; no root bone can "
                        "be added above them")
    gltf = copy.deepcopy(avatar.document) if avatar.document is not None else read_document(path)
    gltf.convert_buffers(pygltflib.BufferFormat.BINARYBLOB)
    blob = bytearray(gltf.binary_blob() or b"")
    parent_of = {child: index for index, node in enumerate(gltf.nodes)
                 for child in node.children or []}
    roots = [avatar.nodes[j] for j in np.nonzero(avatar.skeleton.parents < 0)[0]]
    above = {parent_of.get(node) for node in roots}
    if len(above) != 1:
        raise GLTFError(f"{path}: the root joints hang from different nodes; no one root bone "
                        "can hold them")
    parent = above.pop()
    world_of_parent = (np.eye(4) if parent is None
                       else world_matrices(gltf.nodes, parent_of, path)(parent))
    bone = len(gltf.nodes)
    gltf.nodes.append(pygltflib.Node(name=name, children=list(roots)))
    if parent is None:
        for scene in gltf.scenes or []:
            listed = list(scene.nodes or [])
            if any(node in listed for node in roots):
                at = min(listed.index(node) for node in roots if node in listed)
                kept = [node for node in listed if node not in roots]
                scene.nodes = kept[:at] + [bone] + kept[at:]
    else:
        holder = gltf.nodes[parent]
        holder.children = [c for c in holder.children or [] if c not in roots] + [bone]
    for skin in gltf.skins or []:
        if not set(roots) <= set(skin.joints or []):
            continue
        if skin.inverseBindMatrices is not None:
            try:
                matrices = accessor_values(gltf, bytes(blob), skin.inverseBindMatrices)
            except (IndexError, ValueError, TypeError, KeyError) as error:
                raise GLTFError(f"{path}: inverse bind matrices do not read ({error})") from None
            # Column-major, as glTF stores them.
            added = np.linalg.inv(world_of_parent).T.reshape(1, 16)
            skin.inverseBindMatrices = add_accessor(
                gltf, blob, np.concatenate([matrices.reshape(-1, 16), added]), pygltflib.MAT4)
        skin.joints = [*skin.joints, bone]
        if skin.skeleton in roots:
            skin.skeleton = bone
    if not gltf.buffers:
        gltf.buffers = [pygltflib.Buffer(byteLength=0)]
    gltf.set_binary_blob(bytes(blob))
    gltf.buffers[0].byteLength = len(blob)
    scene_transform = None if np.allclose(avatar.file_to_world, np.eye(4)) else (
        avatar.file_to_world)
    rebuilt = avatar_of_joints(gltf, [bone, *avatar.nodes], path, above=scene_transform)
    if rebuilt.skeleton.names[1:] != avatar.skeleton.names or rebuilt.skeleton.names[0] != name:
        raise GLTFError(f"{path}: the avatar with a root bone {name!r} does not keep its joints")
    rebuilt.humanoid = avatar.humanoid
    return rebuilt
