"""What a new user tripped over (issue 37, item 8), each checked the way they met it: from the
command line, exit codes, stderr lines and the files left behind."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import numpy as np
import pytest

from footfall.cli import main
from motion_files import CESIUM, ROBOT, WALK, real_joints


def _free_port() -> int:
    """A localhost TCP/UDP port nobody listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _one_error(capsys: pytest.CaptureFixture[str], command: str) -> str:
    lines = [line for line in capsys.readouterr().err.splitlines()  # a first run compiles:
             if line.strip() and "compiling footfall's numeric kernels" not in line]
    assert len(lines) == 1 and lines[0].startswith(f"footfall {command}: error:"), lines
    return lines[0]


def test_a_failed_ground_leaves_no_output(tmp_path: Path, capsys) -> None:
    out = tmp_path / "g.bvh"
    # --npy needs a layout for a BVH input: refused before anything is written
    assert main(["ground", str(WALK), "--terrain", "level", "-o", str(out), "--npy"]) == 2
    assert "name the layout" in _one_error(capsys, "ground")
    assert not out.exists() and not out.with_suffix(".npy").exists()
    assert list(tmp_path.iterdir()) == []
    # a report into a folder that does not exist: refused before the clip is written
    assert main(["ground", str(WALK), "--terrain", "level", "-o", str(out), "--report",
                 str(tmp_path / "missing" / "r.json")]) == 2
    assert "--report" in _one_error(capsys, "ground")
    assert not out.exists()


def test_npy_outputs_are_announced_and_no_bar_runs_into_the_table(tmp_path: Path,
                                                                  capsys) -> None:
    np.save(tmp_path / "walk.npy", real_joints(60))
    out = tmp_path / "g.bvh"
    assert main(["ground", str(tmp_path / "walk.npy"), "--terrain", "level", "-o", str(out),
                 "--npy"]) == 0  # no --quiet: stdout and stderr are not terminals here
    captured = capsys.readouterr()
    assert f"wrote {out}, {out.with_suffix('.npy')}" in captured.out
    assert out.exists() and np.load(out.with_suffix(".npy")).shape == (60, 22, 3)
    assert "\r" not in captured.err and "grounding" not in captured.err  # no progress bar


def test_footfall_reads_back_its_own_bvh_at_the_same_scale(tmp_path: Path, capsys) -> None:
    # RobotExpressive (5.15 m tall) written as BVH used to read back "scaled to 1.7 m".
    from footfall.motion_io import load_motion, save_motion

    robot = load_motion(ROBOT, take="Walking")
    save_motion(robot.clip, tmp_path / "robot.bvh", robot)
    assert main(["info", str(tmp_path / "robot.bvh"), "--no-tree"]) == 0
    text = capsys.readouterr().out
    assert "unit             m (x 1 m per unit)" in text
    assert float(text.split("standing height")[1].split()[0]) > 4.5
    back = load_motion(tmp_path / "robot.bvh").clip
    names = back.skeleton.names
    order = [robot.clip.skeleton.index(name) for name in names]
    assert np.abs(back.global_positions() - robot.clip.global_positions()[:, order]).max() < 1e-5


def test_walk_refuses_an_unknown_output_and_prints_rounded_positions(tmp_path: Path,
                                                                     capsys) -> None:
    assert main(["walk", "-o", str(tmp_path / "z.txt"), "--seconds", "1"]) == 2
    assert "walk writes .bvh, .glb, .gltf" in _one_error(capsys, "walk")
    assert not (tmp_path / "z.txt").exists()
    assert main(["walk", "-o", str(tmp_path / "w.bvh"), "--terrain", "stairs", "--path",
                 "circle", "--radius", "6", "--seconds", "1"]) == 2
    line = _one_error(capsys, "walk")
    assert "--start-x 0 reaches" in line and "e-1" not in line, line


def test_a_wrong_local_ip_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["live", "--natnet", "127.0.0.1", "--local-ip", "10.255.255.1", "--to",
                 str(CESIUM), "--no-view", "--no-control", "--duration", "1",
                 "--settings-dir", str(tmp_path)]) == 2
    line = _one_error(capsys, "live")
    assert "--local-ip 10.255.255.1" in line and "Errno" not in line


def test_an_unreachable_natnet_server_warns_and_fails(tmp_path: Path, capsys) -> None:
    code = main(["live", "--natnet", "127.0.0.1", "--command-port", str(_free_port()),
                 "--data-port", "0", "--to", str(CESIUM), "--no-view", "--no-control",
                 "--duration", "0.5", "--settings-dir", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 1
    assert "0 frames" in captured.out and "nan" not in captured.out
    assert "warning: no frames came from the NatNet server 127.0.0.1" in captured.err


def test_a_refused_scheduler_port_fails_at_once(tmp_path: Path, capsys) -> None:
    pytest.importorskip("distributed")  # the cluster extra; its absence is its own message
    start = time.monotonic()
    assert main(["batch", "measure", str(WALK), "-o", str(tmp_path / "out"), "--scheduler",
                 f"tcp://127.0.0.1:{_free_port()}", "--quiet"]) == 2
    assert time.monotonic() - start < 10.0
    assert "cannot connect" in _one_error(capsys, "batch")


def test_batch_import_takes_a_folder(tmp_path: Path, capsys) -> None:
    # import takes one file; a folder of generated motions goes through batch import
    folder = tmp_path / "generated"
    folder.mkdir()
    joints = real_joints(40)
    np.save(folder / "a.npy", joints)
    np.save(folder / "b.npy", joints[:30])
    assert main(["import", str(folder), "-o", str(tmp_path / "x.bvh")]) == 2
    assert "a folder" in _one_error(capsys, "import")
    assert main(["batch", "import", str(folder), "-o", str(tmp_path / "bvh"), "--jobs", "1",
                 "--quiet"]) == 0
    from footfall.motion_io import load_motion

    assert load_motion(tmp_path / "bvh" / "a.bvh").clip.frame_count == 40
    assert load_motion(tmp_path / "bvh" / "b.bvh").clip.frame_count == 30


def test_the_issue_commands_read_gltf_and_vrma_sources(tmp_path: Path, capsys) -> None:
    # "footfall retarget CesiumMan.glb --to RobotExpressive.glb" read the GLB as BVH ("line
    # 18152: no MOTION section"); "footfall info x.vrma" said it reads .bvh files.
    out = tmp_path / "out.glb"
    assert main(["retarget", str(CESIUM), "--to", str(ROBOT), "-o", str(out), "--quiet"]) == 0
    assert "49 frames at 24 fps" in capsys.readouterr().out
    from footfall.gltf import load_animation, save_vrm_animation
    from motion_files import vrm_clip

    assert load_animation(out, fps=24.0).frame_count == 49
    avatar, clip = vrm_clip()
    save_vrm_animation(avatar, clip, tmp_path / "x.vrma")
    assert main(["info", str(tmp_path / "x.vrma"), "--no-tree"]) == 0
    assert "VRM Animation" in capsys.readouterr().out
