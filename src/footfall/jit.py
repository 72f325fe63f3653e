"""How footfall's numba code is compiled: kernels called from Python, helpers called by them.

:func:`kernel` marks a function that Python code calls with arrays (the FK, IK, ray and stage
loops): numba compiles it on its first call, caches the machine code on disk
(``cache=True``) and leaves out the C-callable wrapper (``no_cfunc_wrapper``) that only a
function passed as a first-class value to other compiled code would need.

:func:`helper` marks the scalar forms the kernels are written with (``quat.mul_s``,
``foot_align.slope_angles_s`` …): a numba ``register_jitable`` function, compiled once per
argument types into the kernels that call it and cached with them. It gets neither the CPython
wrapper (argument unboxing, result boxing) nor the C wrapper. The small helpers of the hot
loops pass ``forceinline=True``: LLVM inlines them (``alwaysinline``) when it optimises the
kernel, as numba's IR-level ``inline="always"`` did before at a much higher compile cost. Called
from Python, a helper is its own Python function (the same operations in the same order on
Python floats, so the same results; the cheaper call for a few numbers, as in the live
retargeter). :func:`inlined` keeps numba's IR-level inlining for a large one-call-site body.

Why (issue 14, first run ≤ 10 s): on an empty numba cache the compile is numba's front end and
wrappers, not the machine code. Each ``njit`` helper got its own CPython and C wrappers,
compiled and optimised separately, and each ``inline="always"`` call site copied, re-ran the
untyped passes on and retyped the helper's IR (a third of the IK kernel's compile was that
copying). With these decorators the grounding commands' kernels compile in about 7.5 s of CPU
instead of 9–10 s (``benchmarks/bench_compile.py``; docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
from numba.extending import register_jitable


def kernel(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(cache=True, no_cfunc_wrapper=True, **options)`` for a function called from
    Python (``options``: ``error_model``, ``nogil``)."""
    jit_options: dict[str, Any] = {"cache": True, "no_cfunc_wrapper": True, **options}
    return numba.njit(**jit_options)


def helper(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``register_jitable(no_cfunc_wrapper=True, **options)`` for a function called from
    compiled code (``options``: ``error_model``); see the module docstring."""
    jit_options: dict[str, Any] = {"no_cfunc_wrapper": True, **options}
    return register_jitable(**jit_options)  # type: ignore[no-any-return]


def inlined(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(inline="always", **options)``: a large body with one call site copied into
    its kernel at numba's IR level (the IK core ``ik._kernel.solve_one``: LLVM's inlining of it
    measured 5–10 % slower). Each call site copies and retypes it, so use it sparingly."""
    jit_options: dict[str, Any] = {"inline": "always", **options}
    return numba.njit(**jit_options)
