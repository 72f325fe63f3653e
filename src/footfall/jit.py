"""How footfall's numba code is compiled: kernels called from Python, helpers called by them.

- :func:`kernel`: a loop that Python code calls with arrays (the FK, IK, ray, stage and
  retargeter loops): ``numba.njit(cache=True, no_cfunc_wrapper=True, **options)``. Compiled
  on its first call, its machine code cached on disk; no C-callable wrapper (only a function
  passed as a value to other compiled code needs one).
- :func:`helper`: a scalar form the kernels are written with (``quat.mul_s``,
  ``foot_align.slope_angles_s`` …): compiled once per argument types, without the CPython
  wrapper (argument unboxing, result boxing) or the C wrapper, with NumPy's error model, and
  inlined by LLVM (``forceinline``) when it optimises each kernel calling it; its machine code
  is cached inside those kernels. Called from Python it is its own Python function: the same
  operations in the same order on Python floats, so the same results (only a division by
  zero raises there instead of giving inf or NaN), and the cheaper call for a few numbers (as in
  the live retargeter).
- :func:`inlined`: copied into each kernel calling it at numba's IR level, where LLVM's
  inlining of a helper measured slower: the IK core (one call site; 5–10 % at 1,000 legs) and
  the pelvis helpers (15–20 % of the pelvis stage). Each call site copies and retypes it.

Why (issue 14, first run ≤ 10 s): on an empty numba cache the time goes to numba's front end
(typing, lowering to LLVM IR, wrappers) more than to LLVM. Before, every ``njit`` helper got
CPython and C wrappers it never used, and every ``inline="always"`` call site copied, re-ran
the untyped passes on and retyped the helper's IR (a third of the IK kernel's compile). A
``register_jitable`` helper would avoid the wrappers, but numba keys its compiled versions by
the calling function's flags (the quaternion product was compiled five times); a dispatcher
compiles once per argument types. Figures: docs/benchmarks.md, section "2026-12-02 compile".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numba
from numba.core import types
from numba.core.registry import CPUDispatcher

F = TypeVar("F", bound=Callable[..., Any])

_HELPER: dict[str, Any] = {"nopython": True, "no_cpython_wrapper": True,
                           "no_cfunc_wrapper": True, "forceinline": True, "error_model": "numpy"}


class _Helper(CPUDispatcher):  # type: ignore[misc]
    """A numba dispatcher compiled without the CPython wrapper: called from Python it runs the
    Python function instead (numba would call the missing wrapper and crash). Compiled for the
    plain types of its arguments: a ``True`` / ``False`` or integer constant at a call site does
    not make a version of its own."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.py_func(*args, **kwargs)

    def get_call_template(self, args: Sequence[Any],
                          kws: Sequence[tuple[str, Any]] | dict[str, Any]) -> Any:
        return super().get_call_template(tuple(types.unliteral(a) for a in args),
                                         {k: types.unliteral(v) for k, v in dict(kws).items()})


def kernel(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """Decorator: the function compiled as a kernel (module docstring), a numba dispatcher;
    ``options``: numba's ``error_model``, ``nogil``."""
    jit_options: dict[str, Any] = {"cache": True, "no_cfunc_wrapper": True, **options}
    return numba.njit(**jit_options)


def helper(function: F) -> F:
    """``function`` made a helper inlined into the kernels calling it (module docstring)."""
    return cast(F, _Helper(py_func=function, targetoptions=dict(_HELPER)))


def inlined(function: Callable[..., Any]) -> Any:
    """``function`` copied into the kernels calling it at numba's IR level (module
    docstring); called from Python, a dispatcher like any ``njit`` function."""
    return numba.njit(inline="always", error_model="numpy")(function)
