"""Which files are avatars and which motion files an avatar can be written as: the one place
the commands (retarget, batch, live) ask."""

from __future__ import annotations

from pathlib import Path

from numpy.typing import ArrayLike

from footfall.errors import GLTFError
from footfall.gltf.avatar import Avatar, PathArg
from footfall.gltf.vrma import save_vrm_animation
from footfall.gltf.writer import save_animation
from footfall.skeleton import Clip

#: Files :func:`footfall.gltf.load_avatar` reads as avatars (a .vrm is GLB with VRM's humanoid).
AVATAR_SUFFIXES = (".glb", ".gltf", ".vrm")
#: Motion files of an avatar: its own file with the animation (.glb/.gltf/.vrm) or a VRM
#: Animation (.vrma).
MOTION_SUFFIXES = (".glb", ".gltf", ".vrm", ".vrma")
#: Outputs only a VRM avatar gives (its humanoid names the bones).
VRM_ONLY_SUFFIXES = (".vrm", ".vrma")


def is_avatar_file(path: PathArg) -> bool:
    """Whether ``path`` is read as a glTF/VRM avatar (by its suffix)."""
    return Path(path).suffix.lower() in AVATAR_SUFFIXES


def check_motion_output(output: PathArg, avatar: Avatar | None, flag: str = "-o") -> None:
    """Raise :class:`GLTFError` when ``avatar`` (None: a BVH skeleton) cannot be written as
    ``output``: glTF outputs need a glTF avatar, .vrm/.vrma a VRM one."""
    suffix = Path(output).suffix.lower()
    if suffix in VRM_ONLY_SUFFIXES and (avatar is None or avatar.vrm is None):
        raise GLTFError(f"{flag} {output}: {suffix} output needs a VRM avatar (.vrm) as --to "
                        "target")
    if suffix in MOTION_SUFFIXES and avatar is None:
        raise GLTFError(f"{flag} {output}: glTF output needs a .glb/.gltf avatar as --to target")


def save_motion(avatar: Avatar, clip: Clip, path: PathArg, *,
                joint_scales: ArrayLike | None = None, root_scale: float = 1.0) -> None:
    """Write ``clip`` of ``avatar`` as ``path`` says: a VRM Animation for .vrma
    (:func:`~footfall.gltf.vrma.save_vrm_animation`; it has no scale channels), else the
    avatar's own file with the animation (:func:`~footfall.gltf.writer.save_animation`)."""
    if Path(path).suffix.lower() == ".vrma":
        save_vrm_animation(avatar, clip, path)
    else:
        save_animation(avatar, clip, path, joint_scales=joint_scales, root_scale=root_scale)
