"""An avatar's skinned mesh in its rest pose, and what its feet are made of.

glTF skins each vertex by the joints it names (joint world matrix × inverse bind matrix,
blended by the weights); a mesh without a skin follows its node rigidly, held by the nearest
joint above it. The retargeter stands each foot on the floor by its lowest *vertex*, not its
lowest joint: a shoe's sole sits centimetres below the ankle and toe joints, and how far differs
from rig to rig (:func:`foot_sole_points`). ``footfall.gltf`` reads skeletons and animations; the
meshes are read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.foot_model import FootModel, foot_model_from_points
from footfall.gltf import Avatar, _accessor_values, _world_matrices
from footfall.retarget.body_floor import (
    ARMS,
    LEG_BONES,
    TRUNK,
    BodyPoints,
    limb_joints,
    trunk_joints,
)
from footfall.retarget.calibration import SolePoints
from footfall.retarget.preview import skin_vertices
from footfall.skeleton import Skeleton, forward_kinematics

#: Share of a vertex's skin weight on a foot (its joint and the joints below it) that makes the
#: vertex part of that foot.
FOOT_WEIGHT = 0.5
FEET = ("LeftFoot", "RightFoot")
#: Largest foot tilt (radians) for which the sole points hold the lowest point of the foot.
MAX_TILT = np.pi


def rest_mesh(avatar: Avatar, *, unskinned: bool = False
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(vertices (V, 3) world metres at rest, faces (F, 3), weights (V, J))`` of the meshes
    skinned to the avatar's skin, or None when there is none (or it cannot be read).

    A file without a skin has no body the retargeter can measure (None), but it may still
    draw one: with ``unskinned`` its meshes are read as rigid parts, each held by the nearest
    joint above it (the shared VRM 1.0 samples hang boxes and planes on their bones so), for
    pictures such as ``--preview``'s.

    The vertices are in footfall's world, as the skeleton is: the file's node matrices are taken
    through :attr:`~footfall.gltf.Avatar.file_to_world` (a VRM 0.x model faces −Z in its file
    and is turned 180° about Y with its bones)."""
    gltf = avatar.document
    if gltf is None or not (gltf.skins or unskinned):
        return None
    try:
        blob = gltf.binary_blob()
        if blob is None:
            return None
        parent = {c: i for i, n in enumerate(gltf.nodes) for c in (n.children or [])}
        file_world = _world_matrices(gltf.nodes, parent, "glTF")

        def world(node: int) -> FloatArray:
            return avatar.file_to_world @ file_world(node)

        joints = avatar.skeleton.joint_count
        vertices, faces, weights, base = [], [], [], 0
        for index, node in enumerate(gltf.nodes):
            if node.mesh is None:
                continue
            if node.skin is not None:
                skin = gltf.skins[node.skin]
                if any(n not in avatar.nodes for n in skin.joints):
                    continue
                ibm = _accessor_values(gltf, blob, skin.inverseBindMatrices).reshape(-1, 4, 4)
                skin_mats = np.stack([world(n) for n in skin.joints]) @ ibm.transpose(0, 2, 1)
                joint_of = np.array([avatar.nodes.index(n) for n in skin.joints])
            else:  # a rigid part: follows the nearest joint above it
                holder = index
                while holder not in avatar.nodes and holder in parent:
                    holder = parent[holder]
                if holder not in avatar.nodes:
                    continue
                skin_mats = world(index)[None]
                joint_of = np.array([avatar.nodes.index(holder)])
            for prim in gltf.meshes[node.mesh].primitives:
                attrs = prim.attributes
                if attrs.POSITION is None:
                    continue
                v = _accessor_values(gltf, blob, attrs.POSITION)
                if node.skin is not None and attrs.JOINTS_0 is not None \
                        and attrs.WEIGHTS_0 is not None:
                    j = _accessor_values(gltf, blob, attrs.JOINTS_0).astype(int)
                    w = _accessor_values(gltf, blob, attrs.WEIGHTS_0)
                    w /= np.maximum(w.sum(-1, keepdims=True), 1e-9)
                elif node.skin is None:
                    j = np.zeros((len(v), 1), dtype=int)
                    w = np.ones((len(v), 1))
                else:
                    continue
                f = (_accessor_values(gltf, blob, prim.indices).astype(int).reshape(-1, 3)
                     if prim.indices is not None else np.arange(len(v)).reshape(-1, 3))
                mats = np.einsum("vk,vkij->vij", w, skin_mats[j])
                vertices.append(np.einsum("vij,vj->vi", mats[:, :3, :3], v) + mats[:, :3, 3])
                dense = np.zeros((len(v), joints))
                np.add.at(dense, (np.arange(len(v))[:, None], joint_of[j]), w)
                weights.append(dense)
                faces.append(f + base)
                base += len(v)
        if not vertices:
            return None
        return np.concatenate(vertices), np.concatenate(faces), np.concatenate(weights)
    except Exception:  # an unusual file: show the bones instead
        return None


def cap_directions(max_tilt: float = MAX_TILT, rings: int = 24, around: int = 48) -> FloatArray:
    """Unit directions ``(D, 3)`` within ``max_tilt`` radians of +Y (the up axis seen from a foot
    turned by up to that much), the pole included."""
    out = [np.array([0.0, 1.0, 0.0])]
    for ring in range(1, rings + 1):
        tilt = max_tilt * ring / rings
        for k in range(around):
            turn = 2.0 * np.pi * k / around
            out.append(np.array([np.sin(tilt) * np.cos(turn), np.cos(tilt),
                                 np.sin(tilt) * np.sin(turn)]))
    return np.array(out)


def foot_sole_points(avatar: Avatar, mapping: Mapping[str, str]) -> SolePoints | None:
    """Sole points of the avatar's feet from its mesh: the vertices of each foot (at least
    :data:`FOOT_WEIGHT` of their weight on the foot joint or the joints below it) that are
    lowest for some turn of the foot or of the toes, with their skin weights on the toes. None
    when the avatar has no mesh on its feet (armature-only files)."""
    if not all(bone in mapping for bone in FEET):
        return None
    mesh = rest_mesh(avatar)
    if mesh is None:
        return None
    vertices, _, weights = mesh
    skeleton = avatar.skeleton
    points, toe_weights = [], []
    for bone, toe_bone in zip(FEET, ("LeftToes", "RightToes"), strict=True):
        foot = skeleton.index(mapping[bone])
        on_foot = weights[:, _below(skeleton, foot)].sum(axis=1) >= FOOT_WEIGHT
        if not on_foot.any():
            return None
        on_toes = np.zeros(len(vertices))
        if toe_bone in mapping:
            on_toes = weights[:, _below(skeleton, skeleton.index(mapping[toe_bone]))].sum(axis=1)
        share = on_toes / np.maximum(weights[:, _below(skeleton, foot)].sum(axis=1), 1e-12)
        # Candidates: the lowest for some turn of the foot, and of the toes' part for some turn
        # of the toes; in a pose each is placed as the mesh places it (blended).
        chosen = set(_support_indices(vertices, on_foot).tolist())
        chosen |= set(_support_indices(vertices, on_foot & (share >= 0.5)).tolist())
        index = np.array(sorted(chosen), dtype=np.int64)
        points.append(vertices[index])
        toe_weights.append(share[index])
    return SolePoints.gather(skeleton, mapping, avatar.rest_rotations, points, toe_weights, True)


def _support_indices(vertices: FloatArray, mask: np.ndarray) -> np.ndarray:
    """Indices of the vertices under ``mask`` that are lowest for some tilt (see
    :data:`MAX_TILT`, see :func:`cap_directions`); empty for an empty mask."""
    chosen = np.nonzero(mask)[0]
    if len(chosen) == 0:
        return chosen
    return chosen[np.unique(np.argmin(vertices[chosen] @ cap_directions().T, axis=0))]


def _below(skeleton: Skeleton, joint: int) -> np.ndarray:
    """``(J,)`` whether each joint is ``joint`` or below it."""
    return np.array([joint in skeleton.chain(j) for j in range(skeleton.joint_count)])


def avatar_feet(avatar: Avatar | None,
                mapping: Mapping[str, str | None] | str | None = None) -> SolePoints | None:
    """:func:`foot_sole_points` of ``avatar`` with its bones found as the retargeter finds them
    (``mapping``: the user's override), or None without an avatar or a mesh on its feet."""
    if avatar is None:
        return None
    from footfall.humanoid import map_skeleton

    return foot_sole_points(avatar, map_skeleton(avatar.skeleton, mapping).mapping)


def sole_foot_models(skeleton: Skeleton, mapping: Mapping[str, str], rest: FloatArray,
                     feet: SolePoints, scale: float = 1.0) -> tuple[FootModel, FootModel]:
    """The grounding's (left, right) :class:`~footfall.footing.foot_model.FootModel` from the sole
    points ``feet`` of an avatar (:func:`foot_sole_points`): the points placed on the rest
    pose ``rest (J, 4)`` stood up (:func:`footfall.humanoid.upright_pose`), measured by
    :func:`~footfall.footing.foot_model.foot_model_from_points`, sizes times ``scale`` (the
    retargeter's avatar scale)."""
    from footfall.humanoid import upright_pose

    pose = upright_pose(skeleton, mapping, rest)
    world, positions = forward_kinematics(skeleton.parents, pose, skeleton.offsets)
    models = []
    for side, bone in enumerate(FEET):
        foot = skeleton.index(mapping[bone])
        # at rest a point sits where the foot alone carries it (foot and toes agree there)
        offsets = quat.rotate(world[foot], feet.foot_points[side])
        models.append(foot_model_from_points(offsets * scale, world[foot]))
    return models[0], models[1]


@dataclass(frozen=True)
class FootVertices:
    """The skinned vertices of an avatar's two feet (at least :data:`FOOT_WEIGHT` of their
    weight on the foot joint or the joints below it), to skin in any pose: where the feet's
    lowest points are even where the toes bend.

    Attributes:
        feet: per foot, its rest vertices ``(V_i, 3)`` and their weights ``(V_i, J)``.
        rest_world, rest_positions: ``(J, 4)``, ``(J, 3)`` the joints at rest.
    """

    feet: list[tuple[FloatArray, FloatArray]]
    rest_world: FloatArray
    rest_positions: FloatArray

    @classmethod
    def of(cls, avatar: Avatar, mapping: Mapping[str, str],
           scale: float = 1.0) -> FootVertices | None:
        """The feet of ``avatar`` (``mapping``: its canonical bone map) at the avatar
        ``scale``, or None when it has no skinned mesh on them."""
        mesh = rest_mesh(avatar)
        if mesh is None or not all(bone in mapping for bone in FEET):
            return None
        vertices, _, weights = mesh
        skeleton = avatar.skeleton
        world, positions = forward_kinematics(skeleton.parents, avatar.rest_rotations,
                                              skeleton.offsets)
        feet = []
        for bone in FEET:
            below = _below(skeleton, skeleton.index(mapping[bone]))
            on_foot = weights[:, below].sum(axis=1) >= FOOT_WEIGHT
            if not on_foot.any():
                return None
            feet.append((vertices[on_foot] * scale, weights[on_foot]))
        return cls(feet, world, positions * scale)

    def posed(self, world: FloatArray, positions: FloatArray) -> list[FloatArray]:
        """Each foot's vertices ``(V_i, 3)`` skinned for joint world rotations ``(J, 4)`` and
        positions ``(J, 3)`` (the avatar's joint order, at its scale), metres."""
        return [skin_vertices(vertices, weights, self.rest_world, self.rest_positions, world,
                              positions) for vertices, weights in self.feet]


def avatar_hands(avatar: Avatar | None,
                 mapping: Mapping[str, str | None] | str | None = None) -> FloatArray | None:
    """How far ``(2,)`` each of the avatar's hands reaches from its wrist, metres: its farthest
    vertex with at least :data:`FOOT_WEIGHT` of its weight on the hand or the joints below it,
    in the rest pose. None without an avatar or a mesh on its hands."""
    if avatar is None:
        return None
    from footfall.humanoid import map_skeleton

    bones = map_skeleton(avatar.skeleton, mapping).mapping
    mesh = rest_mesh(avatar)
    if mesh is None or not all(b in bones for b in ("LeftHand", "RightHand")):
        return None
    vertices, _, weights = mesh
    skeleton = avatar.skeleton
    positions = avatar.rest_clip().global_positions()[0]
    out = np.zeros(2)
    for side, bone in enumerate(("LeftHand", "RightHand")):
        hand = skeleton.index(bones[bone])
        on_hand = weights[:, _below(skeleton, hand)].sum(axis=1) >= FOOT_WEIGHT
        if on_hand.any():
            out[side] = float(np.linalg.norm(vertices[on_hand] - positions[hand], axis=-1).max())
    return out



def avatar_body(avatar: Avatar | None,
                mapping: Mapping[str, str | None] | str | None = None) -> BodyPoints | None:
    """The surface points of the avatar's arms, trunk and feet
    (:class:`~footfall.retarget.body_floor.BodyPoints`) from its mesh: the vertices with at
    least :data:`FOOT_WEIGHT` of their weight on an upper arm and the joints below it (an arm),
    on the joints of neither arms nor legs (the trunk), on a foot and the joints below it, or on
    a leg above its foot, each carried by the joint holding most of its weight, kept where they
    are lowest for some turn of that joint. None without an avatar or a mesh on its arms."""
    if avatar is None:
        return None
    from footfall.humanoid import map_skeleton

    bones = map_skeleton(avatar.skeleton, mapping).mapping
    mesh = rest_mesh(avatar)
    if mesh is None or not all(b in bones for b in ARMS):
        return None
    vertices, _, weights = mesh
    skeleton = avatar.skeleton
    groups = [limb_joints(skeleton, skeleton.index(bones[b])) for b in ARMS]
    groups.append(trunk_joints(skeleton, bones))
    if all(b in bones for b in FEET):
        groups += [limb_joints(skeleton, skeleton.index(bones[b])) for b in FEET]
        if all(b in bones for leg in LEG_BONES for b in leg[:2]):
            groups += [np.setdiff1d(limb_joints(skeleton, skeleton.index(bones[leg[0]])),
                                    limb_joints(skeleton, skeleton.index(bones[leg[2]])))
                       for leg in LEG_BONES]
    points, carriers = [], []
    for k, joints in enumerate(groups):
        on_part = weights[:, joints].sum(axis=1) >= FOOT_WEIGHT
        if k != TRUNK and not on_part.any():
            return None
        carrier = joints[np.argmax(weights[:, joints], axis=1)]
        chosen = np.concatenate([_support_indices(vertices, on_part & (carrier == j))
                                 for j in np.unique(carrier[on_part])] or [np.zeros(0, int)])
        points.append(vertices[chosen])
        carriers.append(carrier[chosen])
    return BodyPoints.gather(skeleton, bones, avatar.rest_rotations, points, carriers)


def avatar_targets(avatar: Avatar | None,
                   mapping: Mapping[str, str | None] | str | None = None) -> dict[str, Any]:
    """What ``Retargeter`` measures of an avatar's mesh, as its keyword arguments:
    ``target_feet`` (:func:`avatar_feet`), ``target_hands`` (:func:`avatar_hands`) and
    ``target_body`` (:func:`avatar_body`), each None where the avatar has no mesh there (or no
    avatar is given)."""
    return {"target_feet": avatar_feet(avatar, mapping),
            "target_hands": avatar_hands(avatar, mapping),
            "target_body": avatar_body(avatar, mapping)}
