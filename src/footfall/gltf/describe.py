"""``footfall info AVATAR``: what a glTF/VRM avatar holds and how footfall reads it."""

from __future__ import annotations

import numpy as np

from footfall.gltf.avatar import Avatar
from footfall.humanoid.bones import HUMAN_BONES
from footfall.skeleton import forward_kinematics


def describe_avatar(avatar: Avatar, tree: bool = True) -> str:
    """The text ``footfall info`` prints for an avatar: format, VRM meta (title, authors,
    licence, permissions), facing, skin, joints, heights and (``tree``) the humanoid bone map
    with each bone's joint and glTF node."""
    skeleton = avatar.skeleton
    document = avatar.document
    skins = len(document.skins) if document is not None else 0
    _, at = forward_kinematics(skeleton.parents, avatar.rest_rotations, skeleton.offsets)
    roots = [skeleton.names[j] for j in range(skeleton.joint_count) if skeleton.parents[j] < 0]
    lines = [str(avatar.path)]
    vrm = avatar.vrm
    if vrm is None:
        lines.append("  format           glTF (no VRM extension: bones guessed from names)")
    else:
        lines += [
            f"  format           VRM {vrm.version} (extensions.{vrm.extension}, specVersion "
            f"{vrm.spec_version})",
            f"  title            {vrm.title or '(none)'}",
            f"  authors          {', '.join(vrm.authors) or '(none)'}",
            f"  licence          {vrm.licence or '(none)'}",
        ]
        if vrm.permissions:
            lines.append("  permissions      " + ", ".join(
                f"{key} {value}" for key, value in vrm.permissions.items()))
        lines.append("  facing           " + ("−Z in the file (VRM 0.x), turned to +Z"
                                              if vrm.faces_minus_z else "+Z"))
    lines += [
        f"  skin             {skins} skin{'s' if skins != 1 else ''}"
        + (" (armature only: the humanoid's nodes are the joints)"
           if skins == 0 and vrm is not None else ""),
        f"  joints           {skeleton.joint_count} (root{'s' if len(roots) > 1 else ''}: "
        f"{', '.join(roots)})",
        f"  height           {at[:, 1].max() - min(0.0, at[:, 1].min()):.3f} m "
        f"(highest joint above the floor, rest pose)",
    ]
    if avatar.humanoid is not None:
        missing = [bone for bone in HUMAN_BONES if bone not in avatar.humanoid]
        lines.append(f"  humanoid         {len(avatar.humanoid)} bones from the file; not "
                     f"mapped: {', '.join(missing) or 'none'}")
        if tree:
            node_of = dict(zip(skeleton.names, avatar.nodes, strict=True))
            lines.append("  bone map         (canonical = joint, node)")
            for bone, joint in avatar.humanoid.items():
                lines.append(f"    {bone:<24} {joint} (node {node_of[joint]}, at "
                             f"{np.round(at[skeleton.index(joint)], 3).tolist()})")
    return "\n".join(lines)
