"""How footfall's numba code is compiled: kernels called from Python, helpers called by them.

- :func:`kernel`: a loop that Python code calls with arrays, its machine code cached on disk;
  no C-callable wrapper (only a function passed as a value to other compiled code needs one).
- :func:`helper`: a scalar form the kernels are written with (``quat.mul_s`` …): compiled once
  per argument types, without wrappers, and inlined by LLVM into each kernel calling it. Called
  from Python it is its own Python function: the same operations in the same order, so the
  same results (only a division by zero raises there instead of giving inf or NaN).
- :func:`inlined`: copied into each kernel calling it at numba's IR level, where LLVM's
  inlining of a helper measured slower (the IK core, the hips helpers).
- :func:`bundle_kernel`: a kernel taking named bundles (a ``NamedTuple`` of arrays and values
  per concept: the frames, the legs, the parameters …) instead of a wall of positional
  arguments, so every value is bound by name where the bundle is built; one that reads a few
  fields of a bundle declares them (:func:`bundle_part`) and is handed only those.

Every kernel's cache is stamped with the whole package's source (:func:`package_stamp`), not
its own file's as numba does: a kernel inlines helpers, constants and bundles from other modules
(``footing.kneeling`` into ``retarget/limb_kernel.py``), and with numba's stamp a change there
left the kernel's old machine code in use — a rule removed to see a test fail ran on, unremoved.

Why: on an empty numba cache the time goes to numba's front end (typing, lowering, wrappers)
more than to LLVM. Unused wrappers and IR-level copies at every call site cost that time; a
``register_jitable`` helper is compiled again for every caller's flags, a dispatcher once per
argument types. Figures: docs/benchmarks.md, section "2026-12-02 compile".
"""

from __future__ import annotations

import collections
import functools
import hashlib
import inspect
import operator
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import numba
from numba.core import caching, types
from numba.core.registry import CPUDispatcher

F = TypeVar("F", bound=Callable[..., Any])

_HELPER: dict[str, Any] = {"nopython": True, "no_cpython_wrapper": True,
                           "no_cfunc_wrapper": True, "forceinline": True, "error_model": "numpy"}


_PACKAGE = Path(__file__).resolve().parent


@functools.cache
def package_stamp(package: Path = _PACKAGE) -> bytes:
    """SHA-256 of every module of ``package`` (its path and contents): what a cached kernel
    of footfall was compiled from. Read once per process (~3 MB)."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.digest()


class _PackageStamped:
    """A numba cache locator for footfall's own functions whose source stamp is
    :func:`package_stamp`: the cache of a kernel is fresh only while no module of the package
    has changed (any other function falls through to numba's own locators)."""

    def get_source_stamp(self) -> bytes:
        return package_stamp()

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        try:
            Path(py_file).resolve().relative_to(_PACKAGE)
        except (OSError, ValueError):
            return None
        return super().from_function(py_func, py_file)  # type: ignore[misc]


class _UserProvided(_PackageStamped, caching.UserProvidedCacheLocator):  # type: ignore[misc]
    pass


class _InTree(_PackageStamped, caching.InTreeCacheLocator):  # type: ignore[misc]
    pass


class _UserWide(_PackageStamped, caching.UserWideCacheLocator):  # type: ignore[misc]
    pass


# numba asks its locator classes in order; ours come first, in numba's own order of the three.
# (A numba without this list keeps its own stamps: footfall still imports and runs, and
# tests/test_jit_cache.py says the stamp is missing.)
_LOCATORS = getattr(caching.CacheImpl, "_locator_classes", None)
if isinstance(_LOCATORS, list):
    _LOCATORS[:0] = [_UserProvided, _InTree, _UserWide]


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
    what the same arrays as positional arguments cost. Every value of a tuple is unboxed on
    each call, read or not (~0.2 µs an array): a kernel that reads a few fields of a bundle
    declares them (``reads``: a :func:`bundle_part` per argument) and is handed only those,
    taken from the whole bundle its caller passes (docs/benchmarks.md, "bundles cut per
    stage")."""

    #: With ``reads`` declared, the kernel's call taking each declared bundle's part
    #: (:meth:`_declare_reads`); ``None``: every ``tuple`` argument made a plain tuple.
    _call: Callable[..., Any] | None = None

    def __call__(self, *args: Any) -> Any:
        call = self._call
        if call is None:
            return _dispatch(self, *[tuple(a) if isinstance(a, tuple) else a for a in args])
        return call(*args)

    #: The kernel called with its bundles already plain tuples (``tuple(bundle)``, kept by a
    #: caller that passes the same bundles frame after frame): numba's own call, without this
    #: class's Python step (~1.4 µs a call; a live retarget frame calls two bundle kernels).
    #: Only for a kernel without ``reads`` (one with them is handed parts, not whole bundles).
    plain = CPUDispatcher.__call__

    def _declare_reads(self, reads: dict[str, Any]) -> None:
        """``reads``: argument name -> the :func:`bundle_part` of its bundle the kernel reads,
        or the bundle's own class (handed whole); other arguments pass as they are. Checked
        against the function's signature and annotations (the bundle's class name)."""
        names = list(inspect.signature(self.py_func).parameters)
        annotations = self.py_func.__annotations__
        namespace: dict[str, Any] = {"dispatch": _dispatch, "kernel": self}
        for name, part in reads.items():
            concept = getattr(part, "concept", part)
            declared = annotations.get(name)
            if name not in names or getattr(declared, "__name__", declared) != concept.__name__:
                raise TypeError(f"{self.py_func.__name__}: reads {name!r} as a part of "
                                f"{concept.__name__}; the function has {names}, annotated "
                                f"{annotations}")
            namespace[f"take_{name}"] = getattr(part, "take", tuple)
        # The call written out for these arguments (as dataclasses write their __init__): a
        # loop over the arguments cost ~1 µs a call, a one-character frame's stages call seven.
        handed = ", ".join(f"take_{name}({name})" if name in reads else name for name in names)
        exec(f"def call({', '.join(names)}):\n    return dispatch(kernel, {handed})\n",
             namespace)
        self._call = namespace["call"]


_dispatch = CPUDispatcher.__call__


def bundle_part(concept: type, *fields: str) -> Any:
    """A ``NamedTuple`` class of some ``fields`` of the bundle class ``concept`` (in the order
    given), for a :func:`bundle_kernel` that reads only those (its ``reads``); the kernel names
    what it is handed with it (``rig = FeetRig(*rig)``). ``part.take(bundle)``: those fields of
    a whole ``concept`` bundle (or its plain tuple) as a plain tuple; ``part.concept``: the
    bundle class."""
    order: tuple[str, ...] = getattr(concept, "_fields", ())
    unknown = [name for name in fields if name not in order]
    if unknown or not fields or len(set(fields)) != len(fields):
        raise TypeError(f"bundle_part of {concept.__name__}: fields {fields} (unknown: "
                        f"{unknown}; its fields: {order})")
    named_tuple: Callable[..., Any] = collections.namedtuple  # (a class made at run time)
    part = named_tuple(f"{concept.__name__}_{'_'.join(fields)}", fields,
                       module=concept.__module__)
    indices = [order.index(field) for field in fields]
    if len(indices) == 1:
        index = indices[0]
        part.take = staticmethod(lambda bundle: (bundle[index],))
    else:
        part.take = staticmethod(operator.itemgetter(*indices))
    part.concept = concept
    return part


def bundle_kernel(reads: dict[str, Any] | None = None, **options: Any
                  ) -> Callable[[Callable[..., Any]], Any]:
    """Decorator: :func:`kernel` for a function taking named bundles (``NamedTuple``
    arguments); its body names each bundle again first (``rig = LegRig(*rig)``), as it
    receives plain tuples (:class:`_BundleKernel`). ``reads``: argument name -> the
    :func:`bundle_part` the body is handed instead of the whole bundle the caller passes, or
    the bundle's own class (handed whole, as a plain tuple); arguments not named in it pass as
    they are. Default: every argument annotated with a ``NamedTuple`` class of the function's
    module, handed whole."""

    def wrap(function: Callable[..., Any]) -> Any:
        dispatcher = _BundleKernel(py_func=function, targetoptions={
            "nopython": True, "boundscheck": None, "no_cfunc_wrapper": True, **options})
        dispatcher.enable_caching()
        dispatcher._declare_reads(_bundles_of(function) if reads is None else reads)
        return dispatcher

    return wrap


def _bundles_of(function: Callable[..., Any]) -> dict[str, Any]:
    """The arguments of ``function`` annotated with a ``NamedTuple`` class of its module's
    globals, each to that class."""
    bundles = {}
    for name, annotation in function.__annotations__.items():
        found = function.__globals__.get(annotation) if isinstance(annotation, str) else annotation
        if isinstance(found, type) and issubclass(found, tuple) and hasattr(found, "_fields"):
            bundles[name] = found
    return bundles


def helper(function: F) -> F:
    """``function`` made a helper inlined into the kernels calling it (module docstring)."""
    return cast(F, _Helper(py_func=function, targetoptions=dict(_HELPER)))


def inlined(function: Callable[..., Any]) -> Any:
    """``function`` copied into the kernels calling it at numba's IR level (module
    docstring); called from Python, a dispatcher like any ``njit`` function."""
    return numba.njit(inline="always", error_model="numpy")(function)
