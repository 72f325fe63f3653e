"""Automatic mapping of any rig's joints onto the canonical humanoid bones, and mapping files.

Names say what a bone is; structure settles what names cannot. Each limb is read as the chain
of same-side joints whose names are limb words, top to bottom, and the limb roles (thigh, shin,
foot, toes; clavicle, upper arm, forearm, hand) are laid along it at the offset where the names
fit best. So ``LeftShoulder`` becomes the clavicle when ``LeftArm`` follows it (Mixamo) and the
upper arm when ``LeftElbow`` does (cgspeed CMU, SMPL, GAMES-105), and ``LHipJoint`` before
``LeftHip`` is left out as a short pelvis bone. The spine is the path from the hips to the neck
(or head), spread over Spine, Chest and UpperChest. When names find no legs at all, the legs are
the two branches that end lowest in the rest pose. An explicit mapping always wins.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

from footfall.errors import MappingError
from footfall.humanoid import naming
from footfall.humanoid.bones import (
    ARM_ROLES,
    FINGER_SEGMENTS,
    FINGERS,
    HUMAN_BONES,
    LEG_ROLES,
    REQUIRED_BONES,
    SIDES,
    SPINE_BONES,
)
from footfall.humanoid.naming import ParsedName
from footfall.humanoid.topology import Hierarchy, legs_by_shape
from footfall.json_input import parse_json
from footfall.skeleton import Skeleton

# How well a name kind fits a limb role: 3 says so outright, 2 usually, 1 could be.
_LEG_FIT = {
    naming.UPPER_LEG: {"UpperLeg": 3},
    naming.HIP: {"UpperLeg": 2},
    naming.LEG: {"UpperLeg": 1, "LowerLeg": 2, "Foot": 1, "Toes": 1},
    naming.LOWER_LEG: {"LowerLeg": 3},
    naming.ANKLE: {"Foot": 3},
    naming.FOOT: {"Foot": 3, "Toes": 1},
    naming.TOES: {"Toes": 3},
}
_ARM_FIT = {
    naming.CLAVICLE: {"Shoulder": 3},
    naming.SHOULDER: {"Shoulder": 2, "UpperArm": 2},
    naming.ARM: {"Shoulder": 1, "UpperArm": 2, "LowerArm": 1, "Hand": 1},
    naming.UPPER_ARM: {"UpperArm": 3},
    naming.LOWER_ARM: {"LowerArm": 3},
    naming.WRIST: {"Hand": 3},
    naming.HAND: {"Hand": 3},
}
# Joints whose names rule out a leg when legs are searched by shape.
_NOT_LEG_KINDS = naming.ARM_KINDS | {
    naming.FINGER, naming.HEAD, naming.NECK, naming.EYE, naming.JAW, naming.IGNORED}
# Roles a limb cannot do without; a small bonus breaks ties in their favour.
_ESSENTIAL = frozenset({"UpperLeg", "LowerLeg", "Foot", "UpperArm", "LowerArm", "Hand"})

PathArg = str | PathLike[str]
# Records {canonical bone: joint} unless the bone or the joint is already taken.
Assign = Callable[[str, int | None], None]


@dataclass(frozen=True)
class MappingResult:
    """A rig mapped onto the canonical bones.

    Attributes:
        mapping: ``{canonical bone: source joint name}`` in :data:`HUMAN_BONES` order.
        missing: canonical bones with no source joint, in :data:`HUMAN_BONES` order.
        unused: source joints no canonical bone uses, in skeleton order.
    """

    mapping: dict[str, str]
    missing: list[str]
    unused: list[str]

    @property
    def missing_required(self) -> list[str]:
        """The missing bones among Unity's required 15 (:data:`REQUIRED_BONES`)."""
        return [bone for bone in REQUIRED_BONES if bone not in self.mapping]

    def index_in(self, skeleton: Skeleton, bone: str) -> int | None:
        """Joint index in ``skeleton`` of canonical ``bone``, or ``None`` when unmapped."""
        source = self.mapping.get(bone)
        return None if source is None else skeleton.index(source)


def auto_map(names_or_skeleton: Skeleton | Sequence[str]) -> dict[str, str]:
    """Guess ``{canonical bone: source joint name}`` from joint names, and from the hierarchy
    and rest pose of a :class:`Skeleton` (a bare list of names: parents before children)."""
    hierarchy = Hierarchy.of(names_or_skeleton)
    by_index = _guess(hierarchy)
    return {bone: hierarchy.names[by_index[bone]] for bone in HUMAN_BONES if bone in by_index}


def map_skeleton(
    skeleton: Skeleton | Sequence[str],
    override: Mapping[str, str | None] | PathArg | None = None,
) -> MappingResult:
    """Map a rig onto the canonical bones; ``override`` (a dict or a JSON file) wins over the guess.

    An override entry ``{bone: joint}`` assigns that joint (taking it from any bone that had
    guessed it); ``{bone: null}`` leaves the bone unmapped. Raises :class:`MappingError` when the
    override names an unknown bone or a joint the skeleton lacks.
    """
    names = list(skeleton.names) if isinstance(skeleton, Skeleton) else [str(n) for n in skeleton]
    mapping = auto_map(skeleton)
    if override is not None:
        entries = (_validated(dict(override), names, "override") if isinstance(override, Mapping)
                   else load_mapping(override, names))
        for bone, source in entries.items():
            for guessed in [b for b, s in mapping.items() if s == source]:
                del mapping[guessed]
            mapping.pop(bone, None)
            if source is not None:
                mapping[bone] = source
        mapping = {bone: mapping[bone] for bone in HUMAN_BONES if bone in mapping}
    used = set(mapping.values())
    return MappingResult(mapping=mapping,
                         missing=[bone for bone in HUMAN_BONES if bone not in mapping],
                         unused=[name for name in names if name not in used])


def load_mapping(
    path: PathArg, skeleton: Skeleton | Iterable[str] | None = None
) -> dict[str, str | None]:
    """Read a JSON mapping file ``{canonical bone: source joint name or null}``.

    With ``skeleton`` (or its joint names) every source joint must exist in it. Raises
    :class:`MappingError` naming the file and the offending entries when it cannot be read or
    used (unknown bones, joints not strings or not in the skeleton, one joint for two bones).
    """
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise MappingError(f"{where}: cannot read mapping file ({error})") from None
    data = parse_json(text, where, MappingError)
    if not isinstance(data, dict):
        raise MappingError(f"{where}: expected a JSON object {{canonical bone: joint name}}, "
                           f"got {type(data).__name__}")
    names = skeleton.names if isinstance(skeleton, Skeleton) else skeleton
    return _validated(data, None if names is None else list(names), where)


def save_mapping(path: PathArg, mapping: Mapping[str, str | None]) -> None:
    """Write ``{canonical bone: source joint}`` as a JSON mapping file, in canonical order."""
    entries = _validated(dict(mapping), None, str(path))
    ordered = {bone: entries[bone] for bone in HUMAN_BONES if bone in entries}
    Path(path).write_text(json.dumps(ordered, indent=2) + "\n", encoding="utf-8")


def _validated(
    data: Mapping[Any, object], names: Sequence[str] | None, where: str
) -> dict[str, str | None]:
    unknown = [key for key in data if key not in HUMAN_BONES]
    if unknown:
        hints = []
        for key in unknown:
            close = difflib.get_close_matches(str(key), HUMAN_BONES, n=1)
            hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise MappingError(f"{where}: unknown canonical bone name(s): {', '.join(hints)}")
    bad_values = [key for key, value in data.items()
                  if value is not None and not isinstance(value, str)]
    if bad_values:
        shown = ", ".join(f"{key}={data[key]!r}" for key in bad_values)
        raise MappingError(f"{where}: joint names must be strings or null: {shown}")
    if names is not None:
        known = set(names)
        absent = [f"{k}={v!r}" for k, v in data.items() if v is not None and v not in known]
        if absent:
            raise MappingError(f"{where}: joint(s) not in the skeleton: {', '.join(absent)}")
    seen: dict[object, object] = {}
    for key, value in data.items():
        if value is not None and value in seen:
            raise MappingError(f"{where}: joint {value!r} is given to both {seen[value]} and {key}")
        seen[value] = key
    return {str(key): (None if value is None else str(value)) for key, value in data.items()}


def _guess(hierarchy: Hierarchy) -> dict[str, int]:
    """``{canonical bone: joint index}`` guessed from names, then structure."""
    parsed = [naming.parse_name(name) for name in hierarchy.names]
    found: dict[str, int] = {}
    taken: set[int] = set()

    def assign(bone: str, joint: int | None) -> None:
        if joint is not None and bone not in found and joint not in taken:
            found[bone] = joint
            taken.add(joint)

    hips_named = _shallowest(hierarchy, [j for j, p in enumerate(parsed) if p.kind == naming.HIPS])
    assign("Hips", hips_named)
    sides = _sides(hierarchy, parsed, found.get("Hips"))
    for roles, fit in ((LEG_ROLES, _LEG_FIT), (ARM_ROLES, _ARM_FIT)):
        for side in SIDES:
            joints = [j for j, p in enumerate(parsed) if sides[j] == side and p.kind in fit]
            for role, joint in _lay_roles(hierarchy, parsed, joints, roles, fit).items():
                assign(side + role, joint)
    not_legs = {j for j, p in enumerate(parsed) if p.kind in _NOT_LEG_KINDS}
    _legs_from_shape(hierarchy, found, not_legs | taken, assign)
    if "Hips" not in found and hierarchy.parents is not None and (
            "LeftUpperLeg" in found and "RightUpperLeg" in found):
        assign("Hips", hierarchy.common_ancestor(found["LeftUpperLeg"], found["RightUpperLeg"]))
    # "RootJoint" (GAMES-105) is the hips when nothing else is; Unreal's "root" sits above a
    # named pelvis, which has been taken by now.
    roots = [j for j, p in enumerate(parsed) if p.kind == naming.ROOT]
    assign("Hips", _shallowest(hierarchy, roots))
    _spine_neck_head(hierarchy, parsed, found, taken, assign)
    for side in SIDES:
        eyes = [j for j, p in enumerate(parsed) if p.kind == naming.EYE and sides[j] == side]
        assign(side + "Eye", _shallowest(hierarchy, eyes))
        for finger, finger_name in enumerate(FINGERS):
            bones = [j for j, p in enumerate(parsed)
                     if p.kind == naming.FINGER and p.finger == finger and sides[j] == side]
            ordered = hierarchy.longest_chain(bones) if bones else []
            for segment, joint in zip(FINGER_SEGMENTS, ordered, strict=False):
                assign(side + finger_name + segment, joint)
    assign("Jaw", _shallowest(hierarchy, [j for j, p in enumerate(parsed) if p.kind == naming.JAW]))
    return found


def _shallowest(hierarchy: Hierarchy, joints: Sequence[int]) -> int | None:
    return min(joints, key=lambda j: (hierarchy.depth(j), j)) if joints else None


def _sides(
    hierarchy: Hierarchy, parsed: Sequence[ParsedName], hips: int | None
) -> list[str | None]:
    """Side of every joint: from its name, else (with a rest pose) from x relative to the hips."""
    sides: list[str | None] = [p.side for p in parsed]
    if hierarchy.rest is None:
        return sides
    centre = hierarchy.rest[hips if hips is not None else 0, 0]
    extent = float(hierarchy.rest[:, 0].max() - hierarchy.rest[:, 0].min())
    for joint, p in enumerate(parsed):
        if p.side is None and p.kind in naming.LEG_KINDS | naming.ARM_KINDS | {naming.EYE}:
            offset = hierarchy.rest[joint, 0] - centre
            if abs(offset) > 1e-3 * extent:
                sides[joint] = "Left" if offset > 0 else "Right"
    return sides


def _lay_roles(
    hierarchy: Hierarchy, parsed: Sequence[ParsedName], joints: Sequence[int], roles: Sequence[str],
    fit: Mapping[str, Mapping[str, int]],
) -> dict[str, int]:
    """Lay ``roles`` along the longest chain of ``joints`` at the offset the names fit best.

    Roles that fall off either end stay unmapped, and a role whose joint's name does not fit it
    at all is left out. Joints off the chain whose name says the role outright fill the gaps
    (a foot parented elsewhere, as in IK-driven rigs).
    """
    chain = hierarchy.longest_chain(joints)
    best: dict[str, int] = {}
    best_score = 0.0
    for offset in range(-len(roles) + 1, len(chain)):
        laid: dict[str, int] = {}
        score = 0.0
        for step, role in enumerate(roles):
            position = offset + step
            if 0 <= position < len(chain):
                value = fit[parsed[chain[position]].kind].get(role, 0)
                if value:
                    laid[role] = chain[position]
                    score += value + (0.1 if role in _ESSENTIAL else 0.0)
        if score > best_score:
            best, best_score = laid, score
    used = set(best.values())
    for role in roles:
        if role in best:
            continue
        strong = [j for j in joints if j not in used and fit[parsed[j].kind].get(role, 0) >= 3]
        joint = _shallowest(hierarchy, strong)
        if joint is not None:
            best[role] = joint
            used.add(joint)
    return best


def _legs_from_shape(
    hierarchy: Hierarchy, found: dict[str, int], exclude: set[int], assign: Assign
) -> None:
    """Fill a side whose names gave no thigh, shin and foot from the rest-pose shape."""
    sides_without = [side for side in SIDES if not all(side + r in found for r in LEG_ROLES[:3])]
    if not sides_without:
        return
    leg_joints = {found[s + r] for s in SIDES for r in LEG_ROLES if s + r in found}
    for side, leg in legs_by_shape(hierarchy, exclude - leg_joints).items():
        roles = dict(zip(LEG_ROLES, leg, strict=True))
        if side not in sides_without or any(
                j is not None and found.get(side + r) not in (None, j) for r, j in roles.items()):
            continue
        for role, joint in roles.items():
            assign(side + role, joint)  # no toes (None) assigns nothing


def _spine_neck_head(
    hierarchy: Hierarchy, parsed: Sequence[ParsedName], found: dict[str, int], taken: set[int],
    assign: Assign,
) -> None:
    """Head, neck and the spine between them and the hips."""
    central = [j for j, p in enumerate(parsed) if p.side is None]
    heads = [j for j in central if parsed[j].kind == naming.HEAD]
    head = _shallowest(hierarchy, heads)
    necks = [j for j in central if parsed[j].kind == naming.NECK]
    if head is not None:
        on_path = [j for j in necks if hierarchy.is_ancestor(j, head)]
        necks = on_path or necks
    neck_chain = hierarchy.longest_chain(necks) if necks else []
    if head is None and len(neck_chain) >= 2:
        # Rigs named only "neck_joint_1, neck_joint_2": the last neck joint carries the head.
        head = neck_chain[-1]
        neck_chain = neck_chain[:-1]
    neck = neck_chain[0] if neck_chain else None
    assign("Head", head)
    assign("Neck", neck)
    top = neck if neck is not None else head
    hips = found.get("Hips")
    if hierarchy.parents is not None and hips is not None and top is not None:
        spine = [j for j in hierarchy.path_between(hips, top)
                 if parsed[j].kind != naming.IGNORED and j not in taken]
    else:
        spine = [j for j in central
                 if parsed[j].kind == naming.SPINE and j not in taken and (top is None or j < top)]
    # Spine joints bottom to top → Spine, Chest, UpperChest (first, middle, last when more).
    if len(spine) > len(SPINE_BONES):
        spine = [spine[0], spine[len(spine) // 2], spine[-1]]
    for bone, joint in zip(SPINE_BONES, spine, strict=False):
        assign(bone, joint)
