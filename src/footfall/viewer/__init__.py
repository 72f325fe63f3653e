"""The browser demo of seed 000: two bunnies walking side by side, left IK on, right IK off.

The data path: :mod:`~footfall.viewer.simulation` (terrain + walkers, fixed 1/60 s steps, no
drawing) → :mod:`~footfall.viewer.scene` (viser meshes, batched) and
:mod:`~footfall.viewer.controls` (panel and readout) → :mod:`~footfall.viewer.app` (the 60 Hz
loop). :mod:`~footfall.bunny.mesh` builds the bunny from code; :mod:`~footfall.viewer.i18n`
holds the Korean and English strings.
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
