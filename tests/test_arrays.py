"""``kernel_rows``: inputs broadcast to the flat rows a compiled kernel loops over."""

import numpy as np

from footfall.arrays import kernel_rows


def test_rows_broadcast_copy_only_when_needed_and_are_writable() -> None:
    rows = np.arange(6.0).reshape(2, 3)
    assert np.shares_memory(kernel_rows(rows, (2,), (3,)), rows)  # already rows: no copy
    scalar = kernel_rows(0.5, (2, 2))
    np.testing.assert_array_equal(scalar, np.full(4, 0.5))
    assert scalar.flags.writeable and scalar.flags.c_contiguous
    frozen = np.ones((4, 3))
    frozen.flags.writeable = False
    copied = kernel_rows(frozen, (4,), (3,))
    assert copied.flags.writeable and not np.shares_memory(copied, frozen)
    strided = np.arange(12.0).reshape(4, 3)[::2]
    np.testing.assert_array_equal(kernel_rows(strided, (2,), (3,)), strided)
    assert kernel_rows(strided, (2,), (3,)).flags.c_contiguous


def test_empty_tails_and_batches_keep_their_row_count() -> None:
    assert kernel_rows(np.zeros((5, 0)), (5,), (0,)).shape == (5, 0)  # a rig without arms
    assert kernel_rows(np.zeros((0, 3)), (0,), (3,)).shape == (0, 3)
