"""Issue 36 item 4 on the stairs: a footstep fitted to one tread over all its frames, not only
the frames the tread fit judges first (every ``FIT_FRAME_STRIDE``) — measured on the written
output with ``tools/ground_table.py``'s independent pieces only (the source's own feet, floor
and contacts, the terrain's ray cast, a point's shortest way out of the ground).

mixamo_stepping bent into a circle to the right and played backwards lands its left foot at
frames 43-46 with its toe tips over a riser's edge: a move of the foot that put every third
frame on the lower tread left frames 44 and 45 over the edge, the stance lift raised them onto
the upper tread, and the raised toes cut into the riser at frames 43 and 46 (18.0 mm by the
shortest way out, the source dipping 0.7 mm: +17.3 mm against the rule's 5). Carried on the same
way as far as fits the frames between (``grounding.clip.tread_fit``), the foot stands on the
lower tread; with the move left where every third frame put it, this test fails.

The frames between are counted only where they stand across a riser, not on a crest: counting a
crest among them (a rock's bump under the sole) carried the 60 fps clip's left foot 2 cm further
on the rocks, onto ground where its right foot's next stance stood 35 mm off the rocks (stance
1.2 -> 8.5 mm, the 30 fps clip's 2.3): the clip at 30 and 60 fps no longer stood alike.
"""

from __future__ import annotations

from conventions import scene_scores

#: Issue 36 item 4: no foot point deeper in the terrain than the source's own dip + this (m).
BEYOND_DIP = 0.005
#: Issue 36 item 3 and the planted feet: the swing and stance figures stay within their rules.
SWING, STANCE = 0.020, 0.010
#: How far apart (metres) the stance figures of one clip at two frame rates may be.
FPS_ALIKE = 0.002


def test_a_footstep_landing_over_a_stair_edge_keeps_every_frame_out_of_the_riser() -> None:
    got = scene_scores("mixamo_stepping.bvh", "circle_right_backward", "stairs")
    assert got["beyond_dip"] <= BEYOND_DIP, (
        f"a foot point {1000 * got['depth']:.1f} mm inside the stairs, the source dipping "
        f"{1000 * got['dip']:.1f} mm")
    assert got["swing"] <= SWING and got["stance"] <= STANCE, got


def test_the_clip_at_30_and_60_fps_stands_alike_on_the_rocks() -> None:
    slow, fast = (scene_scores("mixamo_stepping.bvh", made, "rocks") for made in ("fps30", "fps60"))
    assert abs(fast["stance"] - slow["stance"]) <= FPS_ALIKE, (slow["stance"], fast["stance"])
