"""One reader per motion format, in one table (:data:`READERS`): adding a format is one line.

Each reader takes the file and the :class:`ReadOptions` and returns a
:class:`~footfall.motion_io.motion.LoadedMotion`; the format modules themselves
(:mod:`footfall.bvh`, :mod:`footfall.gltf`, :mod:`footfall.joints`, :mod:`footfall.fbx`) do the
reading, imported only when their format is met.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from footfall.errors import MotionFileError
from footfall.motion_io.detect import label
from footfall.motion_io.motion import LoadedMotion, solve_file_positions

#: Frame rate glTF animations are sampled at when the file does not tell.
GLTF_FPS = 30.0
#: The module and function that read FBX files (imported when met; it returns the clip with
#: the file's takes, the take's index, unit, metres per unit and up axis).
FBX_READER = ("footfall.fbx", "load_fbx_take")


@dataclass(frozen=True)
class ReadOptions:
    """What the caller chose; each reader uses what applies to its format.

    Attributes:
        take: a take (glTF animation, FBX take, MDM sample) by index or name; None: the first.
        sample: MDM results: the sample to read (same as ``take``).
        layout: joint files: the layout name (None: by joint count).
        fps: resample to this rate (None: the file's).
        up: joint files: "y"/"z"; BVH: "auto", "y" or "z".
        unit: BVH: "auto", a unit name (m, cm, inch, cmu, mm) or metres per unit.
        lengths, skeleton, joints: joint-position and AMASS options
            (:func:`footfall.joints.amass.load_amass`).
    """

    take: int | str | None = None
    sample: int | None = None
    layout: str | None = None
    fps: float | None = None
    up: str | None = None
    unit: str | float = "auto"
    lengths: Mapping[str, float] | None = None
    skeleton: str | Path | None = None
    joints: str | Path | None = None


def choose_take(takes: list[str], take: int | str | None, where: str) -> int:
    """The index of ``take`` (an index, a digit string or a name) among ``takes``; a
    :class:`MotionFileError` listing them when it is not there."""
    if not takes:
        raise MotionFileError(f"{where}: holds no animation (a file without motion: use it "
                              "as a --to target)")
    if take is None:
        return 0
    text = str(take).strip()
    if text.lstrip("-").isdigit():
        index = int(text)
        if 0 <= index < len(takes):
            return index
    else:
        for match in (lambda n: n == text, lambda n: n.lower() == text.lower()):
            found = [i for i, name in enumerate(takes) if match(name)]
            if found:
                return found[0]
    listed = ", ".join(f"{i} {name!r}" for i, name in enumerate(takes[:12]))
    more = f" and {len(takes) - 12} more" if len(takes) > 12 else ""
    raise MotionFileError(f"{where}: no take {text!r}; takes: {listed}{more}")


def _resampled(motion: LoadedMotion, fps: float | None) -> LoadedMotion:
    if fps is not None and fps != motion.clip.fps:
        from footfall.joints.io import check_fps

        motion.clip = motion.clip.resample(check_fps(fps, motion.path))
    return motion


def read_bvh(path: Path, options: ReadOptions) -> LoadedMotion:
    """A BVH file (:func:`footfall.bvh.load`); ``unit`` picks the scale."""
    from footfall import bvh
    from footfall.bvh.units import UNIT_SCALES

    unit = options.unit
    scale: Any = UNIT_SCALES[unit] if isinstance(unit, str) and unit in UNIT_SCALES else unit
    up: Any = options.up if options.up in ("y", "z") else "auto"
    clip, info = bvh.load(path, scale=scale, up=up, return_info=True)
    named = unit if isinstance(unit, str) and unit in UNIT_SCALES else info.unit
    motion = LoadedMotion(clip, str(path), up=info.up, format="bvh", takes=[path.stem],
                          unit=named, scale=info.scale)
    return _resampled(motion, options.fps)


def gltf_fps(document: Any, animation: int = 0) -> float:
    """The frame rate of animation ``animation`` of a glTF document: its first sampler's key
    times ``(count − 1) / (max − min)`` (glTF requires their bounds), else :data:`GLTF_FPS`."""
    for anim in (document.animations or [])[animation:animation + 1]:
        for sampler in anim.samplers or []:
            try:
                accessor = document.accessors[sampler.input]
                span = float(accessor.max[0]) - float(accessor.min[0])
                count = int(accessor.count)
            except (TypeError, IndexError, AttributeError, ValueError):
                continue
            if count > 1 and span > 0 and np.isfinite(span):
                return float(round((count - 1) / span, 3))
    return GLTF_FPS


def read_gltf(path: Path, options: ReadOptions) -> LoadedMotion:
    """An animation of a glTF/GLB/VRM file on its avatar's skeleton (the skin's joints, or a
    VRM's humanoid), sampled at its own key rate; its animations are the takes."""
    from footfall.gltf import load_animation, load_avatar
    from footfall.joints.io import check_fps

    avatar = load_avatar(path)
    document = avatar.document
    assert document is not None  # load_avatar keeps the document
    takes = [a.name or f"animation {i}" for i, a in enumerate(document.animations or [])]
    index = choose_take(takes, options.take, str(path))
    rate = check_fps(options.fps or gltf_fps(document, index), str(path))
    clip = load_animation(path, animation=index, fps=rate, avatar=avatar)
    return LoadedMotion(clip, str(path), avatar=avatar, format="glb", takes=takes, take=index)


def read_vrma(path: Path, options: ReadOptions) -> LoadedMotion:
    """A VRM Animation on its own humanoid skeleton (:mod:`footfall.motion_io.vrma`)."""
    from footfall.joints.io import check_fps
    from footfall.motion_io.vrma import animation_names, load_vrma_clip

    takes = animation_names(path)
    index = choose_take(takes, options.take, str(path))
    fps = None if options.fps is None else check_fps(options.fps, str(path))
    clip = load_vrma_clip(path, index, fps)
    return LoadedMotion(clip, str(path), format="vrma", takes=takes, take=index)


def read_fbx(path: Path, options: ReadOptions) -> LoadedMotion:
    """An FBX take through :data:`FBX_READER` (``load_fbx(path, take=…)`` returning a clip,
    or an object with ``clip`` and optionally ``takes``/``take``/``unit``/``up``)."""
    module_name, function = FBX_READER
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name not in (module_name, "footfall.fbx"):
            raise
        raise MotionFileError(f"{path}: FBX: reader not available") from None
    loaded = getattr(module, function)(path, take=options.take)
    clip = getattr(loaded, "clip", loaded)
    motion = LoadedMotion(clip, str(path), format="fbx",
                          takes=list(getattr(loaded, "takes", None) or [path.stem]),
                          take=int(getattr(loaded, "take", 0) or 0),
                          unit=str(getattr(loaded, "unit", "m")),
                          scale=float(getattr(loaded, "scale", 1.0)),
                          up=str(getattr(loaded, "up", "y")))
    return _resampled(motion, options.fps)


def read_npy(path: Path, options: ReadOptions) -> LoadedMotion:
    """A ``.npy``: joint positions ``(T, J, 3)``, or MDM's pickled results dictionary (a
    dtype-object array, read by the restricted unpickler)."""
    from footfall.joints.io import check_fps, load_positions
    from footfall.joints.layouts import layout_for

    if _holds_objects(path):
        return read_mdm(path, options)
    where = str(path)
    positions = load_positions(path, options.layout)
    chosen = layout_for(positions.shape[1], options.layout, where)
    return solve_file_positions(positions, chosen, check_fps(options.fps or chosen.fps, where),
                                options.up or chosen.up, where, options.lengths)


def _holds_objects(path: Path) -> bool:
    """Whether a ``.npy`` file's header declares Python objects (checked without loading)."""
    try:
        with open(path, "rb") as handle:
            version = np.lib.format.read_magic(handle)
            header = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                      np.lib.format.read_array_header_2_0)
            return bool(header(handle, max_header_size=10_000)[2].hasobject)
    except (ValueError, OSError, EOFError):
        return False  # the joint reader says what is wrong


def read_npz(path: Path, options: ReadOptions) -> LoadedMotion:
    """An AMASS-style ``.npz`` (:func:`footfall.joints.amass.load_amass`)."""
    from footfall.joints.amass import load_amass

    return load_amass(path, options.layout, fps=options.fps, up=options.up,
                      skeleton=options.skeleton, joints=options.joints,
                      lengths=options.lengths)


def read_mdm(path: Path, options: ReadOptions) -> LoadedMotion:
    """One sample of MDM's ``results.npy`` (:mod:`footfall.motion_io.mdm`) solved as
    HumanML3D joint positions (Y up, 20 fps unless ``fps``)."""
    from footfall.joints.io import check_fps, check_positions
    from footfall.joints.layouts import LAYOUTS, get_layout
    from footfall.motion_io.mdm import MDM_FPS, mdm_samples, read_pickled

    where = str(path)
    motion, texts, lengths = mdm_samples(read_pickled(path), where)
    chosen = options.sample if options.sample is not None else options.take
    index = choose_take(texts, chosen, where)
    layout = get_layout(options.layout) if options.layout else LAYOUTS["humanml3d"]
    positions = check_positions(motion[index, : lengths[index]], f"{where}: sample {index}",
                                layout.name)
    loaded = solve_file_positions(positions, layout, check_fps(options.fps or MDM_FPS, where),
                                  options.up or layout.up, where, options.lengths)
    loaded.format, loaded.takes, loaded.take = "mdm", texts, index
    return loaded


#: Format → reader. The formats are :data:`footfall.motion_io.detect.LABELS`' keys.
READERS: dict[str, Callable[[Path, ReadOptions], LoadedMotion]] = {
    "bvh": read_bvh, "glb": read_gltf, "gltf": read_gltf, "vrm": read_gltf,
    "vrma": read_vrma, "fbx": read_fbx, "npy": read_npy, "npz": read_npz, "pickle": read_mdm,
}


def format_label(fmt: str) -> str:
    """How messages name ``fmt`` (MDM's results as well as :data:`detect.LABELS`)."""
    return "MDM results" if fmt == "mdm" else label(fmt)
