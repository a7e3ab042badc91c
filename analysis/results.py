"""Load and validate an rcu-bench result directory.

RESULTDIR/csv/results.csv holds the rows (columns and schema version from
suite.conf, vocabulary in analysis/SCHEMA.md); RESULTDIR/metadata.json is
optional.  Anything malformed is a ResultsError naming the file and line,
so a bad sweep is refused instead of plotted.
"""

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import suiteconf

ACCELS = ("kvm", "tcg", "native")
HOST_KERNEL = "host"  # kernel of the native liburcu rows
STATUS_OK = "ok"
RESULTS_CSV = "csv/results.csv"
FAILED_PREFIX = "failed:"


class ResultsError(Exception):
    """Bad input: the message names the file (and line) at fault."""


@dataclass(frozen=True)
class Row:
    """One validated CSV row; value is None only for failed cells."""

    file: str
    line: int
    schema_version: int
    commit: str
    accel: str
    kernel: str
    vcpus: int
    test: str
    repeat: int
    params: dict[str, str] = field(hash=False)
    metric: str
    value: float | None
    unit: str
    source: str
    status: str

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    @property
    def params_text(self) -> str:
        return ";".join(f"{k}={v}" for k, v in self.params.items())

    @property
    def reason(self) -> str:
        return self.status[len(FAILED_PREFIX):] if not self.ok else ""

    def param_int(self, key: str) -> int | None:
        value = self.params.get(key)
        return int(value) if value is not None and value.lstrip("-").isdigit() else None


@dataclass
class ResultDir:
    path: Path
    rows: list[Row]
    metadata: dict

    @property
    def ok_rows(self) -> list[Row]:
        return [r for r in self.rows if r.ok]

    @property
    def failed_rows(self) -> list[Row]:
        return [r for r in self.rows if not r.ok]


def schema_mismatch(found: int, wanted: int) -> str:
    return f"result directory from schema v{found}, this suite reads v{wanted}"


def parse_params(text: str) -> dict[str, str]:
    """'readers=2;nest=1' -> {'readers': '2', 'nest': '1'}; '' -> {}."""
    params: dict[str, str] = {}
    for item in filter(None, text.split(";")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"params item '{item}' is not key=value")
        if key in params:
            raise ValueError(f"params key '{key}' given twice")
        params[key] = value
    return params


def _int_field(cells: dict[str, str], name: str, minimum: int) -> int:
    text = cells[name]
    if not text.isdigit() or int(text) < minimum:
        raise ValueError(f"column {name}: expected an integer >= {minimum}, got '{text}'")
    return int(text)


def _value_field(text: str, status: str) -> float | None:
    if text == "" and status != STATUS_OK:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"column value: not a number: '{text}'") from None
    if not math.isfinite(value):
        raise ValueError(f"column value: not a finite number: '{text}'")
    return value


def _status_field(text: str) -> str:
    if text == STATUS_OK or (text.startswith(FAILED_PREFIX) and len(text) > len(FAILED_PREFIX)):
        return text
    raise ValueError(f"column status: expected 'ok' or 'failed:<reason>', got '{text}'")


def _kernel_field(text: str, known: list[str]) -> str:
    if text in known or text == HOST_KERNEL:
        return text
    raise ValueError(f"unknown kernel '{text}' (known: {' '.join(known)} {HOST_KERNEL})")


def parse_row(cells: dict[str, str], known_kernels: list[str], want_schema: int) -> dict:
    """Checked field values of one row (raises ValueError with the reason)."""
    if not cells["schema_version"].isdigit():
        raise ValueError(f"column schema_version: not a number: '{cells['schema_version']}'")
    found = int(cells["schema_version"])
    if found != want_schema:
        raise ValueError(schema_mismatch(found, want_schema))
    if cells["accel"] not in ACCELS:
        raise ValueError(f"column accel: expected one of {'|'.join(ACCELS)}, got '{cells['accel']}'")
    status = _status_field(cells["status"])
    for name in ("test", "metric", "source"):
        if not cells[name]:
            raise ValueError(f"column {name} is empty")
    return {
        "schema_version": found,
        "commit": cells["commit"],
        "accel": cells["accel"],
        "kernel": _kernel_field(cells["kernel"], known_kernels),
        "vcpus": _int_field(cells, "vcpus", 1),
        "test": cells["test"],
        "repeat": _int_field(cells, "repeat", 0),
        "params": parse_params(cells["params"]),
        "metric": cells["metric"],
        "value": _value_field(cells["value"], status),
        "unit": cells["unit"],
        "source": cells["source"],
        "status": status,
    }


def load_csv(path: Path, columns: list[str], known_kernels: list[str],
             want_schema: int) -> list[Row]:
    """All rows of one results CSV, or a ResultsError naming path:line."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise ResultsError(f"{path}: cannot read: {err}") from err
    lines = text.splitlines()
    if not lines:
        raise ResultsError(f"{path}: empty file (no header)")
    if not text.endswith("\n"):
        raise ResultsError(f"{path}:{len(lines)}: truncated last line (no newline at end)")
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    if header != columns:
        raise ResultsError(f"{path}:1: wrong header: expected '{','.join(columns)}', "
                           f"got '{','.join(header)}'")
    rows = []
    for cells in reader:
        line = reader.line_num
        if not cells:
            raise ResultsError(f"{path}:{line}: empty line")
        if len(cells) != len(columns):
            raise ResultsError(f"{path}:{line}: expected {len(columns)} columns, got {len(cells)}")
        try:
            fields = parse_row(dict(zip(columns, cells)), known_kernels, want_schema)
        except ValueError as err:
            raise ResultsError(f"{path}:{line}: {err}") from None
        rows.append(Row(file=str(path), line=line, **fields))
    return rows


def load_metadata(resultdir: Path, want_schema: int) -> dict:
    """metadata.json (optional); its schema_version, if any, must match too."""
    path = resultdir / "metadata.json"
    if not path.exists():
        return {}
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ResultsError(f"{path}: not valid JSON: {err}") from err
    if not isinstance(meta, dict):
        raise ResultsError(f"{path}: expected a JSON object")
    found = meta.get("schema_version")
    if found is not None and str(found) != str(want_schema):
        raise ResultsError(f"{path}: {schema_mismatch(found, want_schema)}")
    return meta


def load_result_dir(resultdir: Path) -> ResultDir:
    """RESULTDIR/csv/results.csv, validated against suite.conf.  (Other
    csv/*.csv files are tables derived from it, such as agreement.csv.)"""
    if not resultdir.is_dir():
        raise ResultsError(f"{resultdir}: not a directory")
    path = resultdir / RESULTS_CSV
    if not path.is_file():
        raise ResultsError(f"{resultdir}: no {RESULTS_CSV}")
    try:
        columns = suiteconf.csv_columns()
        known = suiteconf.kernels()
        want = suiteconf.schema_version()
    except suiteconf.ConfError as err:
        raise ResultsError(str(err)) from err
    missing = [c for c in Row.__dataclass_fields__ if c not in ("file", "line") and c not in columns]
    if missing:
        raise ResultsError(f"{suiteconf.SUITE_CONF}: CSV_COLUMNS lacks {' '.join(missing)}")
    meta = load_metadata(resultdir, want)
    rows = load_csv(path, columns, known, want)
    return ResultDir(path=resultdir, rows=rows, metadata=meta)
