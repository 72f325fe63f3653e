"""A clip's planted stances grouped into footsteps, and the footsteps' neighbourhoods: what
:mod:`~footfall.grounding.clip.restep` moves together and judges a move by."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray


def footsteps(spans: list[tuple[int, int, int]], blend: int, kneels: list[bool]
               ) -> list[list[int]]:
    """The stances ``spans`` (foot, start, stop; by foot, then in order) grouped into
    footsteps: indices of the stances of one foot with swings shorter than ``blend`` frames
    between them, each kneeling with its knee on the floor (``kneels``, by span) as the one
    before it does or does not."""
    steps: list[list[int]] = []
    for k, (foot, start, _) in enumerate(spans):
        last = steps[-1][-1] if steps else -1
        if (steps and spans[last][0] == foot and start - spans[last][2] < blend
                and kneels[k] == kneels[last]):
            steps[-1].append(k)
        else:
            steps.append([k])
    return steps


def step_float(values: list[float], spans: list[tuple[int, int, int]], step: list[int]
                ) -> float:
    """A footstep's float (metres): its stances' ``values`` weighted by their frames (NaN
    where none is known)."""
    pairs = [(values[k], spans[k][2] - spans[k][1]) for k in step if np.isfinite(values[k])]
    if not pairs:
        return float("nan")
    return float(sum(v * n for v, n in pairs) / sum(n for _, n in pairs))


def per_span(steps: list[list[int]], moves: dict[int, FloatArray],
              base: dict[int, FloatArray]) -> dict[int, FloatArray]:
    """Footsteps' ``moves`` given to each of their stances (indices of the spans), added to
    the stances' ``base`` moves."""
    out = dict(base)
    for i, move in moves.items():
        for k in steps[i]:
            out[k] = out.get(k, 0.0) + move
    return out


def near(i: int, steps: list[list[int]], spans: list[tuple[int, int, int]],
          worse: NDArray[np.bool_], worse_swings: NDArray[np.bool_],
          swings: list[tuple[int, int, int, int | None, int | None]]) -> bool:
    """Whether footstep ``steps[i]`` is next to a stance (``worse``, by span) or a swing
    (``worse_swings``, by ``swings``) that got worse: one of its own stances, the stance of its
    foot before or after it, or a swing of its foot that leaves, reaches or breaks it."""
    members = steps[i]
    foot = spans[members[0]][0]
    around = [members[0] - 1, *members, members[-1] + 1]
    if any(0 <= k < len(spans) and spans[k][0] == foot and worse[k] for k in around):
        return True
    return bool(np.any(worse_swings & own_swings(i, steps, spans, swings)))


def own_swings(i: int, steps: list[list[int]], spans: list[tuple[int, int, int]],
                swings: list[tuple[int, int, int, int | None, int | None]]) -> NDArray[np.bool_]:
    """Which ``swings`` ``(S,)`` are footstep ``steps[i]``'s own: of its foot, leaving,
    reaching or breaking it."""
    foot, first, last = spans[steps[i][0]][0], spans[steps[i][0]][1], spans[steps[i][-1]][2]
    return np.array([side == foot and (stop == first or start == last or first <= start < last)
                     for side, start, stop, _, _ in swings], dtype=bool)


def apart(steps: list[list[int]], spans: list[tuple[int, int, int]], moving: list[int],
           reach: int) -> dict[int, int]:
    """The footsteps ``moving`` (indices of ``steps``) in two sets whose members are tried
    moved in the same solve: by every other footstep of a foot (each sees its neighbours stand
    as they were), except that a run of them apart from the rest — more than ``reach`` frames
    from any other — whose footsteps all fall in one set is tried with the first. Two sets by
    every other footstep alone put two floating footsteps far apart in different sets and cost
    the clip a solve per move for nothing (cmu_01_01 taken to 3,000 frames on the stairs: 14
    solves for two footsteps 1,000 frames apart, 6.5 s; 8 before its first floated, 4.1 s)."""
    by_time = sorted(moving, key=lambda k: spans[steps[k][0]][1])
    runs: list[list[int]] = []
    end = -np.inf
    for i in by_time:
        first, last = spans[steps[i][0]][1], spans[steps[i][-1]][2]
        if not runs or first - end > reach:
            runs.append([])
        runs[-1].append(i)
        end = max(end, last)
    sets: dict[int, int] = {}
    for run in runs:
        parity = {i: place(steps, spans, i) % 2 for i in run}
        alone = len(set(parity.values())) == 1
        sets.update({i: 0 if alone else p for i, p in parity.items()})
    return sets


def place(steps: list[list[int]], spans: list[tuple[int, int, int]], i: int) -> int:
    """Footstep ``i``'s place among its foot's footsteps (0 for the first)."""
    foot = spans[steps[i][0]][0]
    return sum(1 for step in steps[:i] if spans[step[0]][0] == foot)
