"""What the retargeter's limbs carry from one batch of frames to the next when the frames come
in order — a clip solved in chunks, or a live stream one frame per call: :class:`LimbStream`,
owned by its caller (:func:`~footfall.retarget.offline.retarget_clip`,
:class:`~footfall.retarget.live_state.LiveRetarget`) and handed to ``Limbs`` explicitly.
"""

from __future__ import annotations

import numpy as np

from footfall.retarget.limb_kernel import PATCH_STATE
from footfall.retarget.stance import RELEASE_SECONDS, PlantedHold


class LimbStream:
    """What the limbs carry from one batch of frames to the next when frames come in order:
    a clip solved in chunks (``live`` False: the leading axis of each batch is its frames), or
    a live stream, one frame per call (``live`` True). A fresh one per clip or stream; the
    caller owns it and hands it to :meth:`Limbs.solve` and :meth:`Limbs.held_shift_live`.

    Attributes:
        live: a live stream.
        dt: seconds per frame (live: of the last frame; 0 until told).
        shift_hold: the stance-width shift, frozen while a foot is planted.
        toe_hold: the toe pivot's flat-foot toe offset, held through a toe contact.
        pitch: ``(6, 4)`` each foot's last pitches, quaternions (w > 1: none yet): rows 0–1
            the toes', rows 2–3 a long foot's (``limb_kernel``'s pitch easing), from which
            the next frame's may turn only so far; rows 4–5 the source feet's last world
            rotations (how far they turned bounds the long foot's change).
        patch: ``(2, PATCH_STATE)`` each foot's last frame for the patch hold
            (``limb_kernel._hold_patch``; column 14 is 0 until set).
    """

    def __init__(self, live: bool, dt: float = 0.0) -> None:
        self.live = live
        self.dt = dt
        self.shift_hold = PlantedHold()
        self.toe_hold = PlantedHold()
        self.pitch = np.full((6, 4), 2.0)
        self.patch = np.zeros((2, PATCH_STATE))

    def set_dt(self, dt: float) -> None:
        """``dt`` seconds per frame from now on (the holds release over
        :data:`~footfall.retarget.stance.RELEASE_SECONDS`)."""
        self.dt = dt
        self.shift_hold.fade = self.toe_hold.fade = max(round(RELEASE_SECONDS / dt), 1)

    def reset(self) -> None:
        """Start again (a new calibration)."""
        self.shift_hold.reset()
        self.toe_hold.reset()
        self.pitch[:] = 2.0
        self.patch[:] = 0.0
