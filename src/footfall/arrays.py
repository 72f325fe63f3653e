"""The array type names used in footfall's type hints (one definition for every module), and the
rows compiled kernels take."""

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: float64 arrays: positions (metres), quaternions (w, x, y, z), angles (radians), …
FloatArray = NDArray[np.float64]
#: index arrays (joints, rows)
IntArray = NDArray[np.intp]
#: masks
BoolArray = NDArray[np.bool_]


def kernel_rows(value: object, shape: tuple[int, ...], tail: tuple[int, ...] = ()) -> FloatArray:
    """``value`` broadcast to ``(*shape, *tail)`` as the flat rows ``(n, *tail)`` a compiled
    kernel loops over: writable, C-ordered float64 (a read-only or strided array would compile
    another kernel specialisation); no copy when ``value`` already is such an array."""
    array = np.asarray(value, dtype=np.float64)
    if array.shape != (*shape, *tail):
        array = np.broadcast_to(array, (*shape, *tail))
    rows = np.ascontiguousarray(array).reshape(math.prod(shape), *tail)
    return rows if rows.flags.writeable else rows.copy()


def scalar_rows(kernel: Callable[..., Any], values: Sequence[ArrayLike], *extra: object,
                tails: Sequence[tuple[int, ...]] | None = None, out_tail: tuple[int, ...] = (),
                outputs: int = 1) -> FloatArray:
    """``kernel(*rows, *extra, *outs)`` over ``values`` broadcast together as flat rows
    (:func:`kernel_rows`; value i has the trailing axes ``tails[i]``, none by default); returns
    the out array, float64 ``(*shape, *out_tail)`` over the broadcast shape (``outputs`` of
    them stacked on a leading axis when more than one)."""
    arrays = [np.asarray(v, dtype=np.float64) for v in values]
    tails = tails or [()] * len(arrays)
    shape = np.broadcast_shapes(*(a.shape[:a.ndim - len(t)] for a, t in zip(arrays, tails,
                                                                             strict=True)))
    out = np.empty((outputs, *shape, *out_tail))
    kernel(*(kernel_rows(a, shape, t) for a, t in zip(arrays, tails, strict=True)), *extra,
           *out.reshape(outputs, -1, *out_tail))
    return out if outputs > 1 else out[0, ...]
