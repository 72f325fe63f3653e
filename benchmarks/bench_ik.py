"""Two-bone IK solves per second: footfall's batched solver vs a per-leg Python loop.

Run: ``.venv/bin/python benchmarks/bench_ik.py``  (about 30 s on a quiet core).

One million random bunny legs (thigh 0.19 m, shin 0.18 m, random pose, target and pole), each
solved in full (joint positions, residual and both world delta rotations), timed four ways:
  batched          — ``solve_two_bone`` on all legs at once (cache-sized blocks inside);
  batched, 1 block — the same with blocking off (one block of 10⁶), to show what blocking buys;
  scalar loop      — the same maths written per leg with Python floats and ``math``
                     (timed on a few thousand legs and scaled; agreement with the batched
                     result is checked);
  per-leg call     — ``solve_two_bone`` called once per leg (a batch of one).
Best and median wall time of several runs, and the best CPU time (process time, less
disturbed by other processes on a shared machine); the ratios use the best wall times.

Small batches (the per-frame calls of retargeting, grounding and the walker): calls per second
of ``solve_two_bone`` on batches of 1, 4 and 64 limbs (full weight, and with per-limb position
weights as retargeting passes them) and of ``knee_from_source``, against the per-leg Python
loop of the same maths (``solve_leg`` on each limb of the batch). Times are the best CPU time
per call over several runs of a few hundred calls.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

import footfall.ik.two_bone as two_bone
from footfall.ik import knee_from_source, solve_two_bone

LEGS = 1_000_000
LOOP_LEGS = 3_000
CALL_LEGS = 300
TARGET_PER_SECOND = 5e6


def timed(action: Callable[[], object], repeats: int) -> tuple[float, float, float]:
    """(best wall, median wall, best CPU) seconds of ``repeats`` calls after one warm-up call."""
    action()
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(wall), statistics.median(wall), min(cpu)


def random_legs(count: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Bunny legs hanging roughly down with a bent knee, targets around the foot, poles ahead."""
    rng = np.random.default_rng(seed)
    root = rng.uniform(-5, 5, size=(count, 3)) + [0, 0.53, 0]
    thigh_direction = rng.normal([0, -1, 0.3], 0.3, size=(count, 3))
    thigh_direction /= np.linalg.norm(thigh_direction, axis=-1, keepdims=True)
    shin_direction = rng.normal([0, -1, -0.3], 0.3, size=(count, 3))
    shin_direction /= np.linalg.norm(shin_direction, axis=-1, keepdims=True)
    mid = root + 0.19 * thigh_direction
    tip = mid + 0.18 * shin_direction
    target = root + rng.uniform([-0.2, -0.42, -0.2], [0.2, -0.1, 0.2], size=(count, 3))
    pole = root + rng.normal([0, -0.2, 1.0], 0.2, size=(count, 3))
    return root, mid, tip, target, pole


# --- the same maths, one leg at a time, with Python floats ---------------------------------


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _unit(a):
    n = math.sqrt(_dot(a, a))
    return (a[0] / n, a[1] / n, a[2] / n)


def _reject(a, axis):
    d = _dot(a, axis)
    return (a[0] - d * axis[0], a[1] - d * axis[1], a[2] - d * axis[2])


def _turn(a, b, half_axis):
    c = _dot(a, b)
    s = -1.0 if c < 0 else 1.0
    axis = _cross((s * a[0], s * a[1], s * a[2]), b)
    w = 1.0 + abs(c)
    n = math.sqrt(w * w + _dot(axis, axis))
    q = (w / n, axis[0] / n, axis[1] / n, axis[2] / n)
    if c < 0:
        q = _qmul(q, (0.0, *half_axis))
    return q


def _qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def _qrotate(q, v):
    xyz = q[1:]
    t = _cross(xyz, v)
    t = (2 * t[0], 2 * t[1], 2 * t[2])
    u = _cross(xyz, t)
    return (v[0] + q[0] * t[0] + u[0], v[1] + q[0] * t[1] + u[1], v[2] + q[0] * t[2] + u[2])


def solve_leg(root, mid, tip, target, pole, max_reach=0.999):
    """One bent leg with a pole off its axis (the benchmark's legs), same maths as the solver."""
    upper, lower = _sub(mid, root), _sub(tip, mid)
    l1, l2 = math.sqrt(_dot(upper, upper)), math.sqrt(_dot(lower, lower))
    to_target = _sub(target, root)
    distance = math.sqrt(_dot(to_target, to_target))
    direction = _unit(to_target)
    shortest = abs(l1 - l2) + 1e-6 * (l1 + l2)
    reach = min(max(distance, shortest), max_reach * (l1 + l2))
    old_cross = _cross(upper, lower)
    old_sine = math.sqrt(_dot(old_cross, old_cross)) / (l1 * l2)
    old_normal = _unit(old_cross)
    bend = _unit(_reject(_sub(pole, root), direction))
    cos_root = max(-1.0, min(1.0, (l1 * l1 + reach * reach - l2 * l2) / (2 * l1 * reach)))
    sin_root = math.sqrt(1 - cos_root * cos_root)
    up_axis = tuple(cos_root * d + sin_root * b for d, b in zip(direction, bend, strict=True))
    new_mid = tuple(r + l1 * a for r, a in zip(root, up_axis, strict=True))
    low_axis = _unit(tuple(reach * d - l1 * a for d, a in zip(direction, up_axis, strict=True)))
    new_tip = tuple(m + l2 * a for m, a in zip(new_mid, low_axis, strict=True))
    new_normal = _cross(bend, direction)
    new_side = tuple(cos_root * b - sin_root * d for d, b in zip(direction, bend, strict=True))
    old_up, old_low = _unit(upper), _unit(lower)
    # Upper delta: quaternion of the frame rotation by its trace (half-turn branch if needed).
    old_side = _cross(old_up, old_normal)
    w = 1 + _dot(old_up, up_axis) + _dot(old_normal, new_normal) + _dot(old_side, new_side)
    if w >= 0.5:
        v = [sum(c) for c in zip(_cross(old_up, up_axis), _cross(old_normal, new_normal),
                                 _cross(old_side, new_side), strict=True)]
        n = math.sqrt(w * w + _dot(v, v))
        upper_delta = (w / n, v[0] / n, v[1] / n, v[2] / n)
    else:
        plane = _turn(old_normal, new_normal, old_up)
        upper_delta = _qmul(_turn(_qrotate(plane, old_up), up_axis, new_normal), plane)
    # Lower delta: a further turn about the new normal by the change of the knee angle.
    old_cos = _dot(old_up, old_low)
    new_cos = _dot(up_axis, low_axis)
    new_sin = _dot(_cross(up_axis, low_axis), new_normal)
    cosine = new_cos * old_cos + new_sin * old_sine
    sine = new_sin * old_cos - new_cos * old_sine
    a, b = (1 + cosine, sine) if cosine >= 0 else (sine, 1 - cosine)
    n = math.hypot(a, b)
    knee = (a / n, b / n * new_normal[0], b / n * new_normal[1], b / n * new_normal[2])
    lower_delta = _qmul(knee, upper_delta)
    return new_mid, new_tip, abs(distance - reach), upper_delta, lower_delta


SMALL_SIZES = (1, 4, 64)
SMALL_CALLS = 300


def per_call(action: Callable[[], object], calls: int = SMALL_CALLS) -> float:
    """Best CPU seconds per call of ``action`` (5 runs of ``calls`` calls after a warm-up)."""
    action()
    best = math.inf
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            action()
        best = min(best, (time.process_time() - start) / calls)
    return best


def small_batches() -> None:
    """Per-call cost of small batches vs a per-leg Python loop of the same maths."""
    print(f"\nsmall batches: CPU µs per call (best of 5 × {SMALL_CALLS} calls), calls/s")
    print(f"{'limbs':>5}{'loop µs':>10}{'solve µs':>10}{'calls/s':>10}{'× loop':>8}"
          f"{'weighted µs':>13}{'knee µs':>9}{'knee calls/s':>14}")
    for size in SMALL_SIZES:
        legs = random_legs(size, seed=size)
        lists = [a.tolist() for a in legs]
        weight = np.linspace(0.0, 1.0, size)
        loop = per_call(lambda lists=lists: [solve_leg(*leg) for leg in zip(*lists, strict=True)])
        solve = per_call(lambda legs=legs: solve_two_bone(*legs))
        weighted = per_call(lambda legs=legs, weight=weight: solve_two_bone(
            *legs, position_weight=weight))
        knee = per_call(lambda legs=legs: knee_from_source(
            legs[0], legs[1], legs[2], legs[0], legs[3], 0.19, 0.18))
        print(f"{size:>5}{loop * 1e6:>10.1f}{solve * 1e6:>10.1f}{1 / solve:>10,.0f}"
              f"{loop / solve:>8.2f}{weighted * 1e6:>13.1f}{knee * 1e6:>9.1f}{1 / knee:>14,.0f}")


def main() -> int:
    legs = random_legs(LEGS)
    small = [a[:LOOP_LEGS] for a in legs]
    small_lists = [a.tolist() for a in small]
    calls = [a[:CALL_LEGS] for a in legs]

    def batched() -> object:
        return solve_two_bone(*legs)

    def one_block() -> object:
        saved = two_bone._BLOCK
        two_bone._BLOCK = LEGS
        try:
            return solve_two_bone(*legs)
        finally:
            two_bone._BLOCK = saved

    def scalar_loop() -> object:
        return [solve_leg(*leg) for leg in zip(*small_lists, strict=True)]

    def per_leg_call() -> object:
        return [solve_two_bone(*(a[i] for a in calls)) for i in range(CALL_LEGS)]

    # Same maths: the scalar loop agrees with the batched solver.
    reference = solve_two_bone(*small)
    loop = scalar_loop()
    tips = np.array([leg[1] for leg in loop])
    deltas = np.array([leg[3] for leg in loop])
    tip_error = np.abs(tips - reference.tip).max()
    delta_error = np.abs(np.abs(np.sum(deltas * reference.upper_rotation, -1)) - 1).max()

    rows = [
        ("batched", LEGS, timed(batched, 5)),
        ("batched, 1 block", LEGS, timed(one_block, 3)),
        ("scalar loop", LOOP_LEGS, timed(scalar_loop, 3)),
        ("per-leg call", CALL_LEGS, timed(per_leg_call, 3)),
    ]
    print(f"two-bone IK, {LEGS:,} legs (loops timed on fewer and scaled)")
    print(f"scalar loop vs batched: max tip difference {tip_error:.1e} m, "
          f"upper delta |dot|-1 {delta_error:.1e}")
    print(f"{'way':<18}{'legs':>10}{'best s':>9}{'median s':>10}{'CPU s':>8}"
          f"{'solves/s':>13}{'× loop':>8}{'CPU solves/s':>14}")
    loop_rate = LOOP_LEGS / rows[2][2][0]
    for name, count, (best, median, cpu) in rows:
        rate = count / best
        print(f"{name:<18}{count:>10,}{best:>9.3f}{median:>10.3f}{cpu:>8.3f}{rate:>13,.0f}"
              f"{rate / loop_rate:>8.1f}{count / cpu:>14,.0f}")
    batched_rate = LEGS / rows[0][2][0]
    verdict = "meets" if batched_rate >= TARGET_PER_SECOND else "misses"
    print(f"batched {batched_rate / 1e6:.2f} M solves/s wall ({LEGS / rows[0][2][2] / 1e6:.2f} M/s "
          f"CPU) {verdict} the 5 M/s target; blocking speed-up "
          f"{rows[1][2][0] / rows[0][2][0]:.1f}× wall, {rows[1][2][2] / rows[0][2][2]:.1f}× CPU")
    small_batches()
    print(f"load average when done: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
