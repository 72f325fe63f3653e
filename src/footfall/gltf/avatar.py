"""The avatar a glTF file holds: a skin's joints as a :class:`Skeleton` in world metres, Y up,
and their rest (bind) pose as local rotations.

Everything above the skeleton root (a Z-up armature node, a ×100 armature scale) is folded into
the root, uniform node scales into the offsets; :attr:`Avatar.frames` keeps what was folded so
that :mod:`footfall.gltf.writer` can write local transforms back.

A VRM file (VRM 0.x or 1.0, whatever its suffix) is read by its humanoid instead of a skin (an
armature without a mesh is an avatar too): the joints are the humanoid bones' nodes and the
nodes between them and the hips, :attr:`Avatar.humanoid` is the file's bone map, and a VRM 0.x
model, which faces −Z, is turned 180° about Y to face +Z like every footfall character (the
turn is folded into the root frame, so the writer turns it back).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np
import pygltflib

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import GLTFError
from footfall.gltf.document import is_index, read_document
from footfall.gltf.nodes import hierarchy_depths, split_transform, world_matrices
from footfall.gltf.vrm import VrmInfo, read_vrm, vrm_bone_name
from footfall.humanoid.bones import HUMAN_BONES
from footfall.sizes import check_size
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
        humanoid: ``{canonical bone: joint name}`` a VRM file declares (None for plain glTF,
            whose bones are guessed from names and shape).
        vrm: the VRM file's humanoid and meta (None for plain glTF).
        file_to_world: ``(4, 4)`` the transform put above the file's scene to bring it into
            footfall's world: VRM 0.x's 180° turn about Y (:data:`TURN_TO_PLUS_Z`), else the
            identity. Whatever else is read from the file in its own space (the mesh,
            :func:`footfall.skinning.rest_mesh`) goes through it to stay with the skeleton.
    """

    skeleton: Skeleton
    rest_rotations: FloatArray
    nodes: list[int]
    frames: FloatArray
    parent_scale: FloatArray
    path: Path
    document: pygltflib.GLTF2 | None = field(default=None, repr=False)
    humanoid: dict[str, str] | None = None
    vrm: VrmInfo | None = field(default=None, repr=False)
    file_to_world: FloatArray = field(default_factory=lambda: np.eye(4), repr=False)

    def rest_clip(self, frames: int = 1, fps: float = 30.0) -> Clip:
        """The rest (bind) pose as a clip."""
        rotations = np.broadcast_to(self.rest_rotations, (frames, *self.rest_rotations.shape))
        positions = np.broadcast_to(self.skeleton.offsets, (frames, self.skeleton.joint_count, 3))
        return Clip(self.skeleton, rotations.copy(), positions.copy(), fps)

    def target_mapping(self) -> dict[str, str | None] | None:
        """The bone map to retarget onto this avatar with (``Retargeter(target_mapping=…)``):
        every canonical bone, those the file does not map as None so that nothing is guessed;
        None for a plain glTF avatar (guess from names)."""
        if self.humanoid is None:
            return None
        return {bone: self.humanoid.get(bone) for bone in HUMAN_BONES}


def load_avatar(path: PathArg, skin: int = 0) -> Avatar:
    """Read the skeleton and rest pose of skin ``skin`` of a .glb/.gltf file, or of the
    humanoid of a VRM file (.vrm; ``skin`` is not used).

    Raises :class:`GLTFError` naming the file for unreadable files, files without a skin,
    malformed or truncated documents (:func:`check_document`), transforms footfall cannot
    represent (non-uniform or mirrored scale), and VRM bone maps that are not usable (the
    field named, see :func:`footfall.gltf.vrm.read_vrm`).
    """
    path = Path(path)
    gltf = read_document(path)
    vrm = read_vrm(gltf, path)
    if vrm is not None:
        return vrm_avatar(gltf, vrm, path)
    return avatar_of_joints(gltf, skin_joints(gltf, skin, path), path)


#: The turn that makes a VRM 0.x model (facing −Z) face +Z: 180° about Y.
TURN_TO_PLUS_Z = np.diag([-1.0, 1.0, -1.0, 1.0])


def vrm_avatar(gltf: pygltflib.GLTF2, vrm: VrmInfo, path: Path) -> Avatar:
    """The avatar of a VRM file's humanoid: its bones' nodes and the nodes between them and
    the hips as joints, VRM 0.x turned to face +Z."""
    parent_of = {child: index for index, node in enumerate(gltf.nodes)
                 for child in node.children or []}
    hips = vrm.bones["Hips"]
    joints: list[int] = []
    for bone, node in vrm.bones.items():
        chain = []
        while node != hips and node not in joints:
            chain.append(node)
            if node not in parent_of:
                raise GLTFError(f"{path}: extensions.{vrm.extension}.humanoid.humanBones: "
                                f"{vrm_bone_name(bone, vrm.extension)!r} (node "
                                f"{vrm.bones[bone]}) is not below the hips (node {hips})")
            node = parent_of[node]
        joints.extend(reversed(chain))
    avatar = avatar_of_joints(gltf, [hips, *joints], path,
                              above=TURN_TO_PLUS_Z if vrm.faces_minus_z else None)
    name_of = dict(zip(avatar.nodes, avatar.skeleton.names, strict=True))
    avatar.humanoid = {bone: name_of[node] for bone, node in vrm.bones.items()}
    avatar.vrm = vrm
    return avatar


def skin_joints(gltf: pygltflib.GLTF2, skin: int, path: Path) -> list[int]:
    """The node indices of skin ``skin``'s joints, checked (each a node, none twice)."""
    if not gltf.skins:
        raise GLTFError(f"{path}: no skin (a skinned avatar is needed as retarget target)")
    if not is_index(skin, len(gltf.skins)) or not isinstance(gltf.skins[skin], pygltflib.Skin):
        raise GLTFError(f"{path}: skin {skin} does not exist ({len(gltf.skins)} skins)")
    nodes = gltf.nodes
    joints = gltf.skins[skin].joints or []
    if (not isinstance(joints, list) or not joints
            or any(not is_index(j, len(nodes)) for j in joints)):
        raise GLTFError(f"{path}: skin {skin} has no valid joint list")
    if len(set(joints)) != len(joints):
        raise GLTFError(f"{path}: skin {skin} lists a joint twice")
    return joints


def avatar_of_joints(gltf: pygltflib.GLTF2, joints: list[int], path: Path,
                     above: FloatArray | None = None) -> Avatar:
    """The :class:`Avatar` whose joints are the nodes ``joints`` (distinct node indices): ordered
    parents first (by depth, then by their order in ``joints``), each parented to its nearest
    ancestor among them, everything above a root folded into that root. ``above``: a ``(4, 4)``
    transform put above the whole scene (folded into the roots as well)."""
    nodes = gltf.nodes
    parent_of = {child: index for index, node in enumerate(nodes)
                 for child in node.children or []}
    depths = hierarchy_depths(parent_of, len(nodes), path)
    file_world = world_matrices(nodes, parent_of, path)
    if above is None:
        world_matrix, scene = file_world, np.eye(4)
    else:
        def world_matrix(index: int) -> FloatArray:
            return above @ file_world(index)
        scene = above
    position_in_skin = {joint: n for n, joint in enumerate(joints)}
    order = sorted(joints, key=lambda j: (depths[j], position_in_skin[j]))
    joint_set = set(order)
    names, parents, offsets, rest, scales, frames = [], [], [], [], [], []
    world_rot: dict[int, FloatArray] = {}
    world_pos: dict[int, FloatArray] = {}
    for node_index in order:
        node = nodes[node_index]
        where = f"{path}: node {node_index} ({node.name!r})"
        position, rotation, _ = split_transform(world_matrix(node_index), where)
        world_rot[node_index], world_pos[node_index] = rotation, position
        direct_parent = ancestor = parent_of.get(node_index)
        while ancestor is not None and ancestor not in joint_set:
            ancestor = parent_of.get(ancestor)
        parent_matrix = world_matrix(direct_parent) if direct_parent is not None else scene
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
            scales.append(split_transform(ancestor_matrix, where)[2])
            frames.append(np.linalg.inv(ancestor_matrix) @ parent_matrix)
        split_transform(frames[-1], where)  # rejects mirrored / non-uniform frames early
        name = node.name or f"joint{node_index}"
        names.append(name if name not in names else f"{name}_{node_index}")
    skeleton = Skeleton(names, np.array(parents), np.array(offsets))
    check_size(skeleton, str(path), error=GLTFError)
    return Avatar(skeleton, np.array(rest), order, np.array(frames), np.array(scales), path, gltf,
                  file_to_world=np.array(scene, dtype=np.float64))

