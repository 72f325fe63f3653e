"""Shared fixtures: paths to the real data from ../shared/data (see tests/data/SOURCES.md)."""

import importlib.util
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# No per-example deadline: a kernel compiled on its first call (an empty numba cache, as in a
# fresh CI clone) or a busy shared machine is not a failure; speed lives in benchmarks/.
settings.register_profile("footfall", deadline=None)
settings.load_profile("footfall")

DATA = Path(__file__).parent / "data"
# Every shared capture (nine conventions). ``BVH_FILES`` is the subset the older stage tests
# run over; the real-clip work widens it to ``ALL_BVH_FILES`` stage by stage.
ALL_BVH_FILES = sorted((DATA / "bvh").glob("*.bvh"))
LEGACY_BVH_NAMES = ("cmu_131_01.bvh", "cmu_131_01_metres.bvh", "games105_walk60.bvh",
                    "mixamo_stepping.bvh")
BVH_FILES = [path for path in ALL_BVH_FILES if path.name in LEGACY_BVH_NAMES]
AVATAR_FILES = sorted((DATA / "avatars").glob("*.glb"))
#: Screenshots and other pictures the browser tests leave for a person to look at.
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


@cache
def ground_table() -> Any:
    """``tools/ground_table.py`` as a module, loaded once: issue 36's independent scorer (the
    source's own feet, contacts and floor; the terrain's ray cast)."""
    spec = importlib.util.spec_from_file_location(
        "ground_table", DATA.parent.parent / "tools" / "ground_table.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The folder of real test data."""
    return DATA
# The humanoid captures (eight): every stage that needs legs and arms runs over these. The ninth
# file (4 joints: hips, spine, head, one leg) is no humanoid: a clear MappingError is its answer.
NOT_HUMANOID_BVH = DATA / "bvh" / "pybvh_rotation_first_root.bvh"
HUMANOID_BVH_FILES = [path for path in ALL_BVH_FILES if path != NOT_HUMANOID_BVH]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's chromium driven by Playwright (software WebGL), one per test module; each
    launch starts from a fresh temporary profile."""
    from playwright import sync_api

    from footfall.viewer.headless import CHROMIUM, CHROMIUM_FLAGS

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} missing: apt-get install chromium (see README)"
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()
