"""The array type names used in footfall's type hints (one definition for every module), and the
rows compiled kernels take (one home for every helper that shapes them: :func:`kernel_array`,
:func:`kernel_rows`, :func:`point_rows`, :func:`per_limb`, :func:`scalar_rows`)."""

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


def kernel_array(array: NDArray[Any], shape: tuple[int, ...]) -> NDArray[Any]:
    """``array`` as the kernels take it: C-contiguous and writable (a read-only or strided array
    would compile another kernel specialisation), of the given shape; no copy when it already
    is one."""
    array = np.ascontiguousarray(array).reshape(shape)
    return array if array.flags.writeable else array.copy()


def kernel_rows(value: object, shape: tuple[int, ...], tail: tuple[int, ...] = ()) -> FloatArray:
    """``value`` broadcast to ``(*shape, *tail)`` as the flat float64 rows ``(n, *tail)`` a
    compiled kernel loops over (:func:`kernel_array`)."""
    array = np.asarray(value, dtype=np.float64)
    if array.shape != (*shape, *tail):
        array = np.broadcast_to(array, (*shape, *tail))
    return kernel_array(array, (math.prod(shape), *tail))


def point_rows(points: list[FloatArray], shape: tuple[int, ...]) -> list[FloatArray]:
    """Each point array ``(*shape, 3)`` (or broadcasting to it) as kernel rows ``(n, 3)``."""
    count = math.prod(shape)
    return [kernel_array(p if p.shape[:-1] == shape else np.broadcast_to(p, (*shape, 3)),
                         (count, 3)) for p in points]


def per_limb(value: FloatArray, shape: tuple[int, ...]) -> FloatArray:
    """A per-limb scalar as a kernel array: ``(1,)`` (one for all) or ``(count,)``."""
    if value.ndim == 0:
        return kernel_array(value, (1,))
    return kernel_array(value if value.shape == shape else np.broadcast_to(value, shape), (-1,))


def scalar_rows(kernel: Callable[..., Any], values: Sequence[ArrayLike], *extra: object
                ) -> FloatArray:
    """``kernel(*rows, *extra, out)`` over ``values`` broadcast together as flat rows
    (:func:`kernel_rows`); returns ``out``, float64 of the broadcast shape."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in values))
    out = np.empty(shape)
    kernel(*(kernel_rows(v, shape) for v in values), *extra, out.reshape(-1))
    return out
