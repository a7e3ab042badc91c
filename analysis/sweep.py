#!/usr/bin/python3
"""The sweep's bookkeeping in its results directory (workloads/bench.sh):
init, get, pending, merge, finish, resumed.  The files and their formats
are resultdir.py's; this module decides what goes into them.

A cell is (kernel, vcpus, test, repeat); it is finished when results.csv
holds ok rows for it, so resuming redoes exactly the unfinished and failed
cells.
"""

import argparse
import csv
import hashlib
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import derive  # noqa: E402
import series  # noqa: E402  (scripts/series.py: the series key's one owner)
import suiteconf  # noqa: E402
from resultdir import (run_command, RESULTS_CSV, STATUS_OK, ResultsError, cell_of, load_csv,  # noqa: E402
                       read_rows, save_metadata, sweep_metadata, write_agreement, write_rows)

GUEST_FIELDS = ["test", "params", "metric", "value", "unit", "source"]
CellKey = tuple[str, str, str, str]  # (kernel, vcpus, test, repeat) as in the CSV


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def cell_key(row: dict[str, str]) -> CellKey:
    return (row["kernel"], row["vcpus"], cell_of(row["test"]), row["repeat"])


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


def kernel_key_arg(text: str) -> tuple[str, str]:
    """KERNEL=KEY (KEY may be empty: a kernel not built)."""
    kernel, sep, key = text.partition("=")
    if not sep or not kernel:
        raise argparse.ArgumentTypeError(f"expected KERNEL=KEY, got '{text}'")
    return kernel, key


def kernel_keys(kernels: list[str], tree: list[tuple[str, str]],
                built: list[tuple[str, str]]) -> dict[str, dict]:
    """kernel -> {"tree": the key this tree builds obj/<kernel> with, "built":
    the key of the kernel in obj/<kernel>} (scripts/lib.sh kernel_key,
    kernel_built_key); a missing or empty key is None.  bench.sh boots a
    built kernel as it is, so the two differ when it is out of date."""
    trees, builts = dict(tree), dict(built)
    return {k: {"tree": trees.get(k) or None, "built": builts.get(k) or None} for k in kernels}


def provenance(args: argparse.Namespace, kernels: list[str]) -> dict:
    """What built the sweep's kernels: the patch series and each kernel's key."""
    try:
        recorded = series.checkout_series(Path(args.patches))
    except series.SeriesError as err:
        raise ResultsError(str(err)) from err
    boot_args = dict(args.boot_args)
    return {"series": recorded.as_json(),
            "kernel_keys": kernel_keys(kernels, args.tree_key, args.built_key),
            "kernel_boot_args": {k: boot_args.get(k, "") for k in kernels}}


def sweep_rows(sweep: Path, meta: dict) -> list[dict[str, str]]:
    return read_rows(sweep, meta["columns"])


def cmd_init(args: argparse.Namespace) -> int:
    sweep = Path(args.dir)
    built_from = provenance(args, args.kernels.split())  # a broken series: nothing written
    (sweep / "csv").mkdir(parents=True, exist_ok=True)
    cache = Path(args.cache)
    meta = {
        "schema_version": int(args.schema_version),
        "commit": args.commit,
        "accel": args.accel,
        "host": {"cpu": host_cpu(), "cpus": os.cpu_count(), "kernel": platform.release(),
                 "qemu": args.qemu},
        "kernel_config_sha256": {k: config_hash(cache / "obj" / suiteconf.kernel_build(k)) for k in args.kernels.split()},
        **built_from,
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
    save_metadata(sweep, meta)
    write_rows(sweep, meta["columns"], [])
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    """Print a parameter of the sweep (lists space-separated, job as K=V lines)."""
    meta = sweep_metadata(Path(args.dir))
    value = meta["parameters"].get(args.key, meta.get(args.key))
    if isinstance(value, dict):
        print("\n".join(f"{k}={v}" for k, v in value.items()))
    elif isinstance(value, list):
        print(" ".join(str(v) for v in value))
    elif value is not None:
        print(value)
    return 0


def done_cells(rows: list[dict[str, str]]) -> set[CellKey]:
    ok = {cell_key(r) for r in rows if r["status"] == STATUS_OK}
    failed = {cell_key(r) for r in rows if r["status"] != STATUS_OK}
    return ok - failed


# Profiles that count in every repeat: the scale run's counts at more than
# one vCPU depend on how the vCPUs interleave (issue 20: 3 boots a cell).
COUNT_EVERY_REPEAT = {"scale"}


def tests_of_repeat(tests: list[str], repeat: int, profile: str = "") -> list[str]:
    """The tests a sweep runs in one repeat: the count tests (kind count in
    suite.conf's table) only in the first, since their counts are exact,
    except in the profiles of COUNT_EVERY_REPEAT."""
    counted = set(suiteconf.count_tests())
    every = profile in COUNT_EVERY_REPEAT
    return [t for t in tests if repeat == 1 or every or t not in counted]


def cmd_pending(args: argparse.Namespace) -> int:
    """Print the tests of one boot (kernel, vcpus, repeat) not yet finished."""
    sweep = Path(args.dir)
    meta = sweep_metadata(sweep)
    done = done_cells(sweep_rows(sweep, meta))
    profile = meta["parameters"].get("profile", "")
    print(" ".join(t for t in tests_of_repeat(args.tests.split(), int(args.repeat), profile)
                   if (args.kernel, args.vcpus, t, args.repeat) not in done))
    return 0


def parse_guest_rows(path: Path) -> tuple[list[dict[str, str]], Optional[str]]:
    """The guest's bench.csv rows (a boot's output, not the results
    directory's), or an error naming the first bad line."""
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
    mine = [r for r in guest_rows if cell_of(r["test"]) == test]
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
    meta = sweep_metadata(sweep)
    tests = args.tests.split()
    statuses, guest_rows = cell_statuses(args, tests)
    new_rows = [row for t in tests for row in cell_rows(args, t, statuses[t], guest_rows)]
    replaced = {cell_key(r) for r in new_rows}
    rows = [r for r in sweep_rows(sweep, meta) if cell_key(r) not in replaced] + new_rows
    write_rows(sweep, meta["columns"], rows)
    for t in tests:
        print(f"{t}:{statuses[t]}")
    return 0


def agreement_table(sweep: Path) -> list[dict[str, str]]:
    """The refscale agreement of each boot (derive.agreement_per_boot)."""
    rows = load_csv(sweep / RESULTS_CSV, suiteconf.csv_columns(), suiteconf.known_kernels(),
                    suiteconf.schema_version())
    return derive.agreement_per_boot([r for r in rows if r.ok])


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
    meta = sweep_metadata(sweep)
    rows = sweep_rows(sweep, meta)
    failed = sorted({(cell_key(r), r["status"]) for r in rows if r["status"] != STATUS_OK})
    p = meta["parameters"]
    expected = {(k, str(v), t, str(rep)) for k in p["kernels"] for v in p["vcpus"]
                for rep in range(1, p["repeats"] + 1)
                for t in tests_of_repeat(p["tests"], rep, p.get("profile", ""))}
    missing = sorted(expected - done_cells(rows) - {c for c, _ in failed})
    meta["failed_cells"] = [{"kernel": c[0], "vcpus": int(c[1]), "test": c[2], "repeat": int(c[3]),
                             "status": s} for c, s in failed]
    meta["complete"] = not missing
    meta["finished"] = now() if not missing else None
    save_metadata(sweep, meta)
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
    meta = sweep_metadata(sweep)
    meta["resumed"].append({"at": now(), "commit": args.commit,
                            **provenance(args, meta["parameters"]["kernels"])})
    save_metadata(sweep, meta)
    return 0


def add_provenance(p: argparse.ArgumentParser) -> None:
    """The options that say what built the kernels (bench.sh passes them)."""
    p.add_argument("--patches", default=str(series.PATCHES),
                   help="the patches directory the kernels were built from")
    p.add_argument("--tree-key", action="append", default=[], type=kernel_key_arg,
                   metavar="KERNEL=KEY",
                   help="the key this tree builds KERNEL with (scripts/lib.sh kernel_key)")
    p.add_argument("--built-key", action="append", default=[], type=kernel_key_arg,
                   metavar="KERNEL=KEY",
                   help="the key of KERNEL as built (obj/KERNEL/.rb-key; empty: not built)")
    p.add_argument("--boot-args", action="append", default=[], type=kernel_key_arg,
                   metavar="KERNEL=ARGS",
                   help="KERNEL's own boot arguments (scripts/lib.sh kernel_boot_args): "
                        "what tells a boot variant from its build")


def parse_args(argv: list[str]) -> argparse.Namespace:
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
    add_provenance(init)
    get = add("get", cmd_get)
    get.add_argument("key")
    add("pending", cmd_pending, "kernel", "vcpus", "repeat", "tests")
    merge = add("merge", cmd_merge, "kernel", "vcpus", "repeat", "tests", "commit", "accel",
                "schema_version")
    merge.add_argument("--cell-dir", help="boot.sh --out directory of the boot")
    merge.add_argument("--reason", help="fail the cells with this reason instead")
    add("finish", cmd_finish)
    add_provenance(add("resumed", cmd_resumed, "commit"))
    args = parser.parse_args(argv)
    if args.cmd == "merge" and not (args.cell_dir or args.reason):
        parser.error("merge needs --cell-dir or --reason")
    return args


def main(argv: list[str]) -> int:
    return run_command(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
