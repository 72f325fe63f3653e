"""Properties of footfall.ik.solve_two_bone and solve_limb over random batches.

Every check measures the solved joints (or the FK of the solved pose), never the target fed in.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.bunny import bunny_skeleton
from footfall.errors import SkeletonError
from footfall.ik import reach_limits, solve_limb, solve_two_bone
from footfall.skeleton import forward_kinematics

shapes = st.lists(st.integers(1, 5), min_size=0, max_size=3).map(tuple)
seeds = st.integers(0, 2**31)


def unit_vectors(rng, shape):
    v = rng.normal(size=(*shape, 3))
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def random_limb(rng, shape):
    """Random root, mid, tip with bones 0.05–1 m in random directions."""
    root = rng.uniform(-2, 2, size=(*shape, 3))
    upper = rng.uniform(0.05, 1.0, size=shape)
    lower = rng.uniform(0.05, 1.0, size=shape)
    mid = root + upper[..., None] * unit_vectors(rng, shape)
    tip = mid + lower[..., None] * unit_vectors(rng, shape)
    return root, mid, tip, upper, lower


def reachable_target(rng, root, upper, lower):
    shortest, longest = reach_limits(upper, lower)
    span = longest - shortest
    distance = shortest + rng.uniform(0.01, 0.99, size=upper.shape) * span
    return root + distance[..., None] * unit_vectors(rng, upper.shape)


def length(v):
    return np.linalg.norm(v, axis=-1)


def assert_lengths_kept(result, root, upper, lower):
    np.testing.assert_allclose(length(result.mid - root), upper, rtol=1e-9)
    np.testing.assert_allclose(length(result.tip - result.mid), lower, rtol=1e-9)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=seeds)
def test_reaches_reachable_targets_bending_toward_pole(shape, seed):
    rng = np.random.default_rng(seed)
    root, mid, tip, upper, lower = random_limb(rng, shape)
    target = reachable_target(rng, root, upper, lower)
    pole = root + rng.normal(size=(*shape, 3))
    r = solve_two_bone(root, mid, tip, target, pole)
    assert np.all(length(r.tip - target) < 1e-6)
    assert_lengths_kept(r, root, upper, lower)
    assert np.all(r.residual == 0.0) and not np.any(r.clamped)
    # Knee on the pole side of the root→target line, in the plane of root, target and pole.
    direction = (target - root) / length(target - root)[..., None]
    pole_side = pole - root - np.sum((pole - root) * direction, -1, keepdims=True) * direction
    knee = r.mid - root
    assert np.all(np.sum(knee * pole_side, -1) > 0)
    normal = np.cross(direction, pole_side / length(pole_side)[..., None])
    assert np.all(np.abs(np.sum(knee * normal, -1)) < 1e-9)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, seed=seeds)
def test_out_of_reach_targets_leave_residual_on_the_ray(shape, seed):
    rng = np.random.default_rng(seed)
    root, mid, tip, upper, lower = random_limb(rng, shape)
    distance = (upper + lower) * rng.uniform(1.0, 3.0, size=shape)
    direction = unit_vectors(rng, shape)
    target = root + distance[..., None] * direction
    r = solve_two_bone(root, mid, tip, target, root + rng.normal(size=(*shape, 3)))
    reach = 0.999 * (upper + lower)
    np.testing.assert_allclose(r.residual, distance - reach, rtol=1e-9)
    assert np.all(r.clamped)
    solved = r.tip - root
    np.testing.assert_allclose(length(solved), reach, rtol=1e-9)
    np.testing.assert_allclose(solved / length(solved)[..., None], direction, atol=1e-9)
    assert_lengths_kept(r, root, upper, lower)


def test_too_close_target_stops_at_shortest_reach():
    root, mid, tip = np.zeros(3), np.array([0, -0.5, 0.1]), np.array([0.0, -0.8, 0.0])
    upper, lower = length(mid - root), length(tip - mid)
    target = np.array([0.0, -0.05, 0.0])
    r = solve_two_bone(root, mid, tip, target, [0, 0, 1])
    shortest = abs(upper - lower) + 1e-6 * (upper + lower)
    assert r.residual == pytest.approx(shortest - 0.05, rel=1e-9)
    assert not r.clamped
    assert length(r.tip - root) == pytest.approx(shortest, rel=1e-6)
    np.testing.assert_allclose((r.tip - root) / length(r.tip - root), [0, -1, 0], atol=1e-9)


def test_exact_case_bunny_leg_straight_down():
    # Seed 000's bunny: thigh 0.19, shin 0.18, hip at 0.53, ankle target at 0.1 (too far by
    # 0.43 − 0.999·0.37 = 0.06037 m), knee pointing forward (+Z).
    root, mid, tip = np.array([0, 0.53, 0]), np.array([0, 0.34, 0]), np.array([0, 0.16, 0])
    r = solve_two_bone(root, mid, tip, [0, 0.1, 0], [0, 0.4, 1])
    assert r.residual == pytest.approx(0.06037, abs=1e-12)
    assert r.clamped
    np.testing.assert_allclose(r.tip, [0, 0.53 - 0.36963, 0], atol=1e-12)
    assert r.mid[2] > 0 and r.mid[0] == pytest.approx(0, abs=1e-12)


def test_exact_case_right_angle_knee():
    # 3-4-5 triangle: the knee sits where both bones meet at 90°.
    r = solve_two_bone([0, 0, 0], [0, -3, 0], [0, -7, 0], [0, -5, 0], [0, 0, 1])
    np.testing.assert_allclose(r.mid, [0, -9 / 5, 12 / 5], atol=1e-12)
    np.testing.assert_allclose(r.tip, [0, -5, 0], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, seed=seeds)
def test_deltas_move_old_world_rotations_onto_new_bones(shape, seed):
    rng = np.random.default_rng(seed)
    root, mid, tip, upper, lower = random_limb(rng, shape)
    target = reachable_target(rng, root, upper, lower)
    r = solve_two_bone(root, mid, tip, target, root + rng.normal(size=(*shape, 3)))
    # Joints with arbitrary world rotations whose bone points at the child.
    upper_world = quat.normalize(rng.normal(size=(*shape, 4)))
    lower_world = quat.normalize(rng.normal(size=(*shape, 4)))
    upper_local = quat.inv_rotate(upper_world, mid - root)
    lower_local = quat.inv_rotate(lower_world, tip - mid)
    new_upper = quat.mul(r.upper_rotation, upper_world)
    new_lower = quat.mul(r.lower_rotation, lower_world)
    np.testing.assert_allclose(quat.rotate(new_upper, upper_local), r.mid - root, atol=1e-9)
    np.testing.assert_allclose(quat.rotate(new_lower, lower_local), r.tip - r.mid, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(r.upper_rotation, axis=-1), 1.0, atol=1e-12)
    # The knee turns only about its hinge: the old bend normal is fixed by the knee's own turn.
    old_normal = np.cross(mid - root, tip - mid)
    old_normal /= length(old_normal)[..., None]
    knee_turn = quat.inv_mul(r.upper_rotation, r.lower_rotation)
    np.testing.assert_allclose(quat.rotate(knee_turn, old_normal), old_normal, atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, seed=seeds)
def test_without_pole_the_bend_plane_is_kept(shape, seed):
    rng = np.random.default_rng(seed)
    root, mid, tip, upper, lower = random_limb(rng, shape)
    normal = np.cross(mid - root, tip - mid)
    normal /= length(normal)[..., None]
    # A reachable target inside the old bend plane.
    in_plane = unit_vectors(rng, shape)
    in_plane -= np.sum(in_plane * normal, -1, keepdims=True) * normal
    in_plane /= length(in_plane)[..., None]
    shortest, longest = reach_limits(upper, lower)
    distance = shortest + rng.uniform(0.05, 0.95, size=shape) * (longest - shortest)
    target = root + distance[..., None] * in_plane
    r = solve_two_bone(root, mid, tip, target)
    assert np.all(length(r.tip - target) < 1e-6)
    assert np.all(np.abs(np.sum((r.mid - root) * normal, -1)) < 1e-9)
    # Same bend sense: (upper × lower) still along the old normal.
    assert np.all(np.sum(np.cross(r.mid - root, r.tip - r.mid) * normal, -1) > 0)


DEGENERATE = {
    "target on root": ([0, 0, 0], [0, -0.5, 0.1], [0, -1, 0], [0, 0, 0], [0, 0, 1]),
    "pole on limb axis": ([0, 0, 0], [0, -0.5, 0.1], [0, -1, 0], [0, -0.6, 0], [0, -2, 0]),
    "pole on root": ([0, 0, 0], [0, -0.5, 0.1], [0, -1, 0], [0, -0.6, 0], [0, 0, 0]),
    "straight limb no pole": ([0, 0, 0], [0, -0.5, 0], [0, -1, 0], [0, -0.6, 0], None),
    "straight along z no pole": ([0, 0, 0], [0, 0, 0.5], [0, 0, 1], [0, 0, 0.6], None),
    "folded limb no pole": ([0, 0, 0], [0, -0.5, 0], [0, 0, 0], [0, -0.3, 0], None),
    "fully stretched": ([0, 0, 0], [0, -0.5, 0], [0, -1, 0], [0, -1, 0], [0, 0, 1]),
    "stretched far": ([0, 0, 0], [0, -0.5, 0], [0, -1, 0], [0, -9, 0], None),
    "zero upper bone": ([0, 0, 0], [0, 0, 0], [0, -1, 0], [0.3, -0.3, 0], [0, 0, 1]),
    "zero lower bone": ([0, 0, 0], [0, -1, 0], [0, -1, 0], [0.3, -0.3, 0], None),
    "all zero": ([0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]),
    "target on root, straight": ([0, 0, 0], [0, -0.5, 0], [0, -0.8, 0], [0, 0, 0], None),
}


@pytest.mark.parametrize("case", DEGENERATE.values(), ids=DEGENERATE.keys())
@pytest.mark.parametrize("weights", [1.0, 0.5])
def test_degenerate_inputs_never_nan(case, weights):
    root, mid, tip, target, pole = (None if v is None else np.array(v, float) for v in case)
    r = solve_two_bone(root, mid, tip, target, pole, position_weight=weights,
                       pole_weight=weights, target_rotation=[1, 0, 0, 0],
                       tip_rotation=[0, 1, 0, 0], rotation_weight=weights)
    for value in (r.mid, r.tip, r.residual, r.upper_rotation, r.lower_rotation, r.tip_rotation):
        assert np.all(np.isfinite(value))
    assert length(r.mid - root) == pytest.approx(length(mid - root), abs=1e-12)
    assert length(r.tip - r.mid) == pytest.approx(length(tip - mid), abs=1e-12)
    assert r.residual >= 0


@pytest.mark.parametrize("target", [[0, -0.8, 0], [0, -0.7, 0.2], [0, -0.7, -0.2], [0.2, -0.7, 0]])
def test_straight_limb_without_pole_bends_toward_forward(target):
    # A straight leg has no bend of its own: the knee goes forward (+Z) of the hip→target line,
    # wherever the target is.
    r = solve_two_bone([0, 0, 0], [0, -0.5, 0], [0, -1, 0], target)
    direction = np.array(target) / length(np.array(target))
    knee_side = r.mid - np.dot(r.mid, direction) * direction
    assert knee_side[2] > 0.1
    assert length(r.tip - target) < 1e-9


@settings(max_examples=30, deadline=None)
@given(shape=shapes, seed=seeds)
def test_position_weight_blends_between_fk_and_ik(shape, seed):
    rng = np.random.default_rng(seed)
    root, mid, tip, upper, lower = random_limb(rng, shape)
    target = reachable_target(rng, root, upper, lower)
    pole = root + rng.normal(size=(*shape, 3))
    weight = rng.uniform(0, 1, size=shape)
    still = solve_two_bone(root, mid, tip, target, pole, position_weight=0.0)
    np.testing.assert_allclose(still.mid, mid, atol=1e-12)
    np.testing.assert_allclose(still.tip, tip, atol=1e-12)
    full = solve_two_bone(root, mid, tip, target, pole)
    part = solve_two_bone(root, mid, tip, target, pole, position_weight=weight)
    assert_lengths_kept(part, root, upper, lower)
    # The upper bone turns by `weight` of the full IK turn.
    full_angle = quat.angle_between(full.upper_rotation, quat.identity(shape))
    part_angle = quat.angle_between(part.upper_rotation, quat.identity(shape))
    np.testing.assert_allclose(part_angle, weight * full_angle, atol=1e-7)


def test_pole_weight_zero_ignores_pole_and_half_turns_halfway():
    root, mid, tip = np.zeros(3), np.array([0, -0.5, 0.1]), np.array([0, -0.9, 0])
    target = np.array([0, -0.7, 0])
    plain = solve_two_bone(root, mid, tip, target)
    ignored = solve_two_bone(root, mid, tip, target, [1, -0.3, 0], pole_weight=0.0)
    np.testing.assert_allclose(ignored.mid, plain.mid, atol=1e-12)
    to_side = solve_two_bone(root, mid, tip, target, [1, -0.3, 0])
    assert to_side.mid[0] > 0.1 and abs(to_side.mid[2]) < 1e-12
    half = solve_two_bone(root, mid, tip, target, [1, -0.3, 0], pole_weight=0.5)
    np.testing.assert_allclose(half.mid[0], half.mid[2], atol=1e-12)  # 45° between +Z and +X
    assert np.all(length(np.stack([ignored.tip, to_side.tip, half.tip]) - target) < 1e-9)


@settings(max_examples=30, deadline=None)
@given(shape=shapes, seed=seeds)
def test_rotation_weight_blends_end_rotation(shape, seed):
    rng = np.random.default_rng(seed)
    root, mid, tip, upper, lower = random_limb(rng, shape)
    target = reachable_target(rng, root, upper, lower)
    old = quat.normalize(rng.normal(size=(*shape, 4)))
    goal = quat.normalize(rng.normal(size=(*shape, 4)))
    weight = rng.uniform(0, 1, size=shape)
    r = solve_two_bone(root, mid, tip, target, target_rotation=goal, tip_rotation=old,
                       rotation_weight=weight)
    total = quat.angle_between(old, goal)
    np.testing.assert_allclose(quat.angle_between(old, r.tip_rotation), weight * total, atol=1e-7)
    np.testing.assert_allclose(quat.angle_between(r.tip_rotation, goal), (1 - weight) * total,
                               atol=1e-7)
    assert solve_two_bone(root, mid, tip, target).tip_rotation is None


def test_rotation_weight_without_current_rotation_is_an_error():
    with pytest.raises(SkeletonError, match="tip_rotation"):
        solve_two_bone(np.zeros(3), [0, -1, 0], [0, -2, 0], [0, -1, 1],
                       target_rotation=[1, 0, 0, 0], rotation_weight=0.5)


@pytest.mark.parametrize(
    "args",
    [
        (np.zeros((4, 3)), np.zeros((5, 3)), np.zeros(3), np.zeros(3)),
        (np.zeros(2), np.zeros(3), np.zeros(3), np.zeros(3)),
        (np.zeros(3), np.zeros(3), np.zeros(3), np.zeros((2, 4))),
    ],
    ids=["batch mismatch", "root not 3-vector", "target not 3-vector"],
)
def test_malformed_shapes_raise_skeleton_error(args):
    with pytest.raises(SkeletonError, match="root"):
        solve_two_bone(*args)


def test_bad_rotation_shape_raises():
    with pytest.raises(SkeletonError, match=r"\(\.\.\., 4\)"):
        solve_two_bone(np.zeros(3), [0, -1, 0], [0, -2, 0], [0, -1, 1], target_rotation=[1, 0, 0])


# --- solve_limb on a real rig -------------------------------------------------------------


def posed_bunny(rng, frames):
    skeleton = bunny_skeleton()
    j = skeleton.joint_count
    rotations = quat.from_scaled_angle_axis(rng.normal(scale=0.4, size=(frames, j, 3)))
    translations = np.broadcast_to(skeleton.offsets, (frames, j, 3)).copy()
    translations[:, 0] += rng.normal(scale=0.3, size=(frames, 3))
    return skeleton, rotations, translations


@settings(max_examples=25, deadline=None)
@given(frames=st.integers(1, 6), seed=seeds)
def test_solve_limb_fk_reaches_target_and_keeps_the_rest(frames, seed):
    rng = np.random.default_rng(seed)
    skeleton, rotations, translations = posed_bunny(rng, frames)
    chain = tuple(skeleton.index(n) for n in ("LeftUpperLeg", "LeftLowerLeg", "LeftFoot"))
    old_rot, old_pos = forward_kinematics(skeleton.parents, rotations, translations)
    thigh, shin = 0.19, 0.18
    hip = old_pos[:, chain[0]]
    distance = rng.uniform(0.05, 0.35, size=frames)
    target = hip + distance[:, None] * unit_vectors(rng, (frames,))
    pole = hip + rng.normal(size=(frames, 3))
    new_rotations, r = solve_limb(skeleton.parents, rotations, translations, chain, target, pole)
    new_rot, new_pos = forward_kinematics(skeleton.parents, new_rotations, translations)
    assert np.all(length(new_pos[:, chain[2]] - target) < 1e-6)
    np.testing.assert_allclose(new_pos[:, chain[1]], r.mid, atol=1e-9)
    np.testing.assert_allclose(length(new_pos[:, chain[1]] - hip), thigh, rtol=1e-9)
    np.testing.assert_allclose(length(new_pos[:, chain[2]] - new_pos[:, chain[1]]), shin,
                               rtol=1e-9)
    # The foot keeps its world rotation; joints outside the chain are untouched.
    assert np.all(np.abs(np.abs(quat.dot(new_rot[:, chain[2]], old_rot[:, chain[2]])) - 1) < 1e-9)
    others = [j for j in range(skeleton.joint_count) if j not in (*chain, chain[2] + 1)]
    np.testing.assert_allclose(new_pos[:, others], old_pos[:, others], atol=1e-12)
    np.testing.assert_allclose(new_rotations[:, others], rotations[:, others], atol=0)
    # The toes ride along with the foot.
    toes = skeleton.index("LeftToes")
    np.testing.assert_allclose(length(new_pos[:, toes] - new_pos[:, chain[2]]),
                               length(old_pos[:, toes] - old_pos[:, chain[2]]), rtol=1e-9)


def test_solve_limb_target_rotation_sets_foot_world_rotation():
    rng = np.random.default_rng(3)
    skeleton, rotations, translations = posed_bunny(rng, 4)
    chain = tuple(skeleton.index(n) for n in ("RightUpperArm", "RightLowerArm", "RightHand"))
    _, old_pos = forward_kinematics(skeleton.parents, rotations, translations)
    goal = quat.normalize(rng.normal(size=(4, 4)))
    target = old_pos[:, chain[0]] + [0.05, -0.05, 0.05]
    new_rotations, _ = solve_limb(skeleton.parents, rotations, translations, chain, target,
                                  target_rotation=goal)
    new_rot, new_pos = forward_kinematics(skeleton.parents, new_rotations, translations)
    assert np.all(np.abs(np.abs(quat.dot(new_rot[:, chain[2]], goal)) - 1) < 1e-9)
    arm = length(old_pos[:, chain[1]] - old_pos[:, chain[0]]) + length(
        old_pos[:, chain[2]] - old_pos[:, chain[1]])
    reachable = length(target - old_pos[:, chain[0]]) < 0.999 * arm
    assert np.all(length(new_pos[:, chain[2]] - target)[reachable] < 1e-6)


def test_solve_limb_with_twist_joint_between():
    # root → twist → mid → tip: the twist joint turns rigidly with the upper bone.
    parents = np.array([-1, 0, 1, 2])
    translations = np.array([[0, 1, 0], [0, -0.25, 0], [0, -0.25, 0.02], [0, -0.5, 0]], float)
    rotations = quat.identity((4,))
    target = np.array([0.1, 0.3, 0.2])
    new_rotations, _ = solve_limb(parents, rotations, translations, (0, 2, 3), target, [0, 1, 1])
    _, pos = forward_kinematics(parents, new_rotations, translations)
    assert length(pos[3] - target) < 1e-9
    np.testing.assert_allclose(pos[0], [0, 1, 0])
    # The hip→twist→knee triangle moves rigidly.
    assert length(pos[1] - pos[0]) == pytest.approx(0.25, rel=1e-12)
    assert length(pos[2] - pos[1]) == pytest.approx(length(translations[2]), rel=1e-12)
    assert length(pos[2] - pos[0]) == pytest.approx(length(translations[1] + translations[2]),
                                                    rel=1e-12)


def test_solve_limb_broadcasts_one_pose_to_many_targets():
    skeleton = bunny_skeleton()
    rotations = quat.identity((skeleton.joint_count,))
    chain = tuple(skeleton.index(n) for n in ("LeftUpperLeg", "LeftLowerLeg", "LeftFoot"))
    hip = skeleton.rest_positions()[chain[0]]
    targets = hip + np.array([[0, -0.3, 0.05], [0, -0.25, 0.1], [0.05, -0.3, 0]])
    new_rotations, r = solve_limb(skeleton.parents, rotations, skeleton.offsets, chain, targets,
                                  hip + [0, 0, 1])
    assert new_rotations.shape == (3, skeleton.joint_count, 4)
    _, pos = forward_kinematics(skeleton.parents, new_rotations, skeleton.offsets)
    assert np.all(length(pos[:, chain[2]] - targets) < 1e-9)


@pytest.mark.parametrize(
    ("chain", "shapes", "match"),
    [
        ((14, 15, 16), ((22, 3), (22, 4)), "rotations"),
        ((14, 15, 99), ((22, 4), (22, 3)), "chain"),
        ((14, 15), ((22, 4), (22, 3)), "chain"),
        ((14, 9, 16), ((22, 4), (22, 3)), "not an ancestor"),
        ((15, 14, 16), ((22, 4), (22, 3)), "not an ancestor"),
    ],
    ids=["swapped arrays", "joint out of range", "two joints", "elbow in leg", "reversed"],
)
def test_solve_limb_malformed_inputs(chain, shapes, match):
    skeleton = bunny_skeleton()
    rotations = quat.identity(shapes[0][:-1]) if shapes[0][-1] == 4 else np.zeros(shapes[0])
    translations = np.zeros(shapes[1])
    with pytest.raises(SkeletonError, match=match):
        solve_limb(skeleton.parents, rotations, translations, chain, np.zeros(3))


@settings(max_examples=40, deadline=None)
@given(shape=shapes, seed=seeds)
def test_target_at_current_tip_changes_nothing(shape, seed):
    # Do no harm: a limb already on its target (and within reach) keeps its pose.
    rng = np.random.default_rng(seed)
    root, mid, tip, upper, lower = random_limb(rng, shape)
    shortest, longest = reach_limits(upper, lower)
    inside = (length(tip - root) > shortest) & (length(tip - root) < longest)
    r = solve_two_bone(root, mid, tip, tip)
    assert np.all(length(r.mid - mid)[inside] < 1e-9)
    assert np.all(quat.angle_between(r.lower_rotation, quat.identity(shape))[inside] < 1e-7)


def test_per_limb_weight_and_reach_arrays():
    root, mid, tip = np.zeros(3), np.array([0, -0.5, 0.1]), np.array([0, -0.9, 0])
    upper, lower = length(mid - root), length(tip - mid)
    far_target = np.array([0, -5.0, 0])
    reach = np.array([0.5, 0.9, 0.999])
    r = solve_two_bone(root, mid, tip, far_target, max_reach=reach)
    np.testing.assert_allclose(length(r.tip - root), reach * (upper + lower), rtol=1e-9)
    np.testing.assert_allclose(r.residual, 5.0 - reach * (upper + lower), rtol=1e-9)
    weights = np.array([0.0, 0.5, 1.0])
    side = solve_two_bone(root, mid, tip, [0, -0.7, 0], [1, -0.3, 0], pole_weight=weights)
    # The knee turns from +Z (current plane) toward +X (pole) by 0°, 45°, 90° about the line.
    angle = np.arctan2(side.mid[:, 0], side.mid[:, 2])
    np.testing.assert_allclose(angle, weights * np.pi / 2, atol=1e-9)
    assert np.all(length(side.tip - [0, -0.7, 0]) < 1e-9)


def test_limb_turned_upside_down():
    # A leg pointing up with its knee forward, sent down: the upper bone turns by ~180°.
    root, mid, tip = np.zeros(3), np.array([0, 0.5, 0.05]), np.array([0, 0.95, 0.0])
    target = np.array([0.0, -0.7, 0.1])
    r = solve_two_bone(root, mid, tip, target, [0, -0.3, 1])
    assert length(r.tip - target) < 1e-12
    np.testing.assert_allclose(quat.rotate(r.upper_rotation, mid - root), r.mid - root,
                               atol=1e-12)
    np.testing.assert_allclose(quat.rotate(r.lower_rotation, tip - mid), r.tip - r.mid,
                               atol=1e-12)
    assert quat.angle_between(r.upper_rotation, quat.identity(())) > np.radians(139)
    assert r.mid[2] > 0


def test_results_do_not_depend_on_batching():
    # Random limbs mixed with every degenerate case, solved in one call and in calls of 5: one
    # compiled kernel solves each limb the same way whatever the batch size.
    rng = np.random.default_rng(7)
    root, mid, tip, upper, lower = random_limb(rng, (40,))
    target = reachable_target(rng, root, upper, lower)
    pole = root + rng.normal(size=(40, 3))
    for i, case in enumerate(DEGENERATE.values()):
        root[i], mid[i], tip[i], target[i] = case[:4]
        pole[i] = case[4] if case[4] is not None else [0, 0, 0]
    weight = rng.uniform(0, 1, size=40)
    whole = solve_two_bone(root, mid, tip, target, pole, pole_weight=weight)
    parts = [solve_two_bone(root[i:i + 5], mid[i:i + 5], tip[i:i + 5], target[i:i + 5],
                            pole[i:i + 5], pole_weight=weight[i:i + 5]) for i in range(0, 40, 5)]
    for name in ("mid", "tip", "residual", "clamped", "upper_rotation", "lower_rotation"):
        np.testing.assert_array_equal(np.concatenate([getattr(p, name) for p in parts]),
                                      getattr(whole, name), err_msg=name)


def test_weights_are_clipped_to_unit_range():
    root, mid, tip = np.zeros(3), np.array([0, -0.5, 0.1]), np.array([0, -0.9, 0])
    target, pole = np.array([0.1, -0.6, 0.2]), np.array([1, -0.3, 0])
    full = solve_two_bone(root, mid, tip, target, pole)
    over = solve_two_bone(root, mid, tip, target, pole, position_weight=3.0, pole_weight=2.0)
    under = solve_two_bone(root, mid, tip, target, pole, position_weight=-1.0)
    np.testing.assert_allclose(over.mid, full.mid, atol=1e-12)
    np.testing.assert_allclose(under.mid, mid, atol=1e-12)


@given(st.integers(0, 2**32 - 1), st.integers(1, 9))
@settings(max_examples=30, deadline=None)
def test_rows_forms_match_public_calls(seed: int, count: int) -> None:
    """``solve_two_bone_rows`` and ``knee_rows`` (the live retarget's per-frame glue) give
    exactly what ``solve_two_bone`` and ``knee_from_source`` give for the same limbs."""
    from footfall.ik import knee_from_source
    from footfall.ik.knee import knee_rows
    from footfall.ik.two_bone import solve_two_bone_rows

    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(5, count, 3))
    weight = rng.uniform(0.0, 1.0, count)
    upper, lower, tip = solve_two_bone_rows(rows, weight)
    public = solve_two_bone(*rows, position_weight=weight)
    assert np.array_equal(upper, public.upper_rotation)
    assert np.array_equal(lower, public.lower_rotation)
    assert np.array_equal(tip, public.tip)
    lengths = rng.uniform(0.2, 0.6, (2, count))
    assert np.array_equal(knee_rows(rows, lengths), knee_from_source(*rows, *lengths))


def test_rows_form_refuses_bad_input() -> None:
    """``solve_two_bone_rows`` names a non-finite input as ``solve_two_bone`` does."""
    from footfall.ik.two_bone import solve_two_bone_rows

    rows = np.zeros((5, 2, 3))
    rows[3, 1, 0] = np.nan
    with pytest.raises(SkeletonError, match="target"):
        solve_two_bone_rows(rows, np.ones(2))
