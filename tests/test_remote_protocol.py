"""The remote control's wire format: every field checked, every fault named, nothing else raised."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall.remote.protocol import (
    ACTIONS,
    MAX_MESSAGE_BYTES,
    FieldError,
    encode,
    error_reply,
    parameter_name,
    parse_request,
    preset_names,
)
from footfall.retarget.fingers import PRESET_ALIASES, PRESETS
from footfall.retarget.settings import PARAMETERS

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(
    st.sampled_from(["action", "id", "character", "parameter", "property", "value", "preset"]),
    json_values | st.sampled_from(list(ACTIONS) + list(PARAMETERS)[:5] + ["가위", "rock"])))
def test_any_json_object_parses_or_names_its_field(data) -> None:
    try:
        request = parse_request(json.dumps(data))
    except FieldError as exc:
        assert exc.field in (None, "id", "action", "character", "parameter", "property",
                             "value", "preset")
        assert exc.message
    else:
        assert request.action in ACTIONS
        if request.action == "updateValueRealtime":
            assert PARAMETERS[request.parameter].validate(request.value) == request.value


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200))
def test_any_bytes_or_text_never_raise_anything_else(message) -> None:
    try:
        parse_request(message)
    except FieldError:
        pass


def test_every_action_parses_with_its_fields() -> None:
    fields = {"getCharacterData": {"character": "a"},
              "updateValueRealtime": {"character": "a", "parameter": "head_scale", "value": 2},
              "setHandPosePreset": {"preset": "바위"}}
    for action in ACTIONS:
        request = parse_request(json.dumps({"action": action, "id": 7, **fields.get(action, {})}))
        assert (request.action, request.id) == (action, 7)
    update = parse_request(json.dumps({"action": "updateValueRealtime", "id": "x",
                                       "characterName": "a", "property": "head_scale",
                                       "value": 2}))
    assert (update.character, update.parameter, update.value) == ("a", "head_scale", 2.0)
    assert isinstance(update.value, float)


@pytest.mark.parametrize("message, field", [
    ("{", None),
    ("[1, 2]", None),
    ('"text"', None),
    ('{"id": 1}', "action"),
    ('{"action": 5, "id": 1}', "action"),
    ('{"action": "jump", "id": 1}', "action"),
    ('{"action": "refresh", "id": [1]}', "id"),
    ('{"action": "getCharacterData", "id": 1}', "character"),
    ('{"action": "getCharacterData", "id": 1, "character": 3}', "character"),
    ('{"action": "getCharacterData", "id": 1, "character": ""}', "character"),
    ('{"action": "updateValueRealtime", "id": 1, "character": "a", "value": 1}', "parameter"),
    ('{"action": "updateValueRealtime", "id": 1, "character": "a", "parameter": "nope", '
     '"value": 1}', "parameter"),
    ('{"action": "updateValueRealtime", "id": 1, "character": "a", "parameter": "head_scale"}',
     "value"),
    ('{"action": "updateValueRealtime", "id": 1, "character": "a", "parameter": "head_scale", '
     '"value": "big"}', "value"),
    ('{"action": "updateValueRealtime", "id": 1, "character": "a", "parameter": "head_scale", '
     '"value": 99}', "value"),
    ('{"action": "updateValueRealtime", "id": 1, "character": "a", "parameter": "head_scale", '
     '"value": NaN}', "value"),
    ('{"action": "updateValueRealtime", "id": 1, "character": "a", "parameter": "left_arm_ik", '
     '"value": 1}', "value"),
    ('{"action": "updateValueRealtime", "id": 1, "character": "a", "parameter": "ik_mode", '
     '"value": "sometimes"}', "value"),
    ('{"action": "setHandPosePreset", "id": 1, "preset": "fist"}', "preset"),
    ('{"action": "setHandPosePreset", "id": 1}', "preset"),
])
def test_bad_messages_name_the_field(message, field) -> None:
    with pytest.raises(FieldError) as caught:
        parse_request(message)
    assert caught.value.field == field
    reply = json.loads(encode(error_reply(caught.value)))
    assert reply["ok"] is False and reply["error"]["field"] == field
    if '"id": 1' in message:
        assert reply["id"] == 1
    if '"action": "' in message:
        assert reply["action"] == json.loads(message.replace("NaN", "0"))["action"]


def test_oversized_message_refused_before_parsing() -> None:
    big = json.dumps({"action": "refresh", "id": 1, "pad": "x" * MAX_MESSAGE_BYTES})
    with pytest.raises(FieldError, match="limit is 65536"):
        parse_request(big)
    parse_request(json.dumps({"action": "refresh", "id": 1, "pad": "x" * 60_000}))


def test_camel_case_names_reach_the_registry() -> None:
    assert parameter_name("avatarScale") == "avatar_scale"
    assert parameter_name("headRotationOffsetX") == "head_rotation_offset_x_deg"
    assert parameter_name("floorHeight") == "floor_height"
    for name in PARAMETERS:
        assert parameter_name(name) == name


def test_presets_are_seed_names_with_english() -> None:
    names = preset_names()
    assert [p["name"] for p in names] == ["가위", "바위", "보", "브이", "검지", "초기화"]
    assert {p["english"] for p in names} == set(PRESETS)
    assert all(PRESET_ALIASES[p["name"]] == p["english"] for p in names)


def test_encode_refuses_nan_and_turns_numpy_plain() -> None:
    import numpy as np

    assert json.loads(encode({"a": np.float32(1.5), "b": np.arange(3)})) == {"a": 1.5,
                                                                          "b": [0, 1, 2]}
    with pytest.raises(ValueError):
        encode({"a": math.nan})


def test_every_action_a_request_may_name_has_one_handler_and_the_retargeters_come_from_its_registry(
) -> None:
    from footfall.remote.actions import _HANDLERS
    from footfall.retarget.settings import ACTIONS as RETARGET_ACTIONS

    assert tuple(_HANDLERS) == ACTIONS
    assert set(RETARGET_ACTIONS) <= set(ACTIONS)
    assert set(ACTIONS) - set(RETARGET_ACTIONS) == {"refresh", "getCharacterData",
                                                     "updateValueRealtime"}
