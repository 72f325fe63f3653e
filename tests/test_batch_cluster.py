"""``footfall batch --scheduler``: a real Dask scheduler and two workers on 127.0.0.1, one of
them killed mid-run; the outputs must equal a local ``--jobs 1`` run byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import DATA
from footfall.cli import main

pytest.importorskip("distributed", reason="footfall[cluster] is part of the test extra")

SRC = Path(__file__).resolve().parents[1] / "src"
CLIPS = ("games105_walk60.bvh", "mixamo_stepping.bvh", "mocapbank_zxy_cm.bvh")
COPIES = 10
START_TIMEOUT_S = 60.0
RUN_TIMEOUT_S = 120.0


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    return env


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """A scheduler and two single-thread workers on 127.0.0.1, random ports, no dashboard."""
    from distributed import Client

    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    logs = [open(folder / f"{name}.log", "w") for name in ("scheduler", "w0", "w1")]  # noqa: SIM115
    processes: list[subprocess.Popen] = []
    try:
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)],
            env=_env(), cwd=folder, stdout=logs[0], stderr=subprocess.STDOUT))
        deadline = time.monotonic() + START_TIMEOUT_S
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            assert time.monotonic() < deadline, "the Dask scheduler did not start"
            assert processes[0].poll() is None, (folder / "scheduler.log").read_text()
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written once whole, but give the writer its close
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        for index in range(2):
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address,
                 "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                 "--name", f"w{index}", "--death-timeout", "60"],
                env=_env(), cwd=folder, stdout=logs[index + 1], stderr=subprocess.STDOUT))
        with Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT_S)
        yield {"address": address, "workers": processes[1:], "folder": folder}
    finally:
        for process in reversed(processes):
            _stop(process)
        for log in logs:
            log.close()


def _library(root: Path) -> Path:
    """The shared clips copied 10 times (one folder per copy) plus two broken files."""
    library = root / "library"
    for copy in range(COPIES):
        folder = library / f"copy{copy:02d}"
        folder.mkdir(parents=True)
        for name in CLIPS:
            shutil.copyfile(DATA / "bvh" / name, folder / name)
    broken = library / "broken"
    broken.mkdir()
    text = (DATA / "bvh" / CLIPS[0]).read_text()
    (broken / "truncated.bvh").write_text(text[: len(text) // 3])  # cut inside the motion
    (broken / "not_bvh.bvh").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    return library


def _rows(folder: Path) -> dict[str, dict]:
    return {row["input"]: row for row in json.loads((folder / "summary.json").read_text())["rows"]}


def _outputs(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in folder.rglob("*.bvh")}


def test_cluster_batch_survives_a_killed_worker(cluster: dict, tmp_path: Path,
                                                capsys: pytest.CaptureFixture) -> None:
    library = _library(tmp_path)
    reference = tmp_path / "local"
    assert main(["batch", "ground", str(library), "-o", str(reference), "--terrain", "stairs",
                 "--jobs", "1", "--quiet"]) == 1
    expected = _outputs(reference)
    assert len(expected) == COPIES * len(CLIPS)

    out = tmp_path / "cluster"
    run = subprocess.Popen(  # relative paths: the workers run in another folder
        [sys.executable, "-m", "footfall.cli", "batch", "ground", library.name, "-o", out.name,
         "--terrain", "stairs", "--scheduler", cluster["address"], "--quiet"],
        env=_env(), cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    victim = cluster["workers"][0]
    manifest = out / "manifest.jsonl"
    deadline = time.monotonic() + RUN_TIMEOUT_S
    try:
        while not (manifest.exists() and len(manifest.read_text().splitlines()) >= 4):
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "the cluster batch made no progress"
            time.sleep(0.02)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        done_at_kill = len(manifest.read_text().splitlines())
        stdout, stderr = run.communicate(timeout=RUN_TIMEOUT_S)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(timeout=10)
    assert done_at_kill < COPIES * len(CLIPS), "the worker was killed after the run"
    assert run.returncode == 1, stderr
    assert "2 of 32 files failed" in stderr
    assert _outputs(out) == expected  # every good output, byte for byte
    rows = _rows(out)
    assert len(rows) == 32
    for name in ("broken/truncated.bvh", "broken/not_bvh.bvh"):
        assert rows[name]["status"] == "error" and rows[name]["output"] == ""
        assert name.split("/")[1] in rows[name]["error"]  # the message names the file
    assert sum(row["status"] == "ok" for row in rows.values()) == 30
    assert not [p for p in out.rglob("*") if p.name.startswith(".")]  # no temporary left
    assert len(manifest.read_text().splitlines()) == 30

    # the surviving worker alone, data (and a terrain mesh file) shipped, not shared
    import trimesh

    slab = trimesh.creation.box(extents=(40.0, 0.2, 40.0))
    slab.apply_translation((0.0, -0.1, 0.0))
    slab.export(tmp_path / "slab.obj")
    inputs = [str(library / "copy03"), str(library / "broken")]
    options = ["--terrain", str(tmp_path / "slab.obj"), "--quiet"]
    assert main(["batch", "ground", *inputs, "-o", str(tmp_path / "slab_local"), "--jobs", "1",
                 *options]) == 1
    shipped = tmp_path / "shipped"
    code = main(["batch", "ground", *inputs, "-o", str(shipped), "--scheduler",
                 cluster["address"], "--ship-data", *options])
    assert code == 1
    assert _outputs(shipped) == _outputs(tmp_path / "slab_local")
    assert len(_outputs(shipped)) == 3
    assert capsys.readouterr().err.count("2 of 5 files failed") == 2


def test_unreachable_scheduler_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture) -> None:
    import socket

    from footfall.batch import cluster as cluster_module

    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT_S", 2)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = main(["batch", "ground", str(DATA / "bvh" / CLIPS[1]), "-o", str(tmp_path / "o"),
                 "--terrain", "stairs", "--scheduler", f"tcp://127.0.0.1:{port}", "--quiet"])
    assert code == 2
    error = capsys.readouterr().err
    assert f"--scheduler tcp://127.0.0.1:{port}: cannot connect" in error
