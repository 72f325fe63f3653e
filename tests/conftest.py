"""Shared fixtures: paths to the real data from ../shared/data (see tests/data/SOURCES.md)."""

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
BVH_FILES = sorted((DATA / "bvh").glob("*.bvh"))
AVATAR_FILES = sorted((DATA / "avatars").glob("*.glb"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The folder of real test data."""
    return DATA
