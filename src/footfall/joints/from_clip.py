"""Any humanoid clip (BVH, glTF, a walker's output) as joint positions in a layout.

Each layout joint is read off the canonical humanoid bone it is (:mod:`footfall.humanoid`'s
mapping: ``left_hip`` is the thigh's joint, ``left_foot`` the toe base, ``left_collar`` the
clavicle, ``left_shoulder`` the upper arm). Spine joints a rig lacks (a single chest, no neck)
or that sit on the joint below are spread evenly along the spine between the ones it has; a
collar on the chest joint goes halfway to the shoulder; SMPL's hand joints, where a rig has no
middle finger, lie a third of a forearm beyond the wrist.
"""

from __future__ import annotations

import numpy as np

from footfall.arrays import FloatArray
from footfall.errors import JointsError
from footfall.humanoid import map_skeleton
from footfall.joints.layouts import Layout
from footfall.skeleton import Clip

#: The canonical bone (Unity HumanBodyBones) at each SMPL joint.
CANONICAL = {
    "pelvis": "Hips", "spine1": "Spine", "spine2": "Chest", "spine3": "UpperChest",
    "neck": "Neck", "head": "Head",
    **{f"{s}_{j}": f"{S}{b}" for s, S in (("left", "Left"), ("right", "Right")) for j, b in (
        ("hip", "UpperLeg"), ("knee", "LowerLeg"), ("ankle", "Foot"), ("foot", "Toes"),
        ("collar", "Shoulder"), ("shoulder", "UpperArm"), ("elbow", "LowerArm"),
        ("wrist", "Hand"), ("hand", "MiddleProximal"))},
}
#: The spine from pelvis to head: missing joints are spread between the ones present.
SPINE = ("pelvis", "spine1", "spine2", "spine3", "neck", "head")
#: A hand joint without a finger bone: this share of the forearm beyond the wrist.
HAND_REACH = 1 / 3
#: A spine joint closer than this to the one below it (metres) is taken as missing.
MIN_SPINE_BONE = 0.02


def positions_from_clip(clip: Clip, layout: Layout) -> FloatArray:
    """World positions ``(T, J, 3)`` (Y up, metres) of ``layout``'s joints in a humanoid
    ``clip``; raises :class:`JointsError` naming the bones the rig lacks."""
    names = clip.skeleton.names
    if set(layout.joints) <= set(names):  # the layout's own joints (a file footfall wrote)
        return clip.global_positions()[:, [names.index(name) for name in layout.joints]]
    mapping = map_skeleton(clip.skeleton).mapping
    world = clip.global_positions()
    out = np.full((clip.frame_count, layout.joint_count, 3), np.nan)
    for j, name in enumerate(layout.joints):
        bone = mapping.get(CANONICAL[name])
        if bone is not None:
            out[:, j] = world[:, clip.skeleton.index(bone)]
    _fill_spine(out, layout)
    for side in ("left", "right"):
        _place_collar(out, layout, side)
        hand = f"{side}_hand"
        if hand in layout.joints and np.isnan(out[0, layout.index(hand)]).any():
            wrist, elbow = out[:, layout.index(f"{side}_wrist")], out[:, layout.index(
                f"{side}_elbow")]
            out[:, layout.index(hand)] = wrist + HAND_REACH * (wrist - elbow)
    missing = [f"{name} ({CANONICAL[name]})" for j, name in enumerate(layout.joints)
               if np.isnan(out[0, j]).any()]
    if missing:
        raise JointsError(f"the clip has no joint for {', '.join(missing)}: it is not a "
                          "humanoid this layout can describe")
    return out


def _place_collar(out: FloatArray, layout: Layout, side: str) -> None:
    """A collar that is missing or sits on the upper chest (CMU's ``LeftCollar``) goes halfway
    from the upper chest to the shoulder, in place."""
    collar, chest, shoulder = (layout.index(n) for n in (f"{side}_collar", "spine3",
                                                         f"{side}_shoulder"))
    if np.isnan(out[0, chest]).any() or np.isnan(out[0, shoulder]).any():
        return
    if np.isnan(out[0, collar]).any() or np.median(np.linalg.norm(
            out[:, collar] - out[:, chest], axis=-1)) < MIN_SPINE_BONE:
        out[:, collar] = (out[:, chest] + out[:, shoulder]) / 2


def _fill_spine(out: FloatArray, layout: Layout) -> None:
    """Spread missing spine joints evenly between the present ones around them, in place."""
    rows = [layout.index(name) for name in SPINE if name in layout.joints]
    present: list[int] = []
    for k, row in enumerate(rows):
        if np.isnan(out[0, row]).any():
            continue
        # A spine joint on the one below it (CMU's lowerback on the hips) adds no bone.
        if present and np.median(np.linalg.norm(out[:, row] - out[:, rows[present[-1]]],
                                                axis=-1)) < MIN_SPINE_BONE:
            out[:, row] = np.nan
            continue
        present.append(k)
    if len(present) < 2:
        return
    for k, row in enumerate(rows):
        if k in present:
            continue
        below = max((p for p in present if p < k), default=None)
        above = min((p for p in present if p > k), default=None)
        if below is None or above is None:
            continue
        share = (k - below) / (above - below)
        out[:, row] = (1 - share) * out[:, rows[below]] + share * out[:, rows[above]]
