"""The compiled kernels (numba) made ready before a command's real work.

The forward kinematics, the two-bone IK, the ray kernels and the grounding stages (the stepping
walker's flat pose, the pipeline's per-foot stages) are compiled on the first run after
installing (about 20 s of CPU here: the IK about 8 s, the grounding stages about 9 s) and
loaded from numba's cache afterwards (well under a second). :func:`prepare` calls each one once
on a tiny input, so that cost comes first — with a notice when it takes a while — instead of as
an unexplained pause inside the command (before the demo's URL, in the middle of a live
stream's first frame).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

#: Seconds of preparing after which the notice is shown (loading from the cache is faster).
NOTICE_AFTER = 1.5
NOTICE = ("compiling footfall's numeric kernels — the first run after installing only, "
          "about 20 s …")


def prepare(notice: Callable[[str], None] | None = None, after: float = NOTICE_AFTER) -> float:
    """Compile or load every kernel by calling it once; ``notice(NOTICE)`` is called if that
    takes longer than ``after`` seconds. Returns the seconds it took."""
    from footfall import quat
    from footfall.bunny import bunny_skeleton
    from footfall.gait.stepping import StepWalker
    from footfall.ik import knee_from_source, solve_two_bone
    from footfall.skeleton import FKPlan
    from footfall.terrain import MeshTerrain

    start = time.perf_counter()
    timer = threading.Timer(after, notice, (NOTICE,)) if notice is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        pose = quat.identity((2,))
        FKPlan(np.array([-1, 0]))(pose, np.array([[0.0, 1.0, 0.0], [0.0, -0.4, 0.0]]))
        hip, knee, foot = np.zeros(3), np.array([0.0, -0.2, 0.02]), np.array([0.0, -0.4, 0.0])
        goal = np.array([0.0, -0.35, 0.1])
        solve_two_bone(hip, knee, foot, goal, knee + [0.0, 0.0, 0.3])
        solve_two_bone(hip, knee, foot, goal, knee + [0.0, 0.0, 0.3], position_weight=0.5)
        knee_from_source(hip, knee, foot, hip, goal, 0.2, 0.2)
        square = MeshTerrain(np.array([[0.0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]]),
                             np.array([[0, 2, 1], [0, 3, 2]]), name="warm-up")
        square.raycast_down(np.array([[0.5, 0.5]]))
        square.raycast(np.array([[0.5, 1.0, 0.5]]), np.array([[0.0, -1.0, 0.0]]))
        StepWalker(bunny_skeleton(), square, 1, start_x=0.5, lateral_z=0.5).step()  # stages
    finally:
        if timer is not None:
            timer.cancel()
    return time.perf_counter() - start
