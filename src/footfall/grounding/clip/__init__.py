"""Ground any clip on a terrain (the engine recipe as a post-process), doing no harm.

Every change is a *correction of the source*, zero where nothing needs correcting:

- each foot is offset by the ground under it relative to the clip's own floor (the engine
  recipe's ``offset = hit − trace end``; the floor: the lowest point of the planted feet,
  :func:`~footfall.footing.clip_feet.planted_floor`); on level ground at that floor the
  offset is zero;
- a swinging foot keeps its animated height above the ground blended from where it lifted off
  to where it touches down (:mod:`footfall.metrics.swing`), and rises above that only where the
  terrain would cut it, by the least amount (smoothed from above; reported per swing);
- the hips are lowered (or raised on a flight of stairs) with the lower foot, smoothed from
  below, so a leg never has to stretch further than the animation did;
- a planted foot is corrected only by the source's own defect: its lowest point put on the
  ground (it sank or floated) and its ball held where it landed (it slid), both blended in and
  out within 0.1 s; a lock lets go as soon as the source moves the foot faster than a stance
  slip, so a swing or a kick is never held back;
- the sole turns by the slope under it on top of its animated angle (none on level ground).

The legs are solved analytically (two-bone IK keeping the animated knee plane) only where a
correction is non-zero; only leg rotations and the root translation change, so bone lengths are
exact. A correction pass then measures the solved feet and removes what the tilt left.

The steps, one module each, in the order :func:`ground_clip` runs them (:mod:`.ground`):

1. placement (:func:`footfall.grounding.clip.placement.place_clip`): turned and moved over the
   terrain, or the terrain laid under it;
2. :mod:`.prepared`: the clip prepared once (:class:`PreparedClip`: legs, its own floor,
   soles, feet — :mod:`footfall.footing.clip_feet`);
3. :mod:`.contacts`: the contacts found in the motion (or read from JSON);
4. :mod:`.plan`: what changes (:class:`Plan`: ankle offsets, slip locks, hips offset, tilt);
5. :mod:`.solve`: the legs solved, then the correction passes;
6. :mod:`.followers`: joints outside the body that carry a body joint's pose follow again;
7. scoring before and after: :func:`footfall.metrics.clip.score`.
"""

from footfall.footing.clip_feet import ClipFeet, clip_feet
from footfall.grounding.clip.contacts import (
    check_contacts,
    contact_segments,
    contacts_from_segments,
    find_contacts,
)
from footfall.grounding.clip.ground import GroundResult, Placement, ground_clip, measure_clip
from footfall.grounding.clip.plan import Plan, plan
from footfall.grounding.clip.prepared import PreparedClip, animation_floor, prepare_clip
from footfall.grounding.clip.solve import solve, solve_legs

__all__ = [
    "ClipFeet",
    "GroundResult",
    "Placement",
    "Plan",
    "PreparedClip",
    "animation_floor",
    "check_contacts",
    "clip_feet",
    "contact_segments",
    "contacts_from_segments",
    "find_contacts",
    "ground_clip",
    "measure_clip",
    "plan",
    "prepare_clip",
    "solve",
    "solve_legs",
]
