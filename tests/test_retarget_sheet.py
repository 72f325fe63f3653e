"""tools/retarget_sheet.py (the contact sheets and floor table of docs/retarget.md) on one pair:
it runs the command line, writes the sheet, prints one row, and measures the written file —
a file whose avatar is lifted 5 cm reads 5 cm higher."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pygltflib

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "retarget_sheet.py"
CLIP = ROOT / "tests" / "data" / "bvh" / "mixamo_stepping.bvh"


def load_script():
    spec = importlib.util.spec_from_file_location("retarget_sheet", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lifted(path: Path, out: Path, height: float) -> None:
    """``path`` with every scene root hung under a new node ``height`` metres up."""
    gltf = pygltflib.GLTF2().load(str(path))
    scene = gltf.scenes[gltf.scene or 0]
    gltf.nodes.append(pygltflib.Node(name="lift", translation=[0.0, height, 0.0],
                                     children=list(scene.nodes)))
    scene.nodes = [len(gltf.nodes) - 1]
    gltf.save_binary(str(out))


def test_one_pair(tmp_path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path / "sheets"), "--keep",
         str(tmp_path / "out"), "--clip", "mixamo_stepping", "--avatar", "CesiumMan"],
        capture_output=True, text=True, env=env, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert len(rows) == 2 and rows[1].startswith("| mixamo_stepping → CesiumMan | "), rows
    sheet = tmp_path / "sheets" / "mixamo_stepping__CesiumMan.png"
    assert sheet.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sheet.stat().st_size < 400_000

    script = load_script()
    written = tmp_path / "out" / "mixamo_stepping__CesiumMan.glb"
    up = tmp_path / "up.glb"
    lifted(written, up, 0.05)
    base, high = script.measure(CLIP, written, 0.68), script.measure(CLIP, up, 0.68)
    assert base["kind"] == "mesh"
    for key in ("left_median", "right_median", "left_min", "lowest", "swing_target"):
        assert np.isclose(high[key] - base[key], 0.05, atol=1e-5), key
    assert high["floating"] > base["floating"] + 40.0  # mm: the lowest vertex is 5 cm up
    assert high["in_band"] == 0.0  # no planted sole within −1…+1.5 cm any more
    assert high["gmd_source"] == base["gmd_source"]
