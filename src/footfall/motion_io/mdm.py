"""MDM's ``results.npy`` (the output of text-to-motion models built on MDM's sampling script):
a pickled dictionary ``{"motion": (N, 22, 3, T), "text": [N prompts], "lengths": (N,), …}``,
read without trusting the pickle.

``np.load(allow_pickle=True)`` would run whatever the pickle names (a ``__reduce__`` calling
``os.system`` runs on load). :class:`ArraysOnlyUnpickler` admits only what such a file is made
of — dicts, lists, tuples, strings, numbers (pickle's own opcodes) and NumPy arrays, dtypes and
scalars (the four NumPy functions that rebuild them) — and refuses any other global before it
is called. The ``.npy`` header is read by NumPy's header parser (a literal, never evaluated).
"""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path
from typing import Any

import numpy as np

from footfall.errors import MotionFileError

#: The globals a pickle of NumPy arrays needs (NumPy 1 and 2 module names) and nothing else.
ALLOWED_GLOBALS = frozenset({
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
})
#: Largest pickled file read, bytes (a motion library's sampling output is far smaller).
MAX_PICKLE_BYTES = 2 * 1024**3
#: MDM's frame rate (HumanML3D's 20 fps) and joint count.
MDM_FPS = 20.0
MDM_JOINTS = 22


class ArraysOnlyUnpickler(pickle.Unpickler):
    """An unpickler that builds only containers, strings, numbers and NumPy arrays."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in ALLOWED_GLOBALS:
            raise pickle.UnpicklingError(f"refused {module}.{name}: only NumPy arrays, dicts, "
                                         "lists, strings and numbers are read")
        return super().find_class(module, name)


def _unpickle(handle: io.BufferedReader, where: str) -> Any:
    try:
        return ArraysOnlyUnpickler(handle).load()
    except pickle.UnpicklingError as error:
        raise MotionFileError(f"{where}: Python pickle: {error}") from None
    except (EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError,
            OverflowError, MemoryError, RecursionError, ImportError, UnicodeDecodeError) as error:
        raise MotionFileError(f"{where}: Python pickle: unreadable "
                              f"({type(error).__name__}: {str(error)[:80]})") from None


def read_pickled(path: str | Path) -> Any:
    """The object pickled in ``path``: a raw pickle, or a ``.npy`` of dtype object (what
    ``np.save`` writes for a dict), read by :class:`ArraysOnlyUnpickler`; a 0-d object array
    gives its item. Raises :class:`MotionFileError` naming the file for anything else."""
    where = str(path)
    try:
        size = os.path.getsize(path)
        if size > MAX_PICKLE_BYTES:
            raise MotionFileError(f"{where}: Python pickle: {size:,} bytes is more than the "
                                  f"{MAX_PICKLE_BYTES:,} read")
        with open(path, "rb") as handle:
            if handle.read(6) == b"\x93NUMPY":
                handle.seek(0)
                try:
                    version = np.lib.format.read_magic(handle)
                    header = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                              np.lib.format.read_array_header_2_0)
                    shape, _, dtype = header(handle, max_header_size=10_000)
                except (ValueError, OSError, EOFError) as error:
                    raise MotionFileError(f"{where}: NumPy .npy: bad header ({error})") from None
                if not dtype.hasobject:
                    raise MotionFileError(f"{where}: NumPy .npy: holds a {dtype} array "
                                          f"{shape}, not pickled objects")
            else:
                handle.seek(0)
            value = _unpickle(handle, where)
    except OSError as error:
        raise MotionFileError(f"{where}: cannot read ({error.strerror or error})") from None
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value.item()
    return value


def mdm_samples(data: Any, where: str) -> tuple[np.ndarray, list[str], np.ndarray]:
    """``(motion (N, T, 22, 3), texts [N], lengths (N,))`` of an MDM results dictionary,
    checked; a :class:`MotionFileError` naming the missing or malformed field."""
    if not isinstance(data, dict):
        raise MotionFileError(f"{where}: MDM results: a pickled {type(data).__name__}, not the "
                              "dictionary {'motion': (N, 22, 3, T), 'text': …} MDM saves")
    motion = data.get("motion")
    if not isinstance(motion, np.ndarray) or motion.dtype == object:
        raise MotionFileError(f"{where}: MDM results: no 'motion' array (keys: "
                              f"{', '.join(map(str, list(data)[:8])) or 'none'})")
    if motion.ndim != 4 or motion.shape[2] != 3 or 0 in motion.shape:
        raise MotionFileError(f"{where}: MDM results: 'motion' has shape {motion.shape}; "
                              f"expected joint positions (N, {MDM_JOINTS}, 3, T) (run MDM's "
                              "sampling with positions, not rotations, as output)")
    if not np.issubdtype(motion.dtype, np.number):
        raise MotionFileError(f"{where}: MDM results: 'motion' holds {motion.dtype} values")
    count, frames = motion.shape[0], motion.shape[3]
    texts = data.get("text")
    names = [str(t) for t in texts] if isinstance(texts, (list, tuple, np.ndarray)) else []
    names = (names + [f"sample {n}" for n in range(len(names), count)])[:count]
    lengths = data.get("lengths")
    try:
        sizes = np.asarray(lengths, dtype=np.int64).reshape(-1) if lengths is not None else None
    except (TypeError, ValueError):
        sizes = None
    if sizes is None or len(sizes) != count:
        sizes = np.full(count, frames, dtype=np.int64)
    sizes = np.clip(sizes, 1, frames)
    return np.moveaxis(motion, 3, 1), names, sizes
