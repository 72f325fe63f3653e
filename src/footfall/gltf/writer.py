"""Writing an animation into an avatar's glTF file: the original document with its animations
replaced by one that samples every joint, converted back through the transforms the reader folded
(:attr:`Avatar.frames`), written beside the target and checked before it replaces it."""

from __future__ import annotations

import base64
import copy
import json
import struct
from pathlib import Path

import numpy as np
import pygltflib
from numpy.typing import ArrayLike

from footfall import quat
from footfall.batch.atomic import replacing
from footfall.errors import GLTFError, SkeletonError
from footfall.gltf.avatar import Avatar, PathArg
from footfall.gltf.document import check_document, is_binary, read_document
from footfall.gltf.nodes import as_trs, split_transform
from footfall.skeleton import Clip


def add_accessor(gltf: pygltflib.GLTF2, blob: bytearray, data: np.ndarray, kind: str,
                 with_bounds: bool = False) -> int:
    """Append ``data (N, …)`` as float32 to ``blob`` behind a new buffer view and accessor of
    glTF type ``kind`` (with min/max when ``with_bounds``); returns the accessor's index."""
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
    in ``.glb`` or ``.vrm`` (a VRM avatar's file keeps its VRM extension, meshes and materials:
    a .vrm with an animation). Raises :class:`GLTFError` when the clip does not fit the avatar.
    """
    path = Path(path)
    skeleton = avatar.skeleton
    if clip.skeleton.names != skeleton.names:
        raise GLTFError(f"{path}: clip joints do not match the avatar {avatar.path.name}")
    try:
        clip.check_finite()
    except SkeletonError as error:
        raise GLTFError(f"{path}: cannot write: {error}") from None
    gltf = (copy.deepcopy(avatar.document) if avatar.document is not None
            else read_document(avatar.path))
    gltf.convert_buffers(pygltflib.BufferFormat.BINARYBLOB)
    blob = bytearray(gltf.binary_blob() or b"")
    frames = clip.frame_count
    times = np.arange(frames, dtype=np.float64) / clip.fps
    channels, samplers = [], []
    time_accessor = add_accessor(gltf, blob, times, pygltflib.SCALAR, with_bounds=True)
    rotations = quat.unroll_sign(clip.rotations, axis=0)
    scales = np.ones(skeleton.joint_count) if joint_scales is None else np.asarray(joint_scales)
    # A joint without a translation channel plays its rest offset, scaled by the root's scale
    # channel below a root — but a root's own scale does not move the root itself.
    below_a_root = np.where(skeleton.parents >= 0, root_scale, 1.0)
    moving = np.any(np.abs(clip.positions - skeleton.offsets * below_a_root[:, None]) > 1e-7,
                    axis=(0, 2))

    def add(node: int, target_path: str, values: np.ndarray, kind: str) -> None:
        samplers.append(pygltflib.AnimationSampler(
            input=time_accessor, output=add_accessor(gltf, blob, values, kind),
            interpolation="LINEAR"))
        channels.append(pygltflib.AnimationChannel(
            sampler=len(samplers) - 1,
            target=pygltflib.AnimationChannelTarget(node=node, path=target_path)))

    for j, node in enumerate(avatar.nodes):
        as_trs(gltf.nodes[node], f"{path}: node {node}")  # every joint gets a channel
        frame = avatar.frames[j]
        _, frame_rotation, _ = split_transform(frame, f"{path}: joint {j}")
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
    write_document(gltf, bytes(blob), path)


def write_document(gltf: pygltflib.GLTF2, blob: bytes, path: Path) -> None:
    """Write ``gltf`` with ``blob`` as its one buffer to ``path`` (GLB for .glb/.vrm/.vrma,
    else glTF JSON with the buffer inline), atomically: only a file that reads back replaces
    ``path``; :class:`GLTFError` otherwise."""
    if not gltf.buffers:
        gltf.buffers = [pygltflib.Buffer(byteLength=0)]
    gltf.buffers[0].byteLength = len(blob)
    gltf.buffers[0].uri = None
    gltf.set_binary_blob(blob)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target under a name with the same suffix (pygltflib reads by suffix),
    # read back and checked, and only then renamed over the target.
    with replacing(path) as temporary:
        try:
            if is_binary(path):
                gltf.save_binary(str(temporary))
            else:
                gltf.convert_buffers(pygltflib.BufferFormat.DATAURI)
                gltf.save_json(str(temporary))
        except (OSError, ValueError) as error:
            raise GLTFError(f"{path}: cannot write ({error})") from None
        _check_written(temporary, gltf, path)


def _check_written(written: Path, gltf: pygltflib.GLTF2, path: Path) -> None:
    """Refuse to publish a written file that would not read back: the document is checked as
    on reading (:func:`check_document`), and the file itself (pygltflib repacks the buffer
    views on writing) for a whole container: GLB header and chunk lengths, JSON that parses,
    and every buffer view inside the buffer it names."""
    check_document(gltf, path)
    data = written.read_bytes()
    try:
        if is_binary(written):
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

