"""Reading and writing motion files for the commands: joint positions (``.npy``), AMASS-style
``.npz``, BVH and glTF, all as one :class:`Motion` (a clip, and the layout it came in).

``.npy`` files are read with ``allow_pickle=False``: a pickled object (MDM's ``results.npy``
dictionary) is refused with a message, never unpickled. Every problem is one
:class:`~footfall.errors.JointsError` naming the file and what is wrong with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from footfall import metrics, quat
from footfall.arrays import FloatArray
from footfall.batch.atomic import replacing
from footfall.errors import FootfallError, JointsError
from footfall.joints.from_clip import positions_from_clip
from footfall.joints.layouts import Layout, from_y_up, layout_for, to_y_up
from footfall.joints.solve import JointsFit, solve_positions
from footfall.skeleton import Clip, Skeleton

#: Suffixes read as joint positions, AMASS parameters, BVH and glTF.
JOINT_SUFFIXES = (".npy",)
AMASS_SUFFIXES = (".npz",)
GLTF_SUFFIXES = (".glb", ".gltf")
#: Largest coordinate accepted, metres (beyond it the file is not in metres, or is garbage).
MAX_COORDINATE = 1e5
#: The first bytes of every .npy file.
NPY_MAGIC = b"\x93NUMPY"
#: Frame rate glTF animations are sampled at when the file does not tell.
GLTF_FPS = 30.0


@dataclass
class Motion:
    """A motion read from a file.

    Attributes:
        clip: the motion as a clip (Y up, metres).
        path: the file it came from.
        layout: the joint layout of a joint-position or AMASS file, else None.
        up: that file's up axis; source: its positions ``(T, J, 3)`` as given (file axes).
        fit: how the clip reproduces ``source`` (joint-position files only).
        avatar: the glTF avatar of a glTF file (written back with its skin).
    """

    clip: Clip
    path: str
    layout: Layout | None = None
    up: str = "y"
    source: FloatArray | None = None
    fit: JointsFit | None = None
    avatar: Any = None

    def positions(self, clip: Clip, layout: Layout | None = None) -> FloatArray:
        """``clip``'s joint positions ``(T, J, 3)`` in ``layout`` (default: the file's) and
        the file's up axis: what a ``.npy`` output holds. ``clip`` being this motion's clip
        changed (grounded: the same skeleton and frames) and the layout the file's own, the
        file's positions moved by what changed — not the skeleton's fit of them, which would
        move every joint by the fit's error (up to 29 mm on a noisy walk) where nothing was
        changed."""
        own = layout is None or layout is self.layout
        layout = layout or self.layout
        if layout is None:
            raise JointsError(f"{self.path}: not a joint-position file; name the layout of "
                              "the positions to write with --layout")
        positions = positions_from_clip(clip, layout)
        if (own and self.source is not None and clip.skeleton is self.clip.skeleton
                and clip.frame_count == self.clip.frame_count
                and self.source.shape == positions.shape):
            changed = positions - positions_from_clip(self.clip, layout)
            return self.source + from_y_up(changed, self.up)
        return from_y_up(positions, self.up)

    def annotate(self, report: dict[str, Any], grounded: Clip) -> dict[str, Any]:
        """``report`` (``footfall ground``'s) with what only joint files have: the fit, and
        GMD's foot-skate ratio on the joint positions themselves, before (as given) and after
        (as ``--npy`` writes them) — exactly as GMD's released code computes it: the layout's
        toe joints, the file's own floor (height 0) and frame rate. Other files: unchanged."""
        if self.layout is None or self.source is None:
            return report
        fps = self.clip.fps
        for stage, positions in (("before", self.source), ("after", self.positions(grounded))):
            if stage in report:
                report[stage]["gmd_foot_skate_ratio"] = gmd_ratio(positions, self.layout,
                                                                   fps, self.up)
        report["joints"] = {
            "layout": self.layout.name, "up": self.up, "joint_count": self.layout.joint_count,
            "gmd_floor_m": 0.0,
            "fit_mean_error_mm": self.fit.mean_error_mm if self.fit else 0.0,
            "fit_max_error_mm": self.fit.max_error_mm if self.fit else 0.0,
        }
        return report


def gmd_ratio(positions: ArrayLike, layout: Layout, fps: float, up: str = "y") -> float:
    """GMD's foot-skate ratio of joint positions ``(T, J, 3)`` in ``layout`` and file axes
    ``up``, as GMD's released code computes it on HumanML3D joints: toe joints, heights over
    the file's own floor (0), speeds at 20 fps (:func:`footfall.metrics.gmd_foot_skate_ratio`)."""
    left, right = (layout.index(name) for name in layout.toes)
    return metrics.gmd_foot_skate_ratio(to_y_up(positions, up), fps, left, right, floor=0.0)


def check_positions(array: np.ndarray, where: str, layout: str | None = None) -> FloatArray:
    """``array`` as float64 joint positions ``(T, J, 3)``, or a :class:`JointsError` naming
    ``where`` and the problem (shape, dtype, no frames, NaN, size, joint count for
    ``layout``)."""
    if array.dtype == object:
        raise JointsError(f"{where}: holds Python objects, not numbers; save the joint "
                          "positions as a float array (T, J, 3)")
    if not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)):
        raise JointsError(f"{where}: holds {array.dtype} values; expected float joint "
                          "positions (T, J, 3)")
    if array.ndim != 3 or array.shape[-1] != 3:
        hint = ""
        if array.ndim == 3 and array.shape[1] == 3:
            hint = " (this looks like (J, 3, T): transpose it to (T, J, 3))"
        elif array.ndim == 4:
            hint = " (a batch of clips: save one clip per file)"
        raise JointsError(f"{where}: shape {array.shape}; expected joint positions "
                          f"(T, J, 3){hint}")
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise JointsError(f"{where}: shape {array.shape} holds no frames or no joints")
    positions = np.asarray(array, dtype=np.float64)
    finite = np.isfinite(positions).all(axis=-1)
    if not finite.all():
        frame, joint = np.argwhere(~finite)[0]
        raise JointsError(f"{where}: NaN or inf at frame {int(frame)}, joint {int(joint)}")
    if np.abs(positions).max() > MAX_COORDINATE:
        raise JointsError(f"{where}: coordinates beyond ±{MAX_COORDINATE:g}; joint positions "
                          "must be in metres")
    layout_for(positions.shape[1], layout, where)  # the joint count fits the layout
    return positions


def load_numpy(path: str | Path) -> Any:
    """``np.load(path, allow_pickle=False)``: an array or an ``.npz`` archive; every failure a
    :class:`JointsError` naming the file (a pickled object: said so, never unpickled)."""
    where = str(path)
    try:
        return np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise JointsError(f"{where}: no such file") from None
    except ValueError as error:
        if "pickle" in str(error).lower():
            raise JointsError(f"{where}: holds pickled Python objects (e.g. MDM's results.npy "
                              "dictionary), which footfall does not unpickle; save the joint "
                              "positions as a plain float array (T, J, 3)") from None
        raise JointsError(f"{where}: not a readable NumPy file ({error})") from None
    except (OSError, EOFError) as error:
        raise JointsError(f"{where}: cannot read as a NumPy file ({error})") from None


def load_positions(path: str | Path, layout: str | None = None) -> FloatArray:
    """Joint positions ``(T, J, 3)`` of a ``.npy`` file, checked (:func:`check_positions`)."""
    where = str(path)
    try:
        with open(path, "rb") as handle:
            magic = handle.read(6)
    except FileNotFoundError:
        raise JointsError(f"{where}: no such file") from None
    except OSError as error:
        raise JointsError(f"{where}: cannot read ({error.strerror or error})") from None
    if magic.startswith(b"\x80") or (magic != NPY_MAGIC and not magic.startswith(b"PK")):
        what = ("a pickle" if magic.startswith(b"\x80") else "no .npy header: not a NumPy "
                "array file")
        raise JointsError(f"{where}: {what}; expected a .npy array of joint positions "
                          "(T, J, 3)")
    array = load_numpy(path)
    if not isinstance(array, np.ndarray):
        raise JointsError(f"{where}: an .npz archive, not one array; AMASS-style parameters "
                          "belong in a .npz file")
    return check_positions(array, where, layout)


def solve_file_positions(positions: FloatArray, layout: Layout, fps: float, up: str,
                         where: str, lengths: Mapping[str, float] | None = None) -> Motion:
    """A :class:`Motion` from checked joint positions in file axes ``up``."""
    fit = solve_positions(to_y_up(positions, up), layout, fps, lengths=lengths, where=where)
    return Motion(fit.clip, where, layout, up, positions, fit)


def _check_fps(fps: float, where: str) -> float:
    if not (np.isfinite(fps) and 0 < fps <= 1000):
        raise JointsError(f"{where}: frame rate must be in (0, 1000] fps, got {fps:g}")
    return float(fps)


def load_motion(
    path: str | Path, layout: str | None = None, *, fps: float | None = None,
    up: str | None = None, lengths: Mapping[str, float] | None = None,
    skeleton: str | Path | None = None, joints: str | Path | None = None,
) -> Motion:
    """Read any motion file footfall knows as a :class:`Motion`.

    ``.npy``: joint positions ``(T, J, 3)`` in ``layout`` (None: the one with J joints), at
    ``fps`` (default the layout's) with ``up`` (default the layout's); ``lengths`` fixes bone
    lengths. ``.npz``: AMASS-style SMPL parameters (:func:`load_amass`, which needs
    ``skeleton`` or ``joints``). ``.bvh``: :func:`footfall.bvh.load`. ``.glb``/``.gltf``: the
    first animation of the first skin, sampled at its own rate.
    """
    from footfall import bvh

    where = str(path)
    suffix = Path(path).suffix.lower()
    if suffix in JOINT_SUFFIXES:
        positions = load_positions(path, layout)
        chosen = layout_for(positions.shape[1], layout, where)
        return solve_file_positions(positions, chosen, _check_fps(fps or chosen.fps, where),
                                    up or chosen.up, where, lengths)
    if suffix in AMASS_SUFFIXES:
        from footfall.joints.amass import load_amass

        return load_amass(path, layout, fps=fps, up=up, skeleton=skeleton, joints=joints,
                          lengths=lengths)
    if suffix in GLTF_SUFFIXES:
        from footfall.gltf import load_animation, load_avatar

        avatar = load_avatar(path)
        rate = _check_fps(fps or gltf_fps(avatar.document), where)
        return Motion(load_animation(path, fps=rate, avatar=avatar), where, avatar=avatar)
    clip = bvh.load(path)
    return Motion(clip if fps is None else clip.resample(_check_fps(fps, where)), where)


def gltf_fps(document: Any) -> float:
    """The frame rate of a glTF file's first animation: its first sampler's key times
    ``(count − 1) / (max − min)`` (glTF requires their bounds), else :data:`GLTF_FPS`."""
    for animation in (document.animations or [])[:1]:
        for sampler in animation.samplers or []:
            try:
                accessor = document.accessors[sampler.input]
                span = float(accessor.max[0]) - float(accessor.min[0])
                count = int(accessor.count)
            except (TypeError, IndexError, AttributeError, ValueError):
                continue
            if count > 1 and span > 0 and np.isfinite(span):
                return float(round((count - 1) / span, 3))
    return GLTF_FPS


def save_motion(clip: Clip, path: str | Path, motion: Motion | None = None, *,
                layout: Layout | None = None) -> None:
    """Write ``clip`` by ``path``'s suffix: ``.bvh``; ``.glb``/``.gltf`` (into ``motion``'s
    avatar when it has one, else a skeleton-only file); ``.npy`` joint positions in
    ``layout`` (default ``motion``'s) and the motion file's up axis, written atomically."""
    from footfall import bvh

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".npy":
        source = motion or Motion(clip, str(path))
        positions = source.positions(clip, layout)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with replacing(path) as partial, open(partial, "wb") as handle:
                np.save(handle, positions.astype(np.float32))
        except OSError as error:
            raise JointsError(f"{path}: cannot write ({error.strerror or error})") from None
        return
    if suffix in GLTF_SUFFIXES:
        from footfall.gltf import save_animation

        avatar = motion.avatar if motion is not None and motion.avatar is not None else None
        if avatar is None or avatar.skeleton.names != clip.skeleton.names:
            avatar = skeleton_avatar(clip.skeleton, path)
        save_animation(avatar, clip, path)
        return
    if suffix != ".bvh":
        raise FootfallError(f"{path}: write .bvh, .glb, .gltf or .npy")
    bvh.save(clip, path)


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

