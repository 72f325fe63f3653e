"""Joint-name normalisation: any rig's joint name → side, words and a body-part kind.

Names come in many styles (``LeftUpLeg``, ``lThigh``, ``UpperLeg_L``, ``mixamorig:LeftUpLeg``,
``Bip01 L Thigh``, ``left_hip``, ``LHipJoint``, ``lhand``). A name is cut into lower-case words at
namespaces, separators, camel-case humps and digit runs; glued words (``lowerback``, ``lhand``,
``UPLEGL``) are split again with a small body-part vocabulary. The *kind* is read from the last
body word (``pelvis_lowerback`` is a back bone, ``lTorso_Clavicle`` a clavicle), with finger,
eye, jaw and helper words taking precedence. Kinds are guesses: a word such as ``shoulder`` or
``hip`` means different bones in different rigs, and :mod:`footfall.humanoid.mapping` settles
those by position in the chain.

Written by hand: no maintained library maps arbitrary rig names to humanoid bones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# Kinds a joint name can have. Limb kinds may fit several limb roles (see mapping.py).
HIPS = "hips"
ROOT = "root"
SPINE = "spine"
NECK = "neck"
HEAD = "head"
EYE = "eye"
JAW = "jaw"
HIP = "hip"  # sided "hip": the thigh (cgspeed CMU, SMPL) or a short pelvis bone (LHipJoint)
UPPER_LEG = "upper_leg"
LEG = "leg"  # "leg" alone: the shin in Mixamo/LAFAN1, any leg bone elsewhere
LOWER_LEG = "lower_leg"
ANKLE = "ankle"
FOOT = "foot"  # the ankle in most rigs, the toes in SMPL (left_ankle → left_foot)
TOES = "toes"
CLAVICLE = "clavicle"
SHOULDER = "shoulder"  # clavicle in Mixamo/VRM, upper arm in cgspeed CMU, SMPL, GAMES-105
ARM = "arm"  # "arm" alone: the upper arm in Mixamo/LAFAN1, any arm bone elsewhere
UPPER_ARM = "upper_arm"
LOWER_ARM = "lower_arm"
WRIST = "wrist"
HAND = "hand"
FINGER = "finger"
IGNORED = "ignored"  # helpers, twist/roll bones, end sites, ears, tails, IK targets
UNKNOWN = "unknown"

LEG_KINDS = frozenset({HIP, UPPER_LEG, LEG, LOWER_LEG, ANKLE, FOOT, TOES})
ARM_KINDS = frozenset({CLAVICLE, SHOULDER, ARM, UPPER_ARM, LOWER_ARM, WRIST, HAND})

_LEFT = frozenset({"l", "left"})
_RIGHT = frozenset({"r", "right"})
_UPPER = frozenset({"up", "upper", "u", "upp"})
_LOWER_LEG = frozenset({"low", "lower", "lo"})
_LOWER_ARM = frozenset({"low", "lower", "lo", "fore", "f"})
# "leg" / "arm": the kind after an upper word, the lower words, the kind after one, alone.
_LIMB_WORDS = {"leg": (UPPER_LEG, _LOWER_LEG, LOWER_LEG, LEG),
               "arm": (UPPER_ARM, _LOWER_ARM, LOWER_ARM, ARM)}

_FINGER_WORDS = {"thumb": 0, "index": 1, "pointer": 1, "middle": 2, "ring": 3, "pinky": 4,
                 "pinkie": 4, "little": 4}

_IGNORE_WORDS = frozenset({
    "twist", "roll", "ik", "fk", "pole", "target", "end", "nub", "tip", "top", "site",
    "helper", "dummy", "ctrl", "control", "null", "share", "prop", "weapon", "attach", "socket",
    "effector", "goal", "metacarpal", "palm", "carpal", "ear", "tail", "hair", "breast", "bust",
    "skirt", "cloth", "spring", "corrective", "aux", "mch", "loc",
})

_BODY_WORDS = {
    "hips": HIPS, "pelvis": HIPS,
    "root": ROOT,
    "spine": SPINE, "back": SPINE, "chest": SPINE, "thorax": SPINE, "abdomen": SPINE,
    "ab": SPINE, "abs": SPINE, "torso": SPINE, "waist": SPINE, "belly": SPINE,
    "neck": NECK,
    "head": HEAD,
    "thigh": UPPER_LEG, "femur": UPPER_LEG,
    "knee": LOWER_LEG, "calf": LOWER_LEG, "shin": LOWER_LEG, "tibia": LOWER_LEG,
    "ankle": ANKLE,
    "foot": FOOT,
    "toe": TOES, "toes": TOES, "ball": TOES,
    "collar": CLAVICLE, "clavicle": CLAVICLE, "clav": CLAVICLE,
    "shoulder": SHOULDER, "shldr": SHOULDER,
    "humerus": UPPER_ARM,
    "elbow": LOWER_ARM, "forearm": LOWER_ARM,
    "wrist": WRIST,
    "hand": HAND,
}

# Words used to re-split glued tokens ("lowerback", "lhand", "uplegl"); includes modifiers.
_VOCABULARY = frozenset(
    set(_BODY_WORDS) | set(_FINGER_WORDS) | _IGNORE_WORDS | _LEFT | _RIGHT | _UPPER | _LOWER_ARM
    | {"hip", "leg", "arm", "eye", "eyes", "jaw", "finger", "fingers", "base", "joint"}
)

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


@dataclass(frozen=True)
class ParsedName:
    """What a joint name says about the bone.

    Attributes:
        name: the joint name as given.
        words: lower-case words with side words removed (``"LeftUpLeg"`` → ``("up", "leg")``).
        side: ``"Left"``, ``"Right"`` or ``None``.
        kind: one of the kind constants of this module.
        finger: ``0`` thumb … ``4`` little for finger bones, else ``None``.
    """

    name: str
    words: tuple[str, ...]
    side: str | None
    kind: str
    finger: int | None = None


def split_words(name: str) -> list[str]:
    """Lower-case words of a joint name (side words kept), e.g. ``"mixamorig:LeftUpLeg"`` →
    ``["left", "up", "leg"]``."""
    # Namespaces (mixamorig:, Maya DAG paths) say nothing about the bone.
    local = re.split(r"[:|/\\]", name)[-1]
    words: list[str] = []
    for run in re.findall(r"[A-Za-z]+|\d+", local):
        if run.isdigit():
            words.append(run)
            continue
        humps = [word for token in _CAMEL.findall(run) for word in _segment(token.lower())]
        if all(word in _VOCABULARY for word in humps):
            words.extend(humps)
            continue
        # Humps can cut in the wrong place ("KNEEl" → "KNE", "El"): try the run as one token.
        glued = _segment(run.lower())
        words.extend(glued if all(word in _VOCABULARY for word in glued) else humps)
    return words


#: Longest glued token split into words (letters); a longer one is kept whole, so a hostile
#: name costs time in proportion to its length only up to this (real ones have ≤ 30 letters).
MAX_GLUED_LETTERS = 64


@lru_cache(maxsize=4096)
def _segment(token: str) -> tuple[str, ...]:
    """Split a glued lower-case token into the fewest vocabulary words, or keep it whole."""
    if token in _VOCABULARY or len(token) > MAX_GLUED_LETTERS:
        return (token,)
    count = len(token)
    best: list[tuple[str, ...] | None] = [None] * (count + 1)
    best[0] = ()
    for end in range(1, count + 1):
        for start in range(max(0, end - 12), end):
            head = best[start]
            piece = token[start:end]
            if head is None or piece not in _VOCABULARY:
                continue
            candidate = (*head, piece)
            current = best[end]
            if current is None or len(candidate) < len(current):
                best[end] = candidate
    found = best[count]
    return found if found is not None else (token,)


def parse_name(name: str) -> ParsedName:
    """Side, words and kind of one joint name (see the module docstring)."""
    side = None
    words: list[str] = []
    for word in split_words(name):
        if word in _LEFT or word in _RIGHT:
            if side is None:
                side = "Left" if word in _LEFT else "Right"
            continue
        words.append(word)
    kind, finger = _kind(words, side)
    return ParsedName(name=name, words=tuple(words), side=side, kind=kind, finger=finger)


def _kind(words: list[str], side: str | None) -> tuple[str, int | None]:
    if any(word in _IGNORE_WORDS for word in words):
        return IGNORED, None
    for position, word in enumerate(words):
        if word in _FINGER_WORDS:
            return FINGER, _FINGER_WORDS[word]
        if word == "finger":
            # 3ds Max Biped: Finger0 thumb … Finger4 little; Finger01, Finger02 its segments.
            digits = words[position + 1] if position + 1 < len(words) else ""
            if digits.isdigit() and int(digits[0]) < 5:
                return FINGER, int(digits[0])
            return IGNORED, None
    if "fingers" in words:
        return IGNORED, None
    if "eye" in words or "eyes" in words:
        return EYE, None
    if "jaw" in words:
        return JAW, None
    for position in range(len(words) - 1, -1, -1):
        word = words[position]
        before = words[position - 1] if position > 0 else ""
        if word in _LIMB_WORDS:  # "leg" / "arm", told apart by the word before
            upper, lower_words, lower, alone = _LIMB_WORDS[word]
            return (upper if before in _UPPER else lower if before in lower_words else alone), None
        if word == "hip":
            return (HIP if side else HIPS), None
        if word in _BODY_WORDS:
            return _BODY_WORDS[word], None
    return UNKNOWN, None
