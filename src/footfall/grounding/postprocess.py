"""The clip post-process under its earlier name: :mod:`footfall.grounding.clip` holds it now
(feet, contacts, plan, solve, followers); this module re-exports what callers imported from it."""

from footfall.grounding.clip import (
    ClipFeet,
    GroundResult,
    animation_floor,
    clip_feet,
    contact_segments,
    contacts_from_segments,
    ground_clip,
    measure_clip,
)
from footfall.metrics.clip import score
from footfall.terrain.level import LevelGround

__all__ = [
    "ClipFeet",
    "GroundResult",
    "LevelGround",
    "animation_floor",
    "clip_feet",
    "contact_segments",
    "contacts_from_segments",
    "ground_clip",
    "measure_clip",
    "score",
]
