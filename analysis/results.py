#!/usr/bin/python3
"""The one module of the results directory: the sweep writes it with this
module's subcommands, the analysis reads it with load_result_dir().

RESULTDIR/csv/results.csv holds the rows (columns and schema version from
suite.conf, vocabulary in analysis/SCHEMA.md), RESULTDIR/csv/boots.csv one
row per boot (suite.conf BOOTS_COLUMNS), RESULTDIR/metadata.json the sweep's
parameters.  Reading: anything malformed is a ResultsError naming the file
and line, so a bad sweep is refused instead of plotted.  Writing: every
change goes to a temporary file, fsync'ed and renamed, so an interrupted
sweep leaves either the old or the new file, never a partial row.  A cell
is (kernel, vcpus, test, repeat); it is finished when results.csv holds ok
rows for it, so resuming redoes exactly the unfinished and failed cells.

Subcommands (workloads/bench.sh): init, get, pending, merge, finish, resumed,
and for the boots: seed, order, annotate, record.
"""

import argparse
import csv
import hashlib
import io
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import suiteconf  # noqa: E402

ACCELS = ("kvm", "tcg", "native")
HOST_KERNEL = "host"  # kernel of the native liburcu rows
STATUS_OK = "ok"
RESULTS_CSV = "csv/results.csv"
BOOTS_CSV = "csv/boots.csv"
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


@dataclass
class ResultDir:
    path: Path
    rows: list[Row]
    metadata: dict
    boots: dict[BootKey, Boot] = field(default_factory=dict)

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
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header != columns:
            raise ResultsError(f"{path}:1: wrong header: expected '{','.join(columns)}'")
        boots = {}
        for cells in reader:
            if len(cells) != len(columns):
                raise ResultsError(f"{path}:{reader.line_num}: expected {len(columns)} "
                                   f"columns, got {len(cells)}")
            try:
                boot = parse_boot(dict(zip(columns, cells)), want_schema)
            except ValueError as err:
                raise ResultsError(f"{path}:{reader.line_num}: {err}") from None
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
        known = suiteconf.kernels()
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
    return ResultDir(path=resultdir, rows=rows, metadata=meta,
                     boots=load_boots(resultdir, want, guests))


# ---- Writing: the sweep's bookkeeping (workloads/bench.sh) ----

# Rows whose test differs from the cell that produced them.
CELL_OF_TEST = {"gp_stages": "gp", "latency_boost": "latency"}
GUEST_FIELDS = ["test", "params", "metric", "value", "unit", "source"]


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


def csv_path(sweep: Path) -> Path:
    return sweep / "csv" / "results.csv"


def read_dicts(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV file with a header (none when it is not there)."""
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_dicts(path: Path, columns: list[str], rows: Iterable[dict[str, str]]) -> None:
    """Replace a CSV file by the header columns and rows, atomically."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(path, out.getvalue())


def read_rows(sweep: Path) -> list[dict[str, str]]:
    return read_dicts(csv_path(sweep))


def write_rows(sweep: Path, columns: list[str], rows: Iterable[dict[str, str]]) -> None:
    write_dicts(csv_path(sweep), columns, rows)


def load_meta(sweep: Path) -> dict:
    with open(sweep / "metadata.json", encoding="utf-8") as f:
        return json.load(f)


def save_meta(sweep: Path, meta: dict) -> None:
    atomic_write(sweep / "metadata.json", json.dumps(meta, indent=2) + "\n")


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def cell_key(row: dict[str, str]) -> tuple[str, str, str, str]:
    test = CELL_OF_TEST.get(row["test"], row["test"])
    return (row["kernel"], row["vcpus"], test, row["repeat"])


def clean_reason(reason: str) -> str:
    """A failure reason fit for one CSV field: no commas or newlines."""
    text = " ".join(reason.replace(",", ";").split())
    return text[:160] or "unknown"


def host_cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def config_hash(obj_dir: Path) -> Optional[str]:
    config = obj_dir / ".config"
    if not config.exists():
        return None
    return hashlib.sha256(config.read_bytes()).hexdigest()


def cmd_init(args: argparse.Namespace) -> int:
    sweep = Path(args.dir)
    (sweep / "csv").mkdir(parents=True, exist_ok=True)
    cache = Path(args.cache)
    meta = {
        "schema_version": int(args.schema_version),
        "commit": args.commit,
        "accel": args.accel,
        "host": {"cpu": host_cpu(), "cpus": os.cpu_count(), "kernel": platform.release(),
                 "qemu": args.qemu},
        "kernel_config_sha256": {k: config_hash(cache / "obj" / k) for k in args.kernels.split()},
        "parameters": {
            "profile": args.profile,
            "kernels": args.kernels.split(),
            "vcpus": [int(v) for v in args.vcpus.split()],
            "repeats": int(args.repeats),
            "tests": args.tests.split(),
            "job": dict(kv.split("=", 1) for kv in args.setting),
        },
        "columns": args.columns.split(),
        "started": now(),
        "resumed": [],
        "finished": None,
        "complete": False,
        "failed_cells": [],
    }
    save_meta(sweep, meta)
    write_rows(sweep, meta["columns"], [])
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    """Print a parameter of the sweep (lists space-separated, job as K=V lines)."""
    meta = load_meta(Path(args.dir))
    value = meta["parameters"].get(args.key, meta.get(args.key))
    if isinstance(value, dict):
        print("\n".join(f"{k}={v}" for k, v in value.items()))
    elif isinstance(value, list):
        print(" ".join(str(v) for v in value))
    elif value is not None:
        print(value)
    return 0


def done_cells(rows: list[dict[str, str]]) -> set[tuple[str, str, str, str]]:
    ok = {cell_key(r) for r in rows if r["status"] == "ok"}
    failed = {cell_key(r) for r in rows if r["status"] != "ok"}
    return ok - failed


def tests_of_repeat(tests: list[str], repeat: int) -> list[str]:
    """The tests a sweep runs in one repeat: the count tests (suite.conf
    COUNT_TESTS) only in the first, since their counts are exact."""
    counted = set(suiteconf.conf_list("COUNT_TESTS"))
    return [t for t in tests if repeat == 1 or t not in counted]


def cmd_pending(args: argparse.Namespace) -> int:
    """Print the tests of one boot (kernel, vcpus, repeat) not yet finished."""
    done = done_cells(read_rows(Path(args.dir)))
    print(" ".join(t for t in tests_of_repeat(args.tests.split(), int(args.repeat))
                   if (args.kernel, args.vcpus, t, args.repeat) not in done))
    return 0


def parse_guest_rows(path: Path) -> tuple[list[dict[str, str]], Optional[str]]:
    """The guest's bench.csv rows, or an error naming the first bad line."""
    rows: list[dict[str, str]] = []
    if not path.exists():
        return rows, None
    for n, fields in enumerate(csv.reader(path.read_text().splitlines()), 1):
        if len(fields) != len(GUEST_FIELDS):
            return [], f"bad-row: line {n} has {len(fields)} fields"
        row = dict(zip(GUEST_FIELDS, fields))
        try:
            float(row["value"])
        except ValueError:
            return [], f"bad-row: line {n} value '{row['value']}'"
        rows.append(row)
    return rows, None


def guest_statuses(cell_dir: Path) -> dict[str, str]:
    """test -> "ok" or "failed:..." from the guest's cells.txt."""
    statuses = {}
    path = cell_dir / "results" / "cells.txt"
    if path.exists():
        for line in path.read_text().splitlines():
            test, _, status = line.partition(" ")
            statuses[test] = status
    return statuses


def boot_verdict(cell_dir: Path) -> str:
    path = cell_dir / "status"
    return path.read_text().strip() if path.exists() else "no-status: boot.sh did not finish"


def cell_rows(args: argparse.Namespace, test: str, status: str,
              guest_rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The CSV rows of one cell: its guest rows if ok, else one failed row."""
    common = {"schema_version": args.schema_version, "commit": args.commit, "accel": args.accel,
              "kernel": args.kernel, "vcpus": args.vcpus, "repeat": args.repeat}
    mine = [r for r in guest_rows if CELL_OF_TEST.get(r["test"], r["test"]) == test]
    if status == "ok" and not mine:
        status = "failed:no-rows"
    if status != "ok":
        return [dict(common, test=test, params="", metric="cell", value="", unit="",
                     source="rcubench", status="failed:" + clean_reason(status.removeprefix("failed:")))]
    return [dict(common, **r, status="ok") for r in mine]


def cell_statuses(args: argparse.Namespace, tests: list[str]) -> tuple[dict[str, str], list[dict[str, str]]]:
    """Per-test status and the guest rows of a boot (or of a --reason failure)."""
    if args.reason:
        return {t: "failed:" + args.reason for t in tests}, []
    cell_dir = Path(args.cell_dir)
    verdict = boot_verdict(cell_dir)
    guest = guest_statuses(cell_dir)
    usable = verdict == "ok" or (verdict.startswith("job-failed") and guest)
    if not usable:
        return {t: "failed:" + verdict for t in tests}, []
    rows, error = parse_guest_rows(cell_dir / "results" / "bench.csv")
    if error:
        return {t: "failed:" + error for t in tests}, []
    return {t: guest.get(t, "failed:not-run") for t in tests}, rows


def cmd_merge(args: argparse.Namespace) -> int:
    """Replace the rows of a boot's cells by their new results."""
    sweep = Path(args.dir)
    meta = load_meta(sweep)
    tests = args.tests.split()
    statuses, guest_rows = cell_statuses(args, tests)
    new_rows = [row for t in tests for row in cell_rows(args, t, statuses[t], guest_rows)]
    replaced = {cell_key(r) for r in new_rows}
    rows = [r for r in read_rows(sweep) if cell_key(r) not in replaced] + new_rows
    write_rows(sweep, meta["columns"], rows)
    for t in tests:
        print(f"{t}:{statuses[t]}")
    return 0


def agreement_table(sweep: Path) -> list[dict[str, str]]:
    """The refscale agreement of each boot (computed by derive.agreement_per_boot)."""
    import derive  # imported here: derive imports this module
    rows = load_csv(csv_path(sweep), suiteconf.csv_columns(), suiteconf.kernels(),
                    suiteconf.schema_version())
    return derive.agreement_per_boot([r for r in rows if r.ok])


def write_agreement(sweep: Path, table: list[dict[str, str]]) -> None:
    out = io.StringIO()
    fields = ["kernel", "vcpus", "repeat", "rcubench_ns_per_pair", "rcubench_with_loop_ns",
              "refscale_ns", "ratio"]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    atomic_write(sweep / "csv" / "agreement.csv", out.getvalue())


def print_agreement(table: list[dict[str, str]]) -> None:
    kernels = sorted({t["kernel"] for t in table})
    for k in kernels:
        ratios = [float(t["ratio"]) for t in table if t["kernel"] == k and t["ratio"]]
        cells = " ".join(f"{t['vcpus']}cpu:{t['rcubench_with_loop_ns']}/{t['refscale_ns']}"
                         for t in table if t["kernel"] == k)
        print(f"agreement {k}: rcubench/refscale ns per section (with loop) {cells}; "
              f"median ratio {statistics.median(ratios):.2f}" if ratios else f"agreement {k}: n/a")


def cmd_finish(args: argparse.Namespace) -> int:
    """Record the end of a sweep; list failed cells; exit 1 if there are any."""
    sweep = Path(args.dir)
    meta = load_meta(sweep)
    rows = read_rows(sweep)
    failed = sorted({(cell_key(r), r["status"]) for r in rows if r["status"] != "ok"})
    p = meta["parameters"]
    expected = {(k, str(v), t, str(rep)) for k in p["kernels"] for v in p["vcpus"]
                for rep in range(1, p["repeats"] + 1) for t in tests_of_repeat(p["tests"], rep)}
    missing = sorted(expected - done_cells(rows) - {c for c, _ in failed})
    meta["failed_cells"] = [{"kernel": c[0], "vcpus": int(c[1]), "test": c[2], "repeat": int(c[3]),
                             "status": s} for c, s in failed]
    meta["complete"] = not missing
    meta["finished"] = now() if not missing else None
    save_meta(sweep, meta)
    try:
        table = agreement_table(sweep)
    except (ResultsError, suiteconf.ConfError) as err:
        print(f"rcu-bench: no refscale agreement: {err}", file=sys.stderr)
    else:
        write_agreement(sweep, table)
        print_agreement(table)
    for c, s in failed:
        print(f"failed cell: kernel={c[0]} vcpus={c[1]} test={c[2]} repeat={c[3]}: {s}")
    for c in missing:
        print(f"unfinished cell: kernel={c[0]} vcpus={c[1]} test={c[2]} repeat={c[3]}")
    return 1 if failed or missing else 0


def cmd_resumed(args: argparse.Namespace) -> int:
    sweep = Path(args.dir)
    meta = load_meta(sweep)
    meta["resumed"].append({"at": now(), "commit": args.commit})
    save_meta(sweep, meta)
    return 0

# ---- the boots of a sweep: seeded random order, csv/boots.csv ----
# Boots run in an order shuffled by a seed kept in metadata.json, so that
# slow drift of the host (other load, thermal state) does not line up with
# one kernel, and a sweep can be replayed or resumed in the same order.

SEED_MAX = 2**32 - 1



def parse_seed(text: str) -> int:
    """A seed is a decimal integer 0..2^32-1; anything else is an error."""
    if not text.isdigit() or int(text) > SEED_MAX:
        raise SystemExit(f"rcu-bench: error: --seed must be an integer 0..{SEED_MAX}, got '{text}'")
    return int(text)


def cmd_seed(args: argparse.Namespace) -> int:
    """Print a valid seed: the given one, or a fresh random one."""
    print(parse_seed(args.seed) if args.seed else random.SystemRandom().randint(0, SEED_MAX))
    return 0


def boot_order(seed: int, kernels: list[str], vcpus: list[str], repeats: int) -> list[tuple[str, str, int]]:
    """Every (kernel, vcpus, repeat) of the sweep, shuffled by seed.

    The list is built in a fixed order before shuffling, so the same seed
    and parameters always give the same order (Python's Random is stable
    across versions for shuffle with an integer seed)."""
    boots = [(k, v, r) for r in range(1, repeats + 1) for k in kernels for v in vcpus]
    random.Random(seed).shuffle(boots)
    return boots


def cmd_order(args: argparse.Namespace) -> int:
    """Print "position kernel vcpus repeat" lines in the seeded order."""
    boots = boot_order(parse_seed(args.seed), args.kernels.split(), args.vcpus.split(),
                       int(args.repeats))
    for n, (k, v, r) in enumerate(boots, 1):
        print(n, k, v, r)
    return 0


def cmd_annotate(args: argparse.Namespace) -> int:
    """Add the seed and the host CPU count to a new sweep's metadata.json."""
    sweep = Path(args.dir)
    meta = load_meta(sweep)
    meta["seed"] = parse_seed(args.seed)
    meta["host_cpus"] = int(args.host_cpus)
    meta["boots_columns"] = args.columns.split()
    save_meta(sweep, meta)
    write_boots(sweep, meta["boots_columns"], [])
    return 0


def boots_path(sweep: Path) -> Path:
    return sweep / BOOTS_CSV


def read_boots(sweep: Path) -> list[dict[str, str]]:
    return read_dicts(boots_path(sweep))


def write_boots(sweep: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    write_dicts(boots_path(sweep), columns, rows)


def cmd_record(args: argparse.Namespace) -> int:
    """Record one boot (K=V fields); a redone boot replaces its old row."""
    sweep = Path(args.dir)
    columns = load_meta(sweep)["boots_columns"]
    row = dict(kv.split("=", 1) for kv in args.field)
    unknown = set(row) - set(columns)
    if unknown:
        raise SystemExit(f"rcu-bench: error: boots.csv has no column {sorted(unknown)}")
    key = (row["kernel"], row["vcpus"], row["repeat"])
    rows = [r for r in read_boots(sweep) if (r["kernel"], r["vcpus"], r["repeat"]) != key]
    write_boots(sweep, columns, rows + [{c: row.get(c, "") for c in columns}])
    return 0


def main() -> int:
    """The sweep's subcommands (workloads/bench.sh)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)

    def add(name: str, func, *fields: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=func.__doc__)
        p.set_defaults(func=func)
        p.add_argument("--dir", required=True, help="sweep directory reports/<stamp>")
        for f in fields:
            p.add_argument(f"--{f.replace('_', '-')}", required=True)
        return p

    init = add("init", cmd_init, "commit", "accel", "qemu", "cache", "kernels", "vcpus",
               "repeats", "tests", "profile", "schema_version", "columns")
    init.add_argument("--setting", action="append", default=[], help="job setting K=V")
    get = add("get", cmd_get)
    get.add_argument("key")
    add("pending", cmd_pending, "kernel", "vcpus", "repeat", "tests")
    merge = add("merge", cmd_merge, "kernel", "vcpus", "repeat", "tests", "commit", "accel",
                "schema_version")
    merge.add_argument("--cell-dir", help="boot.sh --out directory of the boot")
    merge.add_argument("--reason", help="fail the cells with this reason instead")
    add("finish", cmd_finish)
    add("resumed", cmd_resumed, "commit")
    seed = sub.add_parser("seed", help=cmd_seed.__doc__)
    seed.add_argument("--seed", default="", help="the seed asked for (empty: a random one)")
    seed.set_defaults(func=cmd_seed)
    order = sub.add_parser("order", help=cmd_order.__doc__)
    for f in ("seed", "kernels", "vcpus", "repeats"):
        order.add_argument(f"--{f}", required=True)
    order.set_defaults(func=cmd_order)
    add("annotate", cmd_annotate, "seed", "host_cpus", "columns")
    record = add("record", cmd_record)
    record.add_argument("field", nargs="+", help="column=value")
    args = parser.parse_args()
    if args.cmd == "merge" and not (args.cell_dir or args.reason):
        parser.error("merge needs --cell-dir or --reason")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
