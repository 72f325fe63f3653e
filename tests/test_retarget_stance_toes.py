"""The pieces behind retargeting real clips: toe points from End Sites, and standing a lying
rest pose up (the stance hold: ``tests/test_retarget_spine_stance.py``)."""

import numpy as np

from conftest import DATA
from footfall import bvh, quat
from footfall.humanoid import map_skeleton, upright_pose, upright_turn
from footfall.retarget.toes import BALL_FORWARD, BALL_SHARE, LEGS, Toes
from footfall.skeleton import Skeleton, forward_kinematics


def runs(text: str) -> np.ndarray:
    return np.array([c == "P" for c in text])


def text(mask: np.ndarray) -> str:
    return "".join("P" if m else "." for m in mask)


def test_toe_points_from_joints_and_forward_end_sites() -> None:
    games = bvh.load(DATA / "bvh/games105_walk60.bvh")
    mapping = map_skeleton(games.skeleton).mapping
    toes = Toes.of(games.skeleton, mapping)
    assert toes is not None and toes.joints.tolist() == [
        games.skeleton.index(mapping[b]) for b in ("LeftToes", "RightToes")]
    np.testing.assert_allclose(toes.positions(games.global_rotations(), games.global_positions()),
                               games.global_positions()[:, toes.joints])
    # MocapBank: legs end at the ankle, the End Site is the tip of the toes (17.8 cm ahead).
    bank = bvh.load(DATA / "bvh/mocapbank_zxy_cm.bvh")[:5]
    mapping = map_skeleton(bank.skeleton).mapping
    toes = Toes.of(bank.skeleton, mapping)
    assert toes is not None and (toes.joints == -1).all()
    ankle = bank.skeleton.index(mapping["LeftFoot"])
    tip = bank.skeleton.end_sites[ankle]
    np.testing.assert_allclose(toes.offsets[0], tip * [BALL_SHARE, 1.0, BALL_SHARE])
    expected = (bank.global_positions()[:, ankle]
                + quat.rotate(bank.global_rotations()[:, ankle], toes.offsets[0]))
    np.testing.assert_allclose(toes.positions(bank.global_rotations(),
                                              bank.global_positions())[:, 0], expected)
    # bvhio_example: the End Site is a sole marker straight below the ankle. It tells how deep
    # the sole is; the ball sits BALL_FORWARD of the leg's length ahead of the ankle (+Z, where
    # the rest pose faces), at that depth.
    sole = bvh.load(DATA / "bvh/bvhio_example.bvh").skeleton
    mapping = map_skeleton(sole).mapping
    toes = Toes.of(sole, mapping)
    assert toes is not None and (toes.joints == -1).all()
    rest = sole.rest_positions()
    for side, (hip, knee, foot) in enumerate(LEGS):
        hip, knee, ankle = (rest[sole.index(mapping[b])] for b in (hip, knee, foot))
        leg = np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee)
        depth = sole.end_sites[sole.index(mapping[foot])][1]
        assert depth < -0.08  # 8.8 and 9.5 cm
        ball = toes.positions(quat.identity((1, sole.joint_count)), rest[None])[0, side]
        np.testing.assert_allclose(ball - ankle, [0.0, depth, BALL_FORWARD * leg], atol=1e-12)
    # A foot with no End Site (a glTF leaf bone) has no toe point.
    bare = Skeleton(sole.names, sole.parents, sole.offsets)
    assert Toes.of(bare, mapping) is None


def test_upright_turn_stands_a_lying_rest_pose_and_leaves_a_standing_one() -> None:
    standing = bvh.load(DATA / "bvh/games105_walk60.bvh").skeleton
    mapping = map_skeleton(standing).mapping
    assert np.allclose(upright_turn(standing, mapping), quat.identity(()))
    lying = bvh.load(DATA / "bvh/pybvh_test1_zup_inches.bvh").skeleton
    mapping = map_skeleton(lying).mapping
    rest = lying.rest_positions()
    hips, head = (lying.index(mapping[b]) for b in ("Hips", "Head"))
    assert abs(rest[head, 1] - rest[hips, 1]) < 0.2  # lies on its side
    pose = upright_pose(lying, mapping, quat.identity((lying.joint_count,)))
    up = forward_kinematics(lying.parents, pose, lying.offsets)[1]
    assert up[head, 1] - up[hips, 1] > 0.4
    left, right = (lying.index(mapping[b]) for b in ("LeftUpperLeg", "RightUpperLeg"))
    assert up[left, 0] > up[right, 0]  # the left hip on +X: facing +Z
    # Rotation only: bone lengths are kept.
    np.testing.assert_allclose(np.linalg.norm(up - up[hips], axis=-1),
                               np.linalg.norm(rest - rest[hips], axis=-1), atol=1e-12)
