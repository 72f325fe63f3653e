"""footfall.jit: helpers are compiled once per argument types, whoever calls them, and calling
one from Python runs its Python function (a helper has no CPython wrapper to call)."""

from __future__ import annotations

import numba
import numpy as np

from footfall import quat
from footfall.jit import helper


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
