"""What the control service needs of the animation loop it steers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import numpy as np

from footfall.retarget import Retargeter


class ControlTarget(Protocol):
    """The animation loop's side of the remote control (called on the loop's own thread)."""

    def characters(self) -> Mapping[str, Retargeter]:
        """The registered characters by name (seed 001's ``registeredCharacters``)."""
        ...

    def source_pose(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The current source frame: ``(J, 4)`` local rotations (w, x, y, z) and the ``(3,)``
        root position in metres; ``None`` before the first frame."""
        ...

    def save_settings(self, name: str) -> None:
        """Save character ``name``'s settings (the loop decides where)."""
        ...
