"""Reading a glTF animation back as a clip on its avatar's skeleton, in three steps:
:func:`read_tracks` (the channels' keyframes, checked), :func:`sample_tracks` (each track at a
fixed rate, linearly) and :func:`apply_samples` (the sampled node transforms as the clip's local
rotations and positions, through the transforms the reader folded)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pygltflib

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import GLTFError
from footfall.gltf.avatar import Avatar, PathArg, load_avatar
from footfall.gltf.document import accessor_values, buffer_bytes, is_index
from footfall.gltf.nodes import MAX_TRANSFORM_VALUE, node_matrix, split_transform
from footfall.skeleton import Clip

#: Longest animation :func:`load_animation` samples, seconds, and its highest sampling rate.
MAX_ANIMATION_SECONDS = 3600.0
MAX_SAMPLE_FPS = 10_000.0

#: Sampled node transforms by (node, "rotation" / "translation" / "scale"), ``(F, 4 or 3)``.
Samples = dict[tuple[object, object], FloatArray]


@dataclass(frozen=True)
class Track:
    """One animation channel's keyframes.

    Attributes:
        node: the glTF node it animates.
        target_path: ``"rotation"``, ``"translation"``, ``"scale"`` (or another glTF path).
        times: ``(K,)`` seconds, rising.
        values: ``(K', W)`` values as stored (quaternions x, y, z, w), ``K' ≥ K``.
    """

    node: object  # as the file says; only joints' tracks are sampled
    target_path: object
    times: FloatArray
    values: FloatArray


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
    anim = find_animation(gltf, animation, path)
    if not (np.isfinite(fps) and 0 < fps <= MAX_SAMPLE_FPS):
        raise GLTFError(f"{path}: fps must be in (0, {MAX_SAMPLE_FPS:g}], got {fps}")
    tracks = read_tracks(gltf, anim, f"{path}: animation {animation}", path)
    end = max([0.0, *(float(track.times[-1]) for track in tracks)])
    if end * fps > 50_000_000:
        raise GLTFError(f"{path}: animation {animation}: {end:g} s at {fps:g} fps is too many "
                        "frames to sample")
    frames = int(np.floor(end * fps + 1e-3)) + 1  # float32 times
    clock = np.arange(frames) / fps
    sampled = sample_tracks([t for t in tracks if t.node in avatar.nodes], clock)
    clip = avatar.rest_clip(frames, fps)
    apply_samples(avatar, clip, sampled, path)
    return clip


def find_animation(gltf: pygltflib.GLTF2, animation: int, path: PathArg
                   ) -> pygltflib.Animation:
    """Animation ``animation`` of ``gltf`` (read from ``path``), with its channel and sampler
    lists."""
    if not 0 <= animation < len(gltf.animations):
        raise GLTFError(f"{path}: animation {animation} does not exist "
                        f"({len(gltf.animations)} animations)")
    anim = gltf.animations[animation]
    if not isinstance(anim, pygltflib.Animation) or not isinstance(anim.channels, list) or (
            not isinstance(anim.samplers, list)):
        raise GLTFError(f"{path}: animation {animation} needs 'channels' and 'samplers' lists")
    return anim


def read_tracks(gltf: pygltflib.GLTF2, anim: pygltflib.Animation, where: str, path: PathArg
                ) -> list[Track]:
    """Every channel of ``anim`` (from :func:`find_animation`) with its keyframes; raises
    :class:`GLTFError` naming ``where`` and the channel for anything malformed."""
    buffers: dict[int, bytes] = {}

    def read(accessor_index: object, what: str) -> np.ndarray:
        if not is_index(accessor_index, len(gltf.accessors)):
            raise GLTFError(f"{where}: {what} accessor {accessor_index!r:.20} does not exist")
        accessor = gltf.accessors[accessor_index]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}.get(accessor.type)
        if accessor.componentType != pygltflib.FLOAT or width is None:
            raise GLTFError(f"{path}: accessor {accessor_index} is not float SCALAR/VEC3/VEC4")
        if accessor.bufferView is None:
            return np.zeros((accessor.count, width))
        buffer = gltf.bufferViews[accessor.bufferView].buffer
        if buffer not in buffers:
            buffers[buffer] = buffer_bytes(gltf, buffer, Path(path))
        values = accessor_values(gltf, buffers[buffer], accessor_index)  # ends were checked
        if not np.isfinite(values).all():
            raise GLTFError(f"{path}: accessor {accessor_index} ({what}) holds NaN or inf")
        return values

    tracks = []
    for number, channel in enumerate(anim.channels):
        if not isinstance(channel, pygltflib.AnimationChannel) or not is_index(
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
        tracks.append(Track(channel.target.node, channel.target.path, times, values))
    return tracks


def sample_tracks(tracks: list[Track], clock: FloatArray) -> Samples:
    """Each track linearly at the times ``clock (F,)`` (rotations by slerp, as w, x, y, z):
    ``{(node, "rotation"): (F, 4), (node, "translation" | "scale"): (F, 3)}``; a later track of
    the same node and path wins, tracks of other paths or widths are left out."""
    sampled: Samples = {}
    for track in tracks:
        times, values = track.times, track.values
        index = np.clip(np.searchsorted(times, clock, side="right") - 1, 0, len(times) - 1)
        following = np.minimum(index + 1, len(times) - 1)
        span = np.maximum(times[following] - times[index], 1e-12)
        t = np.clip((clock - times[index]) / span, 0.0, 1.0)
        key = (track.node, track.target_path)
        if track.target_path == "rotation" and values.shape[1] == 4:
            a = quat.normalize(values[index][:, [3, 0, 1, 2]])
            b = quat.normalize(values[following][:, [3, 0, 1, 2]])
            sampled[key] = quat.slerp(a, b, t)
        elif track.target_path in ("translation", "scale") and values.shape[1] == 3:
            sampled[key] = (values[index] + (values[following] - values[index]) * t[:, None])
    return sampled


def apply_samples(avatar: Avatar, clip: Clip, sampled: Samples, path: PathArg) -> None:
    """Write sampled node transforms into ``clip`` (``avatar``'s rest clip, changed in place):
    rotations and translations through each joint's folded parent frame, and the offsets of
    every joint below a scale channel scaled by its factor over the node's rest scale."""
    gltf = avatar.document
    assert gltf is not None
    frames = clip.frame_count
    # Each joint's ``(F,)`` world scale relative to the rest pose, from the channels above it.
    relative_scale = np.ones((frames, len(avatar.nodes)))
    for j, node in enumerate(avatar.nodes):  # parents come before children
        parent = avatar.skeleton.parents[j]
        relative_scale[:, j] = relative_scale[:, parent] if parent >= 0 else 1.0
        if (node, "scale") in sampled:
            rest_scale = np.linalg.norm(node_matrix(gltf.nodes[node])[:3, :3], axis=0).mean()
            relative_scale[:, j] *= sampled[node, "scale"].mean(axis=1) / rest_scale
        frame = avatar.frames[j]
        if (node, "rotation") in sampled:  # else the rest rotation the clip holds
            clip.rotations[:, j] = quat.mul(split_transform(frame, str(path))[1],
                                            sampled[node, "rotation"])
        if (node, "translation") in sampled:
            moved = sampled[node, "translation"] @ frame[:3, :3].T + frame[:3, 3]
            clip.positions[:, j] = moved * avatar.parent_scale[j]
        if parent >= 0:
            clip.positions[:, j] *= relative_scale[:, parent, None]
