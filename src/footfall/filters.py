"""Filters for noisy live signals: the One Euro filter (Casiez, Roussel & Vogel 2012).

The definition follows the reference implementation as fixed in 2023: the derivative is taken
from the previous *filtered* value, ``dx = (x − x̂_prev) · freq``, smoothed with ``α(dcutoff)``;
the cutoff adapts as ``fc = mincutoff + beta · |dx̂|``; ``α(fc) = 1 / (1 + τ · freq)`` with
``τ = 1 / (2π · fc)``; the first sample passes unchanged; the frequency is re-estimated from
timestamps only when time moves forward.

Written by hand because it is a dozen lines of state; scipy has no adaptive-cutoff filter.
The filter is sequential in time, batched over everything else: one call filters a sample of
any shape ``(...)`` (e.g. ``(J, 3)`` raw joint positions of several characters).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray
from footfall.errors import SettingsError


def smoothing_factor(cutoff: ArrayLike, frequency: float) -> FloatArray:
    """``α = 1 / (1 + τ · freq)`` with ``τ = 1 / (2π · cutoff)``; cutoff in Hz, any shape."""
    tau = 1.0 / (2.0 * math.pi * np.asarray(cutoff, dtype=np.float64))
    return 1.0 / (1.0 + tau * frequency)


class OneEuroFilter:
    """One Euro filter over samples of any fixed shape.

    Args:
        frequency: initial sampling rate estimate, Hz (used until timestamps say otherwise).
        min_cutoff: minimum cutoff frequency, Hz (lower = smoother when still).
        beta: speed coefficient (higher = less lag when moving).
        derivative_cutoff: cutoff for the derivative, Hz.
    """

    def __init__(
        self, frequency: float = 60.0, min_cutoff: float = 1.0, beta: float = 0.0,
        derivative_cutoff: float = 1.0,
    ) -> None:
        for name, value in (("frequency", frequency), ("min_cutoff", min_cutoff),
                            ("derivative_cutoff", derivative_cutoff)):
            if not (math.isfinite(value) and value > 0):
                raise SettingsError(f"One Euro {name} must be positive, got {value!r}")
        if not (math.isfinite(beta) and beta >= 0):
            raise SettingsError(f"One Euro beta must be ≥ 0, got {beta!r}")
        self.frequency = float(frequency)
        self.min_cutoff = float(min_cutoff)
        self.beta = float(beta)
        self.derivative_cutoff = float(derivative_cutoff)
        self.reset()

    def reset(self) -> None:
        """Forget the history: the next sample passes unchanged."""
        self._value: FloatArray | None = None
        self._derivative: FloatArray | None = None
        self._last_time: float | None = None

    def __call__(self, sample: ArrayLike, timestamp: float | None = None) -> FloatArray:
        """The filtered sample (same shape) of one sample ``(...)``; ``timestamp`` in seconds."""
        x = np.asarray(sample, dtype=np.float64)
        if timestamp is not None:
            if self._last_time is not None and timestamp > self._last_time:
                self.frequency = 1.0 / (timestamp - self._last_time)
            self._last_time = float(timestamp)
        if self._value is None:
            self._value = x.copy()
            self._derivative = np.zeros_like(x)
            return x.copy()
        if x.shape != self._value.shape:
            raise SettingsError(f"One Euro sample shape {x.shape} differs from the first sample's "
                                f"{self._value.shape}; call reset() before changing shape")
        assert self._derivative is not None  # set together with _value
        derivative = (x - self._value) * self.frequency
        alpha_d = smoothing_factor(self.derivative_cutoff, self.frequency)
        self._derivative = self._derivative + alpha_d * (derivative - self._derivative)
        cutoff = self.min_cutoff + self.beta * np.abs(self._derivative)
        alpha = smoothing_factor(cutoff, self.frequency)
        self._value = self._value + alpha * (x - self._value)
        return self._value.copy()

    def filter_series(self, samples: ArrayLike, timestamps: ArrayLike | None = None) -> FloatArray:
        """Filter a whole series ``(T, ...)`` in order (timestamps ``(T,)`` seconds, optional)."""
        samples = np.asarray(samples, dtype=np.float64)
        out = np.empty_like(samples)
        times = None if timestamps is None else np.asarray(timestamps, dtype=np.float64)
        for t in range(samples.shape[0]):
            out[t] = self(samples[t], None if times is None else float(times[t]))
        return out
