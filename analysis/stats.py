"""Estimates over boots: medians and ratios of medians with seeded
percentile-bootstrap 95% intervals.

The unit of resampling is the boot: each boot of a (kernel, vcpus) cell
gives one figure (already paired within the boot where a difference is
wanted), and the bootstrap resamples those figures.  A ratio resamples the
boots of each kernel independently.  The generator is seeded, so a report
regenerated from the same directory prints the same intervals.
"""

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

RESAMPLES = 2000
CONFIDENCE = 0.95
SEED = 2007


@dataclass(frozen=True)
class Estimate:
    """A median (or ratio of medians) with its interval and the per-boot points."""

    value: float
    low: float
    high: float
    points: tuple[float, ...]

    @property
    def n(self) -> int:
        return len(self.points)

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)

    def excludes(self, x: float) -> bool:
        """True when the whole interval lies on one side of x."""
        return self.bounded and (self.low > x or self.high < x)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def resampled_medians(values: np.ndarray, rng: np.random.Generator,
                      resamples: int = RESAMPLES) -> np.ndarray:
    """The median of each of `resamples` bootstrap resamples of values."""
    idx = rng.integers(0, values.size, size=(resamples, values.size))
    return np.median(values[idx], axis=1)


def _interval(draws: np.ndarray) -> tuple[float, float]:
    tail = (1.0 - CONFIDENCE) / 2.0 * 100.0
    low, high = np.percentile(draws, [tail, 100.0 - tail])
    return float(low), float(high)


def median_ci(values: Iterable[float], seed: int = SEED) -> Estimate | None:
    """Median over boots with its percentile-bootstrap interval (None: no boot)."""
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        return None
    low, high = _interval(resampled_medians(arr, _rng(seed)))
    return Estimate(float(np.median(arr)), low, high, tuple(arr.tolist()))


def ratio_ci(numer: Iterable[float], denom: Iterable[float],
             seed: int = SEED) -> Estimate | None:
    """median(numer) / median(denom), each kernel's boots resampled on their
    own.  None when either side is empty or the denominator's median is not
    positive; an unbounded interval when some resampled denominator is not."""
    a = np.asarray(list(numer), dtype=float)
    b = np.asarray(list(denom), dtype=float)
    if a.size == 0 or b.size == 0 or np.median(b) <= 0:
        return None
    rng = _rng(seed)
    ma, mb = resampled_medians(a, rng), resampled_medians(b, rng)
    value = float(np.median(a) / np.median(b))
    if np.any(mb <= 0):
        return Estimate(value, -math.inf, math.inf, ())
    low, high = _interval(ma / mb)
    return Estimate(value, low, high, ())


def paired(first: dict[int, float], second: dict[int, float]) -> list[float]:
    """first − second for each boot (key) present in both: differences
    within a boot, never across boots."""
    return [first[k] - second[k] for k in sorted(first) if k in second]


def difference_ci(first: Iterable[float], second: Iterable[float],
                  seed: int = SEED) -> Estimate | None:
    """median(first) − median(second) of two independent sets of boots (two
    kernels), each resampled on its own: the comparison when a ratio is
    undefined (the second median is zero or its interval reaches zero)."""
    a = np.asarray(list(first), dtype=float)
    b = np.asarray(list(second), dtype=float)
    if a.size == 0 or b.size == 0:
        return None
    rng = _rng(seed)
    low, high = _interval(resampled_medians(a, rng) - resampled_medians(b, rng))
    return Estimate(float(np.median(a) - np.median(b)), low, high, ())
