"""How footfall's numba code is compiled: kernels called from Python, helpers called by them.

Three decorators, one set of compiler flags (NumPy's error model: a division by zero gives inf
or NaN instead of raising):

- :func:`kernel`: a loop that Python code calls with arrays (the FK, IK, ray, stage and
  retargeter loops). Compiled on its first call, its machine code cached on disk
  (``cache=True``); the GIL is released while it runs (``nogil``: a crowd's walkers step on
  threads); no C-callable wrapper (``no_cfunc_wrapper``: only a function passed as a value to
  other compiled code needs one).
- :func:`helper`: a scalar form the kernels are written with (``quat.mul_s``,
  ``foot_align.slope_angles_s`` …): a numba ``register_jitable`` function, compiled once per
  argument types into the kernels that call it and cached with them, without the CPython
  wrapper (argument unboxing, result boxing) or the C wrapper, and inlined by LLVM
  (``forceinline``) when it optimises the kernel. Called from Python it is its own Python
  function: the same operations in the same order on Python floats, so the same results, and
  the cheaper call for a few numbers (as in the live retargeter).
- :func:`inlined`: a large body with one call site, copied into its kernel at numba's IR level
  (the IK core: LLVM's inlining of it measured 5–10 % slower at 1,000 legs).

Why (issue 14, first run ≤ 10 s): on an empty numba cache the time goes to numba's front end
(typing, lowering to LLVM IR, wrappers) more than to LLVM. Before, each ``njit`` helper got its
own CPython and C wrappers, compiled and optimised on their own, and each
``inline="always"`` call site copied, re-ran the untyped passes on and retyped the helper's IR
(a third of the IK kernel's compile). numba keys a ``register_jitable``'s compiled versions by
the *caller's* flags, so the flags are the same everywhere: with kernels of two error models
and with and without ``nogil``, and helpers with and without ``forceinline``, the quaternion
product was compiled five times (three now: from kernels, from helpers, in ``quat.mul``'s
gufunc).
Figures: docs/benchmarks.md, section "2026-12-02 compile".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba
from numba.extending import register_jitable

F = TypeVar("F", bound=Callable[..., Any])

_KERNEL: dict[str, Any] = {"cache": True, "no_cfunc_wrapper": True, "error_model": "numpy",
                           "nogil": True}
_HELPER: dict[str, Any] = {"no_cfunc_wrapper": True, "error_model": "numpy"}


def kernel(function: Callable[..., Any]) -> Any:
    """``function`` compiled as a kernel (module docstring): a numba dispatcher."""
    return numba.njit(**_KERNEL)(function)


def helper(function: F) -> F:
    """``function`` made a helper inlined into the kernels calling it (module docstring)."""
    register_jitable(forceinline=True, **_HELPER)(function)
    return function


def inlined(function: Callable[..., Any]) -> Any:
    """``function`` copied into its kernel at numba's IR level (module docstring)."""
    return numba.njit(inline="always", error_model="numpy")(function)
