"""Retargeting motion capture onto any humanoid avatar (seed 001).

``Retargeter(source, target)`` calibrates per-bone rotation offsets and maps clips (``apply``) or
live frames (``step``); the parts live in small modules: :mod:`.calibration` (bone matching,
offsets, sizes), :mod:`.spine` (chain redistribution), :mod:`.limbs` (four-limb IK and feet),
:mod:`.stance` (stance width held while planted), :mod:`.weights` (automatic IK weights),
:mod:`.fingers`, :mod:`.props`, :mod:`.head`, :mod:`.multi` (one pose onto many avatars) and
:mod:`.settings` (typed parameter registry, JSON per avatar).
"""

from footfall.retarget.fingers import PRESETS, FingerRig, preset
from footfall.retarget.multi import CopiedPose, CopyTarget, PoseCopier
from footfall.retarget.props import PropAttachments
from footfall.retarget.retargeter import Retargeter
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
    "CopiedPose",
    "CopyTarget",
    "FingerRig",
    "LimbWeights",
    "Parameter",
    "PoseCopier",
    "PropAttachments",
    "RetargetSettings",
    "Retargeter",
    "SettingsWarning",
    "WeightThresholds",
    "load_settings",
    "preset",
    "save_settings",
]
