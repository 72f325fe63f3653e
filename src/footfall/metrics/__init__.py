"""How well feet touch the ground, measured on the solved feet (seed 002's lesson).

- :mod:`.measures`: contact metrics on arrays (seed 002; PhysDiff; GMD's foot-skate ratio), any
  terrain;
- :mod:`.stance`: a planted foot's height defect from its support joints (ankle, ball, toe tips);
- :mod:`.clip`: every metric of a clip on a terrain under one name each (:func:`score`), what
  ``footfall ground`` reports before and after.
"""

from footfall.metrics.measures import (
    DEFECT_THRESHOLD,
    GMD_FPS,
    GMD_HEIGHT,
    GMD_SPEED,
    GMD_WINDOW,
    PHYSDIFF_TOLERANCE,
    SKATE_SPEED,
    SOLE_WIDTH_RATIO,
    clamped_ratio,
    contact_metrics,
    contact_skate_ratio,
    gmd_foot_skate_ratio,
    gmd_frame_step,
    ground_gaps,
    hips_jerk,
    physdiff_metrics,
    sole_grid,
    stance_slip,
)

__all__ = [
    "DEFECT_THRESHOLD",
    "GMD_FPS",
    "GMD_HEIGHT",
    "GMD_SPEED",
    "GMD_WINDOW",
    "PHYSDIFF_TOLERANCE",
    "SKATE_SPEED",
    "SOLE_WIDTH_RATIO",
    "clamped_ratio",
    "contact_metrics",
    "contact_skate_ratio",
    "gmd_foot_skate_ratio",
    "gmd_frame_step",
    "ground_gaps",
    "hips_jerk",
    "physdiff_metrics",
    "sole_grid",
    "stance_slip",
]
