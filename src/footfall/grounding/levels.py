"""Old name of the grounding pipeline's forward kinematics, kept for imports.

The one FK is :class:`footfall.skeleton.FKPlan`: ``LevelFK(parents, needed)`` is
``FKPlan(parents, needed)`` (``needed`` closed under ancestors, other rows zeros).
"""

from __future__ import annotations

from footfall.skeleton import FKPlan

LevelFK = FKPlan

__all__ = ["LevelFK"]
