"""Broadcast inputs as the flat rows the grounding kernels loop over (NumPy-facing forms)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray


def flat_rows(value: ArrayLike, shape: tuple[int, ...], tail: tuple[int, ...] = ()) -> FloatArray:
    """``value`` broadcast to ``(*shape, *tail)`` as writable C-ordered float64 rows
    ``(n, *tail)`` (a read-only array would compile another kernel specialisation)."""
    array = np.broadcast_to(np.asarray(value, dtype=np.float64), (*shape, *tail))
    rows = np.ascontiguousarray(array).reshape(-1, *tail)
    return rows if rows.flags.writeable else rows.copy()
