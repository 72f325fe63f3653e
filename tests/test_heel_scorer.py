"""The opt-in heel of ``tools/ground_table.py --conventions --heel`` (docs/heel_scorer.md): a
heel modelled from the source rig alone, the heel stances it finds, and the ground under the
heel's pad — checked against what the clips and a drawn step show, not against the scorer."""

from __future__ import annotations

import numpy as np

from conftest import DATA, ground_table
from footfall import bvh
from footfall.footing.foot_model import calibration_frames
from footfall.footing.runs import segments


def _source(name: str):  # noqa: ANN202
    clip = bvh.load(DATA / "bvh" / name)[:600]
    return clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]


def test_the_heel_is_behind_and_below_the_foot_joint_and_finds_cmu_131_01s_heel_stances() -> None:
    # cmu_131_01's right foot stands on its heel with the toes raised three times (frames
    # 232-291, 362-390, 500-559: docs/swing_heel_stances.md); its left foot only ever stands on
    # its toes, so it takes the right foot's heel (the model is the same for both feet).
    tool = ground_table()
    source = _source("cmu_131_01.bvh")
    points = tool.source_foot_points(source)
    contacts = tool.source_contacts(source)
    tips, model = tool.heel_model(points, contacts)
    heels = tool.heel_points(points, tips, model)
    rel = heels - points[:, :, 0]
    flat = contacts[:, 1]
    behind = np.sum(rel[flat, 1][:, [0, 2]] * (points[flat, 1, 2] - points[flat, 1, 0])[:, [0, 2]],
                    axis=-1)
    assert np.all(behind < 0.0)  # behind the foot joint, against the toes
    assert 0.02 <= float(np.median(-rel[flat, 1, 1])) <= 0.08  # below it, by a heel's height
    stances = tool.heel_stances(points, contacts, source.fps, heels)
    spans = segments(stances[:, 1])
    assert [(a // 10, b // 10) for a, b in spans] == [(23, 29), (36, 39), (50, 55)], spans
    assert not stances[:, 0].any()  # the toe-standing left foot has no heel stance


class _Step:
    """A step up of 0.15 m at x = 0 (a riser facing -x), level elsewhere."""

    def height(self, xz: np.ndarray) -> np.ndarray:
        return np.where(np.asarray(xz)[..., 0] >= 0.0, 0.15, 0.0)


def test_a_heel_stands_on_the_tread_at_its_nose_and_not_on_a_riser_behind_it() -> None:
    tool = ground_table()
    # 2 mm behind the nose, 40 mm over the upper tread: it stands on the upper tread.
    at_nose = np.array([[-0.002, 0.19, 0.0]])
    assert np.allclose(tool._pad_gaps(_Step(), at_nose), 0.04)
    # 10 mm from a riser higher than it: 50 mm over its own tread, not under the tread above.
    facing = np.array([[-0.010, 0.05, 0.0]])
    assert np.allclose(tool._pad_gaps(_Step(), facing), 0.05)


class _Nose:
    """A tread's nose: ground 0.15 m high for 0.2 < x < 0.3, level (0) elsewhere — a riser's
    edge under the arch of a foot standing across it."""

    def raycast_down(self, xz: np.ndarray):  # noqa: ANN202
        from types import SimpleNamespace

        xz = np.asarray(xz)
        inside = (xz[..., 0] > 0.2) & (xz[..., 0] < 0.3)
        return SimpleNamespace(hit=np.ones(xz.shape[:-1], bool),
                               height=np.where(inside, 0.15, 0.0))


def test_a_nose_under_the_arch_cuts_a_foot_whose_heel_and_toe_clear_it() -> None:
    # heel at x = 0.1, toe tip at x = 0.4, both 0.10 m up: clear of the level ground either side
    # (the two points the heel scorer checked before), 0.05 m inside the nose between them
    tool = ground_table()
    heels, tips = np.array([[0.1, 0.10, 0.0]]), np.array([[0.4, 0.10, 0.0]])
    assert np.allclose(tool._gaps(_Nose(), np.stack([heels, tips])), 0.10)
    assert np.allclose(tool.sole_gaps(_Nose(), heels, tips), -0.05)
    # over level ground the sole stands as high as its ends
    assert np.allclose(tool.sole_gaps(_Nose(), heels - [0.5, 0, 0], tips - [0.5, 0, 0]), 0.10)
