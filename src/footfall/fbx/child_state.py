"""What the child reader (:mod:`footfall.fbx.worker`) keeps for its whole life: every ufbx
wrapper it touched (the binding's object cache otherwise hands back freed wrappers and crashes the
interpreter), and the exception that carries a refusal's one line. No numpy: the child imports
this before it knows the file parses.
"""

from __future__ import annotations

from typing import Any

#: Every ufbx wrapper this process touched, kept alive until it exits (see the docstring).
HOLD: list[Any] = []


class Refused(Exception):
    """A file this reader cannot use; the message is printed as the child's one line."""


def held(value: Any) -> Any:
    """``value``, kept alive for the rest of the process."""
    HOLD.append(value)
    return value
