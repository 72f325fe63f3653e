"""A cached kernel is compiled again when any module of footfall changes, not only its own file.

numba stamps a kernel's disk cache with its own source file; footfall's kernels inline helpers
and constants from other modules (``footing.kneeling`` into ``retarget/limb_kernel.py``), so a
rule changed there ran on in the old machine code until the kernel's file changed too.
"""

import shutil
from pathlib import Path

import numba

import footfall
from footfall.jit import package_stamp
from footfall.retarget import limb_kernel, weights


def test_the_stamp_is_the_whole_package(tmp_path: Path) -> None:
    package = Path(footfall.__file__).parent
    copy = tmp_path / "footfall"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = package_stamp(copy)
    assert package_stamp.__wrapped__(copy) == before  # the same sources, the same stamp
    rule = copy / "footing" / "kneeling.py"
    rule.write_text(rule.read_text().replace("KNEELING = (0.15, 0.25)", "KNEELING = (0.1, 0.2)"))
    assert package_stamp.__wrapped__(copy) != before


def test_a_kernel_is_stamped_with_the_package_not_its_file() -> None:
    # the kernels that read the kneeling rule, in other modules than the rule
    for dispatcher in (weights.source_goal_kernel, limb_kernel.feet_stage):
        locator = dispatcher._cache._impl.locator
        assert locator.get_source_stamp() == package_stamp()


def test_a_function_outside_footfall_keeps_numbas_stamp() -> None:
    @numba.njit(cache=True)
    def twice(x: float) -> float:  # pragma: no cover (compiled)
        return 2.0 * x

    assert twice(2.0) == 4.0
    assert twice._cache._impl.locator.get_source_stamp() != package_stamp()
