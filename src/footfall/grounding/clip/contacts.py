"""A clip's planted frames ``(F, 2)`` (left, right): found in the motion, checked, and written to
and read from the report's JSON (``{"left": [[start, stop], ...], "right": [...]}``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.footing import clip_contacts, treadmill_travel
from footfall.footing.runs import segments

if TYPE_CHECKING:  # feet.py finds contacts to place its floor: no import back at run time
    from footfall.footing.clip_feet import ClipFeet


def find_contacts(feet: ClipFeet, floor: float, fps: float) -> NDArray[np.bool_]:
    """Contacts ``(F, 2)`` from the motion by the one contact rule as a clip applies it
    (:func:`footfall.footing.clip_contacts` over the known ``floor``, metres): a foot is planted
    while the heel or the ball of its sole is low and slow, and held while its lowest heel or
    toe point still touches the floor."""
    return clip_contacts(sole_support(feet), feet.touch, feet.ball, floor, fps)


def ground_travel(feet: ClipFeet) -> FloatArray | None:
    """How far the ground under a clip walked in place has travelled by each frame ``(F, 2)``
    (x, z metres; :func:`footfall.footing.treadmill_travel` over the points
    :func:`find_contacts` judges), None for a clip that travels itself: the ground its contacts
    are found on and its sliding is measured against."""
    return treadmill_travel(sole_support(feet), feet.ball)


def sole_support(feet: ClipFeet) -> FloatArray:
    """``(F, 2, 2, 3)`` the points of each sole the contact rule plants a foot by: its heel
    (the sole's first sample) and the sample under the ball (nearest the ball joint over the
    clip: where a foot rolling onto its toes still stands)."""
    gap = np.linalg.norm(feet.sole - feet.ball[:, :, None], axis=-1)  # (F, 2, S)
    gap = np.where(np.isfinite(gap), gap, np.inf)
    under = np.median(gap, axis=0).argmin(axis=-1)  # (2,)
    return np.stack([feet.sole[:, :, 0], feet.sole[:, [0, 1], under]], axis=2)


def check_contacts(contacts: Any, frames: int) -> NDArray[np.bool_]:
    """``contacts`` as bool ``(frames, 2)``; raises :class:`SkeletonError` for any other shape."""
    contacts = np.asarray(contacts, dtype=bool)
    if contacts.shape != (frames, 2):
        raise SkeletonError(f"contacts have shape {contacts.shape}; expected ({frames}, 2)")
    return contacts


def contact_segments(contacts: NDArray[np.bool_]) -> dict[str, list[list[int]]]:
    """Contacts ``(F, 2)`` as ``{"left": [[start, stop], ...], "right": [...]}`` (stop
    exclusive): the report's list a user can check, and what ``--contacts`` reads back."""
    return {side: [[int(a), int(b)] for a, b in segments(contacts[:, i])]
            for i, side in enumerate(("left", "right"))}


def contacts_from_segments(data: Any, frames: int, where: str = "contacts") -> NDArray[np.bool_]:
    """Contacts ``(F, 2)`` from :func:`contact_segments`' JSON (or a report holding it under
    ``"contacts"``); raises :class:`SkeletonError` naming the field at fault."""
    if isinstance(data, dict) and "contacts" in data and "left" not in data:
        data = data["contacts"]
    if not isinstance(data, dict):
        raise SkeletonError(f"{where}: expected an object with 'left' and 'right' lists")
    out = np.zeros((frames, 2), dtype=bool)
    for i, side in enumerate(("left", "right")):
        spans = data.get(side)
        if not isinstance(spans, list):
            raise SkeletonError(f"{where}: '{side}' must be a list of [start, stop] frames")
        for k, span in enumerate(spans):
            ok = (isinstance(span, list) and len(span) == 2
                  and all(isinstance(v, int) and not isinstance(v, bool) for v in span))
            if not ok or not 0 <= span[0] < span[1] <= frames:
                raise SkeletonError(
                    f"{where}: {side}[{k}] = {span!r} is not [start, stop] with "
                    f"0 <= start < stop <= {frames}"
                )
            out[span[0]:span[1], i] = True
    return out
