"""Korean and English strings of the demo (every user-facing string of the viewer and the
rendered pictures), and the language chosen from the locale.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from footfall.errors import SettingsError

LANGUAGES = ("ko", "en")

STRINGS: dict[str, dict[str, str]] = {
    "title": {"ko": "footfall — 발 땅에 붙이기", "en": "footfall — feet on the ground"},
    "label_ik_on": {"ko": "IK 켬", "en": "IK on"},
    "label_ik_off": {"ko": "IK 끔", "en": "IK off"},
    "legend": {
        "ko": "하늘색 = 발 아래 광선 · 빨강 = 뜬 틈",
        "en": "light blue = ray under the foot · red = gap",
    },
    "ik_left": {"ko": "IK (왼쪽 토끼)", "en": "IK (left bunny)"},
    "hips": {"ko": "골반 높이 보정", "en": "Pelvis correction"},
    "speed": {"ko": "걷는 속도 (m/s)", "en": "Walking speed (m/s)"},
    "terrain": {"ko": "지형", "en": "Terrain"},
    "step_height": {"ko": "계단 높이 (m)", "en": "Step height (m)"},
    "walker": {"ko": "걷기 방식", "en": "Walker"},
    "walker_stepping": {"ko": "발자국 걷기 (seed 000)", "en": "Stepping (seed 000)"},
    "walker_gait": {"ko": "절차 걷기 주기", "en": "Procedural walk cycle"},
    "follow": {"ko": "카메라 따라가기", "en": "Camera follow"},
    "pause": {"ko": "멈춤", "en": "Pause"},
    "restart": {"ko": "처음부터", "en": "Restart"},
    "folder_controls": {"ko": "조절", "en": "Controls"},
    "folder_readout": {"ko": "측정", "en": "Readout"},
    "terrain_course": {"ko": "코스", "en": "course"},
    "terrain_stairs": {"ko": "계단", "en": "stairs"},
    "terrain_hills": {"ko": "언덕", "en": "hills"},
    "terrain_ripples": {"ko": "잔물결", "en": "ripples"},
    "terrain_slope": {"ko": "경사", "en": "slope"},
    "terrain_rocks": {"ko": "바위", "en": "rocks"},
    "readout_bunny": {"ko": "토끼", "en": "bunny"},
    "readout_gap": {"ko": "지금 틈", "en": "gap now"},
    "readout_error": {"ko": "누적 접촉 오차", "en": "contact error so far"},
    "readout_left": {"ko": "왼쪽", "en": "left"},
    "readout_right": {"ko": "오른쪽", "en": "right"},
}


def detect_language(environ: Mapping[str, str] | None = None) -> str:
    """``"ko"`` for a Korean POSIX locale, else ``"en"``: the first of ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG`` and ``LANGUAGE`` that is set decides, like gettext."""
    environ = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = environ.get(name, "")
        if value:
            return "ko" if value.lower().startswith("ko") else "en"
    return "en"


def check_language(lang: str) -> str:
    """``lang`` itself when it is a supported language code, else a :class:`SettingsError`."""
    if lang not in LANGUAGES:
        raise SettingsError(f"language {lang!r} is not supported; choose one of {LANGUAGES}")
    return lang


def text(key: str, lang: str) -> str:
    """The string ``key`` in language ``lang`` (``"ko"`` or ``"en"``)."""
    return STRINGS[key][check_language(lang)]
