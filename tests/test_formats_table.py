"""The README's table "what each command reads and writes", cell by cell: every ✓ is read by
that command from a small real file of that format (FBX: the shared Maya character with its
take, a skinned avatar too), every — is refused in one line (exit 2, nothing written), and every
command in the last column writes that format and the file reads back.

The table is parsed from README.md, so the README and this test cannot drift apart."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import numpy as np
import pytest

from footfall.cli import main
from footfall.motion_io import load_motion
from motion_files import CESIUM, VRM, WALK, real_joints, write_formats

README = Path(__file__).resolve().parents[1] / "README.md"
#: The FBX file of the table's FBX row: a skinned character with a take (see data/SOURCES.md).
FBX = Path(__file__).parent / "data" / "fbx" / "maya_kenney_character_7700_binary.fbx"
#: Row label's first word(s) → the format's key in :func:`motion_files.write_formats`.
ROWS = {"BVH": "bvh", "glTF": "glb", "VRM Animation": "vrma", "VRM": "vrm", "FBX": "fbx",
        "joint positions": "npy", "AMASS": "npz", "MDM": "mdm"}
#: Column header → command key.
COLUMNS = {"`info`": "info", "`ground`": "ground", "`retarget` source": "retarget",
           "`retarget --to`": "retarget-to", "`measure`": "measure", "`batch`": "batch",
           "`import`": "import", "`live --replay`": "live", "`natnet-serve`": "natnet-serve"}


def readme_table() -> tuple[list[tuple[str, str, str]], dict[str, str]]:
    """``[(format, command, cell)]`` of the reading columns and ``{format: written-by text}``."""
    text = README.read_text(encoding="utf-8")
    section = text.split("### Motion files: what each command reads and writes", 1)[1]
    start = section.index("\n|") + 1
    lines = section[start:].split("\n\n", 1)[0].splitlines()  # the table's own lines
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    cells, written = [], {}
    for line in lines[2:]:
        row = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        label = next(key for key in ROWS if row[0].startswith(key))
        for column, cell in zip(header[1:-1], row[1:-1], strict=True):
            cells.append((ROWS[label], COLUMNS[column], cell))
        written[ROWS[label]] = row[-1]
    return cells, written


CELLS, WRITTEN = readme_table()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("formats")
    made = write_formats(folder / "inputs")
    made["fbx"] = folder / "inputs" / "take.fbx"
    made["fbx"].write_bytes(FBX.read_bytes())
    made["npz"] = folder / "inputs" / "take.npz"
    np.savez(made["npz"], poses=np.zeros((20, 156)), trans=np.zeros((20, 3)),
             mocap_framerate=np.array(30.0))
    np.save(folder / "inputs" / "rest.npy", real_joints(1)[0] - real_joints(1)[0, 0]
            + [0.0, 0.95, 0.0])
    return made


def _argv(command: str, source: Path, out: Path, tmp: Path) -> list[str]:
    if command == "info":
        return ["info", str(source), "--no-tree"]
    if command == "ground":
        return ["ground", str(source), "--terrain", "level", "-o", str(out / "g.bvh"),
                "--quiet"]
    if command == "retarget":
        return ["retarget", str(source), "--to", str(CESIUM), "-o", str(out / "r.bvh"),
                "--quiet"]
    if command == "retarget-to":
        return ["retarget", str(WALK), "--to", str(source), "-o", str(out / "r.bvh"), "--quiet"]
    if command == "measure":
        return ["measure", str(source), "--json", str(out / "m.json")]
    if command == "batch":  # a folder (searched by suffix), or the file itself for a .vrm
        folder = tmp / "library"
        folder.mkdir()
        (folder / source.name).write_bytes(source.read_bytes())
        given = folder / source.name if source.suffix == ".vrm" else folder
        return ["batch", "measure", str(given), "-o", str(out / "batch"), "--jobs", "1",
                "--quiet"]
    if command == "import":
        extra = (["--skeleton", str(source.with_name("rest.npy"))] if source.suffix == ".npz"
                 else [])
        return ["import", str(source), "-o", str(out / "i.bvh"), "--quiet", *extra]
    if command == "live":
        return ["live", "--replay", str(source), "--to", str(CESIUM), "--no-view",
                "--no-control", "--duration", "0.3", "--settings-dir", str(tmp / "settings"),
                "--quiet"]
    assert command == "natnet-serve"
    return ["natnet-serve", str(source), "--duration", "0.2", "--command-port",
            str(_free_port())]


@pytest.mark.parametrize(("fmt", "command", "cell"), CELLS,
                         ids=[f"{f}-{c}" for f, c, _ in CELLS])
def test_read_cell(fmt: str, command: str, cell: str, files: dict[str, Path],
                   tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    out.mkdir()
    code = main(_argv(command, files[fmt], out, tmp_path))
    captured = capsys.readouterr()
    if cell == "✓":
        assert code == 0, captured.err[-1500:]
        if command == "batch":
            rows = json.loads((out / "batch" / "summary.json").read_text())["rows"]
            assert [row["status"] for row in rows] == ["ok"], rows
        for written in out.glob("*.bvh"):
            assert load_motion(written).clip.frame_count > 0
        return
    assert cell == "—", cell
    if command == "batch":  # a file that fails is an error row; the batch exits 1
        rows = json.loads((out / "batch" / "summary.json").read_text())["rows"]
        assert code == 1 and [row["status"] for row in rows] == ["error"], rows
        message = rows[0]["error"]
        assert not [p for p in (out / "batch").rglob("*") if p.suffix == ".bvh"]
    else:
        lines = [line for line in captured.err.splitlines()
                 if line.strip() and "compiling footfall's numeric kernels" not in line]
        assert code == 2 and len(lines) == 1 and "error:" in lines[0], captured.err
        assert not list(out.iterdir())  # nothing written
        message = lines[0]
    assert message  # the reason, in one line


#: Command named in the last column → how it writes that format.
def _writes(fmt: str, command: str, files: dict[str, Path], out: Path) -> list[list[str]]:
    suffixes = {"bvh": [".bvh"], "glb": [".glb", ".gltf"], "vrm": [".vrm"], "vrma": [".vrma"],
                "npy": [".npy"]}[fmt]
    runs = []
    for suffix in suffixes:
        target = str(out / f"written{suffix}")
        source = {"vrm": files["vrm"], "vrma": files["vrm"], "npy": files["npy"]}.get(
            fmt, files["bvh"])
        if command == "ground":
            runs.append(["ground", str(source if fmt != "glb" else files["glb"]), "--terrain",
                         "level", "-o", target, "--quiet"])
        elif command == "retarget":
            avatar = VRM if fmt in ("vrm", "vrma") else CESIUM
            runs.append(["retarget", str(WALK), "--to", str(avatar), "-o", target, "--quiet"])
        elif command == "import":
            runs.append(["import", str(source), "-o", target, "--quiet"])
        else:
            assert command == "walk", command
            runs.append(["walk", "-o", target, "--seconds", "1"])
    return runs


WRITES = [(fmt, command) for fmt, text in WRITTEN.items()
          for command in re.findall(r"`([a-z-]+)`", text)
          if command in ("ground", "retarget", "import", "walk")]


@pytest.mark.parametrize(("fmt", "command"), WRITES, ids=[f"{f}-{c}" for f, c in WRITES])
def test_written_cell(fmt: str, command: str, files: dict[str, Path], tmp_path: Path,
                      capsys) -> None:
    for argv in _writes(fmt, command, files, tmp_path):
        assert main(argv) == 0, capsys.readouterr().err[-1500:]
        written = Path(argv[argv.index("-o") + 1])
        back = load_motion(written)
        assert back.clip.frame_count > 0
        expected = {".gltf": "gltf", ".glb": "glb"}.get(written.suffix, fmt)
        assert back.format == expected


def test_the_table_covers_every_format_and_command() -> None:
    assert {fmt for fmt, _, _ in CELLS} == set(ROWS.values())
    assert {command for _, command, _ in CELLS} == set(COLUMNS.values())
    assert {cell for _, _, cell in CELLS} == {"✓", "—"}
    assert len(WRITES) >= 12
