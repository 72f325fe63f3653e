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


def scalar_rows(kernel: Callable[..., Any], values: Sequence[ArrayLike], *extra: object
                ) -> FloatArray:
    """``kernel(*rows, *extra, out)`` over ``values`` broadcast together as flat rows
    (:func:`kernel_rows`); returns ``out``, float64 of the broadcast shape."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in values))
    out = np.empty(shape)
    kernel(*(kernel_rows(v, shape) for v in values), *extra, out.reshape(-1))
    return out
