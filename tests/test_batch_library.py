"""The library functions behind ``footfall ground``, ``measure``, ``retarget`` and ``batch``:
called directly they return reports whose figures are what the commands write, and
``footfall.batch`` runs them without any command module, argv or printed output."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA
from footfall import bvh
from footfall.batch.jobs import flatten_numbers
from footfall.cli import main
from footfall.grounding.clip.files import MEASURE_TERRAIN, GroundOptions, ground_file, measure_file
from footfall.retarget.files import RetargetOptions, retarget_file

SRC = Path(__file__).resolve().parents[1] / "src"
STEPS = DATA / "bvh" / "mixamo_stepping.bvh"
WALK = DATA / "bvh" / "games105_walk60.bvh"
#: footfall's batch layer: what must run the library without the command line.
BATCH_SOURCES = sorted((SRC / "footfall" / "batch").glob("*.py"))


def test_ground_file_reports_what_the_command_writes(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    written = tmp_path / "command.json"
    assert main(["ground", str(STEPS), "--terrain", "hills", "--ball-clearance", "0.05",
                 "-o", str(tmp_path / "command.bvh"), "--report", str(written), "--quiet"]) == 0
    printed = capsys.readouterr().out
    report = ground_file(STEPS, tmp_path / "library.bvh",
                         GroundOptions("hills", ball_clearance=0.05))
    # the whole --report document, to the character, and the same clip to the byte
    assert json.dumps(report.metrics, indent=1) + "\n" == written.read_text()
    assert (tmp_path / "library.bvh").read_bytes() == (tmp_path / "command.bvh").read_bytes()
    assert report.written == (str(tmp_path / "library.bvh"),)
    clip = bvh.load(tmp_path / "library.bvh")
    assert (report.frames, report.fps) == (clip.frame_count, clip.fps)
    assert report.swing_lift_max_m > 0  # the clearance raised a swing, and the command said so
    assert f"up to {100 * report.swing_lift_max_m:.1f} cm" in printed
    after = report.metrics["after"]["physdiff_penetration_mm"]
    assert any(line.split()[:1] == ["physdiff_penetration_mm"] and float(line.split()[2])
               == pytest.approx(after, abs=5e-5) for line in printed.splitlines())


def test_measure_file_reports_the_measure_row_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["measure", str(WALK), "--json", str(tmp_path / "row.json")]) == 0
    row = json.loads((tmp_path / "row.json").read_text())
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    report = measure_file(WALK)
    assert sorted(tmp_path.rglob("*")) == before  # no clip written anywhere
    assert report.output is None and report.written == ()
    numbers = flatten_numbers(report.metrics)
    assert {"before.gmd_foot_skate_ratio", "after.stance_slip_m", "frames"} <= set(numbers)
    assert {key: row[key] for key in numbers} == numbers
    assert row["frames"] == report.frames == bvh.load(WALK).frame_count
    assert report.metrics["terrain"] == MEASURE_TERRAIN == "level"  # the clip's own floor


def test_retarget_file_reports_what_the_command_prints(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    command = tmp_path / "command.bvh"
    assert main(["retarget", str(WALK), "--to", str(STEPS), "-o", str(command), "--quiet",
                 "--ik", "fk"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    out = tmp_path / "library.bvh"
    report = retarget_file(WALK, out, RetargetOptions(str(STEPS), ik="fk"))
    assert line == (f"wrote {command}: {report.frames} frames at {report.fps:g} fps, "
                    f"{report.joint_count} joints, size ratio {report.size_ratio:.3f}; "
                    f"{report.calibration}")
    assert out.read_bytes() == command.read_bytes()
    clip = bvh.load(out)
    assert report.frames == clip.frame_count == bvh.load(WALK).frame_count
    assert report.joint_count == clip.skeleton.joint_count == bvh.load(STEPS).skeleton.joint_count
    assert report.output == str(out) and report.preview is None


def test_import_file_reports_what_the_command_prints(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    import numpy as np

    from footfall.joints.files import ImportOptions, import_file
    from joints_data import walker_joints

    positions = walker_joints(seconds=2.0)
    np.save(tmp_path / "walk.npy", positions)
    command = tmp_path / "command.bvh"
    assert main(["import", str(tmp_path / "walk.npy"), "-o", str(command), "--fps", "30"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    out = tmp_path / "library.bvh"
    report = import_file(tmp_path / "walk.npy", out, ImportOptions(fps=30.0))
    assert out.read_bytes() == command.read_bytes()
    clip = bvh.load(out)
    assert (report.frames, report.fps) == (clip.frame_count, clip.fps) == (len(positions), 30.0)
    assert report.fit_mean_error_mm is not None and report.fit_max_error_mm is not None
    assert 0 < report.fit_mean_error_mm <= report.fit_max_error_mm
    for figure in (f"{report.frames} frames at 30 fps", f"layout {report.layout} "
                   f"({report.joint_count} joints, Y up)",
                   f"{report.fit_mean_error_mm:.2f} mm mean",
                   f"{report.fit_max_error_mm:.2f} mm max ({report.worst_joint})"):
        assert figure in line, (figure, line)


def test_a_library_error_names_the_file_and_writes_nothing(tmp_path: Path) -> None:
    from footfall.errors import FootfallError

    broken = tmp_path / "broken.bvh"
    broken.write_text("HIERARCHY\nROOT Hips\n{\n")
    with pytest.raises(FootfallError, match="broken.bvh"):
        ground_file(broken, tmp_path / "o.bvh", GroundOptions("flat"))
    with pytest.raises(FootfallError, match="--calibrate-frame 'x'"):
        retarget_file(WALK, tmp_path / "o.bvh", RetargetOptions(str(STEPS), calibrate_frame="x"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.bvh"]


def test_batch_puts_the_files_beside_a_clip_beside_its_output(tmp_path: Path) -> None:
    library = tmp_path / "lib" / "walks"
    library.mkdir(parents=True)
    (library / "walk.bvh").write_bytes(WALK.read_bytes())
    out = tmp_path / "out"
    assert main(["batch", "ground", str(tmp_path / "lib"), "-o", str(out), "--terrain", "flat",
                 "--root-motion", "in-place", "--contacts-out", "--jobs", "1", "--quiet"]) == 0
    direct = tmp_path / "direct.bvh"
    report = ground_file(WALK, direct, GroundOptions("flat", root_motion="in-place",
                                                     contacts_out=True))
    assert sorted(Path(p).name for p in report.extras) == ["direct.contacts.csv",
                                                           "direct.root.csv"]
    for name in ("walk.bvh", "walk.root.csv", "walk.contacts.csv"):
        made = (out / "walks" / name).read_bytes()
        assert made == (tmp_path / name.replace("walk", "direct")).read_bytes()
    assert not [p for p in out.rglob("*") if p.name.startswith(".")]


def test_batch_runs_without_any_command_module(tmp_path: Path) -> None:
    """A batch (a job of each kind) in a fresh interpreter never imports ``footfall.commands``
    nor ``footfall.cli``."""
    script = f"""
import sys
from footfall.batch import Job, JobSpec, run_job
from footfall.grounding.clip.files import GroundOptions
from footfall.retarget.files import RetargetOptions
for kind, options in (("measure", None), ("ground", GroundOptions("flat")),
                      ("retarget", RetargetOptions({str(STEPS)!r}))):
    out = None if kind == "measure" else {str(tmp_path)!r} + "/" + kind + ".bvh"
    spec = JobSpec(kind, options, None if kind == "measure" else ".bvh")
    row = run_job(Job({str(WALK)!r}, "walk.bvh", kind + ".bvh", out, spec))["row"]
    assert row["status"] == "ok" and row["frames"] > 0, row
print(sorted(m for m in sys.modules if m.startswith(("footfall.commands", "footfall.cli"))))
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get(
        "PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "ground.bvh").is_file() and (tmp_path / "retarget.bvh").is_file()


def _offences(text: str, name: str) -> list[str]:
    """What in the source ``text`` runs a command as if it were a library: an import of
    ``footfall.commands``, ``footfall.cli``, ``importlib`` or ``re``, argparse's private parts
    or a parser run, an argv built, stdout or stderr replaced or redirected."""
    found = []
    for node in ast.walk(ast.parse(text)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        if any(module in ("re", "importlib", "footfall.cli", "footfall.commands")
               or module.startswith(("importlib.", "footfall.commands.")) for module in names):
            found.append(f"{name}:{node.lineno}: import {', '.join(names)}")
        if isinstance(node, ast.Attribute) and node.attr in (
                "_actions", "_add_action", "parse_args", "parse_known_args", "import_module"):
            found.append(f"{name}:{node.lineno}: .{node.attr}")
        if isinstance(node, (ast.Attribute, ast.Name)) and "redirect_std" in getattr(
                node, "attr", getattr(node, "id", "")):
            found.append(f"{name}:{node.lineno}: redirect")
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Attribute) and target.attr in ("stdout", "stderr")
                for target in node.targets):
            found.append(f"{name}:{node.lineno}: sys.stdout/stderr replaced")
        if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr"
                and node.args and (getattr(node.args[0], "id", "") == "sys" or any(
                    isinstance(a, ast.Constant) and a.value in ("stdout", "stderr")
                    for a in node.args))):
            found.append(f"{name}:{node.lineno}: setattr stdout/stderr")
        if isinstance(node, (ast.Name, ast.arg)) and "argv" in getattr(
                node, "id", getattr(node, "arg", "")):
            found.append(f"{name}:{node.lineno}: argv")
    return found


def test_the_batch_layer_builds_no_argv_and_reads_no_output() -> None:
    found = [item for path in BATCH_SOURCES for item in _offences(path.read_text(), path.name)]
    assert len(BATCH_SOURCES) >= 8 and found == []
    # the batch command builds its options from its own arguments (the options half of the
    # per-file commands' parsers): no argparse internals, no command module looked up by name,
    # no argv for a command, nothing redirected
    command = SRC / "footfall" / "commands" / "batch.py"
    assert [item for item in _offences(command.read_text(), command.name)
            if "import footfall.commands" not in item] == []


def test_the_offence_finder_finds_what_batch_did_before() -> None:
    """The finder above on the shape of the old job runner: every part of it is caught."""
    old = """
import importlib, re, contextlib, sys
def run(spec, source, parser, text):
    argv = [source, *spec.options, "--quiet"]
    command = importlib.import_module("footfall.commands.ground")
    with contextlib.redirect_stdout(None):
        args = parser.parse_args(argv)
    for name in ("stdout", "stderr"):
        setattr(sys, name, None)
    match = re.search(r": (\\d+) frames", text)
    taken = {flag for action in parser._actions for flag in action.option_strings}
"""
    found = " ".join(_offences(old, "old"))
    for part in ("import importlib, re", ".import_module", "redirect", ".parse_args", "argv",
                 "._actions", "setattr stdout"):
        assert part in found, part
    assert _offences("import sys\nprint('x', file=sys.stderr)\n", "fine") == []
