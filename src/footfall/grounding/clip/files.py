"""Grounding one motion file: the library form of ``footfall ground`` and ``footfall measure``.

:func:`ground_file` reads a clip (any motion file :mod:`footfall.motion_io` reads), grounds it
on a terrain, writes the result and returns a :class:`GroundReport`; :func:`measure_file` does
the same work and keeps only the report. ``footfall ground``, ``footfall measure`` and
``footfall batch`` all call these with a :class:`GroundOptions`, so the three can never drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from footfall.errors import FootfallError, MappingError, SkeletonError
from footfall.motion_out import MotionFileOptions

#: The terrain ``measure`` scores on unless told: level ground at the clip's own floor (what
#: ``footfall ground --terrain level`` cleans up on, so both report the same figures).
MEASURE_TERRAIN = "level"


@dataclass(frozen=True)
class GroundOptions(MotionFileOptions):
    """What ``footfall ground`` is told besides its input and output (its defaults)."""

    terrain: str  #: a built-in scene, ``level``, a mesh file or a heightmap image
    #: metres along x and z: a scene's length and width, or the area a heightmap covers
    size: tuple[float, float] | None = None
    height_range: tuple[float, float] = (0.0, 1.0)  #: heightmap black and white, metres
    layout: str | None = None  #: joint-position input's layout (default: by joint count)
    npy: bool = False  #: also write the result's joint positions beside the output
    no_place: bool = False  #: use the clip where it is instead of placing it on the terrain
    ball_clearance: float = 0.0  #: metres a fast swinging ball keeps over the ground
    contacts: str | None = None  #: JSON file of foot contacts to use instead of finding them


@dataclass(frozen=True)
class GroundReport:
    """What grounding one file did: the figures ``footfall ground`` prints and writes."""

    clip: str  #: the input file
    output: str | None  #: the file written (None: :func:`measure_file`, nothing written)
    written: tuple[str, ...]  #: every file written (the output, and with ``npy`` the .npy)
    frames: int
    fps: float
    #: ``footfall ground --report``'s document: ``before`` / ``after`` metrics, contacts,
    #: swings, ``warnings``, the clip's and terrain's names (and ``joints`` for joint files)
    metrics: dict[str, Any]
    warnings: tuple[str, ...] = ()
    swing_lift_max_m: float = 0.0  #: the most ``ball_clearance`` raised a swinging foot, metres
    #: the most the terrain lifted a swinging foot (where it would cut it), metres
    terrain_lift_max_m: float = 0.0
    #: files written beside the output: the in-place root track, the contact curves (or the
    #: output itself when the curves went into it)
    extras: tuple[str, ...] = ()


#: ``progress(done, total)``: grounding passes done of ``total``.
Progress = Callable[[int, int], None]


def ground_file(clip: str | Path, output: str | Path | None, options: GroundOptions, *,
                progress: Progress | None = None) -> GroundReport:
    """Ground the clip in the file ``clip`` and write it to ``output`` (by its suffix: .bvh,
    .glb/.gltf, .vrm/.vrma, .npy); ``output`` None grounds and writes nothing. The output is
    checked (suffix, folder, a layout for .npy) before any work: a failure writes nothing.

    Raises:
        FootfallError: an unreadable or unusable file or option; an error about the clip's
            skeleton (no legs, no sole) names the file.
    """
    try:
        return _ground_file(clip, output, options, progress)
    except (MappingError, SkeletonError) as error:
        if str(clip) in str(error):
            raise
        raise type(error)(f"{clip}: {error}") from None


def measure_file(clip: str | Path, options: GroundOptions | None = None) -> GroundReport:
    """``footfall measure``: :func:`ground_file` with no output, on :data:`MEASURE_TERRAIN`
    unless ``options`` say otherwise; the report is the point."""
    return ground_file(clip, None, options or GroundOptions(MEASURE_TERRAIN))


def read_contacts(path: str, frames: int):  # noqa: ANN201 - (F, 2) bool
    """The foot contacts of the JSON file ``path`` (``{"left": [[start, stop], …], …}``)."""
    from footfall.grounding.clip import contacts_from_segments

    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise FootfallError(f"--contacts {path}: cannot read JSON: {error}") from None
    return contacts_from_segments(data, frames, where=f"--contacts {path}")


def _ground_file(clip_path: str | Path, output: str | Path | None, options: GroundOptions,
                 progress: Progress | None) -> GroundReport:
    from footfall.contact_curves import ground_contacts
    from footfall.grounding.clip import ground_clip
    from footfall.grounding.clip.placement import placement_for, terrain_for_clip
    from footfall.grounding.hung_feet import hung_feet_of
    from footfall.joints.layouts import get_layout
    from footfall.motion_io import check_output, load_motion, save_motion
    from footfall.motion_out import (
        avatar_for,
        check_motion_out,
        root_motion_for,
        write_motion_extras,
    )
    from footfall.sizes import check_size
    from footfall.skeleton import Clip
    from footfall.terrain import LevelGround

    if options.terrain == LevelGround.name and options.size is not None:
        raise FootfallError("--size does not apply to --terrain level (endless level ground)")
    layout = None if options.layout is None else get_layout(options.layout)
    if output is not None:
        check_output(output, npy=options.npy)  # suffix and folder, before any work
    motion = load_motion(clip_path, take=options.take, sample=options.sample,
                         layout=options.layout, unit=options.unit)
    avatar = motion.avatar  # a glTF input: written back into its own file
    if output is not None:
        check_output(output, npy=options.npy, motion=motion, layout=layout)
        check_motion_out(options, output, avatar)
    clip = motion.clip
    check_size(clip, str(clip_path), min_frames=1)  # a file may hold a skeleton only (Frames: 0)
    # An IK rig whose feet hang from the root (RobotExpressive) is grounded with its feet hung
    # below its shins, and written back as it was rigged.
    hung = hung_feet_of(clip.skeleton)
    rigged = clip
    if hung is not None:
        clip = Clip(hung.skeleton, *hung.hang(clip.rotations, clip.positions), clip.fps)
    place = placement_for(options.terrain, options.no_place)
    terrain = terrain_for_clip(options.terrain, clip, options.size, options.height_range,
                               turn=place is True)
    contacts = (None if options.contacts is None
                else read_contacts(options.contacts, clip.frame_count))
    result = ground_clip(clip, terrain, place=place, progress=progress,
                         contacts=contacts, ball_clearance=options.ball_clearance)
    out = result.clip
    if hung is not None:
        world, positions = out.forward_kinematics()
        out = Clip(rigged.skeleton, *hung.unhang(world, positions, out.rotations, out.positions),
                   out.fps)
    written: tuple[str, ...] = ()
    extras: list[Path] = []
    if output is not None:
        moved = root_motion_for(options, out, rest_rotations=None if avatar is None
                                else avatar.rest_rotations)
        motion.avatar = avatar_for(options, avatar)  # extract: with the root bone
        written = tuple(str(path) for path in save_motion(moved.clip, output, motion,
                                                              layout=layout, npy=options.npy))
        extras = write_motion_extras(options, output, moved, ground_contacts(result), out.fps,
                                     quiet=True)
    report = motion.annotate(result.report(clip=str(clip_path), terrain=options.terrain), out)
    return GroundReport(clip=str(clip_path), output=None if output is None else str(output),
                        written=written, frames=out.frame_count, fps=out.fps, metrics=report,
                        warnings=tuple(result.warnings),
                        swing_lift_max_m=result.swing_lift_max_m,
                        terrain_lift_max_m=result.terrain_lift_max_m,
                        extras=tuple(str(path) for path in extras))


__all__ = ["MEASURE_TERRAIN", "GroundOptions", "GroundReport", "ground_file", "measure_file",
           "read_contacts"]
