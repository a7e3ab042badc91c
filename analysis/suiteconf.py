"""suite.conf reader: the suite's facts (kernels, CSV columns, schema
version) come only from there.  Same "NAME = value" syntax as
scripts/lib.sh conf_get: '#' starts a comment line, the first '=' splits.
"""

from pathlib import Path

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
