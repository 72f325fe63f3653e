"""Properties of the humanoid name mapping: any naming style, any joint order, same answer."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall.humanoid import HUMAN_BONES, auto_map, map_skeleton, parse_name
from footfall.skeleton import Skeleton
from test_humanoid import build_rig

# Known rigs as word lists; "{side}" marks a sided bone. build_rig lays them out as a humanoid.
BASE_RIGS = {
    "mixamo": {
        "hips": ["Hips"],
        "spine": [["Spine"], ["Spine", "1"], ["Spine", "2"]],
        "neck": [["Neck"]],
        "head": ["Head"],
        "pelvis": None,
        "leg": [["Up", "Leg"], ["Leg"], ["Foot"], ["Toe", "Base"]],
        "arm": [["Shoulder"], ["Arm"], ["Fore", "Arm"], ["Hand"]],
        "fingers": {
            finger: [["Hand", word, n] for n in ("1", "2", "3")]
            for finger, word in (("Thumb", "Thumb"), ("Index", "Index"), ("Little", "Pinky"))
        },
    },
    "cgspeed": {
        "hips": ["Hips"],
        "spine": [["lower", "back"], ["Chest"], ["Chest", "2"]],
        "neck": [["lower", "neck"], ["Neck"]],
        "head": ["Head"],
        "pelvis": ["Hip", "Joint"],
        "leg": [["Hip"], ["Knee"], ["Ankle"], ["Toe"]],
        "arm": [["Collar"], ["Shoulder"], ["Elbow"], ["Wrist"]],
        "fingers": {},
    },
    "unity": {
        "hips": ["Hips"],
        "spine": [["Spine"], ["Chest"], ["Upper", "Chest"]],
        "neck": [["Neck"]],
        "head": ["Head"],
        "pelvis": None,
        "leg": [["Upper", "Leg"], ["Lower", "Leg"], ["Foot"], ["Toes"]],
        "arm": [["Shoulder"], ["Upper", "Arm"], ["Lower", "Arm"], ["Hand"]],
        "fingers": {"Middle": [["Middle", n] for n in ("1", "2", "3")]},
    },
    "unreal": {
        "hips": ["pelvis"],
        "spine": [["spine", "01"], ["spine", "02"], ["spine", "03"], ["spine", "04"]],
        "neck": [["neck", "01"]],
        "head": ["head"],
        "pelvis": None,
        "leg": [["thigh"], ["calf"], ["foot"], ["ball"]],
        "arm": [["clavicle"], ["upper", "arm"], ["lower", "arm"], ["hand"]],
        "fingers": {"Ring": [["ring", n] for n in ("01", "02", "03")]},
    },
}

SIDE_FORMS = [("Left", "Right"), ("L", "R"), ("l", "r"), ("left", "right"), ("LEFT", "RIGHT")]
SEPARATORS = ["", "_", " ", ".", "-"]
CASES = ["camel", "lower", "upper"]
NAMESPACES = ["", "mixamorig:", "Armature|", "Bip01 ", "Character1_"]


@st.composite
def naming_styles(draw):
    """A rig (word lists) and a random way of writing names."""
    rig = draw(st.sampled_from(sorted(BASE_RIGS)))
    style = {
        "sides": draw(st.sampled_from(SIDE_FORMS)),
        "side_suffix": draw(st.booleans()),
        "side_separator": draw(st.sampled_from(SEPARATORS)),
        "word_separator": draw(st.sampled_from(SEPARATORS)),
        "case": draw(st.sampled_from(CASES)),
        "namespace": draw(st.sampled_from(NAMESPACES)),
    }
    return rig, style


def write_name(words: list[str], style: dict, sided: bool) -> str:
    """One joint name in ``style``; sided names carry a ``{S}`` placeholder for the side."""
    case = style["case"]
    if case == "camel":
        cased = [w[:1].upper() + w[1:] for w in words]
    else:
        cased = [w.lower() if case == "lower" else w.upper() for w in words]
    body = style["word_separator"].join(cased)
    if sided:
        joiner = style["side_separator"]
        body = body + joiner + "{S}" if style["side_suffix"] else "{S}" + joiner + body
    return style["namespace"] + body


def styled_rig(rig: str, style: dict) -> dict:
    base = BASE_RIGS[rig]
    central = [write_name(words, style, sided=False) for words in base["spine"]]
    return {
        "hips": write_name(base["hips"], style, sided=False),
        "spine": central,
        "neck": [write_name(words, style, sided=False) for words in base["neck"]],
        "head": write_name(base["head"], style, sided=False),
        "pelvis": base["pelvis"] and write_name(base["pelvis"], style, sided=True),
        "leg": [write_name(words, style, sided=True) for words in base["leg"]],
        "arm": [write_name(words, style, sided=True) for words in base["arm"]],
        "fingers": {
            finger: [write_name(words, style, sided=True) for words in segments]
            for finger, segments in base["fingers"].items()
        },
        "sides": style["sides"],
    }


@settings(max_examples=150, deadline=None)
@given(naming_styles())
def test_renaming_a_known_rig_in_any_style_keeps_the_mapping(drawn):
    rig, style = drawn
    skeleton, expected = build_rig(styled_rig(rig, style))
    assert len(set(skeleton.names)) == skeleton.joint_count
    result = map_skeleton(skeleton)
    assert result.mapping == expected
    assert result.missing_required == []
    assert auto_map(skeleton.names) == expected  # names alone, read in order


@settings(max_examples=150, deadline=None)
@given(naming_styles(), st.sampled_from(["Up Leg", "Fore Arm", "Hand Index 2", "Toe Base"]))
def test_one_name_reads_the_same_in_any_style(drawn, phrase):
    _, style = drawn
    reference = parse_name("Right" + phrase.replace(" ", ""))
    written = write_name(phrase.split(), style, sided=True).format(S=style["sides"][1])
    parsed = parse_name(written)
    assert (parsed.side, parsed.kind, parsed.finger) == (
        reference.side,
        reference.kind,
        reference.finger,
    )


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(BASE_RIGS)), st.randoms(use_true_random=False))
def test_joint_order_does_not_change_the_mapping(rig, random):
    style = {
        "sides": ("Left", "Right"),
        "side_suffix": False,
        "side_separator": "",
        "word_separator": "",
        "case": "camel",
        "namespace": "",
    }
    skeleton, expected = build_rig(styled_rig(rig, style))
    depth = np.array([len(skeleton.chain(j)) for j in range(skeleton.joint_count)])
    keys = [random.random() for _ in range(skeleton.joint_count)]
    order = sorted(range(skeleton.joint_count), key=lambda j: (depth[j], keys[j]))
    new_index = {old: new for new, old in enumerate(order)}
    shuffled = Skeleton(
        [skeleton.names[j] for j in order],
        np.array(
            [-1 if skeleton.parents[j] < 0 else new_index[skeleton.parents[j]] for j in order]
        ),
        skeleton.offsets[order],
    )
    result = map_skeleton(shuffled)
    assert result.mapping == expected
    assert list(result.mapping) == [bone for bone in HUMAN_BONES if bone in expected]
