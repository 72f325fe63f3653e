"""Properties of the retargeter's batched kernels (hypothesis over random skeletons and batches).

Forward kinematics, world→local and the quaternion products are tested where they live
(``tests/test_fk.py``, ``tests/test_quat.py``)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall.retarget.spine import group_last
from footfall.retarget.stance import PlantedHold


@given(st.integers(1, 12), st.integers(1, 12))
def test_group_last_properties(source_count, target_count) -> None:
    groups = group_last(source_count, target_count)
    assert len(groups) == target_count
    assert groups[-1] == source_count - 1  # the last target bone follows the last source bone
    assert all(0 <= g < source_count for g in groups)
    assert groups == sorted(groups)
    if source_count >= target_count:
        assert len(set(groups)) == target_count  # every target bone gets its own group


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 60), st.integers(1, 10), st.integers(1, 59))
def test_planted_hold_is_one_rule_frame_by_frame_and_over_a_clip(seed, frames, fade, cut) -> None:
    """The hold a live stream applies frame by frame is the hold a clip gets over its frames
    (in chunks too: the state goes on), bit for bit; a planted run holds what its touchdown
    frame gives — the value itself once the swing before it has caught up, else the swing's
    blend continued (never a jump to the current value); a swing is the current value from
    ``fade`` frames after lift-off on."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(frames, 2, 3))
    planted = rng.random((frames, 2)) < 0.6
    live = PlantedHold(fade)
    out = np.stack([live(values[f], planted[f]) for f in range(frames)])
    clip = PlantedHold(fade)
    cut = min(cut, frames)
    series = np.concatenate([clip.series(values[:cut], planted[:cut]),
                             clip.series(values[cut:], planted[cut:])])
    np.testing.assert_array_equal(series, out)
    for foot in range(2):
        touchdown = None
        since = fade
        released = None
        for f in range(frames):
            if planted[f, foot]:
                if touchdown is None:
                    touchdown = out[f, foot]
                    caught_up = released is None or since + 1 >= fade
                    if caught_up:
                        np.testing.assert_allclose(touchdown, values[f, foot], atol=1e-12)
                    else:  # the swing's blend (its level part) continued, not the value
                        progress = (since + 1) / fade
                        eased = progress * progress * (3.0 - 2.0 * progress)
                        blend = values[f, foot] + (released - values[f, foot]) * (1.0 - eased)
                        np.testing.assert_allclose(touchdown, blend, atol=1e-12)
                np.testing.assert_array_equal(out[f, foot], touchdown)
                since = 0
            else:
                if touchdown is not None:
                    released = touchdown
                touchdown = None
                since = 0 if f and planted[f - 1, foot] else since
                since += 1
                if since >= fade:  # caught up: the value itself
                    np.testing.assert_allclose(out[f, foot], values[f, foot], atol=1e-12)
    # With nothing planted the values pass through.
    np.testing.assert_allclose(PlantedHold(fade).series(values, np.zeros_like(planted)), values)


def test_live_frame_equals_a_batch_of_one_across_rigs() -> None:
    # One frame goes through Python-float fast paths (FK, stance hold); a batch of one frame
    # through the array code. Both must give the same pose, frame after frame (state too).
    from conftest import BVH_FILES
    from footfall import bvh
    from footfall.retarget import Retargeter

    source = bvh.load(next(p for p in BVH_FILES if p.stem == "games105_walk60"))[:45]
    target = bvh.load(next(p for p in BVH_FILES if p.stem == "mixamo_stepping"))
    single = Retargeter(source.skeleton, target.skeleton)
    batched = Retargeter(source.skeleton, target.skeleton)
    for r in (single, batched):
        r.settings.update({"avatar_scale": 1.2, "foot_in_out_offset": 0.02})
    moved = 0.0
    for f in range(source.frame_count):
        rot, pos = single.step(source.rotations[f], source.positions[f], 1 / 60)
        rot_b, pos_b = batched.step(source.rotations[f][None], source.positions[f][None], 1 / 60)
        np.testing.assert_allclose(rot, rot_b[0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(pos, pos_b[0], rtol=0, atol=1e-12)
        moved = max(moved, float(np.abs(pos - target.skeleton.offsets * 1.2).max()))
    assert moved > 0.1  # the hips travelled: the comparison saw real motion


def test_planted_hold_keeps_no_reference_to_the_callers_arrays() -> None:
    """A caller reusing its buffers frame after frame (the limb kernels do) must not rewrite the
    hold's state: the touchdown/release of the next frame is seen against this frame's copy."""
    buffer_values, buffer_planted = np.zeros((2, 3)), np.zeros(2, dtype=bool)
    reused, fresh = PlantedHold(4), PlantedHold(4)
    rng = np.random.default_rng(3)
    for frame in range(12):
        buffer_values[...] = rng.normal(size=(2, 3))
        buffer_planted[...] = [frame % 5 < 3, frame % 4 < 2]
        got = reused(buffer_values, buffer_planted)
        want = fresh(buffer_values.copy(), buffer_planted.copy())
        np.testing.assert_array_equal(got, want)
