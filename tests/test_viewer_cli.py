"""``footfall demo`` as a process: its URL, a busy port, bad options, Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from footfall.cli import main
from footfall.viewer.app import port_is_free

FOOTFALL = [sys.executable, "-m", "footfall.cli"]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1", "LANG": "C.UTF-8"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_line(process: subprocess.Popen, needle: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            break
        seen.append(line)
        if needle in line:
            return "".join(seen)
    raise AssertionError(f"{needle!r} never printed; got {''.join(seen)!r}")


def test_busy_port_is_reported_and_a_free_one_used() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [*FOOTFALL, "demo", "--port", str(port), "--no-browser", "--duration", "1"],
            capture_output=True,
            text=True,
            timeout=120,
            env=ENV,
            cwd=Path(__file__).parent,
        )
    assert done.returncode == 0, done.stderr
    assert f"port {port} is busy; using free port" in done.stdout
    assert "open http://127.0.0.1:" in done.stdout
    assert f"127.0.0.1:{port}/" not in done.stdout.split("open ")[1]


def test_ctrl_c_stops_cleanly_and_frees_the_port() -> None:
    port = _free_port()
    process = subprocess.Popen(
        [*FOOTFALL, "demo", "--port", str(port), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        _wait_for_line(process, f"open http://127.0.0.1:{port}/")
        assert not port_is_free("127.0.0.1", port)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert "stopped" in out
    assert "Traceback" not in err
    assert port_is_free("127.0.0.1", port)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["demo", "--speed", "5", "--no-browser"], "speed 5.0"),
        (["demo", "--port", "70000", "--no-browser"], "port 70000"),
    ],
)
def test_bad_demo_options_are_clean_errors(argv: list[str], named: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err
