"""Issue 34 item 8: one word per idea across the package, and grounding's modules kept small.

The hips are "hips" everywhere; "pelvis" stays only where another format or the seed names
it so (SMPL/HumanML3D's joint in ``footfall.joints``, the names ``humanoid`` matches, the demo
control's seed label, the old ``--no-pelvis`` flag). No module of ``footfall.grounding`` is
longer than 450 lines.
"""

from __future__ import annotations

import re
from pathlib import Path

import footfall

PACKAGE = Path(footfall.__file__).parent

#: Files allowed to say "pelvis", and why.
PELVIS_ALLOWED = {
    "joints/layouts.py": "SMPL/HumanML3D's joint names",
    "joints/from_clip.py": "SMPL/HumanML3D's joint names",
    "joints/solve.py": "SMPL/HumanML3D's joint names",
    "joints/fit.py": "SMPL/HumanML3D's joint names",
    "humanoid/naming.py": "the bone names it matches",
    "humanoid/mapping.py": "the bone names it matches",
    "viewer/i18n.py": "the seed's label of the control",
    "commands/render.py": "the old --no-pelvis flag, an alias",
}


def test_the_hips_have_one_name() -> None:
    saying = sorted(
        str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
        if re.search("pelvis", path.read_text(encoding="utf-8"), re.IGNORECASE)
    )
    assert saying, "no file at all says pelvis: SMPL's joint names are gone"
    stray = [name for name in saying if name not in PELVIS_ALLOWED]
    assert not stray, f"'pelvis' where the package says 'hips': {stray}"


def test_no_grounding_module_over_450_lines() -> None:
    sizes = {str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
             for path in (PACKAGE / "grounding").rglob("*.py")}
    assert len(sizes) > 10
    too_long = {name: lines for name, lines in sizes.items() if lines > 450}
    assert not too_long, f"grounding modules over 450 lines: {too_long}"
