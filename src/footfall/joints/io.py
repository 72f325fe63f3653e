"""Joint-position files (``.npy`` arrays ``(T, J, 3)``): read and checked here, solved into a
clip by :func:`footfall.motion_io.motion.solve_file_positions`; :mod:`footfall.motion_io` is the
front door that dispatches here.

``.npy`` files are read with ``allow_pickle=False``: a pickled object (MDM's ``results.npy``
dictionary) is refused with a message, never unpickled. Every problem is one
:class:`~footfall.errors.JointsError` naming the file and what is wrong with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from footfall import metrics
from footfall.arrays import FloatArray
from footfall.errors import JointsError
from footfall.joints.layouts import Layout, layout_for, to_y_up

#: Largest coordinate accepted, metres (beyond it the file is not in metres, or is garbage).
MAX_COORDINATE = 1e5
#: The first bytes of every .npy file.
NPY_MAGIC = b"\x93NUMPY"


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


def check_fps(fps: float, where: str) -> float:
    """``fps`` if in (0, 1000], else a :class:`JointsError` naming ``where``."""
    if not (np.isfinite(fps) and 0 < fps <= 1000):
        raise JointsError(f"{where}: frame rate must be in (0, 1000] fps, got {fps:g}")
    return float(fps)
