"""When a leg kneels: its knee low over the ground under its foot, in leg lengths.

One rule for every part that treats a kneeling leg differently: the retargeter's hips weight (a
kneeling body's hips are carried by its legs, not by a seat: :mod:`footfall.retarget.weights`)
and its planted-foot hold (a kneeling leg's foot turns with the shin on the floor, it is not
held about its contact patch: :mod:`footfall.retarget.limb_kernel`), and clip grounding's hips
(a kneeling knee kept out of the ground: :mod:`footfall.grounding.clip.kneels`) — a frame at a
time in compiled kernels (:func:`kneeling_s`), over whole arrays (:func:`kneeling`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray
from footfall.jit import helper
from footfall.ramps import ramp, ramp_s

#: A leg's knee over the ground under its foot, in shares of the leg's length (thigh + shin):
#: below the first the leg kneels in full, from the second it does not, linear between. A
#: standing or seated knee is about 0.5 up, a knee on the floor 0.03; held about its patch
#: below 0.15–0.2, mocapbank_zxy_cm's body went 17 cm through the floor in its kneel.
KNEELING = (0.15, 0.25)


@helper
def kneeling_s(knee_height: float, leg_length: float) -> float:
    """How much a leg kneels, 1 (kneeling) … 0 (not): its ``knee_height`` over the ground under
    its foot and its ``leg_length`` (thigh + shin), metres (see :data:`KNEELING`)."""
    return 1.0 - ramp_s(knee_height / leg_length, KNEELING[0], KNEELING[1])


def kneeling(knee_height: ArrayLike, leg_length: ArrayLike) -> FloatArray:
    """:func:`kneeling_s` over arrays that broadcast: how much each leg kneels (1 … 0) from its
    knee's height over the ground under its foot and its length (thigh + shin), metres."""
    share = np.asarray(knee_height, dtype=np.float64) / np.asarray(leg_length, dtype=np.float64)
    return np.asarray(1.0 - ramp(share, KNEELING[0], KNEELING[1]), dtype=np.float64)
