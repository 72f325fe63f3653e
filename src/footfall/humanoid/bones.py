"""The canonical humanoid bone set: Unity's 55 HumanBodyBones, in Unity's order.

Every retargeting, grounding and walking module names bones by these strings, so a source rig
only has to be mapped once (see :mod:`footfall.humanoid.mapping`).
"""

from __future__ import annotations

FINGERS: tuple[str, ...] = ("Thumb", "Index", "Middle", "Ring", "Little")
FINGER_SEGMENTS: tuple[str, ...] = ("Proximal", "Intermediate", "Distal")

#: Unity ``HumanBodyBones`` names; the position in the tuple is the Unity enum value (0 … 54).
HUMAN_BONES: tuple[str, ...] = (
    "Hips", "LeftUpperLeg", "RightUpperLeg", "LeftLowerLeg", "RightLowerLeg",  # 0–4
    "LeftFoot", "RightFoot", "Spine", "Chest", "Neck", "Head",  # 5–10
    "LeftShoulder", "RightShoulder", "LeftUpperArm", "RightUpperArm",  # 11–14
    "LeftLowerArm", "RightLowerArm", "LeftHand", "RightHand",  # 15–18
    "LeftToes", "RightToes", "LeftEye", "RightEye", "Jaw",  # 19–23
    *(f"Left{finger}{segment}" for finger in FINGERS for segment in FINGER_SEGMENTS),  # 24–38
    *(f"Right{finger}{segment}" for finger in FINGERS for segment in FINGER_SEGMENTS),  # 39–53
    "UpperChest",  # 54
)

#: The bones Unity requires before it accepts a rig as humanoid.
REQUIRED_BONES: tuple[str, ...] = (
    "Hips", "Spine", "Head",
    "LeftUpperLeg", "LeftLowerLeg", "LeftFoot", "RightUpperLeg", "RightLowerLeg", "RightFoot",
    "LeftUpperArm", "LeftLowerArm", "LeftHand", "RightUpperArm", "RightLowerArm", "RightHand",
)

#: Side prefixes as they appear in canonical names.
SIDES: tuple[str, ...] = ("Left", "Right")

#: Limb roles in order from the body outwards; ``f"{side}{role}"`` is a canonical name.
LEG_ROLES: tuple[str, ...] = ("UpperLeg", "LowerLeg", "Foot", "Toes")
ARM_ROLES: tuple[str, ...] = ("Shoulder", "UpperArm", "LowerArm", "Hand")

#: Spine bones between the hips and the neck, bottom to top.
SPINE_BONES: tuple[str, ...] = ("Spine", "Chest", "UpperChest")


def bone_index(name: str) -> int:
    """Unity ``HumanBodyBones`` value of a canonical bone name (``ValueError`` if unknown)."""
    return HUMAN_BONES.index(name)
