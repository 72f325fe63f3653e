"""footfall.jit: helpers are compiled once per argument types, whoever calls them, and calling
one from Python runs its Python function (a helper has no CPython wrapper to call)."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
import pytest

from footfall import quat
from footfall.jit import bundle_kernel, bundle_part, helper


@helper
def _scaled_sum(a: float, b: float, double: bool) -> float:
    return 2.0 * (a + b) if double else a + b


@helper
def _outer(a: float, b: float) -> float:
    return _scaled_sum(a, b, True) + _scaled_sum(a, b, False)


# Kernels as footfall.jit.kernel makes them, but not cached: a cached kernel would not compile
# its helpers in the next session.
@numba.njit(error_model="numpy", nogil=True, no_cfunc_wrapper=True)
def _rows_numpy(values: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    for i in range(values.shape[0]):
        out[i] = _scaled_sum(values[i], 1.0, True) + _outer(values[i], 2.0)


@numba.njit(no_cfunc_wrapper=True)
def _rows_python(values: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    for i in range(values.shape[0]):
        out[i] = _scaled_sum(values[i], 1.0, False)


def test_a_helper_compiles_once_for_kernels_of_other_flags_and_literal_arguments() -> None:
    values = np.array([0.5, -1.25])
    first, second = np.empty(2), np.empty(2)
    _rows_numpy(values, first)
    _rows_python(values, second)
    np.testing.assert_array_equal(first, 2 * (values + 1) + 3 * (values + 2))
    np.testing.assert_array_equal(second, values + 1)
    # Called with the constants True and False, from two kernels (other error model, nogil)
    # and from another helper: one version for (float64, float64, bool).
    assert [str(s) for s in _scaled_sum.signatures] == ["(float64, float64, bool)"]


def test_a_helper_called_from_python_is_its_python_function() -> None:
    assert _outer(1.0, 2.0) == 9.0
    q = (0.5, 0.5, -0.5, 0.5)
    assert quat.mul_s(q, quat.inv_s(q)) == (1.0, 0.0, 0.0, 0.0)
    np.testing.assert_array_equal(quat.rotate_s(q, (1.0, 2.0, 3.0)),
                                  quat.rotate(np.array(q), np.array([1.0, 2.0, 3.0])))


class _Legs(NamedTuple):
    """A bundle for the bundle_part tests."""

    count: int
    length: np.ndarray
    weight: np.ndarray
    out: np.ndarray


_LegsRead = bundle_part(_Legs, "out", "length")


@bundle_kernel(reads={"legs": _LegsRead})
def _scaled_lengths(legs: _Legs, scale: float) -> None:  # pragma: no cover - compiled
    legs = _LegsRead(*legs)
    for i in range(legs.out.shape[0]):
        legs.out[i] = legs.length[i] * scale


def test_a_bundle_part_hands_a_kernel_only_the_fields_it_reads_by_name() -> None:
    legs = _Legs(count=2, length=np.array([0.4, 0.5]), weight=np.zeros(2), out=np.zeros(2))
    taken = _LegsRead.take(legs)
    assert type(taken) is tuple and len(taken) == 2
    assert taken[0] is legs.out and taken[1] is legs.length  # the part's order, not the bundle's
    assert bundle_part(_Legs, "weight").take(legs) == (legs.weight,)
    _scaled_lengths(legs, 2.0)  # the whole bundle in, the part handed to numba
    np.testing.assert_array_equal(legs.out, [0.8, 1.0])
    assert len(_scaled_lengths.signatures[0][0]) == 2  # numba saw two arrays, not four values


def test_bundle_parts_and_reads_are_checked_against_the_bundle_and_the_signature() -> None:
    with pytest.raises(TypeError, match="unknown: \\['lenght'\\]"):
        bundle_part(_Legs, "lenght")
    with pytest.raises(TypeError, match="part of _Legs"):
        @bundle_kernel(reads={"rig": _LegsRead})
        def wrong_name(legs: _Legs) -> None:  # pragma: no cover - never compiled
            pass
    with pytest.raises(TypeError, match="part of _Legs"):
        @bundle_kernel(reads={"legs": _LegsRead})
        def wrong_bundle(legs: tuple) -> None:  # pragma: no cover - never compiled
            pass
