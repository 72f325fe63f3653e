"""One writer per output suffix, in one table (:data:`WRITERS`), and the check that runs before
any work so a run that would fail to write fails before it writes anything.

Every writer writes through a temporary neighbour renamed into place
(:func:`footfall.batch.atomic.replacing`), so a reader never sees half a file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from footfall import quat
from footfall.errors import JointsError, MotionFileError
from footfall.joints.layouts import Layout
from footfall.motion_io.motion import LoadedMotion
from footfall.skeleton import Clip, Skeleton

Writer = Callable[[Clip, Path, LoadedMotion, "Layout | None"], None]


def _avatar_for(clip: Clip, motion: LoadedMotion | None) -> Any:
    """``motion``'s avatar when ``clip`` is a pose sequence of its skeleton, else None."""
    avatar = motion.avatar if motion is not None else None
    if avatar is None or avatar.skeleton.names != clip.skeleton.names:
        return None
    return avatar


def npy_positions(clip: Clip, path: Path, motion: LoadedMotion,
                  layout: Layout | None) -> np.ndarray:
    """What a ``.npy`` output of ``clip`` holds: joint positions ``(T, J, 3)`` float32 in
    ``layout`` (default ``motion``'s) and the motion file's up axis."""
    try:
        return motion.positions(clip, layout).astype(np.float32)
    except JointsError as error:
        raise JointsError(f"{path}: {error}") from None


def write_npy(clip: Clip, path: Path, motion: LoadedMotion, layout: Layout | None) -> None:
    """Joint positions (:func:`npy_positions`)."""
    from footfall.batch.atomic import replacing

    positions = npy_positions(clip, path, motion, layout)
    try:
        with replacing(path) as partial, open(partial, "wb") as handle:
            np.save(handle, positions)
    except OSError as error:
        raise JointsError(f"{path}: cannot write ({error.strerror or error})") from None


def write_bvh(clip: Clip, path: Path, motion: LoadedMotion, layout: Layout | None) -> None:
    """A BVH file (:func:`footfall.bvh.save`); a clip of a skinned avatar gets End Sites at
    its toe tips (:func:`~footfall.motion_io.end_sites.avatar_toe_sites`)."""
    from footfall import bvh
    from footfall.motion_io.end_sites import avatar_toe_sites, with_end_sites

    avatar = _avatar_for(clip, motion)
    if avatar is not None:
        clip = with_end_sites(clip, avatar_toe_sites(avatar))
    bvh.save(clip, path)


def write_gltf(clip: Clip, path: Path, motion: LoadedMotion, layout: Layout | None) -> None:
    """``motion``'s avatar file with ``clip`` as its animation (skin, meshes and a VRM's
    extension kept), or a skeleton-only glTF when the clip is not of that avatar."""
    from footfall.gltf import save_animation

    avatar = _avatar_for(clip, motion)
    if avatar is None:
        avatar = skeleton_avatar(clip.skeleton, path)
    save_animation(avatar, clip, path)


def write_vrm(clip: Clip, path: Path, motion: LoadedMotion, layout: Layout | None) -> None:
    """A VRM avatar's own file with ``clip`` as its animation (``.vrm``) or a VRM Animation
    (``.vrma``): both need the clip to be of a VRM avatar."""
    from footfall.gltf import save_motion as save_avatar_motion

    avatar = _avatar_for(clip, motion)
    assert avatar is not None and avatar.vrm is not None  # check_output said so
    save_avatar_motion(avatar, clip, path)


#: Output suffix → writer.
WRITERS: dict[str, Writer] = {
    ".bvh": write_bvh, ".glb": write_gltf, ".gltf": write_gltf, ".vrm": write_vrm,
    ".vrma": write_vrm, ".npy": write_npy,
}


def check_output(path: str | Path, flag: str = "-o", *, npy: bool = False,
                 motion: LoadedMotion | None = None, layout: Layout | None = None,
                 clip: Clip | None = None) -> None:
    """Raise before any work when ``path`` cannot be written: an unknown suffix, a folder
    that does not exist, a ``.npy`` (or ``npy``: one beside it) without a layout, a
    ``.vrm``/``.vrma`` without a VRM avatar (given ``motion``/``clip``)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in WRITERS:
        raise MotionFileError(f"{flag} {path}: footfall writes {', '.join(WRITERS)}, not "
                              f"{suffix or 'a file without a suffix'}")
    if path.is_dir():
        raise MotionFileError(f"{flag} {path}: a folder; name the file to write")
    if not path.parent.is_dir():
        raise MotionFileError(f"{flag} {path}: folder {path.parent} does not exist")
    if (suffix == ".npy" or npy) and motion is not None and (layout or motion.layout) is None:
        raise JointsError(f"{flag} {path}: {motion.path} is not a joint-position file; name "
                          "the layout of the positions to write with --layout")
    if suffix in (".vrm", ".vrma") and motion is not None:
        avatar = motion.avatar if clip is None else _avatar_for(clip, motion)
        if avatar is None or avatar.vrm is None:
            raise MotionFileError(f"{flag} {path}: {suffix} output needs the motion of a VRM "
                                  f"avatar; {motion.path} is {motion.format}")


def save_motion(clip: Clip, path: str | Path, motion: LoadedMotion | None = None, *,
                layout: Layout | None = None, npy: bool = False) -> list[Path]:
    """Write ``clip`` by ``path``'s suffix (:data:`WRITERS`); with ``npy`` also its joint
    positions beside it (``.npy``). Everything is checked and every payload that can fail is
    made before the first file is written. Returns the files written."""
    path = Path(path)
    source = motion or LoadedMotion(clip, str(path))
    check_output(path, npy=npy, motion=source, layout=layout, clip=clip)
    outputs = [path]
    if npy and path.suffix.lower() != ".npy":
        beside = path.with_suffix(".npy")
        npy_positions(clip, beside, source, layout)  # fails here, before anything is written
        outputs.append(beside)
    for output in outputs:
        WRITERS[output.suffix.lower()](clip, output, source, layout)
    return outputs


def skeleton_avatar(skeleton: Skeleton, path: Path) -> Any:
    """A glTF avatar holding only ``skeleton`` (a node per joint at its rest offset, one skin
    listing them, no mesh) for :func:`footfall.gltf.save_animation` to animate."""
    import pygltflib

    from footfall.gltf import Avatar

    nodes = []
    for j, name in enumerate(skeleton.names):
        children = skeleton.children(j)
        nodes.append(pygltflib.Node(name=name, translation=[float(v) for v in
                                                            skeleton.offsets[j]],
                                    children=children or None))
    roots = [int(j) for j in np.nonzero(skeleton.parents < 0)[0]]
    document = pygltflib.GLTF2(
        asset=pygltflib.Asset(version="2.0", generator="footfall"), scene=0,
        scenes=[pygltflib.Scene(nodes=roots)], nodes=nodes,
        skins=[pygltflib.Skin(joints=list(range(skeleton.joint_count)), skeleton=roots[0])],
    )
    count = skeleton.joint_count
    return Avatar(skeleton, quat.identity((count,)), list(range(count)),
                  np.broadcast_to(np.eye(4), (count, 4, 4)).copy(), np.ones(count), path,
                  document)
