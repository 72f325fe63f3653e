"""Properties of BVH reading and writing over random skeletons, clips and channel layouts."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import bvh, quat
from footfall.bvh import units
from footfall.skeleton import Clip, Skeleton

FAST = settings(max_examples=40, deadline=None)


def _random_clip(seed: int, joints: int, frames: int, fps: float) -> Clip:
    """A random tree (parents before children, not always depth-first) with random motion."""
    rng = np.random.default_rng(seed)
    parents = [-1] + [
        int(rng.integers(-1 if rng.random() < 0.1 else 0, j)) for j in range(1, joints)
    ]
    offsets = rng.uniform(-1.0, 1.0, size=(joints, 3))
    end_sites = {j: rng.uniform(-0.5, 0.5, 3) for j in range(joints) if rng.random() < 0.4}
    names = [f"joint_{j}" if j % 3 else f"j:{j}.x" for j in range(joints)]
    skeleton = Skeleton(names, parents, offsets, end_sites)
    rotations = quat.normalize(rng.normal(size=(frames, joints, 4)))
    positions = np.broadcast_to(offsets, (frames, joints, 3)).copy()
    moving = rng.random(joints) < 0.4
    moving[0] = rng.random() < 0.7
    positions[:, moving] = rng.uniform(-2.0, 2.0, size=(frames, int(moving.sum()), 3))
    return Clip(skeleton, rotations, positions, fps)


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    joints=st.integers(1, 8),
    frames=st.integers(1, 5),
    fps=st.sampled_from([24.0, 25.0, 29.97, 30.0, 60.0, 120.0, 7.5]),
    order=st.sampled_from(quat.EULER_ORDERS),
)
def test_save_then_load_keeps_the_motion(
    seed: int, joints: int, frames: int, fps: float, order: str
) -> None:
    clip = _random_clip(seed, joints, frames, fps)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "clip.bvh"
        bvh.save(clip, path, order=order)
        back, info = bvh.load(path, scale=1.0, up="y", return_info=True)
    file_order = bvh.depth_first_order(clip.skeleton)
    skeleton = clip.skeleton
    assert back.skeleton.names == [skeleton.names[j] for j in file_order]
    assert abs(back.fps - fps) < 1e-9 * fps
    assert set(info.rotation_orders) == {order}
    np.testing.assert_allclose(
        back.global_positions(), clip.global_positions()[:, file_order], atol=1e-6
    )
    np.testing.assert_allclose(
        quat.to_matrix(back.rotations), quat.to_matrix(clip.rotations[:, file_order]), atol=1e-7
    )
    # Six channels exactly where the translation moves.
    moving = np.any(np.abs(clip.positions - skeleton.offsets) > 1e-9, axis=(0, 2))
    assert [len(c) == 6 for c in info.channels] == [bool(moving[j]) for j in file_order]
    new_index = {old: new for new, old in enumerate(file_order)}
    assert back.skeleton.end_sites.keys() == {new_index[j] for j in skeleton.end_sites}
    for old, site in skeleton.end_sites.items():
        np.testing.assert_allclose(back.skeleton.end_sites[new_index[old]], site, atol=1e-9)


def _axis_matrix(axis: str, degrees: np.ndarray) -> np.ndarray:
    """``(F, 3, 3)`` rotations about one axis, written out by hand."""
    angle = np.radians(degrees)
    c, s = np.cos(angle), np.sin(angle)
    one, zero = np.ones_like(c), np.zeros_like(c)
    rows = {
        "X": [[one, zero, zero], [zero, c, -s], [zero, s, c]],
        "Y": [[c, zero, s], [zero, one, zero], [-s, zero, c]],
        "Z": [[c, -s, zero], [s, c, zero], [zero, zero, one]],
    }[axis]
    return np.moveaxis(np.array(rows), (0, 1), (-2, -1))


@FAST
@given(data=st.data(), joints=st.integers(1, 5), frames=st.integers(1, 4))
def test_any_channel_layout_reads_as_written(data: st.DataObject, joints: int, frames: int) -> None:
    """Each joint gets its own random channel subset and order; values read back exactly."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    layouts = []
    lines = ["HIERARCHY"]
    offsets = rng.uniform(-50, 50, size=(joints, 3)).round(4)
    for j in range(joints):
        channels = data.draw(
            st.lists(
                st.sampled_from(
                    ["Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"]
                ),
                unique=True,
                max_size=6,
            )
        )
        layouts.append(channels)
        keyword = "ROOT" if j == 0 else "JOINT"
        lines += [f"{keyword} J{j}", "{", "OFFSET " + " ".join(map(str, offsets[j]))]
        lines.append(f"CHANNELS {len(channels)} {' '.join(channels)}".rstrip())
    lines += ["}"] * joints  # a chain: every joint inside the previous one
    width = sum(len(c) for c in layouts)
    values = rng.uniform(-180, 180, size=(frames, width)).round(5)
    lines += ["MOTION", f"Frames: {frames}", "Frame Time: 0.0166667"]
    lines += [" ".join(map(str, row)) for row in values]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "layout.bvh"
        path.write_text("\n".join(lines) + "\n")
        # Read as centimetres: values of ±180 read as metres make a chain longer than
        # footfall.sizes.MAX_REACH_METRES allows.
        clip, info = bvh.load(path, scale=0.01, up="y", return_info=True)
    assert clip.fps == 60.0
    assert info.channels == tuple(tuple(c) for c in layouts)
    np.testing.assert_array_equal(clip.skeleton.parents, np.arange(joints) - 1)
    column = 0
    for j, channels in enumerate(layouts):
        expected_position = np.broadcast_to(offsets[j], (frames, 3)).copy()
        expected_rotation = np.broadcast_to(np.eye(3), (frames, 3, 3))
        for name in channels:
            if name.endswith("position"):
                expected_position[:, "XYZ".index(name[0])] = values[:, column]
            else:  # intrinsic: each later channel multiplies on the right
                expected_rotation = expected_rotation @ _axis_matrix(name[0], values[:, column])
            column += 1
        np.testing.assert_allclose(clip.positions[:, j], expected_position * 0.01, atol=1e-12)
        np.testing.assert_allclose(quat.to_matrix(clip.rotations[:, j]), expected_rotation,
                                   atol=1e-12)


@given(
    height=st.floats(1.4, 2.0),
    unit=st.sampled_from(sorted(units.UNIT_SCALES)),
)
def test_each_unit_is_recognised_from_an_adult_height(height: float, unit: str) -> None:
    scale = units.UNIT_SCALES[unit]
    found, factor = units.choose_scale(height / scale)
    assert found == unit
    assert factor == scale


@given(height=st.one_of(st.floats(1e-3, 0.199), st.floats(1e4, 1e6)))
def test_far_off_sizes_are_fitted_to_1_7_m(height: float) -> None:
    unit, factor = units.choose_scale(height)
    assert unit == "fitted"
    assert abs(height * factor - units.FALLBACK_HEIGHT) < 1e-9


@given(height=st.floats(*units.PLAUSIBLE_METRES))
def test_plausible_characters_in_metres_stay_in_metres(height: float) -> None:
    # No other unit puts these in the adult range, so a file footfall wrote (metres) reads
    # back at its own size.
    assert units.choose_scale(height) == ("m", 1.0)
