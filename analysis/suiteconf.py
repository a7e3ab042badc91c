"""suite.conf reader: the suite's facts (kernels, CSV columns, schema
version) come only from there.  Same "NAME = value" syntax as
scripts/lib.sh conf_get: '#' starts a comment line, the first '=' splits.
A kernel's own facts (configs/<kernel>/facts) come through
scripts/scenario.py: kernel_family().
"""

import sys
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"

SUITE_CONF = Path(__file__).resolve().parent.parent / "suite.conf"


class ConfError(Exception):
    """suite.conf is missing or lacks a name the caller needs."""


def read_conf(path: Path = SUITE_CONF) -> dict[str, str]:
    """All NAME = value pairs of suite.conf (values kept as strings)."""
    try:
        text = path.read_text()
    except OSError as err:
        raise ConfError(f"cannot read {path}: {err.strerror}") from err
    conf: dict[str, str] = {}
    for line in text.splitlines():
        if line.lstrip().startswith("#") or "=" not in line:
            continue
        name, value = line.split("=", 1)
        conf.setdefault(name.strip(), value.strip())
    return conf


def conf_get(name: str, path: Path = SUITE_CONF) -> str:
    """The value of NAME; a missing name is an error (never a silent default)."""
    conf = read_conf(path)
    if name not in conf:
        raise ConfError(f"{path}: no {name} defined")
    return conf[name]


def conf_list(name: str, path: Path = SUITE_CONF) -> list[str]:
    """The value of NAME as a space-separated list."""
    return conf_get(name, path).split()


def kernels() -> list[str]:
    """The suite's kernels (KERNELS), in the reports' order."""
    return conf_list("KERNELS")


def known_kernels() -> list[str]:
    """Every kernel a results row may name: KERNELS in the reports' order,
    then the other scenarios of configs/ (variants) by name."""
    main = kernels()
    return main + sorted(set(_scenario().scenarios()) - set(main))


def csv_columns() -> list[str]:
    return conf_list("CSV_COLUMNS")


def schema_version() -> int:
    value = conf_get("CSV_SCHEMA_VERSION")
    if not value.isdigit():
        raise ConfError(f"{SUITE_CONF}: CSV_SCHEMA_VERSION is not a number: {value}")
    return int(value)


def compare_pairs() -> list[tuple[str, str]]:
    """COMPARE_PAIRS as (kernel, base) pairs."""
    pairs = []
    for item in conf_list("COMPARE_PAIRS"):
        kernel, sep, base = item.partition(":")
        if not sep or not kernel or not base:
            raise ConfError(f"{SUITE_CONF}: COMPARE_PAIRS item '{item}' is not kernel:base")
        pairs.append((kernel, base))
    return pairs


class BenchTest(NamedTuple):
    """One line of suite.conf's table of bench tests (BENCH_TEST_<name>)."""
    name: str           # the test, and the cell its rows belong to
    kind: str           # timed | count
    runner: str         # rcubench | refscale | rcuscale
    in_sweep: bool      # in make bench's default list (else: run only when named)
    rows: list[str]     # the values of the results' test column its cell emits


BENCH_TEST_PREFIX = "BENCH_TEST_"
BENCH_KINDS = ("timed", "count")
BENCH_LISTS = ("sweep", "named")


def bench_tests(path: Path = SUITE_CONF) -> list[BenchTest]:
    """The bench tests of suite.conf, in table order."""
    tests = []
    for key, value in read_conf(path).items():
        if not key.startswith(BENCH_TEST_PREFIX):
            continue
        name = key[len(BENCH_TEST_PREFIX):]
        fields = value.split()
        if len(fields) < 4 or fields[0] not in BENCH_KINDS or fields[2] not in BENCH_LISTS:
            raise ConfError(f"{path}: {key} is not '<timed|count> <runner> <sweep|named> <test values...>'")
        if fields[3] != name:
            raise ConfError(f"{path}: {key}: its first test value must be {name}")
        tests.append(BenchTest(name, fields[0], fields[1], fields[2] == "sweep", fields[3:]))
    if not tests:
        raise ConfError(f"{path}: no {BENCH_TEST_PREFIX}* defined")
    return tests


def count_tests(path: Path = SUITE_CONF) -> list[str]:
    """The bench tests counted with the rbcount plugin (kind count)."""
    return [t.name for t in bench_tests(path) if t.kind == "count"]


def cell_of_test(path: Path = SUITE_CONF) -> dict[str, str]:
    """Each value of the results' test column of a bench test -> its cell."""
    return {row: t.name for t in bench_tests(path) for row in t.rows}


def _scenario() -> ModuleType:
    """scripts/scenario.py, imported on first use, not at the top: tools
    that copy only suite.conf and this module (tests/registry_check.py)
    import this one."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    import scenario  # noqa: E402
    return scenario


def kernel_fact(kernel: str, name: str) -> str | None:
    """Fact NAME of kernel (configs/<kernel>/facts, or its BASE's); None when
    unset or for a kernel this tree has no scenario of."""
    scenario = _scenario()
    try:
        return scenario.fact(kernel, name)
    except scenario.ScenarioError:
        return None


def kernel_build(kernel: str) -> str:
    """The kernel whose build (obj/<kernel>) KERNEL boots: a boot variant's
    BUILD, else KERNEL itself (also for a kernel this tree has no scenario of)."""
    return kernel_fact(kernel, "BUILD") or kernel


def kernel_family(kernel: str) -> str | None:
    """The RCU family of kernel (configs/<kernel>/facts FAMILY), None for a
    kernel this tree has no scenario of (an older results directory's)."""
    return kernel_fact(kernel, "FAMILY") or None