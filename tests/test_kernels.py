"""The compiled kernels are made ready before a command's work, with a notice on the first run
after installing (an empty numba cache) and none once they are cached."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from footfall.kernels import NOTICE, prepare

ROOT = Path(__file__).resolve().parents[1]


def _walk(tmp_path: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "footfall.cli", "walk", "--seconds", "0.2", "--terrain", "stairs",
         "-o", str(tmp_path / "walk.bvh"), *extra],
        capture_output=True, text=True, env=env, timeout=300, check=False)


def test_first_run_says_it_compiles_then_never_again(tmp_path: Path) -> None:
    cache = tmp_path / "numba-cache"
    # A mistake is reported at once: the kernels compile while the command checks its input.
    start = time.perf_counter()
    mistake = _walk(tmp_path, cache, "--skeleton", str(tmp_path / "missing.bvh"))
    mistake_seconds = time.perf_counter() - start
    assert mistake.returncode == 2 and "missing.bvh" in mistake.stderr, mistake.stderr
    start = time.perf_counter()
    first = _walk(tmp_path, cache)
    first_seconds = time.perf_counter() - start
    assert mistake_seconds < 0.6 * first_seconds, (mistake_seconds, first_seconds)
    assert first.returncode == 0, first.stderr
    assert f"footfall walk: {NOTICE}" in first.stderr
    assert any(cache.rglob("*.nbi")), "the kernels were cached"
    again = _walk(tmp_path, cache)
    assert again.returncode == 0, again.stderr
    assert NOTICE not in again.stderr
    assert (tmp_path / "walk.bvh").stat().st_size > 0


@pytest.mark.parametrize("attempt", range(3))
def test_a_first_run_mistake_ends_with_exit_2_not_an_abort(tmp_path: Path, attempt: int) -> None:
    """The console script ends while the first run's compile still runs on its thread: Python's
    shutdown under a thread inside LLVM aborted the process now and then (the clean-clone CI saw
    "terminate called without an active exception", exit −6, after the one-line error)."""
    mistake = _walk(tmp_path, tmp_path / f"cache{attempt}", "--skeleton",
                    str(tmp_path / "missing.bvh"))
    assert mistake.returncode == 2, mistake.stderr
    assert mistake.stderr.count("\n") == 1 and "missing.bvh" in mistake.stderr, mistake.stderr


def test_prepare_is_quick_once_compiled_and_calls_no_notice() -> None:
    prepare()  # this process: compiled or loaded already, or now
    said: list[str] = []
    assert prepare(said.append, after=1.0) < 1.0
    assert said == []


def test_unknown_kernel_group_is_refused_by_name() -> None:
    import pytest

    with pytest.raises(ValueError, match="unknown kernel groups \\['ray'\\]"):
        prepare(groups=("ray",))


def test_retarget_group_compiles_what_a_real_stream_runs() -> None:
    """After preparing, retargeting a real clip (live and offline) compiles nothing new: the
    warm-up called every limb kernel with the types a stream passes."""
    from footfall import bvh
    from footfall.retarget import Retargeter, limb_kernel

    prepare(groups=("retarget",))
    stages = (limb_kernel.feet_stage, limb_kernel.reach_stage, limb_kernel.turn_stage)
    before = [len(stage.signatures) for stage in stages]
    assert min(before) >= 1
    clip = bvh.load(ROOT / "tests" / "data" / "bvh" / "mixamo_stepping.bvh")[:20]
    live = Retargeter(clip.skeleton, clip.skeleton)
    for frame in range(3):
        live.step(clip.rotations[frame], clip.positions[frame], 1 / clip.fps)
    Retargeter(clip.skeleton, clip.skeleton).apply(clip)
    assert [len(stage.signatures) for stage in stages] == before


def test_an_in_process_call_leaves_no_compiling_thread(tmp_path: Path) -> None:
    """``main([...])`` returns only after the background compile, even when the command fails
    at once: a thread compiling on would swap the caller's warning filters under it."""
    import threading

    from footfall.cli import main

    code = main(["walk", "--skeleton", str(tmp_path / "missing.bvh"), "-o",
                 str(tmp_path / "w.bvh")])
    assert code == 2
    assert not any(t.name == "footfall-kernels" and t.is_alive() for t in threading.enumerate())


COVERED = r"""
import importlib, sys, tempfile
import numba
from footfall import kernels
command, argv = sys.argv[1], sys.argv[2:]
module = importlib.import_module(f"footfall.commands.{command}")
kernels.prepare(groups=module.KERNELS)


def signatures():
    # each kernel once, under the module that defines it
    return {f"{name}.{attr}": len(value.signatures)
            for name, mod in list(sys.modules.items()) if name.startswith("footfall")
            for attr, value in vars(mod).items()
            if isinstance(value, numba.core.dispatcher.Dispatcher)
            and value.py_func.__module__ == name}


before = signatures()
if command == "demo":
    from footfall.viewer.simulation import DemoSettings, DemoSimulation
    for ik in (True, False):
        simulation = DemoSimulation(DemoSettings(ik_left=ik))
        for _ in range(30):
            simulation.step()
else:
    from footfall.cli import main
    assert main([command, *argv]) in (0, None)
after = signatures()
print(sorted(name for name, count in after.items() if count > before.get(name, 0)))
"""


@pytest.mark.parametrize("command, argv", [
    ("demo", []),
    ("walk", ["--seconds", "0.5", "--terrain", "stairs", "-o", "{tmp}/walk.bvh"]),
    ("ground", ["tests/data/bvh/mixamo_stepping.bvh", "--terrain", "stairs", "-o",
                "{tmp}/ground.bvh"]),
    ("render", ["--out", "{tmp}/still.png", "--terrain", "rocks"]),
    ("eval", ["--heights", "0.1", "--seconds", "1", "--quiet"]),
    ("retarget", ["tests/data/bvh/mixamo_stepping.bvh", "--to", "tests/data/bvh/cmu_131_01.bvh",
                  "-o", "{tmp}/retarget.bvh"]),
])
def test_a_commands_kernel_groups_cover_what_it_runs(tmp_path: Path, command: str,
                                                     argv: list[str]) -> None:
    """After ``prepare`` of a command's ``KERNELS`` groups, running the command (in a fresh
    process) compiles nothing more: the first-run notice covers every compile it waits for."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    args = [a.format(tmp=tmp_path) for a in argv]
    out = subprocess.run([sys.executable, "-c", COVERED, command, *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout[-2000:]
