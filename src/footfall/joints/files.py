"""Importing one motion file: the library form of ``footfall import``.

:func:`import_file` reads joint positions (``.npy``), AMASS parameters (``.npz``) or MDM's
``results.npy``, solves a skeleton with fixed bone lengths and rotations (any other motion file
:mod:`footfall.motion_io` reads is taken as it is), writes it (.bvh, .glb, .gltf, .npy; .vrm or
.vrma from a VRM) and returns an :class:`ImportReport` with how far the solved joints lie from
the input.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from footfall.errors import JointsError
from footfall.motion_out import MotionFileOptions


@dataclass(frozen=True)
class ImportOptions(MotionFileOptions):
    """What ``footfall import`` is told besides its input and output (its defaults)."""

    layout: str | None = None  #: which joint each row is (default: by the file's joint count)
    fps: float | None = None  #: frame rate (default: the layout's, or the .npz's)
    up: str | None = None  #: the file's up axis, "y" or "z" (default: the layout's; .npz: z)
    lengths: str | None = None  #: JSON file of bone lengths, metres, over the measured medians
    skeleton: str | None = None  #: .npz input: the body model's rest joints (J, 3)
    joints: str | None = None  #: .npz input: the body model's joint positions (T, J, 3)


@dataclass(frozen=True)
class ImportReport:
    """What importing one file did: the figures ``footfall import`` prints."""

    motion: str  #: the input file
    output: str  #: the file written
    frames: int
    fps: float
    layout: str | None  #: the layout's name (None: a skeleton file, taken as it is)
    joint_count: int  #: the layout's joints (a skeleton file: its joints)
    up: str  #: the input's up axis
    #: how far the solved joints lie from the input, mm (None: nothing was solved)
    fit_mean_error_mm: float | None = None
    fit_max_error_mm: float | None = None
    worst_joint: str | None = None  #: the joint with the largest error
    #: files written beside the output: the in-place root track, the contact curves (or the
    #: output itself when the curves went into it)
    extras: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    format: str = "npy"  #: the input's format (:data:`footfall.motion_io.detect.LABELS`)


def read_lengths(path: str | None) -> dict[str, float] | None:
    """``--lengths``: ``{"joint": metres, …}`` from the JSON file ``path`` (None: none)."""
    if path is None:
        return None
    from footfall.json_input import parse_json

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise JointsError(f"--lengths {path}: cannot read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise JointsError(f"--lengths {path}: not UTF-8 text") from None
    data = parse_json(text, f"--lengths {path}", JointsError)
    if not isinstance(data, dict):
        raise JointsError(f'--lengths {path}: expected {{"joint": metres, …}}')
    return data


def import_file(motion_path: str | Path, output: str | Path,
                options: ImportOptions | None = None) -> ImportReport:
    """Solve the joint positions in ``motion_path`` into a clip and write it to ``output``.

    Raises:
        JointsError: an output or input that is no such file, options that do not go with
            the input, an unreadable or malformed file.
    """
    from footfall.motion_io import check_output, load_motion, save_motion
    from footfall.motion_out import check_motion_out, root_motion_for, write_motion_extras

    options = options or ImportOptions()
    output = Path(output)
    check_output(output)  # its suffix and folder, before any work
    if (options.skeleton or options.joints) and Path(motion_path).suffix.lower() != ".npz":
        raise JointsError("--skeleton and --joints go with an AMASS .npz input")
    check_motion_out(options, output)
    motion = load_motion(motion_path, take=options.take, sample=options.sample,
                         layout=options.layout, fps=options.fps, up=options.up,
                         unit=options.unit, lengths=read_lengths(options.lengths),
                         skeleton=options.skeleton, joints=options.joints)
    moved = root_motion_for(options, motion.clip)
    save_motion(moved.clip, output, motion)
    extras: list[Path] = []
    if options.root_motion != "keep" or options.contacts_out:
        from footfall.contact_curves import clip_contacts

        contacts = clip_contacts(motion.clip) if options.contacts_out else None
        extras = write_motion_extras(options, output, moved, contacts, motion.clip.fps,
                                     quiet=True)
    clip, layout = motion.clip, motion.layout
    fit = motion.fit if layout is not None else None
    return ImportReport(
        motion=str(motion_path), output=str(output), frames=clip.frame_count, fps=clip.fps,
        layout=None if layout is None else layout.name,
        joint_count=clip.skeleton.joint_count if layout is None else layout.joint_count,
        up=motion.up,
        fit_mean_error_mm=None if fit is None else fit.mean_error_mm,
        fit_max_error_mm=None if fit is None else fit.max_error_mm,
        worst_joint=None if fit is None or layout is None
        else layout.joints[int(fit.error_m.max(axis=0).argmax())],
        extras=tuple(str(path) for path in extras), format=motion.format)
