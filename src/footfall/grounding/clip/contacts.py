"""A clip's planted frames ``(F, 2)`` (left, right): found in the motion, checked, and written to
and read from the report's JSON (``{"left": [[start, stop], ...], "right": [...]}``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from footfall.errors import SkeletonError
from footfall.footing import horizontal_speeds
from footfall.footing.runs import segments
from footfall.grounding.contacts import bridge_gaps, detect_contacts, hold_contacts

if TYPE_CHECKING:  # feet.py finds contacts to place its floor: no import back at run time
    from footfall.grounding.clip.feet import ClipFeet


def find_contacts(feet: ClipFeet, floor: float, fps: float) -> NDArray[np.bool_]:
    """Contacts ``(F, 2)`` from the motion (low and slow), held while the heel or toe still
    touches the ``floor`` (metres) and slides slower than a swing (see
    :mod:`footfall.grounding.contacts`)."""
    lowest = np.nanmin(feet.sole[..., 1], axis=-1)  # (F, 2)
    contacts = detect_contacts(lowest - floor, horizontal_speeds(feet.ankle, fps, centred=True),
                               horizontal_speeds(feet.ball, fps, centred=True), fps)
    heights = np.where(np.isfinite(feet.touch[..., 1]), feet.touch[..., 1], np.inf)
    low = heights.argmin(axis=-1)  # (F, 2) the touching point: heel, ball or toe tip
    point = np.take_along_axis(feet.touch, low[..., None, None], axis=2)[:, :, 0]
    held = hold_contacts(contacts, point[..., 1] - floor,
                         horizontal_speeds(point, fps, centred=True))
    return bridge_gaps(held, feet.ball, fps)


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
