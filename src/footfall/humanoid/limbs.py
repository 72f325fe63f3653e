"""Leg and arm chains as joint indices, for IK, grounding and walking.

``find_legs`` trusts the name mapping when it gives a connected thigh → shin → foot chain on
both sides, and otherwise takes the two branches that end lowest in the rest pose.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from footfall.errors import MappingError
from footfall.humanoid.bones import LEG_ROLES, SIDES
from footfall.humanoid.mapping import map_skeleton
from footfall.humanoid.topology import Hierarchy, LegChain, legs_by_shape
from footfall.skeleton import Skeleton


class _Thigh(Protocol):
    """A leg as far as the body is concerned: its thigh joint (``LegChain``, grounding's
    ``Leg``)."""

    @property
    def upper(self) -> int: ...


def hips_joint(skeleton: Skeleton, legs: Sequence[_Thigh]) -> int:
    """The joint both legs hang from: the deepest joint above both thighs (the first root
    when they share none)."""
    hierarchy = Hierarchy(tuple(skeleton.names), skeleton.parents)
    joint = hierarchy.common_ancestor(int(legs[0].upper), int(legs[1].upper))
    return int(np.nonzero(skeleton.parents < 0)[0][0]) if joint is None else joint


def body_joints(skeleton: Skeleton, legs: Sequence[_Thigh]) -> NDArray[np.int64]:
    """Indices ``(B,)`` of the body: the hips (:func:`hips_joint`) and every joint below
    it. A node above the hips (an exporter's still "Reference" at the origin, a game rig's
    ground root with its IK bones) is no body part: it sets no floor, no height, no room."""
    hips = hips_joint(skeleton, legs)
    hierarchy = Hierarchy(tuple(skeleton.names), skeleton.parents)
    return np.array([j for j in range(skeleton.joint_count)
                     if j == hips or hierarchy.is_ancestor(hips, j)], dtype=np.int64)


class ArmChain(NamedTuple):
    """Joint indices of one arm: clavicle (``None`` when absent), shoulder, elbow and wrist."""

    shoulder: int | None
    upper: int
    lower: int
    hand: int


def find_legs(skeleton: Skeleton) -> dict[str, LegChain]:
    """``{"left": LegChain, "right": LegChain}`` of a skeleton.

    Raises :class:`MappingError` ("skeleton has no legs: …") when neither the names nor the rest
    pose give two connected thigh → shin → foot chains.
    """
    hierarchy = Hierarchy.of(skeleton)
    mapping = map_skeleton(skeleton).mapping
    legs: dict[str, LegChain] = {}
    problems = []
    for side in SIDES:
        names = {role: mapping.get(side + role) for role in LEG_ROLES}
        absent = [side + role for role in LEG_ROLES[:3] if names[role] is None]
        if absent:
            problems.append(f"no joint named like {', '.join(absent)}")
            continue
        upper, lower, foot = (skeleton.index(str(names[role])) for role in LEG_ROLES[:3])
        toes = None if names["Toes"] is None else skeleton.index(names["Toes"])
        if not (hierarchy.is_ancestor(upper, lower) and hierarchy.is_ancestor(lower, foot)):
            chain = " → ".join(str(names[role]) for role in LEG_ROLES[:3])
            problems.append(f"{chain} is not one chain")
            continue
        if toes is not None and not hierarchy.is_ancestor(foot, toes):
            toes = None
        legs[side.lower()] = LegChain(upper, lower, foot, toes)
    if len(legs) == 2:
        return legs
    not_legs = {skeleton.index(source) for bone, source in mapping.items()
                if not any(bone.endswith(role) for role in LEG_ROLES) and bone != "Hips"}
    shaped = legs_by_shape(hierarchy, not_legs)
    if len(shaped) == 2:
        return {side.lower(): leg for side, leg in shaped.items()}
    raise MappingError(f"skeleton has no legs: {'; '.join(problems)}, and no two branches of at "
                       f"least three joints end low in the rest pose (joints: "
                       f"{', '.join(skeleton.names[:12])}"
                       f"{', …' if skeleton.joint_count > 12 else ''})")


def find_arms(skeleton: Skeleton) -> dict[str, ArmChain]:
    """``{"left": ArmChain, "right": ArmChain}`` of a skeleton, from the name mapping.

    When no joint is named like a hand (RobotExpressive has only palm bones), the hand is the
    forearm's child that leads to the middle finger, else its first child. Raises
    :class:`MappingError` ("skeleton has no arms: …") when an upper arm or forearm is missing.
    """
    hierarchy = Hierarchy.of(skeleton)
    result = map_skeleton(skeleton)
    mapping = result.mapping
    arms: dict[str, ArmChain] = {}
    for side in SIDES:
        upper_name = mapping.get(side + "UpperArm")
        lower_name = mapping.get(side + "LowerArm")
        if upper_name is None or lower_name is None:
            absent = side + ("UpperArm" if upper_name is None else "LowerArm")
            raise MappingError(f"skeleton has no arms: no joint maps to {absent}")
        upper, lower = skeleton.index(upper_name), skeleton.index(lower_name)
        if not hierarchy.is_ancestor(upper, lower):
            raise MappingError(f"skeleton has no arms: {lower_name} does not hang below "
                               f"{upper_name}")
        shoulder = result.index_in(skeleton, side + "Shoulder")
        hand = result.index_in(skeleton, side + "Hand")
        if hand is None:
            hand = _hand_below(skeleton, hierarchy, lower, mapping.get(side + "MiddleProximal"))
        arms[side.lower()] = ArmChain(shoulder, upper, lower, hand)
    return arms


def _hand_below(
    skeleton: Skeleton, hierarchy: Hierarchy, lower: int, middle_name: str | None
) -> int:
    children = hierarchy.children(lower)
    if not children:
        raise MappingError(f"skeleton has no arms: {skeleton.names[lower]} has no hand below it")
    if middle_name is not None:
        middle = skeleton.index(middle_name)
        for child in children:
            if child == middle or hierarchy.is_ancestor(child, middle):
                return child
    return children[0]
