"""How footfall's numba code is compiled: kernels called from Python, helpers called by them.

- :func:`kernel`: a loop that Python code calls with arrays, its machine code cached on disk;
  no C-callable wrapper (only a function passed as a value to other compiled code needs one).
- :func:`helper`: a scalar form the kernels are written with (``quat.mul_s`` …): compiled once
  per argument types, without wrappers, and inlined by LLVM into each kernel calling it. Called
  from Python it is its own Python function: the same operations in the same order, so the
  same results (only a division by zero raises there instead of giving inf or NaN).
- :func:`inlined`: copied into each kernel calling it at numba's IR level, where LLVM's
  inlining of a helper measured slower (the IK core, the pelvis helpers).
- :func:`bundle_kernel`: a kernel taking named bundles (a ``NamedTuple`` of arrays and values
  per concept: the frames, the legs, the parameters …) instead of a wall of positional
  arguments, so every value is bound by name where the bundle is built.

Why: on an empty numba cache the time goes to numba's front end (typing, lowering, wrappers)
more than to LLVM. Unused wrappers and IR-level copies at every call site cost that time; a
``register_jitable`` helper is compiled again for every caller's flags, a dispatcher once per
argument types. Figures: docs/benchmarks.md, section "2026-12-02 compile".
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


class _BundleKernel(CPUDispatcher):  # type: ignore[misc]
    """A kernel dispatcher whose ``NamedTuple`` arguments cross into the compiled code as plain
    tuples of the same values, which the kernel names again on entry (``frames =
    Frames(*frames)``: the field order is the class's own, whoever built the bundle).

    Why: numba's dispatcher types a named tuple by encoding its class and field names on every
    call (measured 2–3.5 µs per bundle of 10–17 fields: 11–13 µs for a live retarget frame's
    four or five bundles, whose whole step takes ~250 µs); a plain tuple of arrays costs about
    what the same arrays as positional arguments cost. Every array of a bundle is unboxed on
    each call, read or not (~0.1 µs each): what a one-character frame pays for bundles by
    concept rather than by stage (docs/benchmarks.md, "Issue 34: named bundles")."""

    def __call__(self, *args: Any) -> Any:
        return _dispatch(self, *[tuple(a) if isinstance(a, tuple) else a for a in args])

    #: The kernel called with its bundles already plain tuples (``tuple(bundle)``, kept by a
    #: caller that passes the same bundles frame after frame): numba's own call, without this
    #: class's Python step (~1.4 µs a call; a live retarget frame calls two bundle kernels).
    plain = CPUDispatcher.__call__


_dispatch = CPUDispatcher.__call__


def bundle_kernel(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """Decorator: :func:`kernel` for a function taking named bundles (``NamedTuple``
    arguments); its body names each bundle again first (``rig = LegRig(*rig)``), as it
    receives plain tuples (:class:`_BundleKernel`)."""

    def wrap(function: Callable[..., Any]) -> Any:
        dispatcher = _BundleKernel(py_func=function, targetoptions={
            "nopython": True, "boundscheck": None, "no_cfunc_wrapper": True, **options})
        dispatcher.enable_caching()
        return dispatcher

    return wrap


def helper(function: F) -> F:
    """``function`` made a helper inlined into the kernels calling it (module docstring)."""
    return cast(F, _Helper(py_func=function, targetoptions=dict(_HELPER)))


def inlined(function: Callable[..., Any]) -> Any:
    """``function`` copied into the kernels calling it at numba's IR level (module
    docstring); called from Python, a dispatcher like any ``njit`` function."""
    return numba.njit(inline="always", error_model="numpy")(function)
