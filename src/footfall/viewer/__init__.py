"""The browser demo of seed 000: two bunnies walking side by side, left IK on, right IK off.

:mod:`~footfall.viewer.simulation` (no drawing) → :mod:`~footfall.viewer.scene` (batched viser
meshes) and :mod:`~footfall.viewer.controls` (panel, readout) → :mod:`~footfall.viewer.app`
(the 60 Hz loop); :mod:`~footfall.viewer.i18n` holds the Korean and English strings.
"""

from footfall.viewer.i18n import LANGUAGES, detect_language, text
from footfall.viewer.simulation import DemoFrame, DemoSettings, DemoSimulation

__all__ = [
    "LANGUAGES",
    "DemoFrame",
    "DemoSettings",
    "DemoSimulation",
    "detect_language",
    "text",
]
