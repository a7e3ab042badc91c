"""The results directory: its file formats, and the only code that reads
or writes them.  The sweep (sweep.py, boots.py) writes it, the analysis
(report.py and the modules it calls) reads it with load_result_dir().

RESULTDIR/csv/results.csv holds the rows (columns and schema version from
suite.conf, vocabulary in analysis/SCHEMA.md), RESULTDIR/csv/boots.csv one
row per boot (suite.conf BOOTS_COLUMNS), RESULTDIR/metadata.json the sweep's
parameters, RESULTDIR/csv/agreement.csv the refscale agreement per boot
(derived: written by sweep.py finish and by report.py).  Reading: anything
malformed is a ResultsError naming the file and line, so a bad sweep is
refused instead of plotted.  Writing: every change goes to a temporary
file, fsync'ed and renamed, so an interrupted sweep leaves either the old
or the new file, never a partial row.  A cell is (kernel, vcpus, test,
repeat); it is finished when results.csv holds ok rows for it, so resuming
redoes exactly the unfinished and failed cells.
"""

import csv
import io
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import suiteconf  # noqa: E402

ACCELS = ("kvm", "tcg", "native")
HOST_KERNEL = "host"  # kernel of the native liburcu rows
STATUS_OK = "ok"
RESULTS_CSV = "csv/results.csv"
BOOTS_CSV = "csv/boots.csv"
AGREEMENT_CSV = "csv/agreement.csv"
METADATA_JSON = "metadata.json"
FAILED_PREFIX = "failed:"
AGREEMENT_COLUMNS = ["kernel", "vcpus", "repeat", "rcubench_ns_per_pair", "rcubench_with_loop_ns",
                     "refscale_ns", "ratio"]

# Rows whose test differs from the cell (the test the guest job ran) that
# produced them, e.g. gp_stages rows of the gp cell: a cell is finished,
# failed and redone as a whole, these rows with it.  The mapping comes from
# the host table of bench tests (suite.conf BENCH_TEST_*).
_CELL_OF_TEST: dict[str, str] = {}


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


@dataclass(frozen=True)
class Boot:
    """One row of csv/boots.csv: a guest boot and the host's state around it."""

    kernel: str
    vcpus: int
    repeat: int
    host_cpus: int
    overcommitted: bool
    flagged: bool
    status: str


BootKey = tuple[str, int, int]  # (kernel, vcpus, repeat): joins a boot to its rows


@dataclass(frozen=True)
class KernelKey:
    """A kernel's build keys when the sweep started or resumed (scripts/lib.sh
    kernel_key): the one this tree gives and the one it was built with."""

    tree: str | None
    built: str | None

    @property
    def out_of_date(self) -> bool:
        """Built from another series or fragments than the tree's: bench.sh
        boots a built kernel as it is."""
        return self.tree is not None and self.built is not None and self.tree != self.built


@dataclass(frozen=True)
class Provenance:
    """What built the sweep's kernels (metadata.json "series" and
    "kernel_keys", written by sweep.py init and resumed)."""

    series_key: str
    patches: tuple[str, ...]          # the patch files, in series order
    kernel_keys: dict[str, KernelKey]

    @property
    def out_of_date(self) -> list[str]:
        return [k for k, key in self.kernel_keys.items() if key.out_of_date]


@dataclass
class ResultDir:
    path: Path
    rows: list[Row]
    metadata: dict
    boots: dict[BootKey, Boot] = field(default_factory=dict)
    # None: the directory predates recording the series (schema v2 sweeps before it).
    provenance: Provenance | None = None
    # (when, what) of each resume that recorded its provenance.
    resumes: list[tuple[str, Provenance]] = field(default_factory=list)

    @property
    def ok_rows(self) -> list[Row]:
        return [r for r in self.rows if r.ok]

    @property
    def failed_rows(self) -> list[Row]:
        return [r for r in self.rows if not r.ok]

    @property
    def host_cpus(self) -> int | None:
        """CPUs of the host: metadata.json, else the boots record."""
        cpus = self.metadata.get("host_cpus")
        if isinstance(cpus, int) and cpus > 0:
            return cpus
        counts = {b.host_cpus for b in self.boots.values()}
        return min(counts) if counts else None

    def overcommitted(self, kernel: str, vcpus: int) -> bool:
        """A guest cell whose vCPUs reach the host's CPU count (or whose boots
        say so): never the source of a headline ratio.  Unknown host: True."""
        if kernel == HOST_KERNEL:
            return False
        if any(b.overcommitted for b in self.boots.values()
               if (b.kernel, b.vcpus) == (kernel, vcpus)):
            return True
        cpus = self.host_cpus
        return cpus is None or vcpus >= cpus

    def flagged_repeats(self, kernel: str, vcpus: int) -> list[int]:
        """Boots of the cell that ran beside other host load."""
        return sorted(b.repeat for b in self.boots.values()
                      if (b.kernel, b.vcpus) == (kernel, vcpus) and b.flagged)


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


def read_table(path: Path, columns: list[str]) -> list[tuple[int, dict[str, str]]]:
    """(line, cells) of each row of a CSV file with a header, which must be
    columns; the one reader of the CSV files of a results directory."""
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
        rows.append((line, dict(zip(columns, cells))))
    return rows


def load_csv(path: Path, columns: list[str], known_kernels: list[str],
             want_schema: int) -> list[Row]:
    """All rows of one results CSV, validated, or a ResultsError naming path:line."""
    rows = []
    for line, cells in read_table(path, columns):
        try:
            fields = parse_row(cells, known_kernels, want_schema)
        except ValueError as err:
            raise ResultsError(f"{path}:{line}: {err}") from None
        rows.append(Row(file=str(path), line=line, **fields))
    return rows


def read_metadata(resultdir: Path) -> dict:
    """metadata.json as a dict ({} when there is none)."""
    path = resultdir / METADATA_JSON
    if not path.exists():
        return {}
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ResultsError(f"{path}: not valid JSON: {err}") from err
    if not isinstance(meta, dict):
        raise ResultsError(f"{path}: expected a JSON object")
    return meta


def load_metadata(resultdir: Path, want_schema: int) -> dict:
    """metadata.json (optional); its schema_version, if any, must match too."""
    meta = read_metadata(resultdir)
    found = meta.get("schema_version")
    if found is not None and str(found) != str(want_schema):
        raise ResultsError(f"{resultdir / METADATA_JSON}: {schema_mismatch(found, want_schema)}")
    return meta


def parse_provenance(record: dict) -> Provenance:
    """The series and kernel keys of metadata.json (or of one of its resumes);
    raises ValueError naming what is malformed."""
    series = record.get("series")
    if not isinstance(series, dict) or not isinstance(series.get("key"), str):
        raise ValueError("series: expected an object with a key")
    patches = series.get("patches")
    if not isinstance(patches, list) or not all(isinstance(p, dict) and isinstance(p.get("file"), str)
                                                for p in patches):
        raise ValueError("series: expected patches, a list of objects with a file")
    keys = record.get("kernel_keys", {})
    if not isinstance(keys, dict) or not all(isinstance(v, dict) for v in keys.values()):
        raise ValueError("kernel_keys: expected an object of {tree, built} objects")
    return Provenance(series["key"], tuple(p["file"] for p in patches),
                      {k: KernelKey(v.get("tree"), v.get("built")) for k, v in keys.items()})


def load_provenance(resultdir: Path, meta: dict) -> tuple[Provenance | None,
                                                          list[tuple[str, Provenance]]]:
    """The sweep's provenance (None when it recorded none) and its resumes'."""
    try:
        first = parse_provenance(meta) if "series" in meta else None
        resumes = [(str(r.get("at", "?")), parse_provenance(r)) for r in meta.get("resumed", [])
                   if isinstance(r, dict) and "series" in r]
    except ValueError as err:
        raise ResultsError(f"{resultdir / METADATA_JSON}: {err}") from None
    return first, resumes


def _flag(cells: dict[str, str], name: str) -> bool:
    if cells[name] not in ("0", "1"):
        raise ValueError(f"column {name}: expected 0 or 1, got '{cells[name]}'")
    return cells[name] == "1"


def parse_boot(cells: dict[str, str], want_schema: int) -> Boot:
    if cells["schema_version"] != str(want_schema):
        raise ValueError(schema_mismatch(cells["schema_version"], want_schema))
    return Boot(kernel=cells["kernel"], vcpus=_int_field(cells, "vcpus", 1),
                repeat=_int_field(cells, "repeat", 0),
                host_cpus=_int_field(cells, "host_cpus", 1),
                overcommitted=_flag(cells, "overcommitted"), flagged=_flag(cells, "flagged"),
                status=cells["status"])


def load_boots(resultdir: Path, want_schema: int, guests: bool) -> dict[BootKey, Boot]:
    """csv/boots.csv (suite.conf BOOTS_COLUMNS), keyed by (kernel, vcpus, repeat).
    Required when there are guest rows; a host-only directory (the native
    liburcu anchor alone) booted nothing."""
    path = resultdir / BOOTS_CSV
    if not path.is_file():
        if not guests:
            return {}
        raise ResultsError(f"{resultdir}: no {BOOTS_CSV} (every schema v{want_schema} sweep "
                           "writes one)")
    try:
        columns = suiteconf.conf_list("BOOTS_COLUMNS")
    except suiteconf.ConfError as err:
        raise ResultsError(str(err)) from err
    boots = {}
    for line, cells in read_table(path, columns):
        try:
            boot = parse_boot(cells, want_schema)
        except ValueError as err:
            raise ResultsError(f"{path}:{line}: {err}") from None
        boots[(boot.kernel, boot.vcpus, boot.repeat)] = boot
    return boots


def load_result_dir(resultdir: Path) -> ResultDir:
    """RESULTDIR/csv/results.csv and csv/boots.csv, validated against
    suite.conf.  (Other csv/*.csv files are tables derived from them, such
    as agreement.csv.)"""
    if not resultdir.is_dir():
        raise ResultsError(f"{resultdir}: not a directory")
    path = resultdir / RESULTS_CSV
    if not path.is_file():
        raise ResultsError(f"{resultdir}: no {RESULTS_CSV}: not a result directory "
                           "(or an empty one)")
    try:
        columns = suiteconf.csv_columns()
        known = suiteconf.known_kernels()
        want = suiteconf.schema_version()
    except suiteconf.ConfError as err:
        raise ResultsError(str(err)) from err
    missing = [c for c in Row.__dataclass_fields__ if c not in ("file", "line") and c not in columns]
    if missing:
        raise ResultsError(f"{suiteconf.SUITE_CONF}: CSV_COLUMNS lacks {' '.join(missing)}")
    meta = load_metadata(resultdir, want)
    rows = load_csv(path, columns, known, want)
    if not rows:
        raise ResultsError(f"{path}: no rows: the sweep measured nothing yet")
    guests = any(r.accel != "native" for r in rows)
    provenance, resumes = load_provenance(resultdir, meta)
    return ResultDir(path=resultdir, rows=rows, metadata=meta,
                     boots=load_boots(resultdir, want, guests), provenance=provenance,
                     resumes=resumes)


def run_command(args: "argparse.Namespace") -> int:
    """Run a command-line subcommand (args.func): bad input is one
    "rcu-bench: error:" line and exit status 1, not a traceback."""
    try:
        return args.func(args)
    except ResultsError as err:
        print(f"rcu-bench: error: {err}", file=sys.stderr)
        return 1


def cell_of(test: str) -> str:
    """The cell (guest job test) a row of test belongs to; rows of the
    host's own tests (calibration, the liburcu anchor) are their own cell."""
    if not _CELL_OF_TEST:
        _CELL_OF_TEST.update(suiteconf.cell_of_test())
    return _CELL_OF_TEST.get(test, test)


# ---- The sweep's view: rows as the cells of the file, read and rewritten
# by sweep.py and boots.py (read_table checks them, parse_row does not:
# the sweep keeps what it wrote). ----

def read_rows(resultdir: Path, columns: list[str]) -> list[dict[str, str]]:
    """The cells of csv/results.csv (none when it is not there yet)."""
    path = resultdir / RESULTS_CSV
    return [cells for _, cells in read_table(path, columns)] if path.exists() else []


def read_boot_rows(resultdir: Path, columns: list[str]) -> list[dict[str, str]]:
    """The cells of csv/boots.csv (none when it is not there yet)."""
    path = resultdir / BOOTS_CSV
    return [cells for _, cells in read_table(path, columns)] if path.exists() else []


def sweep_metadata(resultdir: Path) -> dict:
    """metadata.json of a sweep being written: required."""
    if not (resultdir / METADATA_JSON).is_file():
        raise ResultsError(f"{resultdir}: no {METADATA_JSON}: not a sweep directory")
    return read_metadata(resultdir)


def atomic_write(path: Path, text: str) -> None:
    """Replace path by text: temporary file, fsync, rename, fsync dir."""
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def write_table(path: Path, columns: list[str], rows: Iterable[dict[str, str]]) -> None:
    """Replace a CSV file by the header columns and rows, atomically."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(path, out.getvalue())


def write_rows(resultdir: Path, columns: list[str], rows: Iterable[dict[str, str]]) -> None:
    write_table(resultdir / RESULTS_CSV, columns, rows)


def write_boot_rows(resultdir: Path, columns: list[str], rows: Iterable[dict[str, str]]) -> None:
    write_table(resultdir / BOOTS_CSV, columns, rows)


def write_agreement(resultdir: Path, table: list[dict[str, str]]) -> None:
    """csv/agreement.csv from derive.agreement_per_boot()."""
    write_table(resultdir / AGREEMENT_CSV, AGREEMENT_COLUMNS, table)


def save_metadata(resultdir: Path, meta: dict) -> None:
    atomic_write(resultdir / METADATA_JSON, json.dumps(meta, indent=2) + "\n")
