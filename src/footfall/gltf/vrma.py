"""VRM Animation (.vrma, the ``VRMC_vrm_animation`` glTF extension): a humanoid motion that
any VRM model plays (three-vrm's ``VRMAnimationLoaderPlugin``, UniVRM, VRM tools).

A .vrma is a GLB holding a skeleton of humanoid bones, an animation of it and a map
``{"hips": {"node": 0}, …}`` from VRM 1.0 bone names to its nodes. Players read each bone's
rotation relative to that skeleton's T-pose and its humanoid parent, and the hips' translation
(no other translation, no scale), and retarget them onto their model. footfall writes:

- one node per humanoid bone of the avatar except the eyes (VRM Animation animates gaze
  through ``lookAt``, not the eye bones), named by its VRM 1.0 name, parented as the
  avatar's humanoid; its rest transform is the avatar's T-pose with every rotation the
  identity (the normalized humanoid, :mod:`footfall.gltf.normalized`): translation only, the
  hips at their T-pose position in model space (+Z forward, Y up, the scene root);
- one animation: a rotation track per bone (the normalized local rotations, linear, one key per
  frame) and the hips' translation track;
- ``extensions.VRMC_vrm_animation = {"specVersion": "1.0", "humanoid": {"humanBones": …}}``.

:func:`load_vrm_animation` reads a .vrma (this writer's or another's) back onto a VRM avatar as
the VRM Animation spec and three-vrm do: rotations relative to the file's own rest pose, hips
translation scaled by the avatar's hips height over the file's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pygltflib

from footfall import quat
from footfall.errors import GLTFError, SkeletonError
from footfall.gltf.animation import (
    MAX_SAMPLE_FPS,
    find_animation,
    read_tracks,
    sample_tracks,
)
from footfall.gltf.avatar import Avatar, PathArg
from footfall.gltf.document import is_index, read_document
from footfall.gltf.nodes import split_transform, world_matrices
from footfall.gltf.normalized import NormalizedHumanoid
from footfall.gltf.vrm import CANONICAL_TO_VRM1, VRM1_TO_CANONICAL
from footfall.gltf.writer import add_accessor, write_document
from footfall.skeleton import Clip, forward_kinematics

EXTENSION = "VRMC_vrm_animation"
SPEC_VERSION = "1.0"
#: The versions :func:`load_vrm_animation` reads.
SPEC_VERSIONS = ("1.0", "1.0-draft")
#: Bones a VRM Animation never animates (gaze is its ``lookAt``).
EYES = ("LeftEye", "RightEye")


def save_vrm_animation(avatar: Avatar, clip: Clip, path: PathArg, *,
                       name: str = "footfall") -> None:
    """Write ``clip`` (a pose sequence of VRM ``avatar``'s skeleton, its offsets possibly
    scaled) as a VRM Animation file, atomically. Raises :class:`GLTFError` when ``avatar`` is
    not a VRM avatar or the clip does not fit it."""
    path = Path(path)
    if avatar.humanoid is None:
        raise GLTFError(f"{path}: a VRM Animation needs a VRM avatar (a humanoid bone map); "
                        f"{avatar.path.name} is plain glTF")
    if clip.skeleton.names != avatar.skeleton.names:
        raise GLTFError(f"{path}: clip joints do not match the avatar {avatar.path.name}")
    try:
        clip.check_finite()
    except SkeletonError as error:
        raise GLTFError(f"{path}: cannot write: {error}") from None
    humanoid = NormalizedHumanoid.of(avatar)
    rotations, _ = humanoid.normalize(clip.rotations, clip.positions)
    hips_track = clip.global_positions()[:, humanoid.joints[humanoid.hips]]
    # The T-pose of the clip's skeleton (its offsets carry an avatar scale) in model space.
    _, rest_at = forward_kinematics(clip.skeleton.parents, humanoid.rest_rotations,
                                    clip.skeleton.offsets)
    bone_at = rest_at[humanoid.joints]
    kept = [b for b, bone in enumerate(humanoid.bones) if bone not in EYES]
    node_of = {b: n for n, b in enumerate(kept)}
    nodes = []
    for b in kept:
        parent = int(humanoid.parents[b])
        offset = bone_at[b] - (bone_at[parent] if parent >= 0 else 0.0)
        nodes.append(pygltflib.Node(name=CANONICAL_TO_VRM1[humanoid.bones[b]],
                                    translation=[float(v) for v in offset]))
    for b in kept:
        parent = int(humanoid.parents[b])
        if parent >= 0:
            nodes[node_of[parent]].children.append(node_of[b])
    gltf = pygltflib.GLTF2(
        asset=pygltflib.Asset(version="2.0", generator="footfall"),
        scene=0, scenes=[pygltflib.Scene(nodes=[node_of[humanoid.hips]])], nodes=nodes,
        extensionsUsed=[EXTENSION],
        extensions={EXTENSION: {"specVersion": SPEC_VERSION, "humanoid": {"humanBones": {
            CANONICAL_TO_VRM1[humanoid.bones[b]]: {"node": node_of[b]} for b in kept}}}},
    )
    blob = bytearray()
    times = np.arange(clip.frame_count, dtype=np.float64) / clip.fps
    clock = add_accessor(gltf, blob, times, pygltflib.SCALAR, with_bounds=True)
    channels, samplers = [], []

    def add(node: int, target_path: str, values: np.ndarray, kind: str) -> None:
        samplers.append(pygltflib.AnimationSampler(
            input=clock, output=add_accessor(gltf, blob, values, kind), interpolation="LINEAR"))
        channels.append(pygltflib.AnimationChannel(
            sampler=len(samplers) - 1,
            target=pygltflib.AnimationChannelTarget(node=node, path=target_path)))

    smooth = quat.unroll_sign(rotations, axis=0)  # neighbouring keys on the same hemisphere
    for b in kept:
        add(node_of[b], "rotation", smooth[:, b][:, [1, 2, 3, 0]], pygltflib.VEC4)
    add(node_of[humanoid.hips], "translation", hips_track, pygltflib.VEC3)
    gltf.animations = [pygltflib.Animation(name=name, channels=channels, samplers=samplers)]
    write_document(gltf, bytes(blob), path)


def load_vrm_animation(path: PathArg, avatar: Avatar, fps: float | None = None) -> Clip:
    """Play the first animation of VRM Animation file ``path`` on VRM ``avatar``: a clip of
    the avatar's skeleton sampled at ``fps`` (default: the file's key rate). Bones the file
    does not animate stay in the T-pose; bones the avatar lacks are left out. Raises
    :class:`GLTFError` naming the field for files that are not VRM Animations."""
    path = Path(path)
    humanoid = NormalizedHumanoid.of(avatar)
    gltf = read_document(path)
    bones = _human_bones(gltf, path)
    parent_of = {child: index for index, node in enumerate(gltf.nodes)
                 for child in node.children or []}
    world = world_matrices(gltf.nodes, parent_of, path)
    rest = {bone: split_transform(world(node), f"{path}: node {node}")[1]
            for bone, node in bones.items()}
    bone_of_node = {node: bone for bone, node in bones.items()}
    hips_node = bones["Hips"]
    hips_parent = world(parent_of[hips_node]) if hips_node in parent_of else np.eye(4)
    anim = find_animation(gltf, 0, path)
    tracks = [t for t in read_tracks(gltf, anim, f"{path}: animation 0", path)
              if t.node in bone_of_node]
    if fps is None:
        steps = np.concatenate([np.diff(t.times) for t in tracks]) if tracks else np.zeros(0)
        steps = steps[steps > 1e-6]
        fps = float(np.round(1.0 / np.median(steps), 3)) if len(steps) else 30.0
    if not (np.isfinite(fps) and 0 < fps <= MAX_SAMPLE_FPS):
        raise GLTFError(f"{path}: fps must be in (0, {MAX_SAMPLE_FPS:g}], got {fps}")
    end = max([0.0, *(float(t.times[-1]) for t in tracks)])
    frames = int(np.floor(end * fps + 1e-3)) + 1
    sampled = sample_tracks(tracks, np.arange(frames) / fps)
    normalized = quat.identity((frames, len(humanoid.bones)))
    for b, bone in enumerate(humanoid.bones):
        node = bones.get(bone)
        if (node, "rotation") not in sampled:
            continue
        # The file's local rotation a' → normalized: p · a' · c⁻¹ (p: the world rest rotation
        # of the node's parent, c: its own), as the VRM Animation spec describes.
        above = parent_of.get(node)
        parent_rest = (split_transform(world(above), f"{path}: node {above}")[1]
                       if above is not None else quat.identity())
        normalized[:, b] = quat.mul_inv(quat.mul(parent_rest, sampled[node, "rotation"]),
                                        rest[bone])
    # Normalized rotations are relative to the humanoid parent; the file's nodes between two
    # bones (if any) do not turn, so the two agree.
    rest_hips = humanoid.normalize(humanoid.rest_rotations, humanoid.skeleton.offsets)[1][
        humanoid.hips]
    if (hips_node, "translation") in sampled:
        moved = sampled[hips_node, "translation"] @ hips_parent[:3, :3].T + hips_parent[:3, 3]
        file_rest_height = world(hips_node)[1, 3]
        scale = rest_hips[1] / file_rest_height if abs(file_rest_height) > 1e-9 else 1.0
        hips = moved * scale
    else:
        hips = np.broadcast_to(rest_hips, (frames, 3))
    rotations, positions = humanoid.pose(normalized, hips)
    return Clip(avatar.skeleton, rotations, positions, fps)


def _human_bones(gltf: pygltflib.GLTF2, path: Path) -> dict[str, int]:
    """``{canonical bone: node}`` of a VRM Animation file, checked."""
    extensions = gltf.extensions if isinstance(gltf.extensions, dict) else {}
    where = f"{path}: extensions.{EXTENSION}"
    data = extensions.get(EXTENSION)
    if not isinstance(data, dict):
        raise GLTFError(f"{where}: missing (not a VRM Animation file)")
    if data.get("specVersion") not in SPEC_VERSIONS:
        raise GLTFError(f"{where}.specVersion: {data.get('specVersion')!r:.40} is not a "
                        f"version footfall reads ({', '.join(SPEC_VERSIONS)})")
    human_bones = (data.get("humanoid") or {}).get("humanBones") if isinstance(
        data.get("humanoid"), dict) else None
    if not isinstance(human_bones, dict):
        raise GLTFError(f"{where}.humanoid.humanBones must be an object")
    bones = {}
    for name, entry in human_bones.items():
        field = f"{where}.humanoid.humanBones.{name}"
        if name not in VRM1_TO_CANONICAL:
            raise GLTFError(f"{field}: not a VRM 1.0 humanoid bone")
        node = entry.get("node") if isinstance(entry, dict) else None
        if not is_index(node, len(gltf.nodes)):
            raise GLTFError(f"{field}.node: {node!r:.20} is not a node of the file "
                            f"({len(gltf.nodes)} nodes)")
        bones[VRM1_TO_CANONICAL[name]] = node
    if "Hips" not in bones:
        raise GLTFError(f"{where}.humanoid.humanBones: required bone 'hips' missing")
    return bones
