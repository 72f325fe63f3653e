"""What a VRM file (VRM 0.x ``extensions.VRM``, VRM 1.0 ``extensions.VRMC_vrm``) declares:
its humanoid bone map, read from the file and never guessed, and its meta (title, authors,
licence).

VRM 0.x lists the map as ``[{"bone": "hips", "node": 3}, …]``, VRM 1.0 keys it by bone:
``{"hips": {"node": 3}, …}``. Both name bones as Unity's HumanBodyBones with a lower-case first
letter, except VRM 1.0's thumb, whose three bones are ``Metacarpal, Proximal, Distal`` where
Unity (and VRM 0.x) says ``Proximal, Intermediate, Distal``. VRM 0.x models face −Z, VRM 1.0
models +Z (:attr:`VrmInfo.faces_minus_z`); the avatar reader turns the former.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygltflib

from footfall.errors import GLTFError
from footfall.gltf.document import is_index
from footfall.humanoid.bones import FINGER_SEGMENTS, HUMAN_BONES, SIDES

VRM0_EXTENSION = "VRM"
VRM1_EXTENSION = "VRMC_vrm"
#: The spec versions footfall reads, by extension (VRM 0.x files all say "0.0").
SPEC_VERSIONS = {VRM0_EXTENSION: ("0.0",), VRM1_EXTENSION: ("1.0", "1.0-beta")}


def _lower_first(name: str) -> str:
    return name[0].lower() + name[1:]


#: VRM 0.x bone name → canonical (Unity HumanBodyBones) name: the same word, lower-case first.
VRM0_TO_CANONICAL: dict[str, str] = {_lower_first(bone): bone for bone in HUMAN_BONES}
#: VRM 1.0 bone name → canonical name (the thumb's three bones are named one step further out).
VRM1_TO_CANONICAL: dict[str, str] = {
    **{_lower_first(b): b for b in HUMAN_BONES if "Thumb" not in b},
    **{f"{side.lower()}Thumb{vrm}": f"{side}Thumb{unity}"
       for side in SIDES
       for vrm, unity in zip(("Metacarpal", "Proximal", "Distal"), FINGER_SEGMENTS, strict=True)},
}
#: Canonical name → VRM 1.0 name (what a VRM Animation file keys its bones by).
CANONICAL_TO_VRM1: dict[str, str] = {unity: vrm for vrm, unity in VRM1_TO_CANONICAL.items()}

_LIMBS = tuple(f"{side}{part}" for side in SIDES for part in
               ("UpperLeg", "LowerLeg", "Foot", "UpperArm", "LowerArm", "Hand"))
#: Bones a VRM file must map, canonical names (VRM 1.0: Unity's 15; VRM 0.x adds chest, neck).
REQUIRED = {
    VRM1_EXTENSION: ("Hips", "Spine", "Head", *_LIMBS),
    VRM0_EXTENSION: ("Hips", "Spine", "Chest", "Neck", "Head", *_LIMBS),
}


@dataclass(frozen=True)
class VrmInfo:
    """A VRM file's humanoid and meta.

    Attributes:
        extension: ``"VRM"`` (VRM 0.x) or ``"VRMC_vrm"`` (VRM 1.0).
        spec_version: the file's ``specVersion``.
        bones: ``{canonical bone: node index}`` in :data:`HUMAN_BONES` order.
        meta: the file's ``meta`` object as it stands (empty when absent).
    """

    extension: str
    spec_version: str
    bones: dict[str, int]
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def version(self) -> str:
        """``"0.x"`` or ``"1.0"``: the VRM generation."""
        return "0.x" if self.extension == VRM0_EXTENSION else "1.0"

    @property
    def faces_minus_z(self) -> bool:
        """VRM 0.x models face −Z (footfall's characters, like VRM 1.0's, face +Z)."""
        return self.extension == VRM0_EXTENSION

    @property
    def title(self) -> str:
        """The model's name (VRM 1.0 ``name``, VRM 0.x ``title``)."""
        return _text(self.meta.get("name" if self.extension == VRM1_EXTENSION else "title"))

    @property
    def authors(self) -> tuple[str, ...]:
        """VRM 1.0 ``authors``, or VRM 0.x's one ``author``."""
        if self.extension == VRM1_EXTENSION:
            authors = self.meta.get("authors")
            return tuple(_text(a) for a in authors) if isinstance(authors, list) else ()
        author = _text(self.meta.get("author"))
        return (author,) if author else ()

    @property
    def licence(self) -> str:
        """The licence: VRM 1.0 ``licenseUrl``, VRM 0.x ``licenseName`` (with the other
        licence's URL when there is one)."""
        key = "licenseUrl" if self.extension == VRM1_EXTENSION else "licenseName"
        text = _text(self.meta.get(key))
        other = _text(self.meta.get("otherLicenseUrl"))
        return f"{text} (other licence: {other})" if other else text

    @property
    def permissions(self) -> dict[str, str]:
        """The meta's usage permissions, as the file words them."""
        keys = (("avatarPermission", "commercialUsage", "creditNotation", "allowRedistribution",
                 "modification") if self.extension == VRM1_EXTENSION else
                ("allowedUserName", "commercialUssageName", "violentUssageName",
                 "sexualUssageName"))
        return {key: _text(self.meta[key]) for key in keys if key in self.meta}


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return " ".join(str(value).split())  # one line, whatever the file holds


def read_vrm(gltf: pygltflib.GLTF2, path: Path) -> VrmInfo | None:
    """The VRM extension of ``gltf`` (VRM 1.0 preferred when a file holds both), or None for
    a plain glTF file. Raises :class:`GLTFError` naming the field for an unknown
    ``specVersion``, a malformed or incomplete bone map, or a bone on a missing node."""
    extensions = gltf.extensions if isinstance(gltf.extensions, dict) else {}
    for extension in (VRM1_EXTENSION, VRM0_EXTENSION):
        if extension in extensions:
            return _read(extensions[extension], extension, len(gltf.nodes), path)
    return None


def _read(data: object, extension: str, node_count: int, path: Path) -> VrmInfo:
    where = f"{path}: extensions.{extension}"
    if not isinstance(data, dict):
        raise GLTFError(f"{where} must be an object")
    version = data.get("specVersion", "0.0" if extension == VRM0_EXTENSION else None)
    if version not in SPEC_VERSIONS[extension]:
        raise GLTFError(f"{where}.specVersion: {version!r:.40} is not a version footfall reads "
                        f"({', '.join(SPEC_VERSIONS[extension])})")
    humanoid = data.get("humanoid")
    if not isinstance(humanoid, dict):
        raise GLTFError(f"{where}.humanoid must be an object with 'humanBones'")
    entries = _entries(humanoid.get("humanBones"), extension, f"{where}.humanoid.humanBones")
    names = VRM1_TO_CANONICAL if extension == VRM1_EXTENSION else VRM0_TO_CANONICAL
    bones: dict[str, int] = {}
    owner: dict[int, str] = {}
    for field_name, vrm_name, node in entries:
        if not isinstance(vrm_name, str) or vrm_name not in names:
            raise GLTFError(f"{field_name}: {vrm_name!r:.40} is not a VRM "
                            f"{'1.0' if extension == VRM1_EXTENSION else '0.x'} humanoid bone")
        bone = names[vrm_name]
        if bone in bones:
            raise GLTFError(f"{field_name}: bone {vrm_name!r} is mapped twice")
        if not is_index(node, node_count):
            raise GLTFError(f"{field_name}.node: {node!r:.20} is not a node of the file "
                            f"({node_count} nodes)")
        if node in owner:
            raise GLTFError(f"{field_name}.node: node {node} is already bone "
                            f"{vrm_bone_name(owner[node], extension)!r}")
        bones[bone], owner[node] = node, bone
    missing = [vrm_bone_name(b, extension) for b in REQUIRED[extension] if b not in bones]
    if missing:
        raise GLTFError(f"{where}.humanoid.humanBones: required bone(s) missing: "
                        f"{', '.join(missing)}")
    meta = data.get("meta")
    return VrmInfo(extension, str(version), {b: bones[b] for b in HUMAN_BONES if b in bones},
                   meta if isinstance(meta, dict) else {})


def _entries(human_bones: object, extension: str, where: str
             ) -> list[tuple[str, object, object]]:
    """``(field, VRM bone name, node)`` per entry of either form of the map."""
    if extension == VRM1_EXTENSION:
        if not isinstance(human_bones, dict):
            raise GLTFError(f"{where} must be an object {{bone: {{\"node\": index}}}}")
        out = []
        for name, entry in human_bones.items():
            if not isinstance(entry, dict):
                raise GLTFError(f"{where}.{name}: must be an object {{\"node\": index}}")
            out.append((f"{where}.{name}", name, entry.get("node")))
        return out
    if not isinstance(human_bones, list):
        raise GLTFError(f"{where} must be a list of {{\"bone\": name, \"node\": index}}")
    out = []
    for number, entry in enumerate(human_bones):
        if not isinstance(entry, dict):
            raise GLTFError(f"{where}[{number}]: must be an object {{\"bone\", \"node\"}}")
        out.append((f"{where}[{number}]", entry.get("bone"), entry.get("node")))
    return out


def vrm_bone_name(bone: str, extension: str) -> str:
    """The name VRM extension ``extension`` gives canonical ``bone``."""
    return CANONICAL_TO_VRM1[bone] if extension == VRM1_EXTENSION else _lower_first(bone)
