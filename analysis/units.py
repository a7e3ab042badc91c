"""Numbers as the report prints them: 3 significant digits, humanised units
(ns, µs, ms, s; /s, k/s, M/s; B, kB, MB), intervals as [low, high]."""

import math

from stats import Estimate

NONE = "–"
SIGNIFICANT = 3


def sig(x: float, digits: int = SIGNIFICANT) -> str:
    """x to `digits` significant digits, without exponent for usual sizes."""
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else ("∞" if x > 0 else "−∞")
    decimals = digits - 1 - int(math.floor(math.log10(abs(x))))
    if abs(round(x, decimals)) >= 10 ** (digits - decimals):
        decimals -= 1  # rounding reached the next power of ten: 0.09999 -> 0.100
    text = f"{round(x, decimals):.{max(decimals, 0)}f}"  # 4059 -> 4060
    return text.replace("-", "−")


def _scaled(x: float, scales: list[tuple[float, str]], ref: float | None = None) -> str:
    """x in the largest unit of scales that the reference size (default x) reaches."""
    size = abs(ref if ref is not None else x)
    factor, name = scales[0]
    for f, n in scales:
        if size >= f:
            factor, name = f, n
    return f"{sig(x / factor)} {name}"


TIME = [(1.0, "ns"), (1e3, "µs"), (1e6, "ms"), (1e9, "s")]
RATE = [(1.0, "/s"), (1e3, "k/s"), (1e6, "M/s")]
COUNT = [(1.0, ""), (1e3, "k"), (1e6, "M")]
BYTES = [(1.0, "B"), (1e3, "kB"), (1e6, "MB"), (1e9, "GB")]
UNITS = {"ns": TIME, "1/s": RATE, "count": COUNT, "ticks": [(1.0, "ticks")], "bytes": BYTES}


def value(x: float, unit: str, ref: float | None = None) -> str:
    scales = UNITS.get(unit)
    return _scaled(x, scales, ref).strip() if scales else f"{sig(x)} {unit}".strip()


def _bracketed(x: float, low: float, high: float, unit: str, sep: str) -> str:
    """x with [low<sep>high] after it, both ends in x's unit."""
    scales = UNITS.get(unit)
    if not scales:
        return f"{sig(x)} [{sig(low)}{sep}{sig(high)}] {unit}".strip()
    num, _, name = value(x, unit).partition(" ")
    factor = {n: f for f, n in scales}.get(name, 1.0)
    return f"{num} [{sig(low / factor)}{sep}{sig(high / factor)}] {name}".strip()


def interval(e: Estimate, unit: str) -> str:
    """'12.3 ns [11.9, 12.8]': the interval in the value's unit."""
    if not e.bounded:
        return f"{value(e.value, unit)} [unbounded]"
    return _bracketed(e.value, e.low, e.high, unit, ", ")


def span(median: float, low: float, high: float, unit: str) -> str:
    """'1.60 [1.58–1.65] k': a median with the range (min–max) of what it is
    the median of, unlike interval()'s 95% interval [low, high]."""
    return _bracketed(median, low, high, unit, "–")


def cell(e: Estimate | None, unit: str) -> str:
    """A table cell: median [95% interval] unit (n boots), or a dash."""
    return NONE if e is None else f"{interval(e, unit)} (n={e.n})"


def ratio(e: Estimate | None) -> str:
    if e is None:
        return NONE
    if not e.bounded:
        return f"{sig(e.value)}× [unbounded]"
    return f"{sig(e.value)}× [{sig(e.low)}, {sig(e.high)}]"
