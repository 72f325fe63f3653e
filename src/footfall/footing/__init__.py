"""The one foot model: a foot's points, when it is planted, where the floor is, runs of
planted frames, how a sole rests on the ground and when a leg kneels.

Below ``grounding``, ``retarget``, ``live`` and ``metrics``: each asks these questions of a foot
and gets its answer here, so offline and live, grounding and retargeting agree.

- :mod:`footfall.footing.foot_model`: a foot's leg (``Leg``, ``legs_of``) and its sole
  (``FootModel``: from a rig's End Sites, an avatar's skinned sole or the motion), put in the
  world by ``sole_world``; the frames that are no part of the motion (``calibration_frames``).
- :mod:`footfall.footing.clip_feet`: a clip's feet frame by frame (``ClipFeet``: sole samples,
  ankle, ball, touch points) and the floor its planted feet stand on (``planted_floor``).
- :mod:`footfall.footing.kneeling`: when a leg kneels (``kneeling_s``: its knee low over the
  ground under its foot, in leg lengths).
- :mod:`footfall.footing.runs`: runs of True frames (``runs``, ``segments``).
- :mod:`footfall.footing.stance_level`: a clip's stance level (each foot's support joints'
  planted heights, ``planted_heights``) and a foot's stance defect against it (``stance_defect``).
- :mod:`footfall.footing.standing`: the frame a foot stands flat in (``flat_frame``), where the
  standing heights the rule measures a foot's height from are taken.
- :mod:`footfall.footing.tracker`: the contact rule (:class:`ContactRule`, low and slow with
  hysteresis) and the floor the planted feet stand on, learned from the frames so far — one
  compiled step applied to a whole clip (:func:`track_feet` over its frames) and to a live
  stream (a :class:`FootTracker` fed frame by frame) alike; :data:`CONTACT_RULE` as a stream
  applies it (the floor learned), :data:`CLIP_RULE` as a clip over a known floor applies it.
- :mod:`footfall.footing.clip_contacts`: the rule over a whole clip with a known floor, with
  the options a clip allows (a majority vote, the hold both ways, short breaks bridged), and
  the floor such a clip is measured on (``clip_floor``); a clip walked in place (its root
  motion taken out) judged with the ground's travel under its feet put back
  (``treadmill_travel``).
"""

from footfall.footing.clip_contacts import (
    FLOOR_PERCENTILE,
    bridge_gaps,
    clip_contacts,
    clip_floor,
    hold_contacts,
    majority_vote,
    treadmill_travel,
)
from footfall.footing.runs import runs, segments
from footfall.footing.tracker import (
    CLIP_RULE,
    CONTACT_RULE,
    ContactRule,
    FootTracker,
    horizontal_speeds,
    track_feet,
)

__all__ = ["CLIP_RULE", "CONTACT_RULE", "FLOOR_PERCENTILE", "ContactRule", "FootTracker",
           "bridge_gaps", "clip_contacts", "clip_floor", "hold_contacts", "horizontal_speeds",
           "majority_vote", "runs", "segments", "track_feet", "treadmill_travel"]
