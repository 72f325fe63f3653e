"""Canonical humanoid bones (Unity HumanBodyBones) and automatic mapping from any rig's names.

>>> from footfall.humanoid import auto_map
>>> auto_map(["Hips", "LHipJoint", "LeftHip", "LeftKnee", "LeftAnkle"])["LeftUpperLeg"]
'LeftHip'
"""

from footfall.humanoid.bones import (
    ARM_ROLES,
    FINGER_SEGMENTS,
    FINGERS,
    HUMAN_BONES,
    LEG_ROLES,
    REQUIRED_BONES,
    SPINE_BONES,
    bone_index,
)
from footfall.humanoid.limbs import (
    ArmChain,
    LegChain,
    body_joints,
    find_arms,
    find_legs,
    hips_joint,
)
from footfall.humanoid.mapping import (
    MappingResult,
    auto_map,
    load_mapping,
    map_skeleton,
    save_mapping,
)
from footfall.humanoid.naming import ParsedName, parse_name
from footfall.humanoid.upright import stood_up, upright_pose, upright_turn

__all__ = [
    "ARM_ROLES", "FINGERS", "FINGER_SEGMENTS", "HUMAN_BONES", "LEG_ROLES", "REQUIRED_BONES",
    "SPINE_BONES", "ArmChain", "LegChain", "MappingResult", "ParsedName", "auto_map", "bone_index",
    "find_arms", "find_legs", "body_joints", "hips_joint", "load_mapping", "map_skeleton",
    "parse_name", "save_mapping", "stood_up", "upright_pose", "upright_turn"
]
