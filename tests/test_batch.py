"""``footfall batch`` on this machine: inputs, per-file errors, summaries, atomic outputs, resume
(including after SIGKILL) and usage errors."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import DATA
from footfall import bvh
from footfall.batch import BatchError, JobSpec, expand_inputs, run_batch
from footfall.batch.jobs import Job, flatten_numbers, run_job
from footfall.batch.manifest import MANIFEST_NAME
from footfall.cli import main
from footfall.grounding.clip.files import GroundOptions

SRC = Path(__file__).resolve().parents[1] / "src"
WALK, STEPS, ZXY = "games105_walk60.bvh", "mixamo_stepping.bvh", "mocapbank_zxy_cm.bvh"
KILL_TIMEOUT_S = 120.0


def _library(root: Path, copies: int = 1, broken: bool = True, other: bool = True) -> Path:
    """walks/WALK, walks/stairs/STEPS, other/ZXY (unless not ``other``), bad.bvh (if
    ``broken``); with ``copies`` > 1 that many copies of the clips in c0/, c1/, …"""
    library = root / "library"
    layout = [(WALK, "walks"), (STEPS, "walks/stairs")] + ([(ZXY, "other")] if other else [])
    for copy in range(copies):
        for name, folder in layout:
            target = library / f"c{copy}" / folder if copies > 1 else library / folder
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(DATA / "bvh" / name, target / name)
    if broken:
        (library / "bad.bvh").write_text("HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n")
    return library


def _hidden(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.startswith(".")]


# --- inputs -----------------------------------------------------------------------------------

def test_inputs_keep_relative_paths_from_folders_files_and_globs(tmp_path: Path) -> None:
    library = _library(tmp_path)
    (library / "notes.txt").write_text("not a clip")
    found = expand_inputs([str(library)])
    assert [c.relative.as_posix() for c in found] == [
        "bad.bvh", f"other/{ZXY}", f"walks/{WALK}", f"walks/stairs/{STEPS}"]
    assert all(c.path.is_absolute() and c.path.is_file() for c in found)
    # a glob's fixed part is the base; a file alone is its own name; repeats count once
    found = expand_inputs([str(library / "walks" / "**" / "*.bvh"), str(library / "bad.bvh"),
                           str(library / "walks" / WALK)])
    assert [c.relative.as_posix() for c in found] == ["bad.bvh", WALK, f"stairs/{STEPS}"]


def test_inputs_skip_the_output_folder_and_refuse_clashes(tmp_path: Path) -> None:
    library = _library(tmp_path, broken=False)
    out = library / "out"
    out.mkdir()
    shutil.copyfile(DATA / "bvh" / WALK, out / "old.bvh")
    assert "out/old.bvh" not in [c.relative.as_posix() for c in expand_inputs(
        [str(library)], exclude=out)]
    with pytest.raises(BatchError, match=f"would both write {WALK}"):
        expand_inputs([str(library / "walks" / WALK), str(tmp_path / "library" / "other"),
                       str(DATA / "bvh" / WALK)])
    with pytest.raises(BatchError, match="no such file or folder"):
        expand_inputs([str(tmp_path / "missing")])
    with pytest.raises(BatchError, match="matches no file"):
        expand_inputs([str(tmp_path / "*.nothing")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(BatchError, match="holds no motion file"):
        expand_inputs([str(tmp_path / "empty")])


# --- one job ----------------------------------------------------------------------------------

def test_job_row_carries_every_number_of_the_commands_report(tmp_path: Path) -> None:
    report = tmp_path / "direct.json"
    assert main(["ground", str(DATA / "bvh" / STEPS), "--terrain", "hills", "-o",
                 str(tmp_path / "direct.bvh"), "--report", str(report), "--quiet"]) == 0
    spec = JobSpec("ground", GroundOptions("hills"))
    out = tmp_path / "via_job.bvh"
    result = run_job(Job(str(DATA / "bvh" / STEPS), STEPS, out.name, str(out), spec))
    row = result["row"]
    assert row["status"] == "ok", row["error"]
    numbers = flatten_numbers(json.loads(report.read_text()))
    expected = {"before.physdiff_penetration_mm", "after.gmd_foot_skate_ratio", "frames"}
    assert expected <= set(numbers)
    assert {key: row[key] for key in numbers} == numbers  # generic: every number flows through
    assert out.read_bytes() == (tmp_path / "direct.bvh").read_bytes()
    assert not _hidden(tmp_path)


def test_flatten_numbers_is_generic() -> None:
    report = {"before": {"new_metric_m": 0.5, "nested": {"x": 2}}, "after": {"flag": True},
              "frames": 10, "warnings": ["w"], "clip": "a.bvh"}
    assert flatten_numbers(report) == {"before.new_metric_m": 0.5, "before.nested.x": 2,
                                       "after.flag": 1, "frames": 10}


@pytest.mark.parametrize("content,problem", [
    (b"", "empty"),
    (b"HIERARCHY\nROOT Hips\n{\n", "line"),
    (b"\x00\xff" * 300, "no MOTION"),
])
def test_a_malformed_file_is_an_error_row_naming_it(tmp_path: Path, content: bytes,
                                                    problem: str) -> None:
    clip = tmp_path / "broken.bvh"
    clip.write_bytes(content)
    out = tmp_path / "o.bvh"
    row = run_job(Job(str(clip), clip.name, out.name, str(out),
                      JobSpec("ground", GroundOptions("flat"))))["row"]
    assert row["status"] == "error" and "broken.bvh" in row["error"]
    assert problem.lower() in row["error"].lower()
    assert not out.exists() and not _hidden(tmp_path)


def test_a_bad_option_value_is_an_error_row_not_an_exit(tmp_path: Path) -> None:
    out = tmp_path / "o.bvh"
    row = run_job(Job(str(DATA / "bvh" / STEPS), STEPS, out.name, str(out),
                      JobSpec("ground", GroundOptions("no_such_scene"))))["row"]
    assert row["status"] == "error" and "no_such_scene" in row["error"]


# --- whole batches ----------------------------------------------------------------------------

def test_ground_batch_writes_outputs_summaries_and_error_rows(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture) -> None:
    library = _library(tmp_path)
    out = tmp_path / "out"
    code = main(["batch", "ground", str(library), "-o", str(out), "--terrain", "stairs",
                 "--jobs", "2", "--quiet"])
    assert code == 1
    printed = capsys.readouterr()
    assert "1 of 4 files failed" in printed.err
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.bvh")) == [
        f"other/{ZXY}", f"walks/{WALK}", f"walks/stairs/{STEPS}"]
    for path in out.rglob("*.bvh"):
        assert bvh.load(path).frame_count == bvh.load(library / path.relative_to(out)).frame_count
    with open(out / "summary.csv", newline="") as handle:
        rows = {row["input"]: row for row in csv.DictReader(handle)}
    assert list(rows) == ["bad.bvh", f"other/{ZXY}", f"walks/{WALK}", f"walks/stairs/{STEPS}"]
    assert rows["bad.bvh"]["status"] == "error" and "bad.bvh" in rows["bad.bvh"]["error"]
    good = rows[f"walks/{WALK}"]
    assert good["status"] == "ok" and good["error"] == "" and int(good["frames"]) > 0
    assert float(good["seconds"]) > 0
    assert float(good["after.physdiff_penetration_mm"]) < float(
        good["before.physdiff_penetration_mm"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["files"] == 4 and summary["failed"] == 1 and summary["kind"] == "ground"
    assert (out / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not _hidden(out)


def test_measure_writes_only_metrics_and_retarget_writes_clips(tmp_path: Path) -> None:
    library = _library(tmp_path, broken=False)
    measured = run_batch([str(library / "walks")], tmp_path / "m", JobSpec("measure", None, None),
                         quiet=True)
    assert measured.failed == 0 and len(measured.rows) == 2
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == [
        MANIFEST_NAME, "summary.csv", "summary.json", "summary.png"]
    assert all("before.contact_error_m" in row for row in measured.rows)
    code = main(["batch", "retarget", str(library / "walks"), "-o", str(tmp_path / "r"),
                 "--to", str(DATA / "bvh" / STEPS), "--quiet", "--jobs", "1"])
    assert code == 0
    target = bvh.load(DATA / "bvh" / STEPS).skeleton
    for name in (WALK, f"stairs/{STEPS}"):
        written = bvh.load(tmp_path / "r" / name)
        assert written.skeleton.names == target.names
        assert written.frame_count == bvh.load(library / "walks" / name).frame_count


@pytest.mark.parametrize("argv,message", [
    (["ground", "{lib}/missing", "--terrain", "stairs"], "no such file or folder"),
    (["ground", "{lib}", "--terrain", "stairs", "--ship-data"], "needs --scheduler"),
    (["ground", "{lib}", "--terrain", "stairs", "--jobs", "0"], "at least 1"),
    (["ground", "{lib}", "--terrain", "stairs", "-o", "{lib}/bad.bvh"], "not a folder"),
    (["ground", "{lib}"], "required: --terrain"),
    (["retarget", "{lib}"], "required: --to"),
    (["ground", "{lib}", "--terrain", "stairs", "--size", "1"], "expected 2 arguments"),
])
def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture, argv: list[str],
                             message: str) -> None:
    library = _library(tmp_path)
    argv = [a.replace("{lib}", str(library)) for a in argv]
    if "-o" not in argv:
        argv += ["-o", str(tmp_path / "out")]
    try:
        code = main(["batch", *argv, "--quiet"])
    except SystemExit as stop:  # argparse's own usage errors
        code = stop.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not list((tmp_path / "out").rglob("*.bvh")) if (tmp_path / "out").exists() else True


def test_resume_skips_matching_entries_and_redoes_changed_ones(tmp_path: Path) -> None:
    library = _library(tmp_path, broken=False, other=False)
    out = tmp_path / "out"
    spec = JobSpec("ground", GroundOptions("stairs"))
    first = run_batch([str(library)], out, spec, quiet=True)
    assert (first.ran, first.skipped, first.failed) == (2, 0, 0)
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*.bvh")}
    again = run_batch([str(library)], out, spec, resume=True, quiet=True)
    assert (again.ran, again.skipped) == (0, 2)
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.bvh")} == stamps
    assert [row["input"] for row in again.rows] == [f"walks/{WALK}", f"walks/stairs/{STEPS}"]
    # a changed input is done again; so is one whose manifest line a kill tore
    shutil.copyfile(DATA / "bvh" / WALK, library / "walks" / "stairs" / STEPS)
    third = run_batch([str(library)], out, spec, resume=True, quiet=True)
    assert (third.ran, third.skipped) == (1, 1)
    (out / "walks" / WALK).unlink()  # and a removed output
    with open(out / MANIFEST_NAME, "a") as handle:
        handle.write('{"input": "walks/stairs/games105')
    fourth = run_batch([str(library)], out, spec, resume=True, quiet=True)
    assert (fourth.ran, fourth.skipped) == (1, 1)
    # other options: nothing matches
    fifth = run_batch([str(library)], out, JobSpec("ground", GroundOptions("hills")),
                      resume=True, quiet=True)
    assert (fifth.ran, fifth.skipped) == (2, 0)
    # a manifest that is not JSON at all is ignored, not fatal
    (out / MANIFEST_NAME).write_bytes(b"\x00\xffgarbage\n[1, 2]\n")
    sixth = run_batch([str(library)], out, spec, resume=True, quiet=True)
    assert (sixth.ran, sixth.skipped, sixth.failed) == (2, 0, 0)


def test_sigkill_mid_run_then_resume_finishes_without_partial_files_or_repeats(
        tmp_path: Path) -> None:
    library = _library(tmp_path, copies=4, broken=False)  # 12 clips
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "footfall.cli", "batch", "ground", str(library), "-o",
            str(out), "--terrain", "stairs", "--jobs", "2", "--quiet"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get(
        "PYTHONPATH", "")])}
    run = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)  # its own group: the pool dies with it
    manifest = out / MANIFEST_NAME
    deadline = time.monotonic() + KILL_TIMEOUT_S
    try:
        while not (manifest.exists() and len(manifest.read_text().splitlines()) >= 3):
            assert run.poll() is None, "the batch ended before it could be killed"
            assert time.monotonic() < deadline, "the batch made no progress"
            time.sleep(0.01)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait(timeout=10)
    done = [json.loads(line) for line in manifest.read_text().splitlines() if line.strip()]
    assert 3 <= len(done) < 12
    visible = [p for p in out.rglob("*.bvh") if not p.name.startswith(".")]
    for path in visible:  # whatever is visible is a whole file
        assert bvh.load(path).frame_count > 0
    stamps = {entry["output"]: (out / entry["output"]).stat().st_mtime_ns for entry in done}

    resumed = run_batch([str(library)], out, JobSpec("ground", GroundOptions("stairs")),
                        jobs=2, resume=True, quiet=True)
    assert resumed.failed == 0 and len(resumed.rows) == 12
    assert resumed.skipped == len(done) and resumed.ran == 12 - len(done)  # nothing twice
    assert {name: (out / name).stat().st_mtime_ns for name in stamps} == stamps
    assert not _hidden(out)
    assert len(manifest.read_text().splitlines()) == 12
    # every copy of a clip grounds to the same bytes, killed run or not
    for name in (f"walks/{WALK}", f"walks/stairs/{STEPS}", f"other/{ZXY}"):
        outputs = {(out / f"c{copy}" / name).read_bytes() for copy in range(4)}
        assert len(outputs) == 1


def test_a_pool_worker_killed_mid_run_costs_no_file(tmp_path: Path) -> None:
    import threading

    psutil = pytest.importorskip("psutil", reason="comes with footfall[cluster]")
    library = _library(tmp_path, copies=3, broken=False, other=False)  # 6 clips
    out = tmp_path / "out"
    outcome: dict = {}

    def batch() -> None:
        outcome["result"] = run_batch([str(library)], out, JobSpec("ground", GroundOptions(
            "stairs")), jobs=2, quiet=True)

    runner = threading.Thread(target=batch)
    runner.start()
    manifest = out / MANIFEST_NAME
    deadline = time.monotonic() + KILL_TIMEOUT_S
    killed = None
    while killed is None and runner.is_alive():
        assert time.monotonic() < deadline, "the batch made no progress"
        if manifest.exists() and len(manifest.read_text().splitlines()) >= 2:
            # the pool's workers are the forkserver's children
            workers = [w for child in psutil.Process().children()
                       if "forkserver" in " ".join(child.cmdline()) for w in child.children()]
            if workers:
                killed = workers[0]
                killed.kill()
        time.sleep(0.01)
    runner.join(timeout=KILL_TIMEOUT_S)
    assert killed is not None, "the batch ended before a worker could be killed"
    result = outcome["result"]
    assert result.failed == 0 and len(result.rows) == 6
    assert not _hidden(out)
    assert len(list(out.rglob("*.bvh"))) == 6


def test_option_files_are_absolute_and_their_bytes_part_of_the_resume_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import trimesh

    library = _library(tmp_path, broken=False)
    ground = trimesh.creation.box(extents=(40.0, 0.2, 40.0))
    ground.apply_translation((0.0, -0.1, 0.0))  # a flat slab whose top is y = 0
    ground.export(tmp_path / "slab.obj")
    monkeypatch.chdir(tmp_path)  # the option names the mesh relative to here
    out = tmp_path / "out"
    spec = JobSpec("ground", GroundOptions("slab.obj"))
    first = run_batch([str(library / "walks")], out, spec, quiet=True)
    assert first.failed == 0, [row["error"] for row in first.rows]
    options = json.loads((out / "summary.json").read_text())["options"]
    assert options == {"terrain": str(tmp_path / "slab.obj")}
    assert run_batch([str(library / "walks")], out, spec, resume=True, quiet=True).skipped == 2
    ground.apply_translation((0.0, 0.05, 0.0))  # the same name, other ground: all again
    ground.export(tmp_path / "slab.obj")
    again = run_batch([str(library / "walks")], out, spec, resume=True, quiet=True)
    assert (again.ran, again.skipped, again.failed) == (2, 0, 0)


def test_a_shipped_job_needs_no_shared_file(tmp_path: Path) -> None:
    import trimesh

    slab = trimesh.creation.box(extents=(40.0, 0.2, 40.0))
    slab.apply_translation((0.0, -0.1, 0.0))
    slab.export(tmp_path / "slab.obj")
    local = tmp_path / "local.bvh"
    assert main(["ground", str(DATA / "bvh" / STEPS), "--terrain", str(tmp_path / "slab.obj"),
                 "-o", str(local), "--quiet"]) == 0
    # names that exist nowhere on this machine: only the shipped bytes can be used
    missing = "/nonexistent/cluster/share"
    spec = JobSpec("ground", GroundOptions(f"{missing}/slab.obj"),
                   files={f"{missing}/slab.obj": (tmp_path / "slab.obj").read_bytes()})
    job = Job(STEPS, STEPS, STEPS, None, spec, data=(DATA / "bvh" / STEPS).read_bytes())
    result = run_job(job)
    assert result["row"]["status"] == "ok", result["row"]["error"]
    assert result["output_bytes"] == local.read_bytes()
    broken = run_job(Job("bad.bvh", "lib/bad.bvh", "lib/bad.bvh", None, spec,
                         data=b"HIERARCHY\nROOT Hips\n{\n"))["row"]
    assert broken["status"] == "error" and broken["error"].startswith("lib/bad.bvh")
    assert "footfall-batch-" not in broken["error"]  # not the worker's scratch copy
