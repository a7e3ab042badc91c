#!/usr/bin/python3
"""Check a bench sweep's csv/results.csv: well formed, in the contract's
vocabulary, and sane (no negative times, GP latency > 0, ordered
percentiles, latency_ticks = latency_ns in ticks, invoked <= queued, a
backlog within max_backlog, memory held = outstanding x object size,
debugfs counters monotone).  Prints one
line per problem and exits 1 if there is any; used by tests/t-bench-*.
"""

import argparse
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "analysis"))
from resultdir import (BOOTS_CSV, RESULTS_CSV, ResultsError, read_metadata,  # noqa: E402
                       read_table)
from suiteconf import conf_get  # noqa: E402

SCHEMA_MD = Path(__file__).resolve().parent.parent / "analysis" / "SCHEMA.md"
METRIC = re.compile(r"`(\w+)` \(([^)]+)\)")


def read_vocabulary(path: Path) -> tuple[dict[str, dict[str, str]], dict[str, set[str]]]:
    """test -> {metric: unit} and test -> sources (`a\\|b`: either), from
    SCHEMA.md's vocabulary table (the one place the contract is written)."""
    text = path.read_text()
    table = text[text.index("| test | source |"):].split("\n\n", 1)[0].splitlines()[2:]
    units: dict[str, dict[str, str]] = {}
    source: dict[str, set[str]] = {}
    for line in table:
        test, src, _params, metrics = [c.strip() for c in line.strip("|").split(" | ")][:4]
        units[test] = dict(METRIC.findall(metrics))
        source[test] = set(src.replace("\\|", "|").split("|"))
        if not units[test]:
            raise SystemExit(f"{path}: vocabulary row '{test}' lists no `metric` (unit)")
    return units, source


VOCABULARY, SOURCE = read_vocabulary(SCHEMA_MD)


def params_of(row: dict[str, str]) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in row["params"].split(";") if kv)


def check_form(path: Path, problems: list[str]) -> list[dict[str, str]]:
    """The rows of results.csv, read by the analysis' reader (header =
    CSV_COLUMNS, every row complete); none if it refuses the file."""
    try:
        return [cells for _, cells in read_table(path, conf_get("CSV_COLUMNS").split())]
    except ResultsError as err:
        problems.append(str(err))
        return []


# (metric, source) of the paired differences, which may be negative.
DIFFERENCES = {("ns_per_pair", "rcubench"), ("ns_per_pair", "liburcu"),
               ("ns_per_pair", "native-replay"), ("ns_per_pair_low", "native-replay"),
               ("ns_per_pair_high", "native-replay"), ("cycles_per_pair", "native-replay")}


def check_row(row: dict[str, str], schema: str, problems: list[str]) -> None:
    where = f"{row['kernel']}/{row['vcpus']}/{row['test']}/r{row['repeat']} {row['params']} {row['metric']}"
    if row["schema_version"] != schema:
        problems.append(f"{where}: schema_version {row['schema_version']}")
    if row["accel"] not in ("kvm", "tcg", "native"):
        problems.append(f"{where}: accel {row['accel']}")
    if row["status"] != "ok":
        if not row["status"].startswith("failed:") or row["metric"] != "cell":
            problems.append(f"{where}: bad failed row, status {row['status']}")
        return
    units = VOCABULARY.get(row["test"], {})
    if units.get(row["metric"]) != row["unit"]:
        problems.append(f"{where}: metric/unit {row['metric']}/{row['unit']} not in the vocabulary")
    if row["source"] not in SOURCE.get(row["test"], set()):
        problems.append(f"{where}: source {row['source']}")
    try:
        value = float(row["value"])
    except ValueError:
        problems.append(f"{where}: value '{row['value']}' is not a number")
        return
    # A paired difference (section minus empty loop) below the noise floor
    # is negative and is reported as it is; every other figure is >= 0.
    if value < 0 and (row["metric"], row["source"]) not in DIFFERENCES:
        problems.append(f"{where}: negative value {value}")
    if row["metric"] in ("latency_ns", "latency_ticks", "min_ns", "gp_latency_ns", "drain_ns",
                         "baseline_ns", "ns_per_call") and value <= 0:
        problems.append(f"{where}: {row['metric']} must be > 0, got {value}")


def by_cell(rows: list[dict[str, str]]) -> dict[tuple, dict[tuple, float]]:
    """(kernel, vcpus, repeat) -> (test, params, metric) -> value, ok rows."""
    cells: dict[tuple, dict[tuple, float]] = defaultdict(dict)
    for r in rows:
        if r["status"] == "ok":
            cells[(r["kernel"], r["vcpus"], r["repeat"])][(r["test"], r["params"], r["metric"])] = \
                float(r["value"])
    return cells


def check_gp(values: dict[tuple, float], where: str, problems: list[str]) -> None:
    summaries = {p for t, p, m in values if t == "gp" and m == "median_ns"}
    for p in summaries:
        order = [values[("gp", p, m)] for m in ("min_ns", "median_ns", "p90_ns", "p99_ns", "max_ns")]
        if order != sorted(order):
            problems.append(f"{where} gp {p}: percentiles out of order {order}")
        n = int(params_of({"params": p})["samples"])
        lat = [v for (t, q, m), v in values.items()
               if t == "gp" and m == "latency_ns" and q.startswith(p + ";sample=")]
        if len(lat) != n:
            problems.append(f"{where} gp {p}: {len(lat)} samples, expected {n}")
        elif min(lat) != order[0] or max(lat) != order[-1]:
            problems.append(f"{where} gp {p}: min/max do not match the samples")
        check_gp_ticks(values, p, where, problems)


def check_gp_ticks(values: dict[tuple, float], p: str, where: str, problems: list[str]) -> None:
    """Each sample's latency_ticks is its latency_ns in ticks of the params' hz
    (to the 0.001 tick the module prints), and so is median_ticks."""
    hz = int(params_of({"params": p})["hz"])
    pairs = [(values[("gp", q, "latency_ns")], values.get(("gp", q, "latency_ticks")))
             for t, q, m in values if t == "gp" and m == "latency_ns" and q.startswith(p + ";sample=")]
    pairs.append((values[("gp", p, "median_ns")], values.get(("gp", p, "median_ticks"))))
    for ns, ticks in pairs:
        if ticks is None or abs(ns * hz / 1e9 - ticks) > 0.0015:
            problems.append(f"{where} gp {p}: {ns} ns is not {ticks} ticks at hz={hz}")
            return


def check_callrcu(values: dict[tuple, float], where: str, problems: list[str]) -> None:
    for t, p, m in values:
        if t == "callrcu_capacity" and m == "queued_per_s":
            queued, invoked = values[(t, p, m)], values.get((t, p, "invoked_per_s"), -1)
            if not 0 <= invoked <= queued or queued <= 0:
                problems.append(f"{where} {t} {p}: invoked {invoked}/s vs queued {queued}/s")
            limit = int(params_of({"params": p})["max_backlog"])
            for metric, low in (("peak_outstanding", 1), ("backlog_end", 0)):
                v = values.get((t, p, metric), -1)
                if not low <= v <= limit:
                    problems.append(f"{where} {t} {p}: {metric} {v} outside {low}..max_backlog")


def check_callrcu_memory(values: dict[tuple, float], where: str, problems: list[str]) -> None:
    """callrcu_memory: mean <= max <= max_backlog, bytes = outstanding x object_bytes."""
    for t, p, m in values:
        if t != "callrcu_memory" or m != "outstanding_max":
            continue
        limit = int(params_of({"params": p})["max_backlog"])
        peak, mean = values[(t, p, m)], values.get((t, p, "outstanding_mean"), -1)
        size = values.get((t, p, "object_bytes"), 0)
        if not 0 <= mean <= peak + 1 or peak > limit:
            problems.append(f"{where} {t} {p}: outstanding mean {mean}, max {peak}, limit {limit}")
        if size <= 0 or values.get((t, p, "bytes_max")) != peak * size:
            problems.append(f"{where} {t} {p}: bytes_max is not outstanding_max x object_bytes")


def check_latency(values: dict[tuple, float], where: str, problems: list[str]) -> None:
    """latency: p25 <= median <= p75 <= p99 <= max."""
    for t, p, m in values:
        if t == "latency" and m == "wakeup_p25_ns":
            order = [values.get((t, p, q), -1) for q in ("wakeup_p25_ns", "wakeup_median_ns",
                                                          "wakeup_p75_ns", "wakeup_p99_ns",
                                                          "wakeup_max_ns")]
            if order != sorted(order):
                problems.append(f"{where} latency {p}: percentiles out of order {order}")


def check_duplicates(rows: list[dict[str, str]], problems: list[str]) -> None:
    keys = Counter((r["kernel"], r["vcpus"], r["test"], r["repeat"], r["params"], r["metric"])
                   for r in rows)
    for key, n in keys.items():
        if n > 1:
            problems.append(f"duplicate row x{n}: {key}")


def check_stats_monotone(raw: Path, problems: list[str]) -> int:
    """Every debugfs counter must not decrease across a gp test; returns files checked."""
    checked = 0
    for before in raw.glob("*/results/stats-before-*.txt"):
        after = before.with_name(before.name.replace("before", "after"))
        if not after.exists():  # The gp test failed in between.
            continue
        b = dict(line.split()[:2] for line in before.read_text().splitlines() if len(line.split()) >= 2)
        a = dict(line.split()[:2] for line in after.read_text().splitlines() if len(line.split()) >= 2)
        for name, value in b.items():
            try:
                if float(a.get(name, value)) < float(value):
                    problems.append(f"{after}: counter {name} went down {value} -> {a[name]}")
            except ValueError:
                continue
        checked += bool(b)
    return checked


def check_boots(sweep: Path, rows: list[dict[str, str]], problems: list[str]) -> int:
    """csv/boots.csv: BOOTS_COLUMNS, one row per booted (kernel, vcpus, repeat)
    of results.csv, distinct order positions, overcommitted = vcpus >= host_cpus,
    flagged per LOAD_FLAG.  Returns the rows checked."""
    path = sweep / BOOTS_CSV
    if not path.exists():
        problems.append(f"no {BOOTS_CSV}")
        return 0
    try:
        boots = [cells for _, cells in read_table(path, conf_get("BOOTS_COLUMNS").split())]
    except ResultsError as err:
        problems.append(str(err))
        return 0
    flag = float(conf_get("LOAD_FLAG"))
    keys = Counter((b["kernel"], b["vcpus"], b["repeat"]) for b in boots)
    for key in {(r["kernel"], r["vcpus"], r["repeat"]) for r in rows if r["kernel"] != "host"}:
        if keys[key] != 1:
            problems.append(f"boots.csv has {keys[key]} rows for {key}")
    if len({b["order"] for b in boots}) != len(boots):
        problems.append("boots.csv: order positions repeat")
    for b in boots:
        where = f"boots.csv {b['kernel']}/{b['vcpus']}/r{b['repeat']}"
        if b["overcommitted"] != str(int(int(b["vcpus"]) >= int(b["host_cpus"]))):
            problems.append(f"{where}: overcommitted {b['overcommitted']}")
        loaded = max(float(b["other_cpus_before"]), float(b["other_cpus_during"] or 0)) > flag
        if b["flagged"] != str(int(loaded)):
            problems.append(f"{where}: flagged {b['flagged']} does not follow LOAD_FLAG {flag}")
        if b["pinned"] not in ("0", "1"):
            problems.append(f"{where}: pinned {b['pinned']}")
    return len(boots)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", type=Path, help="reports/<stamp> directory")
    parser.add_argument("--allow-failed", action="store_true", help="failed cells are not problems")
    args = parser.parse_args()
    problems: list[str] = []
    rows = check_form(args.sweep / RESULTS_CSV, problems)
    schema = conf_get("CSV_SCHEMA_VERSION")
    for r in rows:
        check_row(r, schema, problems)
        if r["status"] != "ok" and not args.allow_failed:
            problems.append(f"failed cell {r['kernel']}/{r['vcpus']}/{r['test']}: {r['status']}")
    check_duplicates(rows, problems)
    for (k, v, rep), values in by_cell(rows).items():
        check_gp(values, f"{k}/{v}/r{rep}", problems)
        check_callrcu(values, f"{k}/{v}/r{rep}", problems)
        check_callrcu_memory(values, f"{k}/{v}/r{rep}", problems)
        check_latency(values, f"{k}/{v}/r{rep}", problems)
    stats = check_stats_monotone(args.sweep / "raw", problems)
    nboots = check_boots(args.sweep, rows, problems)
    try:
        meta = read_metadata(args.sweep)
    except ResultsError as err:
        problems.append(str(err))
        meta = {}
    for key in ("commit", "accel", "host", "kernel_config_sha256", "parameters", "schema_version",
                "seed", "host_cpus"):
        if key not in meta:
            problems.append(f"metadata.json lacks {key}")
    for p in problems:
        print(f"problem: {p}")
    print(f"{len(rows)} rows checked, {nboots} boots, {stats} debugfs snapshots, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
