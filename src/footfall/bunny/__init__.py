"""The bunny of seed 000 as one character: its rig (:mod:`footfall.bunny.skeleton`) and its
body drawn from ellipsoids on that rig (:mod:`footfall.bunny.mesh`, imported on its own so the
rig does not pull in mesh code).
"""

from footfall.bunny.skeleton import PROPORTIONS, BunnyProportions, bunny_skeleton, sole_points

__all__ = ["PROPORTIONS", "BunnyProportions", "bunny_skeleton", "sole_points"]
