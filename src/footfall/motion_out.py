"""What the motion-writing library functions (:func:`footfall.grounding.clip.files.ground_file`,
:func:`footfall.retarget.files.retarget_file`, ``footfall import``) share about their output
beyond the motion itself: the root motion (:mod:`footfall.root_motion`) applied just before the
clip is saved, and the contact curves (:mod:`footfall.contact_curves`) written just after.

Each function takes the options as anything with ``root_motion``, ``remove_heading`` and
``contacts_out`` (:class:`MotionOutOptions`: an options dataclass or parsed arguments); the
command-line options themselves are :mod:`footfall.commands._motion_out`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from numpy.typing import ArrayLike

from footfall.errors import SettingsError
from footfall.root_motion import RootMotion, apply_root_motion, track_path
from footfall.skeleton import Clip


@dataclass(frozen=True, kw_only=True)
class MotionFileOptions:
    """What every motion-writing library function is told about its input's take and unit and
    its output beyond the motion itself (keyword-only: the options of ``ground``, ``retarget``
    and ``import`` add their own in front)."""

    #: ``keep`` (the hips carry the travel), ``in-place`` or ``extract`` (a root bone at the
    #: floor; :mod:`footfall.root_motion`); the world poses do not change
    root_motion: str = "keep"
    remove_heading: bool = False  #: with ``in-place``: take the heading out too
    contacts_out: bool = False  #: also write the foot contacts as curves
    take: int | str | None = None  #: the input's take (glTF animation, FBX take, MDM sample)
    sample: int | None = None  #: MDM results.npy: the sample (as ``take``)
    unit: str = "auto"  #: a BVH input's unit (default: by the body's height)


class MotionOutOptions(Protocol):
    """The options :mod:`footfall.motion_out` reads: a :class:`MotionFileOptions` or parsed
    arguments."""

    @property
    def root_motion(self) -> str:
        """``keep``, ``in-place`` or ``extract`` (:data:`footfall.root_motion.MODES`)."""

    @property
    def remove_heading(self) -> bool:
        """With ``in-place``: take the heading out too."""

    @property
    def contacts_out(self) -> bool:
        """Write the foot contacts as curves."""


def check_motion_out(options: MotionOutOptions, output: str | Path, avatar: Any = None) -> None:
    """Refuse, before any work, what the options cannot do: ``--remove-heading`` without
    in-place; ``extract`` into a VRM file or VRM Animation (a VRM humanoid starts at its hips:
    no bone above them). ``avatar``: the glTF avatar the output is written into, if any."""
    if options.remove_heading and options.root_motion != "in-place":
        raise SettingsError("--remove-heading goes with --root-motion in-place")
    vrm = Path(output).suffix.lower() in (".vrm", ".vrma") or (
        avatar is not None and getattr(avatar, "vrm", None) is not None)
    if options.root_motion == "extract" and vrm:
        raise SettingsError(f"-o {output}: --root-motion extract adds a root bone above the "
                            "hips, which a VRM humanoid cannot take; write .bvh or .glb, or "
                            "use --root-motion in-place")


def avatar_for(options: MotionOutOptions, avatar: Any) -> Any:
    """The avatar to write an ``extract`` clip into: ``avatar`` with the root bone added
    (:func:`footfall.gltf.root_bone.with_root_bone`); otherwise ``avatar`` itself."""
    if avatar is None or options.root_motion != "extract":
        return avatar
    from footfall.gltf.root_bone import with_root_bone
    from footfall.root_motion import root_name

    return with_root_bone(avatar, root_name(avatar.skeleton))


def joint_scales_for(options: MotionOutOptions, scales: Any) -> Any:
    """Per-joint scales ``(J,)`` for the written skeleton (the added root: 1)."""
    if scales is None or options.root_motion != "extract":
        return scales
    import numpy as np

    return np.concatenate([[1.0], np.asarray(scales, dtype=np.float64)])


def root_motion_for(options: MotionOutOptions, clip: Clip, *, floor: float = 0.0,
                    rest_rotations: ArrayLike | None = None) -> RootMotion:
    """The clip to save under ``--root-motion`` (extracted root at ``floor`` metres; headings
    measured from ``rest_rotations``, a glTF avatar's local rest rotations when the clip is
    one's)."""
    return apply_root_motion(clip, options.root_motion, floor=floor,
                             heading=options.remove_heading, rest_rotations=rest_rotations)


def write_motion_extras(options: MotionOutOptions, output: str | Path, moved: RootMotion,
                        contacts: Any, fps: float, *, quiet: bool = False) -> list[Path]:
    """After the motion is saved to ``output``: the in-place track (``OUT.root.csv``) and,
    with ``--contacts-out``, the contact curves of ``contacts (F, 2)``; returns the files
    written (each printed "wrote …" unless ``quiet``: :func:`extras_lines`)."""
    from footfall.contact_curves import contact_curves, write_contacts
    from footfall.root_motion import write_track_csv

    written = []
    if moved.track is not None:
        path = track_path(output)
        write_track_csv(moved.track, path)
        written.append(path)
    if options.contacts_out:
        written.append(write_contacts(output, contact_curves(contacts, fps)))
    for line in [] if quiet else extras_lines(output, written):
        print(line)
    return written


def extras_lines(output: str | Path, written: list[Path] | tuple[Path, ...]) -> list[str]:
    """The "wrote …" lines of :func:`write_motion_extras`'s files."""
    return [f"wrote {path}" if Path(path) != Path(output) else f"wrote contact curves into {path}"
            for path in written]
