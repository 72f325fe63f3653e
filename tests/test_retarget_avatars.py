"""Every real BVH onto both real glTF avatars: grounded, no extra skating, no NaN."""

from functools import cache

import numpy as np
import pytest

from conftest import AVATAR_FILES, BVH_FILES
from footfall import bvh
from footfall.gltf import Avatar, load_avatar
from footfall.metrics import foot_skate_ratio
from footfall.retarget import Retargeter

RIGS = [p for p in BVH_FILES if p.stem != "cmu_131_01_metres"]


@cache
def avatar(path) -> Avatar:
    return load_avatar(path)


@cache
def clip(path):
    return bvh.load(path)


def foot_points(skeleton, mapping, measures, with_toes: bool):
    bones = ["LeftFoot", "RightFoot"] + (["LeftToes", "RightToes"] if with_toes else [])
    rest = list(measures.ankle_height) + (list(measures.toe_height) if with_toes else [])
    return [skeleton.index(mapping[b]) for b in bones], np.array(rest)


@pytest.mark.parametrize("avatar_path", AVATAR_FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("source_path", RIGS, ids=lambda p: p.stem)
def test_bvh_onto_avatar(source_path, avatar_path) -> None:
    source, target = clip(source_path), avatar(avatar_path)
    r = Retargeter(source.skeleton, target.skeleton, target_rest=target.rest_rotations)
    out = r.apply(source)
    gs, gt = source.global_positions(), out.global_positions()
    assert np.all(np.isfinite(gt))
    toes = "LeftToes" in r.target_map and "LeftToes" in r.source_map
    js, rest_s = foot_points(source.skeleton, r.source_map, r.source_measures, toes)
    jt, rest_t = foot_points(target.skeleton, r.target_map, r.target_measures, toes)
    height_s, height_t = gs[:, js, 1] - rest_s, gt[:, jt, 1] - rest_t
    # Feet on the floor during the source's contacts: the lowest foot point (ankle or toe, the
    # sole's contact) above its standing height matches the source's within 1 cm on average.
    low_s, low_t = height_s.reshape(len(gs), -1, 2).min(1), height_t.reshape(len(gt), -1, 2).min(1)
    contact = low_s < np.percentile(low_s, 5) + 0.02
    assert contact.mean() > 0.15
    assert np.mean(np.abs(low_t - low_s)[contact]) <= 0.01
    # GMD foot-skate ratio, standard thresholds, no worse than the source's + 0.01.
    skate_s = foot_skate_ratio(gs[:, js], height_s, source.fps)
    skate_t = foot_skate_ratio(gt[:, jt], height_t, source.fps)
    assert skate_t <= skate_s + 0.01
    # The body travels the source's path scaled by the size ratio.
    hips_t, hips_s = r.correspondence.hips
    travel_s = gs[-1, hips_s, [0, 2]] - gs[0, hips_s, [0, 2]]
    travel_t = gt[-1, hips_t, [0, 2]] - gt[0, hips_t, [0, 2]]
    np.testing.assert_allclose(travel_t, r.size_ratio * travel_s, atol=0.02)
