"""One Euro filter against the reference implementation's ground truth and basic properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from footfall.errors import SettingsError
from footfall.filters import OneEuroFilter, smoothing_factor

CSV = DATA / "filters" / "one_euro_ground_truth.csv"


def _reference() -> np.ndarray:
    return np.loadtxt(CSV, delimiter=",", skiprows=1)


def test_matches_reference_ground_truth_with_timestamps() -> None:
    table = _reference()
    assert table.shape == (1200, 4)
    filt = OneEuroFilter(frequency=120.0, min_cutoff=1.0, beta=0.1, derivative_cutoff=1.0)
    filtered = filt.filter_series(table[:, 2], table[:, 0])
    assert np.max(np.abs(filtered - table[:, 3])) < 1e-4


def test_matches_reference_ground_truth_at_fixed_rate() -> None:
    table = _reference()
    filt = OneEuroFilter(frequency=120.0, min_cutoff=1.0, beta=0.1, derivative_cutoff=1.0)
    filtered = filt.filter_series(table[:, 2])
    assert np.max(np.abs(filtered - table[:, 3])) < 1e-4


def test_first_sample_passes_and_batched_equals_scalar() -> None:
    table = _reference()
    noisy = table[:300, 2]
    # Three channels: the same signal, scaled; filtering them together equals one at a time.
    batch = np.stack([noisy, 2 * noisy, -noisy], axis=-1)
    together = OneEuroFilter(120.0, 1.0, 0.1).filter_series(batch)
    assert together[0] == pytest.approx(batch[0])
    for k in range(3):
        alone = OneEuroFilter(120.0, 1.0, 0.1).filter_series(batch[:, k])
        np.testing.assert_allclose(together[:, k], alone, atol=1e-12)


def test_time_going_backwards_keeps_frequency() -> None:
    filt = OneEuroFilter(frequency=60.0)
    filt(0.0, 1.0)
    filt(1.0, 1.5)
    assert filt.frequency == pytest.approx(2.0)
    filt(1.0, 1.2)  # time moved back: frequency unchanged
    assert filt.frequency == pytest.approx(2.0)


def test_smoothing_factor_definition() -> None:
    tau = 1 / (2 * np.pi * 1.0)
    assert smoothing_factor(1.0, 120.0) == pytest.approx(1 / (1 + tau * 120.0))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-100, 100), min_size=2, max_size=50),
    st.floats(0.1, 10),
    st.floats(0, 5),
)
def test_output_stays_within_input_range(values: list[float], cutoff: float, beta: float) -> None:
    out = OneEuroFilter(60.0, cutoff, beta).filter_series(np.array(values))
    assert np.all(out >= min(values) - 1e-9)
    assert np.all(out <= max(values) + 1e-9)


def test_constant_signal_is_unchanged() -> None:
    out = OneEuroFilter(60.0, 1.0, 1.0).filter_series(np.full((20, 2, 3), 0.7))
    np.testing.assert_allclose(out, 0.7)


@pytest.mark.parametrize(
    "kwargs",
    [{"frequency": 0.0}, {"min_cutoff": -1.0}, {"beta": -0.1}, {"derivative_cutoff": float("nan")}],
)
def test_bad_parameters_raise(kwargs: dict) -> None:
    with pytest.raises(SettingsError, match=next(iter(kwargs))):
        OneEuroFilter(**kwargs)


def test_shape_change_raises() -> None:
    filt = OneEuroFilter()
    filt(np.zeros(3))
    with pytest.raises(SettingsError, match="shape"):
        filt(np.zeros(4))
