"""Runs of planted frames: the one place a bool series is cut into its ``[start, stop)`` runs."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def runs(flags: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Start and stop (exclusive) frames ``(R,)``, ``(R,)`` of the runs where the 1-D bool
    ``flags (F,)`` is True."""
    edges = np.diff(np.concatenate([[0], np.asarray(flags, dtype=bool).astype(np.int8), [0]]))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def segments(flags: ArrayLike) -> list[tuple[int, int]]:
    """:func:`runs` as a list ``[(start, stop), ...]`` of Python ints."""
    starts, stops = runs(flags)
    return list(zip(starts.tolist(), stops.tolist(), strict=True))


def value_runs(column: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Start and stop frames of the runs of *equal* values (planted and swinging alike) of a
    1-D bool ``column (F,)``: every frame in exactly one run."""
    column = np.asarray(column, dtype=bool)
    edges = np.flatnonzero(np.diff(column.astype(np.int8))) + 1
    return np.r_[0, edges], np.r_[edges, len(column)]
