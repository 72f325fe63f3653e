"""Retargeting motion capture onto any humanoid avatar (seed 001).

``Retargeter(source, target)`` calibrates per-bone rotation offsets and maps clips (``apply``) or
live frames (``step``). It composes three parts: a :class:`Calibration` (what is saved and loaded
per avatar, a value object), :func:`retarget_clip` (a clip, a function of a
:class:`RetargetRig`, a calibration and the clip) and :class:`LiveRetarget` (what a live stream
keeps between frames), which solve with :mod:`.solve`. The rest lives in small modules:
:mod:`.rig` (the two rigs, and what a calibration makes of them), :mod:`.calibration` (bone
matching, offsets, sizes), :mod:`.spine` (chain redistribution), :mod:`.limbs` (four-limb IK and
feet), :mod:`.stance` (stance width held while planted), :mod:`.weights` (automatic IK weights),
:mod:`.fingers`, :mod:`.props`, :mod:`.head`, :mod:`.multi` (one pose onto many avatars) and
:mod:`.settings` (typed parameter registry, JSON per avatar).
"""

from footfall.retarget.fingers import PRESETS, FingerRig, preset
from footfall.retarget.live_state import LiveRetarget
from footfall.retarget.multi import CopiedPose, CopyTarget, PoseCopier
from footfall.retarget.offline import RetargetResult, retarget_clip
from footfall.retarget.props import PropAttachments
from footfall.retarget.retargeter import Retargeter
from footfall.retarget.rig import CalibratedRig, RetargetRig
from footfall.retarget.saved_calibration import Calibration
from footfall.retarget.settings import (
    PARAMETERS,
    Parameter,
    RetargetSettings,
    SettingsWarning,
    load_settings,
    save_settings,
)
from footfall.retarget.weights import LimbWeights, WeightThresholds

__all__ = [
    "PARAMETERS",
    "PRESETS",
    "CalibratedRig",
    "Calibration",
    "CopiedPose",
    "CopyTarget",
    "FingerRig",
    "LimbWeights",
    "LiveRetarget",
    "Parameter",
    "PoseCopier",
    "PropAttachments",
    "RetargetResult",
    "RetargetRig",
    "RetargetSettings",
    "Retargeter",
    "SettingsWarning",
    "WeightThresholds",
    "load_settings",
    "preset",
    "retarget_clip",
    "save_settings",
]
