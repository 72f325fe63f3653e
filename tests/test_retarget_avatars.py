"""Every real humanoid BVH onto both real glTF avatars: grounded, standing, no NaN.

(GMD's foot-skate ratio and the stance heights of every clip on every avatar:
``test_retarget_real_clips.py``.)"""

from functools import cache

import numpy as np
import pytest

from conftest import AVATAR_FILES, HUMANOID_BVH_FILES
from footfall import bvh
from footfall.gltf import Avatar, load_avatar
from footfall.retarget import Retargeter
from footfall.retarget.toes import Toes

# One file per rig; bvhio_example (two frames) has no motion to follow.
RIGS = [p for p in HUMANOID_BVH_FILES if p.stem not in ("cmu_131_01_metres", "bvhio_example")]
MAX_SECONDS = 5.0


@cache
def avatar(path) -> Avatar:
    return load_avatar(path)


@cache
def clip(path):
    loaded = bvh.load(path)
    return loaded[: int(MAX_SECONDS * loaded.fps)]


def lowest_point(clip, mapping, measures, toes) -> np.ndarray:
    """``(F, 2)`` lowest foot point (ankle, or toe point when given) above standing height."""
    g = clip.global_positions()
    feet = [clip.skeleton.index(mapping[b]) for b in ("LeftFoot", "RightFoot")]
    low = g[:, feet, 1] - measures.ankle_height
    if toes is not None:
        low = np.minimum(low, toes.positions(clip.global_rotations(), g)[..., 1]
                         - measures.toe_height)
    return low


@pytest.mark.parametrize("avatar_path", AVATAR_FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("source_path", RIGS, ids=lambda p: p.stem)
def test_bvh_onto_avatar(source_path, avatar_path) -> None:
    source, target = clip(source_path), avatar(avatar_path)
    r = Retargeter(source.skeleton, target.skeleton, target_rest=target.rest_rotations)
    out = r.apply(source)
    gs, gt = source.global_positions(), out.global_positions()
    assert np.all(np.isfinite(gt))
    source_toes = Toes.of(source.skeleton, r.source_map)
    target_toes = Toes.of(target.skeleton, r.target_map)
    # Feet on the floor during the source's contacts: the lowest foot point (ankle or toe, the
    # sole's contact) above its standing height matches the source's within 1 cm on average.
    # The source's contact is its own lowest point, toes included whatever the target has; a
    # target without toes is judged by its ankle where the source stands flat (its ankle down
    # too): on its toes with the heel up, the source's lowest point is its toe, which a foot
    # without toes has no point to match (its sole: test_stylised_gait's toeless-avatar test).
    low_s = lowest_point(source, r.source_map, r.source_measures, source_toes)
    low_t = lowest_point(out, r.target_map, r.target_measures,
                         target_toes if source_toes is not None else None)
    contact = low_s < np.percentile(low_s, 5) + 0.02
    levels = r.stance_levels(source)
    if target_toes is None and source_toes is not None:
        ankle_s = lowest_point(source, r.source_map, r.source_measures, None)
        contact &= ankle_s - levels < 0.02
    assert contact.mean() > 0.15
    lift = np.maximum(low_s - levels, 0.0)  # not the capture's floor
    assert np.mean(np.abs(low_t - r.size_ratio * lift)[contact]) <= 0.01
    # Standing: the head above the hips.
    head, hips = (target.skeleton.index(r.target_map[b]) for b in ("Head", "Hips"))
    assert np.all(gt[:, head, 1] > gt[:, hips, 1])
    # Standing, the body travels the source's path scaled by the size ratio, at the legs'
    # roots: the hip joints' midpoint (the avatar's hips joint stands elsewhere around its hip
    # joints than the performer's, and hips turning or tilting carry it around them).
    # From the first to the last frame the source stands (its hips joint at least 85 % as
    # high over its lowest foot joint as it mostly stands): seated or kneeling low, the hips
    # stays where the performer's sits.
    def roots(clip: object, mapping: dict, g: np.ndarray) -> np.ndarray:
        thighs = [clip.skeleton.index(mapping[b]) for b in ("LeftUpperLeg", "RightUpperLeg")]
        return g[:, thighs].mean(axis=1)[:, [0, 2]]

    hips_s = r.correspondence.hips[1]
    feet_s = [source.skeleton.index(r.source_map[b]) for b in ("LeftFoot", "RightFoot")]
    up = gs[:, hips_s, 1] - gs[:, feet_s, 1].min(axis=1)
    stands = np.nonzero(up >= 0.85 * np.percentile(up, 90))[0]
    first, last = int(stands[0]), int(stands[-1])
    assert last - first >= 0.5 * len(gs)
    roots_s, roots_t = roots(source, r.source_map, gs), roots(out, r.target_map, gt)
    np.testing.assert_allclose(roots_t[last] - roots_t[first],
                               r.size_ratio * (roots_s[last] - roots_s[first]), atol=0.02)
