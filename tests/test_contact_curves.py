"""Contact curves in the output (footfall.contact_curves and --contacts-out): the weights'
properties, the CSV sidecar and the glTF node read back with footfall's own readers, and what
Blender 3.4's importer made of the same file (a fixture it wrote once)."""

from __future__ import annotations

import csv
import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall.contact_curves import (
    CSV_COLUMNS,
    CURVE_NAMES,
    NODE_NAME,
    ContactCurveError,
    add_to_gltf,
    contact_curves,
    contact_weights,
    contacts_path,
    read_contact_csv,
    read_gltf_contacts,
    write_contact_csv,
)
from footfall.errors import GLTFError

DATA = Path(__file__).parent / "data"
BLENDER = DATA / "blender"
SRC = Path(__file__).resolve().parents[1] / "src"
MAKER = runpy.run_path(str(BLENDER / "make_contacts_glb.py"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=80), st.sampled_from([20.0, 30.0, 120.0]),
       st.floats(0.02, 0.5))
def test_weights_are_smooth_in_0_1_and_at_least_half_exactly_when_planted(
        planted: list[bool], fps: float, blend: float) -> None:
    contacts = np.array(planted)[:, None]
    weights = contact_weights(contacts, fps, blend)[:, 0]
    assert np.all((weights >= 0) & (weights <= 1))
    assert np.array_equal(weights >= 0.5, contacts[:, 0])
    # A frame farther than half the blend from any edge is fully in or out.
    edges = np.nonzero(np.diff(contacts[:, 0].astype(int)))[0] + 0.5
    frames = np.arange(len(planted))
    far = (np.abs(frames[:, None] - edges[None]) / fps > blend / 2 + 1e-9).all(axis=1)
    np.testing.assert_array_equal(weights[far], contacts[far, 0].astype(float))
    # Smoothstep over the blend: no step larger than its steepest slope (1.5 per blend).
    if len(planted) > 1:
        assert np.abs(np.diff(weights)).max() <= 1.5 / (blend * fps) + 1e-9


def test_csv_round_trip_and_malformed_files(tmp_path: Path) -> None:
    curves = contact_curves(MAKER["contacts"](), 24.0)
    path = contacts_path(tmp_path / "walk.bvh")
    assert path.name == "walk.contacts.csv"
    write_contact_csv(curves, path)
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 48
    assert [int(r["contact_l"]) for r in rows] == [int(v) for v in curves.contacts[:, 0]]
    assert float(rows[47]["time"]) == pytest.approx(47 / 24.0, abs=1e-6)
    back = read_contact_csv(path)
    assert np.array_equal(back.contacts, curves.contacts) and back.fps == 24.0
    np.testing.assert_allclose(back.weights, curves.weights, atol=1e-6)
    text = path.read_text()
    bad = {
        "truncated": text[: len(text) // 2].rsplit(",", 1)[0],
        "mutated": text.replace("0.000000", "0.0x0000", 1),
        "wrong magic": "frame;time\n0;0\n",
        "contact 7": text.replace("\n1,0.041667,1,0,", "\n1,0.041667,7,0,", 1),
        "huge count": text + "99999999999,0,0,0,0,0\n",
        "empty": "",
    }
    for name, content in bad.items():
        path.write_text(content)
        with pytest.raises(ContactCurveError, match="walk.contacts.csv") as error:
            read_contact_csv(path)
        assert "\n" not in str(error.value), name


def test_blender_34_imports_the_curves_as_footfall_reads_them(tmp_path: Path) -> None:
    """``contacts.glb`` (made by make_contacts_glb.py) imported by Blender 3.4 once
    (``blender_contacts.py``, its output the fixture): the four curves are animated shape-key
    values with one constant key per frame, equal to what footfall's reader finds in the
    file, and the node's extras are custom properties; today's writer writes the same."""
    blender = json.loads((BLENDER / "contacts_blender34.json").read_text())
    assert blender["blender"].startswith("3.4")
    assert blender["object"] == NODE_NAME
    assert blender["shape_keys"] == ["Basis", *CURVE_NAMES]
    ours = read_gltf_contacts(BLENDER / "contacts.glb")
    fresh = tmp_path / "fresh.glb"
    MAKER["write"](fresh)
    again = read_gltf_contacts(fresh)
    expected = MAKER["contacts"]()
    assert np.array_equal(ours.contacts, expected) and np.array_equal(again.contacts, expected)
    np.testing.assert_allclose(again.weights, ours.weights, atol=1e-7)
    values = ours.values()
    for k, name in enumerate(CURVE_NAMES):
        curve = blender["curves"][name]
        assert curve["data_path"] == f'key_blocks["{name}"].value'
        assert curve["interpolation"] == ["CONSTANT"]  # glTF STEP: 0/1 stays 0/1 between keys
        np.testing.assert_allclose(curve["times"], np.arange(48) / 24.0, atol=1e-5)
        np.testing.assert_allclose(curve["values"], values[:, k], atol=1e-6)
        np.testing.assert_allclose(curve["evaluated"], values[:, k], atol=1e-6)
        np.testing.assert_allclose(blender["custom_properties"][name], values[:, k], atol=1e-6)
    assert blender["custom_properties"]["fps"] == 24.0


def test_gltf_curves_leave_the_motion_as_it_was_and_refuse_bad_files(tmp_path: Path) -> None:
    from footfall.gltf import load_avatar
    from footfall.motion_io import load_motion

    plain, with_curves = tmp_path / "plain.glb", tmp_path / "curves.glb"
    MAKER["write"](with_curves)
    data = json.loads(_glb_json(with_curves))
    (node,) = [n for n in data["nodes"] if n.get("name") == NODE_NAME]
    assert node["extras"]["contact_r"][:10] == [0] * 8 + [1, 1]
    # The same clip written without the node reads as the same motion and skeleton.
    from footfall.motion_io import save_motion

    clip = load_motion(with_curves).clip
    save_motion(clip, plain)
    np.testing.assert_allclose(load_motion(plain).clip.global_positions(),
                               clip.global_positions(), atol=1e-6)
    assert load_avatar(with_curves).skeleton.names == ["hips", "foot_l", "foot_r"]
    with pytest.raises(ContactCurveError, match="already holds"):
        add_to_gltf(with_curves, contact_curves(MAKER["contacts"](), 24.0))
    with pytest.raises(ContactCurveError, match=f"plain.glb: no {NODE_NAME} node"):
        read_gltf_contacts(plain)
    broken = tmp_path / "broken.glb"
    broken.write_bytes(with_curves.read_bytes()[:300])
    with pytest.raises(GLTFError, match="broken.glb"):
        read_gltf_contacts(broken)
    before = plain.read_bytes()
    with pytest.raises(ContactCurveError, match=r"shape \(48,\)"):
        contact_curves(np.zeros(48, dtype=bool), 24.0)
    with pytest.raises(ContactCurveError, match="48 keys, the contact curves 40 frames"):
        add_to_gltf(plain, contact_curves(np.zeros((40, 2), dtype=bool), 24.0))
    assert plain.read_bytes() == before  # nothing half written


def _glb_json(path: Path) -> bytes:
    data = path.read_bytes()
    length = int.from_bytes(data[12:16], "little")
    return data[20:20 + length]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "footfall.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(SRC)})


def test_ground_writes_the_contacts_it_planted(tmp_path: Path) -> None:
    """``ground --contacts-out`` beside a BVH: the CSV's contacts are the report's."""
    from footfall.grounding.clip import contacts_from_segments

    out = tmp_path / "g.bvh"
    done = _cli("ground", str(DATA / "bvh" / "games105_walk60.bvh"), "--terrain", "level",
                "-o", str(out), "--report", str(tmp_path / "r.json"), "--contacts-out",
                "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"wrote {tmp_path / 'g.contacts.csv'}" in done.stdout
    curves = read_contact_csv(tmp_path / "g.contacts.csv")
    report = json.loads((tmp_path / "r.json").read_text())
    planted = contacts_from_segments(report["contacts"], curves.frame_count)
    assert planted.any(axis=0).all() and not planted.all()
    assert np.array_equal(curves.contacts, planted)


def test_retarget_onto_an_avatar_writes_the_planted_feet_into_its_glb(tmp_path: Path) -> None:
    """``retarget --contacts-out`` onto CesiumMan: the node's curves are the retargeter's
    planted series, and the avatar and its animation read as without them."""
    from footfall import bvh
    from footfall.gltf import load_animation, load_avatar
    from footfall.retarget import Retargeter

    source = DATA / "bvh" / "games105_walk60.bvh"
    avatar_path = DATA / "avatars" / "CesiumMan.glb"
    outs = {}
    for name, extra in (("plain", ()), ("curves", ("--contacts-out",))):
        outs[name] = tmp_path / f"{name}.glb"
        done = _cli("retarget", str(source), "--to", str(avatar_path), "-o", str(outs[name]),
                    "--quiet", *extra, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    curves = read_gltf_contacts(outs["curves"])
    avatar = load_avatar(avatar_path)
    clip = bvh.load(source)
    retargeter = Retargeter(clip.skeleton, avatar.skeleton, target_rest=avatar.rest_rotations,
                            **_avatar_targets(avatar))
    retargeter.calibrate_for(clip, None)
    assert np.array_equal(curves.contacts, retargeter.source_contacts(clip))
    assert curves.contacts.any(axis=0).all()
    a = load_animation(outs["plain"], fps=clip.fps, avatar=load_avatar(outs["plain"]))
    b = load_animation(outs["curves"], fps=clip.fps, avatar=load_avatar(outs["curves"]))
    np.testing.assert_allclose(b.global_positions(), a.global_positions(), atol=1e-6)


def _avatar_targets(avatar: object) -> dict:
    from footfall.skinning import avatar_targets

    return avatar_targets(avatar, None)  # type: ignore[arg-type]


def test_import_writes_contacts_beside_its_bvh(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from joints_data import walker_joints

    motion = tmp_path / "walk.npy"
    joints = walker_joints("humanml3d", 4.0).astype(np.float32)
    np.save(motion, joints)
    done = _cli("import", str(motion), "-o", str(tmp_path / "walk.bvh"), "--contacts-out",
                "--root-motion", "extract", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    curves = read_contact_csv(tmp_path / "walk.contacts.csv")
    assert curves.fps == pytest.approx(20.0, rel=1e-3) and curves.frame_count == len(joints)
    assert curves.contacts.any(axis=0).all() and not curves.contacts.all()


def test_the_contacts_import_writes_are_the_ones_measure_scores() -> None:
    # import / --contacts-out (clip_contacts) and measure / ground (prepare_clip over the
    # motion) find a clip's contacts the same way: a calibration pose (cmu_01_01's first
    # frame) is no part of the motion. Before, clip_contacts found them over the whole clip,
    # the T-pose included, and differed from measure's in a frame of cmu_01_01.
    from footfall import bvh
    from footfall.contact_curves import clip_contacts
    from footfall.footing.foot_model import calibration_frames, legs_of
    from footfall.grounding.clip import prepare_clip

    clip = bvh.load(DATA / "bvh" / "cmu_01_01_fairmotion.bvh")
    motion = ~calibration_frames(clip.rotations, clip.skeleton.parents)
    assert not motion.all()
    written = clip_contacts(clip)
    np.testing.assert_array_equal(written[motion],
                                  prepare_clip(clip[motion], legs_of(clip.skeleton)).contacts)
    assert not written[~motion].any()
