"""The one foot model: when a foot is planted, where the floor is, and runs of planted frames.

Below ``grounding``, ``retarget``, ``live`` and ``metrics``: each asks these questions of a foot
and gets its answer here, so offline and live, grounding and retargeting agree.

- :mod:`footfall.footing.runs`: runs of True frames (``runs``, ``segments``).
- :mod:`footfall.footing.standing`: the frame a foot stands flat in (``flat_frame``), where the
  standing heights the rule measures a foot's height from are taken.
- :mod:`footfall.footing.tracker`: the contact rule (:class:`ContactRule`, low and slow with
  hysteresis) and the floor the planted feet stand on, learned from the frames so far — one
  compiled step applied to a whole clip (:func:`track_feet` over its frames) and to a live
  stream (a :class:`FootTracker` fed frame by frame) alike.
"""

from footfall.footing.runs import runs, segments
from footfall.footing.tracker import (
    CONTACT_RULE,
    ContactRule,
    FootTracker,
    horizontal_speeds,
    track_feet,
)

__all__ = ["CONTACT_RULE", "ContactRule", "FootTracker", "horizontal_speeds", "runs", "segments",
           "track_feet"]
