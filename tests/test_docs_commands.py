"""Every ``footfall …`` command the README and docs/ show is run, as a reader would type it.

Collected: each line of a fenced code block that starts with ``footfall COMMAND`` (or
``.venv/bin/footfall``), continuation lines joined, comments dropped; and each inline code
span that is a whole command (it names an output with ``-o``). Inline fragments naming one
option (``footfall retarget --to``) are prose, not commands, and are not collected.

Each runs in a scratch folder holding small real files under the names the docs use
(``CLIP.bvh`` is the games105 walk cut short, ``AVATAR.glb`` CesiumMan, ``~/mocap/cmu`` a
folder of two clips …); placeholders with alternatives (``OUT.glb|.vrm``, ``stairs|hills``)
take the first. Time is bounded by options appended to a few commands (:data:`BOUNDS`:
``walk --seconds 2``, ``eval`` one height for 2 s, ``render`` half a second, ``batch
--jobs 1``, ``live --replay`` and ``natnet-serve`` for a fraction of a second).

Checked by parsing only (the command line accepts every option and value, nothing runs),
because they need a live peer or never end by themselves: ``demo`` (a web server until
Ctrl-C), ``live --natnet`` (a Motive server on the network) and ``batch … --scheduler`` (a
Dask cluster). Commands the docs show failing (their error line follows them) must exit 2.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
from pathlib import Path

import numpy as np
import pytest

from footfall import bvh
from footfall.cli import build_parser, main
from footfall.skeleton import Clip
from motion_files import CESIUM, ROBOT, VRM, WALK, mdm_results, real_joints

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DATA = ROOT / "tests" / "data"

#: Words the docs use for files and values → what the scratch folder holds.
PLACEHOLDERS = {
    "NAME": "stairs", "OUTDIR": "out_batch", "INPUTS…": "mocap/cmu", "M": "0", "S": "1",
    "ground|retarget|measure": "measure",  # batch's synopsis: the kind needing no options
    "keep|in-place|extract": "in-place",  # a synopsis's [--remove-heading] goes with in-place
    "/shared/mocap": "shared/mocap", "/shared/grounded": "shared/grounded",
}
#: Options appended to bound a command's time (argparse takes the last of a repeated option).
BOUNDS = {
    "walk": ["--seconds", "2"],
    "eval": ["--heights", "0.10", "--seconds", "2", "--quiet"],
    "render": ["--seconds", "0.5", "--fps", "4", "--width", "240", "--height", "120"],
    "batch": ["--jobs", "1", "--quiet"],
    "live": ["--duration", "0.5", "--no-view", "--no-control"],
}
#: Commands the docs show refused (their error line follows in the docs).
REFUSED = ("broken.vrm", "take.npz -o take.bvh", "mdm_layout.npy", "evil_results.npy")


def _clean(line: str) -> str:
    line = re.sub(r"^(\$ |\.venv/bin/)", "", line.strip())
    return line.split("  #")[0].split(" # ")[0].strip()


def documented_commands() -> list[tuple[str, str]]:
    """``(doc file name, command line)`` for every command the docs show, each once."""
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    found: dict[str, str] = {}
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
            for line in block.replace("\\\n", " ").splitlines():
                line = _clean(line)
                words = line.split()
                if len(words) > 1 and words[0] == "footfall" and words[1] in commands:
                    found.setdefault(" ".join(words), doc.name)
        for span in re.findall(r"`((?:\.venv/bin/)?footfall [a-z-]+ [^`]*? -o [^`]*)`", text):
            words = _clean(span).split()
            if words[1] in commands:
                found.setdefault(" ".join(words), doc.name)
    return sorted((doc, line) for line, doc in found.items())


COMMANDS = documented_commands()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _argv(line: str, home: Path) -> list[str]:
    """The command line's words after ``footfall``, placeholders resolved."""
    line = line.replace("[", " ").replace("]", " ").replace("--size X Z", "--size 40 4")
    words = []
    for word in shlex.split(line)[1:]:
        word = PLACEHOLDERS.get(word, word)
        if "|" in word:  # alternatives: the first (a suffix alternative keeps its stem)
            word = word.split("|")[0]
        word = PLACEHOLDERS.get(word, word)
        if word.startswith("~/"):
            word = str(home / word[2:])
        words.append(word)
    return words


class _RunsShell:
    """Unpickling this runs a shell command (the docs' malicious results.npy)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):  # noqa: ANN204 - pickle protocol
        return (os.system, (self.command,))


def _parse_only(argv: list[str]) -> bool:
    return (argv[0] == "demo" or (argv[0] == "live" and "--natnet" in argv)
            or (argv[0] == "batch" and "--scheduler" in argv))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding every file the docs' commands name."""
    from vrm_files import rewrite, vrm0_from_vrm1

    folder = tmp_path_factory.mktemp("docs")
    (folder / "tests").symlink_to(ROOT / "tests")
    walk = bvh.load(WALK)
    short = Clip(walk.skeleton, walk.rotations[:90].copy(), walk.positions[:90].copy(), walk.fps)
    for name in ("CLIP.bvh", "SRC.bvh", "SRC", "TARGET.bvh", "cmu_131_01.bvh", "walk.bvh",
                 "cmu.bvh"):
        bvh.save(short, folder / name)
    for name in ("AVATAR.glb", "AVATAR", "avatars/alice.glb", "CesiumMan.glb"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(CESIUM.read_bytes())
    (folder / "RobotExpressive.glb").write_bytes(ROBOT.read_bytes())
    (folder / "character.fbx").write_bytes(
        (DATA / "fbx" / "maya_kenney_character_7700_binary.fbx").read_bytes())
    for name in ("vrm1_debug_robot.vrm", "avatar.vrm"):
        (folder / name).write_bytes(VRM.read_bytes())
    (folder / "vrm1_mtoon_uv_test.vrm").write_bytes(
        (DATA / "avatars" / "vrm1_mtoon_uv_test.vrm").read_bytes())
    vrm0_from_vrm1(VRM, folder / "vrm0_debug_robot.vrm")
    rewrite(VRM, folder / "broken.vrm", lambda document: document["extensions"]["VRMC_vrm"][
        "humanoid"]["humanBones"].pop("leftFoot"))
    for relative in ("mocap/lafan1/walk.bvh", "mocap/cmu/a.bvh", "mocap/cmu/b.bvh",
                     "shared/mocap/a.bvh", "LIBRARY/a.bvh", "lib/a.bvh",
                     "takes/day1/slow_walk_1.bvh", "extra/one.bvh"):
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        bvh.save(short, folder / relative)
    joints = real_joints(60).astype(np.float32)
    for name in ("walk.npy", "sample.npy", "OUT.npy", "generated/s1.npy", "generated/s2.npy"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        np.save(folder / name, joints)
    slid = joints.copy()
    slid[20:30, [7, 10], 0] += np.linspace(0.0, 0.05, 10)[:, None]  # a foot sliding
    np.save(folder / "slid.npy", slid)
    np.save(folder / "mdm_layout.npy", np.moveaxis(joints, 0, -1))  # (22, 3, T)
    mdm_results(folder / "results.npy")
    marker = folder / "unpickled"
    np.save(folder / "evil_results.npy", {"motion": np.zeros((1, 22, 3, 4)),
                                           "evil": _RunsShell(f"touch {marker}")},
            allow_pickle=True)
    np.savez(folder / "take.npz", poses=np.zeros((30, 156)), trans=np.zeros((30, 3)),
             mocap_framerate=np.array(60.0))
    rest = joints[0].astype(np.float64)
    np.save(folder / "rest.npy", rest - rest[0] + [0.0, 0.95, 0.0])
    heights = (np.linspace(0, 255, 64)[None, :] * np.ones((64, 1))).astype(np.uint8)
    from PIL import Image

    Image.fromarray(heights).save(folder / "hills.png")
    (folder / "map.json").write_text("{}")
    (folder / "C.json").write_text(json.dumps({"left": [], "right": []}))
    return folder


@pytest.mark.parametrize(("doc", "line"), COMMANDS, ids=[f"{d}: {c[:60]}" for d, c in COMMANDS])
def test_documented_command_runs(doc: str, line: str, scratch: Path, monkeypatch,
                                 capsys) -> None:
    monkeypatch.chdir(scratch)
    monkeypatch.setenv("HOME", str(scratch))
    argv = _argv(line, scratch)
    if _parse_only(argv):
        args = build_parser().parse_args(argv)
        assert args.command == argv[0]
        return
    argv += BOUNDS.get(argv[0], [])
    if argv[0] == "live":
        argv += ["--settings-dir", str(scratch / "settings")]
    if argv[0] == "natnet-serve":
        argv += ["--duration", "0.3", "--command-port", str(_free_port())]
    code = main(argv)
    captured = capsys.readouterr()
    if any(word in line for word in REFUSED):
        lines = [line for line in captured.err.splitlines()
                 if line.strip() and "compiling footfall's numeric kernels" not in line]
        assert code == 2 and len(lines) == 1 and "error:" in lines[0], captured.err
        assert not (scratch / "unpickled").exists()
        return
    assert code == 0, f"{doc}: footfall {' '.join(argv)}\n{captured.err[-2000:]}"
    assert "Traceback" not in captured.err


def test_the_docs_show_commands_of_every_kind() -> None:
    shown = {line.split()[1] for _, line in COMMANDS}
    assert {"ground", "retarget", "walk", "import", "measure", "batch", "live", "info",
            "natnet-serve", "demo", "render", "eval"} <= shown
    assert len(COMMANDS) > 40
    assert os.path.exists(ROOT / "README.md")
