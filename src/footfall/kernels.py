"""The compiled kernels (numba) made ready before a command's real work.

This module holds no kernel: each lives next to the maths it computes (``ik/_kernel.py``,
``grounding/stage_kernels.py``, the ``*_rows`` kernels of ``grounding/``, ``retarget/``); this
one only calls them once, each group on a tiny input, so that they are compiled or loaded.

The kernels compile on the first run after installing (seconds of CPU each) and load from
numba's cache afterwards. :func:`prepare` calls the ones a command uses once on a tiny input, so
that cost comes first, with a notice, instead of as an unexplained pause inside the command.

Groups: ``"kinematics"`` (FK and IK, always prepared), ``"grounding"`` (downward terrain rays
and the stepping walker's stages: what the demo runs), ``"clip"`` (slope angles, sole tilt,
hips reach limit, the contact rule's step over a clip), ``"walk"`` (the procedural walker's
swing ease), ``"retarget"`` (the retargeter's limb and weight stages, the knee copy).
A command names its groups in its ``KERNELS`` attribute (``footfall.cli``); any other kernel
compiles on its first call.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from footfall.skeleton import Skeleton

#: Seconds of preparing after which the notice is shown (loading from the cache is faster).
NOTICE_AFTER = 1.5
NOTICE = ("compiling footfall's numeric kernels — the first run after installing only, "
          "about 10 s …")
GROUPS = ("kinematics", "grounding", "clip", "walk", "retarget")


def prepare(notice: Callable[[str], None] | None = None, after: float = NOTICE_AFTER,
            groups: Iterable[str] = GROUPS) -> float:
    """Compile or load the kernels of ``groups`` (and always ``"kinematics"``) by calling each
    once; ``notice(NOTICE)`` is called if that takes longer than ``after`` seconds. Returns the
    seconds it took."""
    wanted = set(groups) | {"kinematics"}
    unknown = wanted - set(GROUPS)
    if unknown:
        raise ValueError(f"unknown kernel groups {sorted(unknown)}; known: {', '.join(GROUPS)}")
    start = time.perf_counter()
    timer = threading.Timer(after, notice, (NOTICE,)) if notice is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        _kinematics()
        if "grounding" in wanted:
            _grounding()
        if "clip" in wanted:
            _clip()
        if "walk" in wanted:
            _walk()
        if "retarget" in wanted:
            _retarget()
    finally:
        if timer is not None:
            timer.cancel()
    return time.perf_counter() - start


_background: threading.Thread | None = None


def prepare_in_background(notice: Callable[[str], None] | None = None,
                          after: float = NOTICE_AFTER, groups: Iterable[str] = GROUPS) -> None:
    """:func:`prepare` on a daemon thread, so a command checks its input (and reports a
    mistake at once) while the kernels compile; the command's first kernel call waits for them
    (numba's compiler lock), or :func:`wait_ready` does."""
    global _background
    _background = threading.Thread(target=prepare, args=(notice, after, tuple(groups)),
                                   name="footfall-kernels", daemon=True)
    _background.start()


def compiling() -> bool:
    """Whether a :func:`prepare_in_background` is still compiling."""
    return _background is not None and _background.is_alive()


def wait_ready() -> None:
    """Return once a :func:`prepare_in_background` (if any) has finished: before a real-time
    loop whose first frame must not stall."""
    if _background is not None:
        _background.join()


def _kinematics() -> None:
    from footfall import quat
    from footfall.ik import solve_two_bone
    from footfall.skeleton import FKPlan

    pose = quat.identity((2,))
    FKPlan(np.array([-1, 0]))(pose, np.array([[0.0, 1.0, 0.0], [0.0, -0.4, 0.0]]))
    hip, knee, foot = np.zeros(3), np.array([0.0, -0.2, 0.02]), np.array([0.0, -0.4, 0.0])
    goal = np.array([0.0, -0.35, 0.1])
    solve_two_bone(hip, knee, foot, goal, knee + [0.0, 0.0, 0.3])
    solve_two_bone(hip, knee, foot, goal, knee + [0.0, 0.0, 0.3], position_weight=0.5)


def _grounding() -> None:
    from footfall.bunny import bunny_skeleton
    from footfall.gait.stepping import StepWalker
    from footfall.terrain import MeshTerrain

    square = MeshTerrain(np.array([[0.0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]]),
                         np.array([[0, 2, 1], [0, 3, 2]]), name="warm-up")
    square.raycast_down(np.array([[0.5, 0.5]]))
    StepWalker(bunny_skeleton(), square, 1, start_x=0.5, lateral_z=0.5).step()  # the stages


def _clip() -> None:
    from footfall.footing import clip_contacts
    from footfall.grounding.foot_align import align_rotation, slope_angles
    from footfall.grounding.hips import reach_limit

    up, forward = np.array([[0.0, 1.0, 0.0]]), np.array([[0.0, 0.0, 1.0]])
    slope_angles(up, forward, 0.5, 0.45)
    align_rotation(np.zeros(1), np.zeros(1), forward)
    reach_limit(np.array([[0.1, 0.0, 0.0]]), np.array([[0.1, 0.8, 0.0]]), np.ones(1), 0.8)
    points = np.zeros((2, 2, 2, 3))
    clip_contacts(points, points, points[:, :, 0], 0.0, 30.0)  # the contact rule's step


def _walk() -> None:
    from footfall.grounding.footsteps import smoothstep

    smoothstep(np.zeros(1))  # the procedural walker's swing ease


def _retarget() -> None:
    from footfall.retarget import Retargeter, body_floor
    from footfall.skeleton import Clip

    skeleton = warm_up_humanoid()
    clip = Clip.from_rest(skeleton, frames=2)
    Retargeter(skeleton, skeleton).apply(clip)
    Retargeter(skeleton, skeleton).step(clip.rotations[0], clip.positions[0])  # live
    body_floor.warm_up()  # arms lifted off the floor (not in the rest pose above)


def warm_up_humanoid() -> Skeleton:
    """A tiny humanoid (Mixamo-style names, metres, T-pose) to call the retargeter's kernels on:
    hips, spine, neck, head, arms with hands, legs with toes."""
    from footfall.skeleton import Skeleton

    joints: list[tuple[str, str | None, tuple[float, float, float]]] = [
        ("Hips", None, (0.0, 0.9, 0.0)), ("Spine", "Hips", (0.0, 0.15, 0.0)),
        ("Neck", "Spine", (0.0, 0.35, 0.0)), ("Head", "Neck", (0.0, 0.1, 0.0)),
    ]
    for side, x in (("Left", 1.0), ("Right", -1.0)):
        joints += [
            (f"{side}Arm", "Spine", (0.18 * x, 0.3, 0.0)),
            (f"{side}ForeArm", f"{side}Arm", (0.28 * x, 0.0, 0.0)),
            (f"{side}Hand", f"{side}ForeArm", (0.25 * x, 0.0, 0.0)),
            (f"{side}UpLeg", "Hips", (0.1 * x, -0.05, 0.0)),
            (f"{side}Leg", f"{side}UpLeg", (0.0, -0.42, 0.0)),
            (f"{side}Foot", f"{side}Leg", (0.0, -0.4, 0.0)),
            (f"{side}ToeBase", f"{side}Foot", (0.0, -0.05, 0.12)),
        ]
    names = [name for name, _, _ in joints]
    parents = [-1 if parent is None else names.index(parent) for _, parent, _ in joints]
    return Skeleton(names, np.array(parents), np.array([offset for _, _, offset in joints]))
