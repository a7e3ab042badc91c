"""Shared by the analysis tests: import path, fixture dirs, an independent
reading of the fixture CSV (plain csv, not the code under test)."""

import csv
import shutil
import sys
import tempfile
from pathlib import Path

ANALYSIS = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GOOD = FIXTURES / "good"
SCRIPTS = ANALYSIS.parent / "scripts"
sys.path.insert(0, str(ANALYSIS))
sys.path.insert(0, str(SCRIPTS))  # scripts/series.py, which the analysis imports too


# copy_fixture()'s scratch directories: rmtree() removes only those.
SCRATCH_PREFIX = "rb-analysis-"


def copy_fixture(name: str) -> Path:
    """A scratch copy of fixtures/NAME (removed by the caller's cleanup)."""
    tmp = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
    dest = tmp / name
    shutil.copytree(FIXTURES / name, dest)
    return dest


def raw_values(**match: str) -> list[float]:
    """Values of the good fixture's ok rows whose columns/params match."""
    out = []
    with open(GOOD / "csv" / "results.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            params = dict(kv.split("=", 1) for kv in row["params"].split(";") if kv)
            cells = {**params, **row}
            if row["status"] == "ok" and all(cells.get(k) == v for k, v in match.items()):
                out.append(float(row["value"]))
    return out


def rmtree(path: Path) -> None:
    """Remove a copy_fixture() copy with its scratch parent, and nothing
    else: a path whose parent is not such a scratch directory is an error
    (rmtree(copy.parent) once removed all of /tmp)."""
    if not path.parent.name.startswith(SCRATCH_PREFIX):
        raise ValueError(f"{path}: not a copy_fixture() copy; not removing {path.parent}")
    shutil.rmtree(path.parent, ignore_errors=True)
