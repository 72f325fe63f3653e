"""Retargeting one motion file: the library form of ``footfall retarget``.

:func:`retarget_file` reads a clip (any motion file :mod:`footfall.motion_io` reads), maps it
onto a BVH skeleton or a glTF/GLB/VRM avatar, writes the result and returns a
:class:`RetargetReport`; ``footfall retarget`` and ``footfall batch retarget`` both call it
with a :class:`RetargetOptions`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from footfall.errors import SettingsError
from footfall.motion_out import MotionFileOptions

if TYPE_CHECKING:
    from footfall.gltf import Avatar

_MOTIONS = (".bvh", ".glb", ".gltf", ".vrm", ".vrma")


@dataclass(frozen=True)
class RetargetOptions(MotionFileOptions):
    """What ``footfall retarget`` is told besides its input and output (its defaults)."""

    target: str  #: the target: a .bvh skeleton, a skinned .glb/.gltf, .vrm or .fbx avatar
    mapping: str | None = None  #: JSON {canonical bone: source joint} over the guess
    target_mapping: str | None = None  #: JSON {canonical bone: target joint} for the target
    ik: str = "auto"  #: limb IK weights: "auto", "ik" or "fk"
    floor_height: float = 0.0  #: world height added to the hips and feet, metres
    scale: float = 1.0  #: avatar scale, 0.1–3
    finger_copy: str = "rotation"  #: "rotation", "curl" or "none"
    #: a frame number, or "auto" / None: the pose the motion stands in
    calibrate_frame: str | None = None
    preview: str | None = None  #: also draw a contact sheet to this .png


@dataclass(frozen=True)
class RetargetReport:
    """What retargeting one file did: the figures ``footfall retarget`` prints."""

    source: str  #: the input file
    output: str  #: the file written
    frames: int
    fps: float
    joint_count: int  #: joints of the target skeleton
    size_ratio: float  #: the target's size over the source's (the retargeter's)
    calibration: str  #: how it calibrated (rest pose or which frame)
    preview: str | None = None  #: the contact sheet written, if asked for
    warnings: tuple[str, ...] = ()
    #: files written beside the output: the in-place root track, the contact curves (or the
    #: output itself when the curves went into it)
    extras: tuple[str, ...] = ()


#: ``progress(done, total)``: source frames retargeted of ``total``.
Progress = Callable[[int, int], None]


def retarget_file(source_path: str | Path, output: str | Path, options: RetargetOptions, *,
                  progress: Progress | None = None) -> RetargetReport:
    """Retarget the clip in ``source_path`` onto ``options.target`` and write it to ``output``
    (.bvh, or .glb/.gltf/.vrm/.vrma into a glTF/VRM avatar's own file). Nothing is written
    when anything fails.

    Raises:
        FootfallError: an unreadable file, an output the target cannot take, a bad option.
    """
    from footfall import bvh
    from footfall.gltf import check_motion_output, save_motion
    from footfall.motion_io import check_output, detect, load_motion
    from footfall.motion_io.end_sites import avatar_toe_sites, with_end_sites
    from footfall.motion_out import (
        avatar_for,
        check_motion_out,
        joint_scales_for,
        root_motion_for,
        write_motion_extras,
    )
    from footfall.retarget import Retargeter, RetargetSettings, retarget_clip
    from footfall.sizes import check_size
    from footfall.skinning import avatar_targets

    output = Path(output)
    target_path = Path(options.target)
    target_format = detect(target_path)  # by content: a GLB named .bvh is a GLB
    glb_target = target_format in ("glb", "gltf", "vrm", "fbx")  # an avatar (FBX: as glTF)
    if output.suffix.lower() not in _MOTIONS:
        raise SettingsError(f"-o {output}: write .bvh, .glb or .gltf (.vrm or .vrma for a VRM "
                            "avatar)")
    if output.suffix.lower() != ".bvh" and not glb_target:
        check_motion_output(output, None)  # raises: glTF/VRM output needs such an avatar
    if target_format not in ("bvh", "glb", "gltf", "vrm", "fbx"):
        raise SettingsError(f"--to {target_path}: a {target_format} file; the target is a "
                            ".bvh skeleton or a .glb, .gltf, .vrm or .fbx avatar")
    check_output(output)  # its folder exists
    if options.preview is not None:
        _check_preview(Path(options.preview))
    source = load_motion(source_path, take=options.take, sample=options.sample,
                         unit=options.unit).clip
    check_size(source, str(source_path), min_frames=1)  # the target may be a skeleton-only file
    avatar = _load_target_avatar(target_path, target_format) if glb_target else None
    if output.suffix.lower() != ".bvh":
        check_motion_output(output, avatar)  # .vrm/.vrma: a VRM avatar
    check_motion_out(options, output, avatar)
    target_mapping = options.target_mapping or (avatar.target_mapping() if avatar else None)
    target = avatar.skeleton if avatar is not None else bvh.load(target_path).skeleton
    settings = RetargetSettings()
    settings.update({"ik_mode": options.ik, "floor_height": options.floor_height,
                     "avatar_scale": options.scale, "finger_copy": options.finger_copy})
    retargeter = Retargeter(source.skeleton, target, options.mapping, target_mapping,
                            settings=settings,
                            target_rest=None if avatar is None else avatar.rest_rotations,
                            **avatar_targets(avatar, target_mapping))
    calibrated = retargeter.calibrate_for(source, calibration_frame(options.calibrate_frame))
    total = source.frame_count
    if progress is not None:
        progress(0, total)
    result = retarget_clip(retargeter.rig, retargeter.calibration, source, chunk=1024,
                           progress=None if progress is None else (
                               lambda done: progress(done, total)))
    clip = result.clip
    moved = root_motion_for(options, clip, floor=options.floor_height,
                            rest_rotations=None if avatar is None else avatar.rest_rotations)
    if output.suffix.lower() == ".bvh":
        written = moved.clip
        if avatar is not None:  # the skin's toe tips, which a BVH reader cannot see
            sites = avatar_toe_sites(avatar, retargeter.avatar_scale)
            written = with_end_sites(written, {
                written.skeleton.index(avatar.skeleton.names[j]): v for j, v in sites.items()})
        bvh.save(written, output)
    else:
        assert avatar is not None  # glTF output needs a glTF avatar, checked above
        save_motion(avatar_for(options, avatar), moved.clip, output,
                    joint_scales=joint_scales_for(options, retargeter.joint_scales()),
                    root_scale=retargeter.avatar_scale)
    if options.preview:
        _preview(options.preview, source, clip, result.planted, avatar,
                 f"{Path(source_path).name} → {target_path.name}")
    # the source feet the retargeter planted on the target's floor
    contacts = result.planted if options.contacts_out else None
    extras = write_motion_extras(options, output, moved, contacts, clip.fps, quiet=True)
    return RetargetReport(source=str(source_path), output=str(output),
                          frames=clip.frame_count, fps=clip.fps,
                          joint_count=target.joint_count, size_ratio=retargeter.size_ratio,
                          calibration=str(calibrated), preview=options.preview,
                          extras=tuple(str(path) for path in extras))


def _load_target_avatar(path: Path, target_format: str) -> Avatar:
    """The avatar of a ``--to`` file: a glTF/VRM file's, or an FBX character's as a glTF avatar
    (:func:`footfall.fbx.load_fbx_avatar`; written back as .glb/.gltf)."""
    if target_format == "fbx":
        from footfall.fbx import load_fbx_avatar

        return load_fbx_avatar(path)
    from footfall.gltf import load_avatar

    return load_avatar(path)


def _preview(path: str, source: object, clip: object, planted: object,
             avatar: object, title: str) -> None:
    """Draw the contact sheet of ``--preview``: the avatar's mesh when it has one — skinned, or
    rigid parts held by its bones (a file without a skin, as the shared VRM samples), drawn
    with the bones over them."""
    from footfall.retarget.preview import contact_sheet
    from footfall.skinning import rest_mesh

    mesh = rest_mesh(avatar, unskinned=True) if avatar is not None else None  # type: ignore[arg-type]
    rigid = mesh is not None and not avatar.document.skins  # type: ignore[attr-defined]
    contact_sheet(source, clip, path,  # type: ignore[arg-type]
                  mesh=None if mesh is None else (mesh[0], mesh[2]),
                  faces=None if mesh is None else mesh[1],
                  target_rest=None if avatar is None else avatar.rest_rotations,  # type: ignore[attr-defined]
                  planted=planted,  # type: ignore[arg-type]
                  title=f"{title}: source (blue) → avatar"
                        f"{' (orange bones)' if rigid else ''}, floor y = 0",
                  bones_over=rigid)


def calibration_frame(text: str | None) -> int | str | None:
    """``--calibrate-frame``: None, "auto" or a frame number."""
    if text is None or text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise SettingsError(f"--calibrate-frame {text!r}: calibration frame must be a frame "
                            f"number or 'auto'") from None


def _check_preview(path: Path) -> None:
    """``--preview``: a .png in a folder that exists, checked before any work."""
    if path.suffix.lower() != ".png":
        raise SettingsError(f"--preview {path}: the contact sheet is written as .png")
    if not path.parent.is_dir():
        raise SettingsError(f"--preview {path}: folder {path.parent} does not exist")
